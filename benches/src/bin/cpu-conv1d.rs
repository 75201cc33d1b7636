//! gpu-conv1d's CPU paths by mask width and output length: the direct sums, the FFT path and
//! `Auto` (`cpu::apply_auto`), serial and on rayon's pool, `same` correlation, zero boundary.
//! Wall-clock medians (`--reps`, default 5, after one warm-up). Prints one tab-separated line
//! per row: type, threads, outputs, width, direct ms, FFT ms, auto ms, the path `Auto` took,
//! and auto against the faster of the two. The figures behind `cpu::auto_uses_fft`'s cost
//! model (docs/conv1d.md, "The CPU versions"); run it on the host that will use the CPU paths.
//!
//! ```text
//! cargo run --release -p gpu-prims-benches --bin cpu-conv1d -- [--types f32,f64,f16,bf16]
//!     [--log2 10,14,18,20] [--widths 15,31,63,95,127,191,255,511,1023] [--reps 5] [--serial-only]
//! ```

use gpu_conv1d::{cpu, Boundary, Mode, Operation, Real};
use gpu_prims_benches::stats::time_cpu;

fn list<T: std::str::FromStr>(args: &[String], name: &str, default: &str) -> Vec<T> {
    let v = args
        .iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |s| s.as_str());
    v.split(',').filter_map(|s| s.trim().parse().ok()).collect()
}

fn rows<T: Real>(log2s: &[u32], widths: &[usize], reps: usize, parallel: bool) {
    let threads = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    for &k in log2s {
        let n = 1usize << k;
        let x: Vec<T> = (0..n)
            .map(|i| T::from_f64(((i * 7919) % 1000) as f64 / 500.0 - 1.0))
            .collect();
        for &w in widths {
            let m: Vec<T> = (0..w).map(|j| T::from_f64(1.0 / (1 + j) as f64)).collect();
            let op = Operation::Correlation;
            let (mode, b) = (Mode::Same, Boundary::Zero);
            // The direct sums take long at large n·w: fewer repetitions there.
            let r = if n * w > 1 << 28 { 1 } else { reps };
            let (direct, _) = time_cpu(1, r, || cpu::apply(op, &x, &m, mode, b, parallel));
            let (fft, _) = time_cpu(1, r, || cpu::apply_fft(op, &x, &m, mode, b, parallel));
            let (auto, _) = time_cpu(1, r, || cpu::apply_auto(op, &x, &m, mode, b, parallel));
            let path = if cpu::auto_uses_fft::<T>(n, w, parallel) {
                "fft"
            } else {
                "direct"
            };
            let best = direct.median_ms.min(fft.median_ms);
            println!(
                "{}\t{threads}\t{n}\t{w}\t{:.3}\t{:.3}\t{:.3}\t{path}\t{:.2}",
                T::NAME,
                direct.median_ms,
                fft.median_ms,
                auto.median_ms,
                auto.median_ms / best
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let types: Vec<String> = list(&args, "--types", "f32,f64,f16,bf16");
    let log2s: Vec<u32> = list(&args, "--log2", "10,14,18,20");
    let widths: Vec<usize> = list(&args, "--widths", "15,31,63,95,127,191,255,511,1023");
    let reps = list::<usize>(&args, "--reps", "5")
        .first()
        .copied()
        .unwrap_or(5);
    let modes: &[bool] = if args.iter().any(|a| a == "--serial-only") {
        &[false]
    } else {
        &[false, true]
    };
    println!("type\tthreads\toutputs\twidth\tdirect_ms\tfft_ms\tauto_ms\tauto_path\tauto_vs_best");
    for &parallel in modes {
        for t in &types {
            match t.as_str() {
                "f32" => rows::<f32>(&log2s, &widths, reps, parallel),
                "f64" => rows::<f64>(&log2s, &widths, reps, parallel),
                "f16" => rows::<gpu_core::f16>(&log2s, &widths, reps, parallel),
                "bf16" => rows::<gpu_core::bf16>(&log2s, &widths, reps, parallel),
                other => eprintln!("cpu-conv1d: unknown type {other}"),
            }
        }
    }
}
