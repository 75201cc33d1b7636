//! The report's plots: bandwidth against size per primitive, the scan block-size sweep, conv1d
//! strategies against mask width.

use std::collections::BTreeMap;

use super::peers::Peers;
use super::Row;
use crate::svg::{Chart, Series, XAxis};

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

fn n_tag(n: usize) -> String {
    if n.is_power_of_two() {
        format!("n{}", n.trailing_zeros())
    } else {
        format!("n{n}")
    }
}

/// Peer bandwidth points for the rows of one chart: library → (x, GB/s or fraction).
fn peer_series(rows: &[&Row], x_of: impl Fn(&Row) -> f64, fraction: bool) -> Vec<Series> {
    let mut by_lib: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for r in rows {
        for p in &r.peers {
            let Some(ms) = p.ms else { continue };
            let x = x_of(r);
            if !seen.insert((p.library.clone(), x.to_bits())) {
                continue;
            }
            let y = if fraction {
                match p.copy_fraction {
                    Some(f) => f,
                    None => continue,
                }
            } else {
                r.bytes as f64 / (ms * 1e-3) / 1e9
            };
            by_lib.entry(p.library.clone()).or_default().push((x, y));
        }
    }
    by_lib
        .into_iter()
        .map(|(lib, pts)| Series::dashed(format!("{lib} (peer)"), pts))
        .collect()
}

fn copy_series(rows: &[&Row], x_of: impl Fn(&Row) -> f64) -> Option<Series> {
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for r in rows {
        if let Some(g) = r.copy_gbps() {
            let x = x_of(r);
            if !pts.iter().any(|p| p.0 == x) {
                pts.push((x, g));
            }
        }
    }
    (!pts.is_empty()).then(|| Series::dashed("device copy (read+write)", pts))
}

/// Every plot: (file name, SVG).
pub fn all(rows: &[Row], _peers: Option<&Peers>) -> Vec<(String, String)> {
    let gpu: Vec<&Row> = rows
        .iter()
        .filter(|r| r.kind == "gpu" && r.gbps().is_some())
        .collect();
    let mut out = Vec::new();

    // 1. Bandwidth against size: one chart per (primitive, type, variant, parameter).
    let mut charts: BTreeMap<(String, String, String, String), Vec<&Row>> = BTreeMap::new();
    for r in &gpu {
        if matches!(&r.param, Some((k, _)) if k == "block") {
            continue;
        }
        let variant = if r.primitive == "core" {
            String::new()
        } else {
            r.variant.clone()
        };
        let param = r
            .param
            .as_ref()
            .map_or_else(String::new, |(k, v)| format!("{k}={v}"));
        charts
            .entry((r.primitive.clone(), r.dtype.clone(), variant, param))
            .or_default()
            .push(r);
    }
    for ((prim, dtype, variant, param), rs) in charts {
        let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for r in &rs {
            let name = if prim == "core" {
                format!("{} ({})", r.algorithm, r.variant)
            } else {
                r.algorithm.clone()
            };
            lines
                .entry(name)
                .or_default()
                .push((r.n as f64, r.gbps().unwrap_or(f64::NAN)));
        }
        let mut series: Vec<Series> = lines.into_iter().map(|(k, v)| Series::new(k, v)).collect();
        if prim != "core" {
            series.extend(copy_series(&rs, |r| r.n as f64));
        }
        series.extend(peer_series(&rs, |r| r.n as f64, false));
        let title = [
            prim.as_str(),
            variant.as_str(),
            param.as_str(),
            dtype.as_str(),
        ]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
        let chart = Chart {
            title: format!("{title}: bandwidth against size"),
            x_label: "n (elements)".into(),
            y_label: "GB/s (bytes moved by the model / time)".into(),
            x_axis: XAxis::Log2Pow,
            series,
        };
        let name = format!(
            "bandwidth_{}.svg",
            slug(&format!("{prim} {variant} {param} {dtype}"))
        );
        out.push((name, chart.to_svg()));
    }

    // 2. The scan block-size sweep.
    let sweep: Vec<&Row> = gpu
        .iter()
        .copied()
        .filter(|r| matches!(&r.param, Some((k, _)) if k == "block"))
        .collect();
    let mut sweeps: BTreeMap<(String, String, usize), Vec<&Row>> = BTreeMap::new();
    for r in &sweep {
        sweeps
            .entry((r.primitive.clone(), r.dtype.clone(), r.n))
            .or_default()
            .push(r);
    }
    for ((prim, dtype, n), rs) in sweeps {
        let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for r in &rs {
            let b = r.param.as_ref().map_or(0, |p| p.1) as f64;
            lines
                .entry(format!("{} ({})", r.algorithm, r.variant))
                .or_default()
                .push((b, r.gbps().unwrap_or(f64::NAN)));
        }
        let mut series: Vec<Series> = lines.into_iter().map(|(k, v)| Series::new(k, v)).collect();
        if let Some(g) = rs.iter().find_map(|r| r.copy_gbps()) {
            let xs: Vec<f64> = rs
                .iter()
                .map(|r| r.param.as_ref().map_or(0, |p| p.1) as f64)
                .collect();
            let (lo, hi) = xs
                .iter()
                .fold((f64::INFINITY, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
            series.push(Series::dashed(
                "device copy (read+write)",
                vec![(lo, g), (hi, g)],
            ));
        }
        let chart = Chart {
            title: format!(
                "{prim} block-size sweep, {dtype}, n = {}",
                crate::size_label(n)
            ),
            x_label: "threads per block".into(),
            y_label: "GB/s (2·n·size / time)".into(),
            x_axis: XAxis::Log2Values,
            series,
        };
        out.push((
            format!("{}_block_sweep_{}_{}.svg", slug(&prim), dtype, n_tag(n)),
            chart.to_svg(),
        ));
    }

    // 3. conv1d strategies against mask width, one chart per (type, size).
    let mut conv: BTreeMap<(String, usize, String), Vec<&Row>> = BTreeMap::new();
    for r in &gpu {
        if r.primitive == "conv1d" && matches!(&r.param, Some((k, _)) if k == "w") {
            conv.entry((r.dtype.clone(), r.n, r.variant.clone()))
                .or_default()
                .push(r);
        }
    }
    for ((dtype, n, variant), rs) in conv {
        let w_of = |r: &Row| r.param.as_ref().map_or(0, |p| p.1) as f64;
        let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for r in &rs {
            if let Some(f) = r.copy_fraction() {
                lines
                    .entry(r.algorithm.clone())
                    .or_default()
                    .push((w_of(r), f));
            }
        }
        let mut series: Vec<Series> = lines.into_iter().map(|(k, v)| Series::new(k, v)).collect();
        series.extend(peer_series(&rs, w_of, true));
        let chart = Chart {
            title: format!(
                "conv1d {variant} {dtype}, n = {}: strategies against mask width",
                crate::size_label(n)
            ),
            x_label: "mask width w".into(),
            y_label: "fraction of device-copy bandwidth".into(),
            x_axis: XAxis::Log2Values,
            series,
        };
        out.push((
            format!("conv1d_width_{}_{}_{}.svg", slug(&variant), dtype, n_tag(n)),
            chart.to_svg(),
        ));
    }
    out
}
