//! gpu-conv1d's CPU paths by mask width and output length: the direct sums, the FFT path and
//! `Auto` (`cpu::apply_auto`), serial and on rayon's pool, `same` correlation, zero boundary.
//! Wall-clock medians (`--reps`, default 5, after one warm-up; 2 where `n·w` passes 2^28), the
//! three methods taking turns. Prints one tab-separated line
//! per row: type, threads, outputs, width, direct ms, FFT ms, auto ms, the path `Auto` took,
//! and auto against the faster of the two. The figures behind `cpu::auto_uses_fft`'s cost
//! model (docs/conv1d.md, "The CPU versions"); run it on the host that will use the CPU paths.
//!
//!
//! With `--axis SHAPES` (e.g. `--axis 64x4096,4096x64`) it times the N-D forms instead
//! (`cpu::apply_axis`, `apply_axis_fft`, `apply_axis_auto`) over C-order `rows × cols` arrays
//! along each axis (axis 0: `cols` strided lanes of `rows` values; axis 1: `rows` contiguous
//! lanes of `cols`), one line per shape, axis and width: type, threads, shape, axis, width,
//! direct ms, FFT ms, auto ms, the path `Auto` took ([`cpu::auto_uses_fft_rows`]), auto
//! against the faster of the two.
//!
//! ```text
//! cargo run --release -p gpu-prims-benches --bin cpu-conv1d -- [--types f32,f64,f16,bf16]
//!     [--log2 10,14,18,20] [--widths 15,31,63,95,127,191,255,511,1023] [--reps 5] [--serial-only]
//!     [--axis 64x4096,4096x64]
//! ```

use gpu_conv1d::{cpu, Boundary, Mode, Operation, Real};
use ndarray::{Array2, Axis};
use std::hint::black_box;
use std::time::Instant;

use gpu_prims_benches::stats::Stats;

fn list<T: std::str::FromStr>(args: &[String], name: &str, default: &str) -> Vec<T> {
    let v = args
        .iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |s| s.as_str());
    v.split(',').filter_map(|s| s.trim().parse().ok()).collect()
}

/// The three methods' medians over `reps` interleaved rounds after one warm-up (`runs` in the
/// order direct, FFT, auto), in ms.
fn interleaved<T>(reps: usize, runs: [&dyn Fn() -> gpu_core::Result<T>; 3]) -> [f64; 3] {
    let mut ms = [Vec::new(), Vec::new(), Vec::new()];
    for rep in 0..=reps {
        for (times, run) in ms.iter_mut().zip(runs) {
            let t = Instant::now();
            let out = black_box(run());
            if rep > 0 {
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            drop(out);
        }
    }
    ms.map(|v| Stats::from_ms(v).expect("timed").median_ms)
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
            // The three interleaved, rep by rep (this host's speed drifts); the direct sums
            // take long at large n·w: fewer repetitions there.
            let r = if n * w > 1 << 28 { 2 } else { reps };
            let [direct, fft, auto] = interleaved(
                r,
                [
                    &|| cpu::apply(op, &x, &m, mode, b, parallel),
                    &|| cpu::apply_fft(op, &x, &m, mode, b, parallel),
                    &|| cpu::apply_auto(op, &x, &m, mode, b, parallel),
                ],
            );
            let path = if cpu::auto_uses_fft::<T>(n, w, parallel) {
                "fft"
            } else {
                "direct"
            };
            println!(
                "{}\t{threads}\t{n}\t{w}\t{direct:.3}\t{fft:.3}\t{auto:.3}\t{path}\t{:.2}",
                T::NAME,
                auto / direct.min(fft)
            );
        }
    }
}

fn axes<T: Real>(shapes: &[(usize, usize)], widths: &[usize], reps: usize, parallel: bool) {
    let threads = if parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    for &(rows, cols) in shapes {
        let x = Array2::from_shape_fn((rows, cols), |(i, j)| {
            T::from_f64((((i * cols + j) * 7919) % 1000) as f64 / 500.0 - 1.0)
        });
        for axis in [0, 1] {
            let (lanes, n) = if axis == 0 {
                (cols, rows)
            } else {
                (rows, cols)
            };
            for &w in widths.iter().filter(|&&w| w <= n) {
                let m: Vec<T> = (0..w).map(|j| T::from_f64(1.0 / (1 + j) as f64)).collect();
                let (op, mode, b) = (Operation::Correlation, Mode::Same, Boundary::Zero);
                let r = if rows * cols * w > 1 << 28 { 2 } else { reps };
                let [direct, fft, auto] = interleaved(
                    r,
                    [
                        &|| cpu::apply_axis(op, x.view(), Axis(axis), &m, mode, b, parallel),
                        &|| cpu::apply_axis_fft(op, x.view(), Axis(axis), &m, mode, b, parallel),
                        &|| cpu::apply_axis_auto(op, x.view(), Axis(axis), &m, mode, b, parallel),
                    ],
                );
                let path = if cpu::auto_uses_fft_rows::<T>(lanes, n, w, parallel) {
                    "fft"
                } else {
                    "direct"
                };
                println!(
                    "{}\t{threads}\t{rows}x{cols}\t{axis}\t{w}\t{direct:.3}\t{fft:.3}\t{auto:.3}\t{path}\t{:.2}",
                    T::NAME,
                    auto / direct.min(fft)
                );
            }
        }
    }
}

/// One type's lines: the N-D forms over `shapes` where `--axis` gave any, else the 1-D rows.
fn one_type<T: Real>(
    shapes: &[(usize, usize)],
    log2s: &[u32],
    widths: &[usize],
    reps: usize,
    parallel: bool,
) {
    if shapes.is_empty() {
        rows::<T>(log2s, widths, reps, parallel)
    } else {
        axes::<T>(shapes, widths, reps, parallel)
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
    // Half a second of work first: the first rows otherwise run on a cold core (slower clocks).
    let x = vec![0.5f32; 1 << 20];
    let t = std::time::Instant::now();
    while t.elapsed().as_millis() < 500 {
        let _ = cpu::par_correlate(&x, &[0.25f32; 63], Mode::Same, Boundary::Zero);
    }
    let shapes: Vec<(usize, usize)> = list::<String>(&args, "--axis", "")
        .iter()
        .filter_map(|s| {
            let (r, c) = s.split_once('x')?;
            Some((r.parse().ok()?, c.parse().ok()?))
        })
        .collect();
    let column = if shapes.is_empty() {
        "outputs"
    } else {
        "shape\taxis"
    };
    println!("type\tthreads\t{column}\twidth\tdirect_ms\tfft_ms\tauto_ms\tauto_path\tauto_vs_best");
    for &parallel in modes {
        for t in &types {
            match t.as_str() {
                "f32" => one_type::<f32>(&shapes, &log2s, &widths, reps, parallel),
                "f64" => one_type::<f64>(&shapes, &log2s, &widths, reps, parallel),
                "f16" => one_type::<gpu_core::f16>(&shapes, &log2s, &widths, reps, parallel),
                "bf16" => one_type::<gpu_core::bf16>(&shapes, &log2s, &widths, reps, parallel),
                other => eprintln!("cpu-conv1d: unknown type {other}"),
            }
        }
    }
}
