//! The report, the workspace's main job: every primitive and algorithm on generated data,
//! checked against the CPU reference, timed with CUDA events, compared with a device-to-device
//! copy of the same bytes, with rayon and (with `--peers`) with PyTorch and CuPy.
//!
//! ```text
//! cargo run --release -p gpu-prims-benches --features cuda --bin report -- \
//!     [--sizes 20,24,28] [--types i32,f32] [--quick] [--out DIR] [--peers peers.json]
//! ```
//! See `report --help` and docs/report.md.

use std::process::ExitCode;

use gpu_prims_benches::first_call;
use gpu_prims_benches::report::{self, config::USAGE, Config};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(first_call::CHILD_FLAG) {
        let case = args.get(1).map_or("", String::as_str);
        return ExitCode::from(first_call::child(case) as u8);
    }
    let cfg = match Config::from_args(std::env::args().skip(1)) {
        Ok(c) => c,
        Err(e) if e.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("report: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match report::run(cfg) {
        Ok((_, true)) => ExitCode::SUCCESS,
        Ok((rows, false)) => {
            let bad: Vec<String> = rows
                .iter()
                .filter(|r| r.correct == Some(false))
                .map(|r| {
                    format!(
                        "  {} {} {} {} {}: {}",
                        r.primitive,
                        r.algorithm,
                        r.variant,
                        r.dtype,
                        gpu_prims_benches::size_label(r.n),
                        r.note
                    )
                })
                .collect();
            eprintln!(
                "report: {} result(s) wrong or failed:\n{}",
                bad.len(),
                bad.join("\n")
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("report: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}
