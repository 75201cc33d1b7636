//! The report's outputs: the table on stdout, report.md, report.json and the SVG plots.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};

use super::peers::{self, Peers};
use super::{plots, Env, Row};
use crate::{fmt_ms, size_label};

fn f2(v: Option<f64>) -> String {
    v.map_or_else(|| "—".into(), |x| format!("{x:.2}"))
}

fn gb(v: Option<f64>) -> String {
    v.map_or_else(
        || "—".into(),
        |x| {
            if x >= 100.0 {
                format!("{x:.0}")
            } else {
                format!("{x:.1}")
            }
        },
    )
}

fn times(v: Option<f64>) -> String {
    v.map_or_else(
        || "—".into(),
        |x| {
            if x >= 100.0 {
                format!("{x:.0}×")
            } else {
                format!("{x:.2}×")
            }
        },
    )
}

fn ok_cell(r: &Row) -> &'static str {
    match (r.kind.as_str(), r.correct) {
        ("absent", _) => "absent",
        (_, Some(true)) => "yes",
        (_, Some(false)) => "NO",
        (_, None) => "—",
    }
}

/// Column headers and cells of the table; `libs` are the peer libraries shown.
pub fn table(rows: &[Row], libs: &[String]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut head: Vec<String> = [
        "primitive",
        "algorithm",
        "variant",
        "type",
        "n",
        "param",
        "time",
        "GB/s",
        "×copy",
        "×rayon",
        "ok",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for l in libs {
        head.push(format!("{l} ×copy"));
        head.push(format!("vs {l}"));
    }
    head.push("note".into());
    let body = rows
        .iter()
        .map(|r| {
            let mut c = vec![
                r.primitive.clone(),
                r.algorithm.clone(),
                r.variant.clone(),
                r.dtype.clone(),
                size_label(r.n),
                r.param
                    .as_ref()
                    .map_or_else(String::new, |(k, v)| format!("{k}={v}")),
                r.ms().map_or_else(|| "—".into(), fmt_ms),
                gb(r.gbps()),
                f2(r.copy_fraction()),
                times(r.speedup()),
                ok_cell(r).into(),
            ];
            for l in libs {
                match r.peers.iter().find(|p| &p.library == l) {
                    Some(p) if p.ms.is_some() => {
                        c.push(f2(p.copy_fraction));
                        c.push(times(p.ms.zip(r.ms()).map(|(t, o)| t / o)));
                    }
                    Some(_) => {
                        c.push("absent".into());
                        c.push("—".into());
                    }
                    None => {
                        c.push(String::new());
                        c.push(String::new());
                    }
                }
            }
            c.push(r.note.clone());
            c
        })
        .collect();
    (head, body)
}

/// The table aligned for a terminal (notes cut to 70 characters).
pub fn text_table(rows: &[Row], libs: &[String]) -> String {
    let (head, mut body) = table(rows, libs);
    for c in &mut body {
        if let Some(note) = c.last_mut() {
            if note.chars().count() > 70 {
                *note = note.chars().take(69).collect::<String>() + "…";
            }
        }
    }
    let cols = head.len();
    let mut width = vec![0usize; cols];
    for r in std::iter::once(&head).chain(body.iter()) {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let numeric = |i: usize| (6..10).contains(&i) || (i >= 11 && i < cols - 1);
    let line = |r: &Vec<String>| {
        let mut s = String::new();
        for (i, (c, w)) in r.iter().zip(&width).enumerate() {
            let pad = w - c.chars().count();
            if numeric(i) {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                if i + 1 < cols {
                    s.push_str(&" ".repeat(pad));
                }
            }
            if i + 1 < cols {
                s.push_str("  ");
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&head);
    out.push_str(&"-".repeat(width.iter().sum::<usize>() + 2 * (cols - 1)));
    out.push('\n');
    for r in &body {
        out.push_str(&line(r));
    }
    out
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The table as Markdown.
pub fn markdown_table(rows: &[Row], libs: &[String]) -> String {
    let (head, body) = table(rows, libs);
    let mut s = String::new();
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let _ = writeln!(
        s,
        "|{}",
        head.iter()
            .enumerate()
            .map(|(i, _)| if (4..10).contains(&i) {
                "---:|"
            } else {
                "---|"
            })
            .collect::<String>()
    );
    for r in body {
        let cells: Vec<String> = r.iter().map(|c| md_escape(c)).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s
}

/// Counts of (correct, wrong, unchecked, absent) rows.
pub fn summary(rows: &[Row]) -> (usize, usize, usize, usize) {
    let absent = rows.iter().filter(|r| r.kind == "absent").count();
    let ok = rows.iter().filter(|r| r.correct == Some(true)).count();
    let bad = rows.iter().filter(|r| r.correct == Some(false)).count();
    (ok, bad, rows.len() - ok - bad - absent, absent)
}

/// `YYYY-MM-DD HH:MM UTC` from the system clock.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

fn row_json(r: &Row) -> Value {
    json!({
        "primitive": r.primitive,
        "algorithm": r.algorithm,
        "variant": r.variant,
        "dtype": r.dtype,
        "n": r.n,
        "param_name": r.param.as_ref().map(|p| p.0.clone()),
        "param": r.param.as_ref().map(|p| p.1),
        "kind": r.kind,
        "bytes": r.bytes,
        "ms": r.ms(),
        "ms_min": r.time.map(|t| t.min_ms),
        "ms_max": r.time.map(|t| t.max_ms),
        "samples": r.time.map(|t| t.samples),
        "gbps": r.gbps(),
        "copy_ms": r.copy.map(|c| c.median_ms),
        "copy_bytes": r.copy_bytes,
        "copy_gbps": r.copy_gbps(),
        "copy_fraction": r.copy_fraction(),
        "rayon_ms": r.rayon_ms,
        "speedup_vs_rayon": r.speedup(),
        "correct": r.correct,
        "note": r.note,
        "peers": r.peers.iter().map(|p| json!({
            "library": p.library,
            "ms": p.ms,
            "copy_fraction": p.copy_fraction,
            "ours_speedup": p.ms.zip(r.ms()).map(|(t, o)| t / o),
            "note": p.note,
        })).collect::<Vec<_>>(),
    })
}

/// The whole report as JSON.
pub fn to_json(env: &Env, rows: &[Row], peers: Option<&Peers>, plots: &[String]) -> Value {
    let (ok, bad, unchecked, absent) = summary(rows);
    #[cfg(feature = "cuda")]
    let copies: Vec<Value> = env
        .copies
        .all()
        .into_iter()
        .map(|(b, s)| json!({"array_bytes": b, "ms": s.median_ms, "gbps": s.gbps(2 * b as u64)}))
        .collect();
    #[cfg(not(feature = "cuda"))]
    let copies: Vec<Value> = Vec::new();
    let c = &env.cfg;
    json!({
        "schema": "gpu-prims-report/1",
        "created": utc_now(),
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "device": env.device,
        "gpu_absent": env.gpu_absent,
        "config": {
            "sizes": c.sizes, "types": c.types.iter().map(|d| d.name()).collect::<Vec<_>>(),
            "quick": c.quick, "only": c.only, "widths": c.widths, "sweep_n": c.sweep_n,
            "sweep_blocks": c.sweep_blocks, "gpu_reps": c.gpu_reps, "gpu_warmup": c.gpu_warmup,
            "cpu_reps": c.cpu_reps, "seed": c.seed,
            "rayon_threads": rayon::current_num_threads(),
        },
        "notes": env.notes,
        "copies": copies,
        "peers": peers.map(|p| json!({
            "device": p.device,
            "libraries": p.libraries.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
        })),
        "summary": {"rows": rows.len(), "correct": ok, "wrong": bad, "unchecked": unchecked, "absent": absent},
        "plots": plots,
        "rows": rows.iter().map(row_json).collect::<Vec<_>>(),
    })
}

/// The whole report as Markdown.
pub fn to_markdown(env: &Env, rows: &[Row], peers: Option<&Peers>, plots: &[String]) -> String {
    let libs = peers
        .map(|p| peers::libraries(&p.results))
        .unwrap_or_default();
    let (ok, bad, unchecked, absent) = summary(rows);
    let mut s = String::new();
    let _ = writeln!(s, "# gpu-prims report\n");
    let _ = writeln!(s, "- created: {}", utc_now());
    let _ = writeln!(s, "- device: {}", env.device);
    let _ = writeln!(
        s,
        "- command: `{}`",
        std::env::args().collect::<Vec<_>>().join(" ")
    );
    let _ = writeln!(
        s,
        "- CPU baselines: rayon on {} threads",
        rayon::current_num_threads()
    );
    if let Some(p) = peers {
        let libs: Vec<String> = p
            .libraries
            .iter()
            .map(|(k, v)| format!("{k} {}", v.as_deref().unwrap_or("(absent)")))
            .collect();
        let _ = writeln!(s, "- peers: {} on {}", libs.join(", "), p.device);
    }
    let _ = writeln!(
        s,
        "- results: {} rows, {ok} correct, {bad} wrong, {unchecked} not checked, {absent} absent\n",
        rows.len()
    );
    if !env.notes.is_empty() {
        let _ = writeln!(s, "## Notes (absent, skipped, workloads)\n");
        for n in &env.notes {
            let _ = writeln!(s, "- {}", md_escape(n));
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "## Columns\n\n\
         time: median of the timed runs (GPU: CUDA events; CPU: wall clock). \
         GB/s: bytes moved by the model (reduce n·size, scan 2·n·size, conv1d 2·n·size, copy \
         2·n·size) over time. ×copy: GB/s over the GB/s of a device-to-device copy of the same \
         array (its read + write bytes), measured in the same run. ×rayon: rayon time over this \
         row's time (same run). ok: checked against the CPU reference. Peer columns: the peer's \
         own fraction of copy bandwidth (from its run) and `vs`: peer time over ours (> 1: ours \
         is faster).\n"
    );
    let mut prims: Vec<&str> = Vec::new();
    for r in rows {
        if !prims.contains(&r.primitive.as_str()) {
            prims.push(&r.primitive);
        }
    }
    for p in prims {
        let part: Vec<Row> = rows.iter().filter(|r| r.primitive == p).cloned().collect();
        let _ = writeln!(s, "## {p}\n");
        s.push_str(&markdown_table(&part, &libs));
        s.push('\n');
    }
    if !plots.is_empty() {
        let _ = writeln!(s, "## Plots\n");
        for p in plots {
            let _ = writeln!(s, "![{p}]({p})\n");
        }
    }
    s
}

/// Prints the table and writes report.md, report.json and the plots under `env.cfg.out`.
pub fn write_all(env: &Env, rows: &[Row], peers: Option<&Peers>) -> std::io::Result<()> {
    let out: &Path = &env.cfg.out;
    std::fs::create_dir_all(out)?;
    let libs = peers
        .map(|p| peers::libraries(&p.results))
        .unwrap_or_default();
    print!("{}", text_table(rows, &libs));
    let mut names = Vec::new();
    for (name, svg) in plots::all(rows, peers) {
        std::fs::write(out.join(&name), svg)?;
        names.push(name);
    }
    std::fs::write(out.join("report.md"), to_markdown(env, rows, peers, &names))?;
    let j = to_json(env, rows, peers, &names);
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(&j).unwrap_or_default() + "\n",
    )?;
    for n in &env.notes {
        println!("note: {n}");
    }
    let (ok, bad, unchecked, absent) = summary(rows);
    println!(
        "report: {} rows, {ok} correct, {bad} wrong, {unchecked} not checked, {absent} absent; wrote {}/report.md, report.json and {} plot(s)",
        rows.len(),
        out.display(),
        names.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PeerCell;
    use crate::stats::Stats;

    fn gpu_row(alg: &str, variant: &str, n: usize, param: Option<(&str, u64)>, ms: f64) -> Row {
        Row {
            primitive: if param.is_some_and(|p| p.0 == "w") {
                "conv1d"
            } else {
                "scan"
            }
            .into(),
            algorithm: alg.into(),
            variant: variant.into(),
            dtype: "f32".into(),
            n,
            param: param.map(|(k, v)| (k.to_string(), v)),
            kind: "gpu".into(),
            bytes: 8 * n as u64,
            time: Stats::from_ms(vec![ms]),
            copy: Stats::from_ms(vec![ms * 0.9]),
            copy_bytes: 8 * n as u64,
            rayon_ms: Some(ms * 30.0),
            correct: Some(true),
            note: "a | note".into(),
            peers: vec![
                PeerCell {
                    library: "torch".into(),
                    ms: Some(ms * 1.4),
                    copy_fraction: Some(0.7),
                    note: String::new(),
                },
                PeerCell {
                    library: "cupy".into(),
                    ms: None,
                    copy_fraction: None,
                    note: "absent: no cupy".into(),
                },
            ],
        }
    }

    #[test]
    fn tables_and_plots_render() {
        let mut rows = Vec::new();
        for k in [20, 24, 28] {
            rows.push(gpu_row(
                "auto",
                "inclusive sum",
                1 << k,
                None,
                0.01 * k as f64,
            ));
            rows.push(gpu_row(
                "blelloch",
                "inclusive sum",
                1 << k,
                None,
                0.02 * k as f64,
            ));
            for w in [3, 127] {
                rows.push(gpu_row("auto", "same, zero", 1 << k, Some(("w", w)), 0.1));
            }
        }
        for b in [32, 1024] {
            rows.push(gpu_row(
                "blelloch",
                "inclusive sum",
                1000,
                Some(("block", b)),
                0.5,
            ));
        }
        let libs = vec!["torch".to_string(), "cupy".to_string()];
        let text = text_table(&rows, &libs);
        assert!(
            text.contains("torch ×copy") && text.contains("vs cupy"),
            "{text}"
        );
        assert!(text.contains("1.40×") && text.contains("absent"));
        let md = markdown_table(&rows, &libs);
        assert!(md.contains("a \\| note"));
        assert_eq!(md.lines().count(), rows.len() + 2);
        let plots = crate::report::plots::all(&rows, None);
        let names: Vec<&str> = plots.iter().map(|(n, _)| n.as_str()).collect();
        assert!(
            names.contains(&"bandwidth_scan_inclusive_sum_f32.svg"),
            "{names:?}"
        );
        assert!(names.iter().any(|n| n.starts_with("scan_block_sweep_f32")));
        assert!(names
            .iter()
            .any(|n| n.starts_with("conv1d_width_same_zero_f32_n28")));
        assert!(plots.iter().all(|(_, s)| s.contains("<polyline")));
        assert_eq!(summary(&rows), (rows.len(), 0, 0, 0));
    }

    #[test]
    fn dates() {
        let d = utc_now();
        assert_eq!(d.len(), "2024-01-01 00:00 UTC".len(), "{d}");
        assert!(d.starts_with("20"));
    }
}
