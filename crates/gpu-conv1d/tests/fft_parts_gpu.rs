//! The block FFT with the mask in parts (`Strategy::FftParts`) against the f64 reference: f32
//! and f64, masks from a few taps to past one span (up to 4·16384 for f32), every part count
//! that fits a few widths, every operation, mode and boundary at the tile edges, batches of
//! rows, non-finite inputs (the direct sums' results), and the bad arguments. Outputs are
//! poisoned with NaN before every run.
#![cfg(feature = "cuda")]

mod common;

use gpu_conv1d::{
    fft_max_size, fft_max_width, fft_part_width, fft_parts, fft_tile, Boundary, Conv1d, Mode,
    Operation, Options, Path, Real, Strategy, FFT_MAX_PARTS,
};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{f16, Gpu};

/// Runs `conv` on the rows of `x` (`rows` of them) into a NaN-poisoned output.
fn run_rows<T: Real>(gpu: &Gpu, conv: &Conv1d<T>, x: &[T], rows: usize) -> Vec<T> {
    let n = x.len().checked_div(rows).unwrap_or(0);
    let n_out = conv.output_len(n).unwrap();
    let xs = gpu.upload(x).unwrap();
    let mut y = gpu.alloc::<T>(rows * n_out).unwrap();
    y.fill(T::from_f64(f64::NAN), gpu.stream()).unwrap();
    conv.run_rows_into(&xs, rows, &mut y).unwrap();
    y.to_vec().unwrap()
}

/// The parts a run of `conv` (strategy `FftParts { parts }`) takes, from its path.
fn parts_of<T: Real>(conv: &Conv1d<T>, n: usize) -> usize {
    match conv.path(n).unwrap() {
        Path::FftEvenOddParts { size, parts } => {
            assert_eq!(size as usize, fft_max_size::<T>());
            parts as usize
        }
        p => panic!("Strategy::FftParts ran {p:?}"),
    }
}

/// Every case of `widths` × part counts × operation × mode × boundary (all boundaries for the
/// first width, zero and wrap after) at lengths around the tiles, one row and three.
fn cases<T: Real>(gpu: &Gpu, widths: &[(usize, &[u32])]) -> usize {
    let size = fft_max_size::<T>();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (i, &(w, part_counts)) in widths.iter().enumerate() {
        let mask = common::data::<T>(w, 9000 + w as u64);
        for &asked in part_counts {
            for op in [Operation::Correlation, Operation::Convolution] {
                for mode in Mode::ALL {
                    for boundary in Boundary::ALL {
                        if i > 0 && !matches!(boundary, Boundary::Zero | Boundary::Wrap) {
                            continue;
                        }
                        let options = Options::new()
                            .mode(mode)
                            .boundary(boundary)
                            .strategy(Strategy::FftParts { parts: asked });
                        let conv = Conv1d::new(gpu, op, &mask, options).unwrap();
                        let m = op.effective_mask(&mask).unwrap();
                        let parts = parts_of(&conv, 1 << 20);
                        let tile = fft_tile(size, fft_part_width(w, parts));
                        let mut lengths = vec![0, 1, 33, tile + 1, 3 * tile - 1, w + 2 * tile + 7];
                        lengths.retain(|&n| n <= 1 << 19);
                        for n in lengths {
                            if mode == Mode::Valid && n < w && n > 0 {
                                continue;
                            }
                            for rows in [1usize, 3] {
                                let rows = if n == 0 { 0 } else { rows };
                                let x = common::data::<T>(rows * n, (n * 31 + w + rows) as u64);
                                let y = run_rows(gpu, &conv, &x, rows);
                                runs += 1;
                                let n_out = conv.output_len(n).unwrap();
                                for r in 0..rows {
                                    let got = &y[r * n_out..(r + 1) * n_out];
                                    let xr = &x[r * n..(r + 1) * n];
                                    if let Err(e) = common::check_fft_parts(
                                        got, xr, &m, mode, boundary, size, parts, 1500,
                                    ) {
                                        failures.push(format!(
                                            "{} {op:?} {mode:?} {boundary:?} w {w} parts {asked} \
                                             ({parts}) n {n} row {r}/{rows}: {e}",
                                            T::NAME
                                        ));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    runs
}

#[test]
fn gpu_fft_parts_f32() {
    let Some(gpu) = gpu_or_skip() else { return };
    let max = fft_max_width::<f32>();
    let runs = cases::<f32>(
        &gpu,
        &[
            (7, &[1, 2]),
            (4095, &[1, 2, 5]),
            (max + 1, &[0, 2]),
            (40_000, &[0, 3]),
            (65_535, &[0]),
        ],
    );
    eprintln!("f32: {runs} runs");
}

#[test]
fn gpu_fft_parts_f64() {
    let Some(gpu) = gpu_or_skip() else { return };
    let max = fft_max_width::<f64>();
    let runs = cases::<f64>(
        &gpu,
        &[
            (7, &[1, 2]),
            (2047, &[1, 2, 4]),
            (max + 1, &[0, 2]),
            (16_383, &[0, 2, 3]),
            (30_000, &[0]),
        ],
    );
    eprintln!("f64: {runs} runs");
}

/// A NaN or infinity in a tile's parts' spans: the tile takes the direct sums, so every
/// non-finite output is the basic kernel's bit for bit, and the others within the tolerance.
#[test]
fn gpu_fft_parts_non_finite_inputs() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu, w: usize) {
        let n = 200_000;
        let mut x = common::data::<T>(n, 3);
        x[1000] = T::from_f64(f64::NAN);
        x[n / 2] = T::from_f64(f64::INFINITY);
        x[n - 5] = T::from_f64(f64::NEG_INFINITY);
        let mask = common::data::<T>(w, 4);
        let options = Options::new();
        let parts = Conv1d::correlation(
            gpu,
            &mask,
            options.strategy(Strategy::FftParts { parts: 0 }),
        )
        .unwrap();
        let basic = Conv1d::correlation(gpu, &mask, options.strategy(Strategy::Basic)).unwrap();
        let got = parts.run(&x).unwrap();
        let want = basic.run(&x).unwrap();
        let mut non_finite = 0;
        for (o, (g, b)) in got.iter().zip(&want).enumerate() {
            let (g, b) = (g.to_f64(), b.to_f64());
            if !b.is_finite() || !g.is_finite() {
                non_finite += 1;
                assert!(
                    g.to_bits() == b.to_bits() || (g.is_nan() && b.is_nan()),
                    "{} w {w}: output {o}: parts {g:e}, basic {b:e}",
                    T::NAME
                );
            } else {
                assert!(
                    (g - b).abs() <= 1e-3 * (1.0 + b.abs()),
                    "{} w {w}: output {o}: parts {g:e}, basic {b:e}",
                    T::NAME
                );
            }
        }
        assert!(non_finite > 0, "{} w {w}: no non-finite output", T::NAME);
    }
    case::<f32>(&gpu, fft_max_width::<f32>() + 100);
    case::<f64>(&gpu, 16_383);
}

/// `Auto` takes the parts between the device's `conv1d.fft_parts_from*` and `_to*` (and past
/// `_to` where libcufft does not load), and its results are the parts' own.
#[test]
fn gpu_fft_parts_auto() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu, from: &str, to: &str) {
        let (from, to) = (gpu.tuned(from) as usize, gpu.tuned(to) as usize);
        let n = 300_001;
        for w in [from, (from + to) / 2, to] {
            let Some(parts) = fft_parts::<T>(w) else {
                continue;
            };
            let mask = common::data::<T>(w, 70 + w as u64);
            let x = common::data::<T>(n, 71);
            let auto = Conv1d::correlation(gpu, &mask, Options::new()).unwrap();
            let want = Path::FftEvenOddParts {
                size: fft_max_size::<T>() as u32,
                parts: parts as u32,
            };
            assert_eq!(auto.path(n).unwrap(), want, "{} w {w}", T::NAME);
            let explicit = Options::new().strategy(Strategy::FftParts { parts: 0 });
            let explicit = Conv1d::correlation(gpu, &mask, explicit).unwrap();
            let got = run_rows(gpu, &auto, &x, 1);
            let again = run_rows(gpu, &explicit, &x, 1);
            assert!(
                got.iter()
                    .zip(&again)
                    .all(|(a, b)| a.to_f64().to_bits() == b.to_f64().to_bits()),
                "{} w {w}: Auto's bits differ from Strategy::FftParts'",
                T::NAME
            );
            common::check_fft_parts(
                &got,
                &x,
                &mask,
                Mode::Same,
                Boundary::Zero,
                fft_max_size::<T>(),
                parts,
                2000,
            )
            .unwrap_or_else(|e| panic!("{} w {w}: {e}", T::NAME));
        }
        // Past `_to`: cuFFT where libcufft loads, the parts where it does not.
        let past = to + 1;
        let mask = common::data::<T>(past, 72);
        let path = Conv1d::correlation(gpu, &mask, Options::new())
            .unwrap()
            .path(n)
            .unwrap();
        match (gpu_conv1d::cufft_available(), fft_parts::<T>(past)) {
            (true, _) => assert!(matches!(path, Path::CuFft { .. }), "{path:?}"),
            (false, Some(_)) => assert!(matches!(path, Path::FftEvenOddParts { .. }), "{path:?}"),
            (false, None) => {}
        }
    }
    case::<f32>(&gpu, "conv1d.fft_parts_from", "conv1d.fft_parts_to");
    case::<f64>(&gpu, "conv1d.fft_parts_from_f64", "conv1d.fft_parts_to_f64");
}

/// The parts' accuracy beside the direct sums' and cuFFT's (where libcufft loads): the largest
/// `|y − y64| / (‖x window‖₂·‖m‖₂)` over 3000 outputs of a 2^18 signal, on random data, a wide
/// dynamic range and spikes (as `gpu_fft_accuracy` for the one span), printed; the parts'
/// results also within their bound.
#[test]
fn gpu_fft_parts_accuracy() {
    use rayon::prelude::*;
    let Some(gpu) = gpu_or_skip() else { return };
    fn measure<T: Real>(gpu: &Gpu, x: &[T], mask: &[T], strategy: Strategy) -> (f64, Vec<T>) {
        let conv = Conv1d::correlation(gpu, mask, Options::new().strategy(strategy)).unwrap();
        let y = conv.run(x).unwrap();
        let w = mask.len();
        let off = Mode::Same.offset(w);
        let m2 = mask.iter().map(|v| v.to_f64().powi(2)).sum::<f64>().sqrt();
        let worst = common::sample(y.len(), 3000)
            .par_iter()
            .map(|&o| {
                let (r, _) = gpu_conv1d::cpu::reference_at(x, mask, o as i64 + off, Boundary::Zero);
                let win = (0..w as i64)
                    .filter_map(|j| Boundary::Zero.index(o as i64 + off + j, x.len()))
                    .map(|i| x[i].to_f64().powi(2))
                    .sum::<f64>()
                    .sqrt();
                if win > 0.0 {
                    (y[o].to_f64() - r).abs() / (win * m2)
                } else {
                    0.0
                }
            })
            .reduce(|| 0.0, f64::max);
        (worst, y)
    }
    fn all<T: Real>(gpu: &Gpu, widths: &[usize]) {
        let n = 1 << 18;
        let spikes: Vec<T> = common::data::<T>(n, 79)
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                T::from_f64(if i % 5000 == 0 {
                    1e3
                } else {
                    v.to_f64() * 1e-3
                })
            })
            .collect();
        let data = [
            ("random", common::data::<T>(n, 77), (0, 0)),
            ("wide range", common::spread::<T>(n, 78, -40, 40), (-8, 8)),
            ("spikes", spikes, (0, 0)),
        ];
        for (name, x, (mlo, mhi)) in &data {
            for &w in widths {
                let mask = common::spread::<T>(w, 90 + w as u64, *mlo, *mhi);
                let parts = fft_parts::<T>(w).unwrap();
                let (err, y) = measure(gpu, x, &mask, Strategy::FftParts { parts: 0 });
                let (direct, _) = measure(gpu, x, &mask, Strategy::RegisterTiled);
                let cufft = if gpu_conv1d::cufft_available() {
                    format!(
                        "{:.2e}",
                        measure(gpu, x, &mask, Strategy::Fft { size: 1 << 20 }).0
                    )
                } else {
                    "– (no libcufft)".into()
                };
                println!(
                    "parts accuracy {} {name} w={w} parts={parts}: max |y − y64| / (‖x window‖·‖m‖) \
                     parts {err:.2e}, direct {direct:.2e}, cuFFT {cufft}",
                    T::NAME
                );
                common::check_fft_parts(
                    &y,
                    x,
                    &mask,
                    Mode::Same,
                    Boundary::Zero,
                    fft_max_size::<T>(),
                    parts,
                    20_000,
                )
                .unwrap_or_else(|e| panic!("{} {name} w {w}: {e}", T::NAME));
            }
        }
    }
    all::<f32>(&gpu, &[fft_max_width::<f32>() + 1, 40_000, 65_535]);
    all::<f64>(&gpu, &[fft_max_width::<f64>() + 1, 16_383, 30_000]);
}

/// The error of a `Conv1d::new` that must fail.
fn refused<T: Real>(r: gpu_core::Result<Conv1d<'static, T>>, what: &str) -> gpu_core::Error {
    match r {
        Err(e) => e,
        Ok(_) => panic!("{what}: accepted"),
    }
}

/// The bad arguments: each a clear error naming the argument, before anything runs.
#[test]
fn gpu_fft_parts_bad_arguments() {
    let Some(gpu) = gpu_or_skip() else { return };
    let f = |parts| Options::new().strategy(Strategy::FftParts { parts });
    let half = vec![f16::from_f32(1.0); 100];
    let e = refused(Conv1d::correlation(&gpu, &half, f(0)), "f16 refused");
    assert!(e.to_string().contains("f32 and f64"), "{e}");
    let mask = vec![1.0f32; 100];
    let e = refused(
        Conv1d::correlation(&gpu, &mask, f(FFT_MAX_PARTS as u32 + 1)),
        "too many parts refused",
    );
    assert!(e.to_string().contains("at most"), "{e}");
    let e = refused(
        Conv1d::correlation(&gpu, &mask, f(60)),
        "parts past the mask refused",
    );
    assert!(e.to_string().contains("fewer parts"), "{e}");
    let long = vec![1.0f64; 40_000];
    let e = refused(
        Conv1d::correlation(&gpu, &long, f(2)),
        "parts too wide refused",
    );
    assert!(e.to_string().contains("more parts"), "{e}");
    let too_long = vec![1.0f64; FFT_MAX_PARTS * 16_384];
    assert!(fft_parts::<f64>(too_long.len()).is_none());
    let e = refused(
        Conv1d::correlation(&gpu, &too_long, f(0)),
        "a mask past every part count refused",
    );
    assert!(e.to_string().contains("cuFFT"), "{e}");
}

/// Small cases for compute-sanitizer (memcheck, racecheck, synccheck): a few tiles of each
/// kernel, at a row's ends and across rows, checked too.
#[test]
fn gpu_fft_parts_for_the_sanitizers() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu, w: usize, parts: u32) {
        let mask = common::data::<T>(w, 11);
        for (mode, boundary) in [
            (Mode::Same, Boundary::Zero),
            (Mode::Full, Boundary::Reflect),
        ] {
            let options = Options::new()
                .mode(mode)
                .boundary(boundary)
                .strategy(Strategy::FftParts { parts });
            let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
            let k = parts_of(&conv, 1000);
            let n = 2 * fft_tile(fft_max_size::<T>(), fft_part_width(w, k)) + 5;
            let x = common::data::<T>(2 * n, 12);
            let y = run_rows(gpu, &conv, &x, 2);
            let n_out = conv.output_len(n).unwrap();
            for r in 0..2 {
                common::check_fft_parts(
                    &y[r * n_out..(r + 1) * n_out],
                    &x[r * n..(r + 1) * n],
                    &mask,
                    mode,
                    boundary,
                    fft_max_size::<T>(),
                    k,
                    500,
                )
                .unwrap_or_else(|e| panic!("{} w {w} {mode:?}: {e}", T::NAME));
            }
        }
    }
    case::<f32>(&gpu, fft_max_width::<f32>() + 1, 0);
    case::<f64>(&gpu, 16_383, 2);
}
