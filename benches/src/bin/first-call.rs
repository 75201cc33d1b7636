//! First-call latency in fresh processes (`CUDA_CACHE_DISABLE=1`, cubins and PTX), and the
//! kernel bytes each crate embeds: see `gpu_prims_benches::first_call`.
//!
//! ```text
//! cargo run --release -p gpu-prims-benches --features cuda --bin first-call -- [--out DIR] [CASE...]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use gpu_prims_benches::first_call::{self, CASES, CHILD_FLAG};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(CHILD_FLAG) {
        let case = args.get(1).map_or("", String::as_str);
        return ExitCode::from(first_call::child(case) as u8);
    }
    let mut out: Option<PathBuf> = None;
    let mut cases: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!("first-call [--out DIR] [CASE...]; cases:");
                for (name, what) in CASES {
                    println!("  {name:14} {what}");
                }
                return ExitCode::SUCCESS;
            }
            case => match CASES.iter().find(|c| c.0 == case) {
                Some(c) => cases.push(c.0),
                None => {
                    eprintln!("first-call: unknown case `{case}` (see --help)");
                    return ExitCode::from(2);
                }
            },
        }
    }
    if cases.is_empty() {
        cases = CASES.iter().map(|c| c.0).collect();
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("first-call: cannot find this executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let device = gpu_prims_benches::device_name();
    // Rewritten after every child: a run cut short keeps its rows.
    let write = |rows: &[first_call::Measurement], errors: &[String]| -> std::io::Result<String> {
        let md = first_call::markdown(&device, rows, errors);
        if let Some(dir) = &out {
            let json = first_call::json(&device, rows, errors);
            std::fs::create_dir_all(dir)?;
            std::fs::write(dir.join("first-call.md"), &md)?;
            let text = serde_json::to_string_pretty(&json).unwrap_or_default();
            std::fs::write(dir.join("first-call.json"), text)?;
        }
        Ok(md)
    };
    let (rows, errors) = first_call::measure(&exe, &cases, |rows, errors| {
        if let Some(m) = rows.last() {
            eprintln!(
                "first-call: {} ({}): first {:.4} s",
                m.case, m.condition, m.first_s
            );
        }
        let _ = write(rows, errors); // reported below if the final write fails too
    });
    match write(&rows, &errors) {
        Ok(md) => print!("{md}"),
        Err(e) => {
            eprintln!("first-call: cannot write {:?}: {e}", out);
            return ExitCode::FAILURE;
        }
    }
    if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
