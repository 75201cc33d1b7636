//! The FFT path (`Strategy::Fft`) against the f64 reference: every transform size, operation,
//! mode, boundary and type at the tile edges, batches whose pairs of tiles straddle rows,
//! `Auto` on long masks, non-finite inputs and overflow (the direct sums' results), measured
//! accuracy on random and adversarial data, 2^31 + 33 elements, and the bad arguments.
//! Outputs are poisoned with NaN before every run.
#![cfg(feature = "cuda")]

mod common;

use gpu_conv1d::{
    fft_max_size, fft_max_width, fft_pair_max, fft_tile, Boundary, Conv1d, Mode, Operation,
    Options, Path, Real, Strategy, FFT_SIZES,
};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, f16, Gpu};

const OPS: [Operation; 2] = [Operation::Correlation, Operation::Convolution];

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

/// Lengths around the tiles of a transform of `size` points with a mask of `w`: pairs of tiles
/// complete and not, the last tile one output long.
fn lengths(size: usize, w: usize) -> Vec<usize> {
    let l = fft_tile(size, w);
    let mut v = vec![
        0,
        1,
        2,
        31,
        32,
        33,
        l - 1,
        l,
        l + 1,
        2 * l + 1,
        3 * l - 1,
        4 * l + 1,
    ];
    v.retain(|&n| n <= 1 << 18);
    v
}

fn every_size<T: Real>(gpu: &Gpu) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for size in FFT_SIZES.into_iter().filter(|&s| s <= fft_max_size::<T>()) {
        for w in [1, 2, 3, 33, size / 2, size - 1] {
            let mask = common::data::<T>(w, 7000 + w as u64);
            for op in OPS {
                for mode in Mode::ALL {
                    for boundary in Boundary::ALL {
                        // every boundary for the short masks, zero and wrap for the long ones
                        if w > 33 && !matches!(boundary, Boundary::Zero | Boundary::Wrap) {
                            continue;
                        }
                        let options = Options::new()
                            .mode(mode)
                            .boundary(boundary)
                            .strategy(Strategy::Fft { size: size as u32 });
                        let conv = Conv1d::new(gpu, op, &mask, options).unwrap();
                        let m = op.effective_mask(&mask).unwrap();
                        for n in lengths(size, w) {
                            if mode == Mode::Valid && n < w && n > 0 {
                                continue;
                            }
                            let x = common::data::<T>(n, (n * 31 + w) as u64);
                            let y = run_rows(gpu, &conv, &x, usize::from(n > 0));
                            runs += 1;
                            if let Err(e) =
                                common::check_fft(&y, &x, &m, mode, boundary, size, 3000)
                            {
                                failures.push(format!(
                                    "{} size {size} w {w} {op:?} {} {} n {n}: {e}",
                                    T::NAME,
                                    mode.name(),
                                    boundary.name()
                                ));
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
    println!("{}: {runs} FFT runs match the reference", T::NAME);
}

#[test]
fn gpu_fft_every_size_mode_boundary_f32() {
    let Some(gpu) = gpu_or_skip() else { return };
    every_size::<f32>(&gpu);
}

#[test]
fn gpu_fft_every_size_mode_boundary_f64() {
    let Some(gpu) = gpu_or_skip() else { return };
    every_size::<f64>(&gpu);
}

#[test]
fn gpu_fft_every_size_mode_boundary_f16() {
    let Some(gpu) = gpu_or_skip() else { return };
    every_size::<f16>(&gpu);
}

#[test]
fn gpu_fft_every_size_mode_boundary_bf16() {
    let Some(gpu) = gpu_or_skip() else { return };
    every_size::<bf16>(&gpu);
}

/// One correlation of `rows` rows of `n` elements through the FFT of `size` points, each row
/// against its own reference (`limit` sampled outputs).
fn check_rows<T: Real>(
    gpu: &Gpu,
    mask: &[T],
    (mode, boundary): (Mode, Boundary),
    size: usize,
    (rows, n): (usize, usize),
    limit: usize,
) {
    let w = mask.len();
    let options = Options::new()
        .mode(mode)
        .boundary(boundary)
        .strategy(Strategy::Fft { size: size as u32 });
    let conv = Conv1d::correlation(gpu, mask, options).unwrap();
    let x = common::data::<T>(rows * n, (rows * n + w) as u64);
    let y = run_rows(gpu, &conv, &x, rows);
    let n_out = conv.output_len(n).unwrap();
    for r in 0..rows {
        let (got, row) = (&y[r * n_out..(r + 1) * n_out], &x[r * n..(r + 1) * n]);
        common::check_fft(got, row, mask, mode, boundary, size, limit).unwrap_or_else(|e| {
            panic!(
                "{} size {size} w {w} rows {rows} n {n} {} {} row {r}: {e}",
                T::NAME,
                mode.name(),
                boundary.name()
            )
        });
    }
}

/// Batches of rows: pairs of tiles straddle rows (odd tiles per row), rows shorter than a tile,
/// every mode; each row against its own reference.
#[test]
fn gpu_fft_rows() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu) {
        let size = 1024;
        for w in [7, 300] {
            let mask = common::data::<T>(w, 99 + w as u64);
            let l = fft_tile(size, w);
            for (rows, n) in [(3, 3 * l + 5), (5, l - 3), (4, 2 * l), (7, 1), (2, w)] {
                for mode in Mode::ALL {
                    for boundary in [Boundary::Zero, Boundary::Reflect, Boundary::Wrap] {
                        if mode == Mode::Valid && n < w {
                            continue;
                        }
                        check_rows(gpu, &mask, (mode, boundary), size, (rows, n), usize::MAX);
                    }
                }
            }
        }
    }
    case::<f32>(&gpu);
    case::<f64>(&gpu);
    case::<bf16>(&gpu);
}

/// The pairing blocks of 32 points a thread (4096 and 8192 points for f32, f16 and bf16),
/// small enough for compute-sanitizer: rows of an odd number of tiles, spans read straight
/// into registers and gathered through shared memory at the ends (zero and reflect); each row
/// against its own reference.
#[test]
fn gpu_fft_sanitize_wide_blocks() {
    let Some(gpu) = gpu_or_skip() else { return };
    sanitizer_cases::<f32>(&gpu, &[4096, 8192], &[], 31);
    sanitizer_cases::<f16>(&gpu, &[4096, 8192], &[], 31);
    sanitizer_cases::<bf16>(&gpu, &[4096, 8192], &[], 31);
}

/// The blocks up to 4096 points (f32 and bf16 with the lean checks and stores of
/// `Conv1dFftPolicy::LEAN`, f64 without), as the test above: small enough for compute-sanitizer,
/// interior pairs (one store bound) beside pairs cut by a row's end.
#[test]
fn gpu_fft_sanitize_small_blocks() {
    let Some(gpu) = gpu_or_skip() else { return };
    sanitizer_cases::<f32>(&gpu, &[512, 1024, 2048, 4096], &[3], 41);
    sanitizer_cases::<f64>(&gpu, &[512, 2048, 4096], &[3], 41);
    sanitizer_cases::<bf16>(&gpu, &[1024, 4096], &[3], 41);
}

/// The even-and-odd blocks (spans of 16384 and 32768 points; f64 16384), as the test above:
/// small enough for compute-sanitizer.
#[test]
fn gpu_fft_sanitize_even_odd() {
    let Some(gpu) = gpu_or_skip() else { return };
    // An even mask too for f32: the pairs kernel with a tile one output shorter than the span
    // allows (fft_tile); the masks past 6143 run the 16384-point spans' scalar kernel.
    sanitizer_cases::<f32>(&gpu, &[16384, 32768], &[3, 4], 37);
    sanitizer_cases::<f64>(&gpu, &[16384, 32768], &[3], 37);
    sanitizer_cases::<bf16>(&gpu, &[16384, 32768], &[3], 37);
    sanitizer_cases::<f16>(&gpu, &[16384, 32768], &[3], 37);
}

/// The radix-32 transforms (8192 points in the pairs, 16384 in the even-and-odd spans of 32768;
/// f32 and bf16) at their smallest: one short mask, one row of two tiles, one mode and
/// boundary. Few enough launches for racecheck, which did not finish the tests above.
#[test]
fn gpu_fft_sanitize_radix32() {
    let Some(gpu) = gpu_or_skip() else { return };
    for size in [8192, 32768] {
        let mask = common::data::<f32>(3, 53);
        let l = fft_tile(size, 3);
        check_rows(
            &gpu,
            &mask,
            (Mode::Same, Boundary::Zero),
            size,
            (1, l + 5),
            1500,
        );
        let mask = common::data::<bf16>(3, 59);
        check_rows(
            &gpu,
            &mask,
            (Mode::Full, Boundary::Reflect),
            size,
            (1, l + 5),
            1500,
        );
    }
}

/// The sanitizer-sized cases of the sizes of `sizes` that `T` has: masks of `short` elements,
/// half a span and a span less one; two rows of an odd number of tiles and two barely longer
/// than the mask; `same` with zero ghosts and `full` through reflect.
fn sanitizer_cases<T: Real>(gpu: &Gpu, sizes: &[usize], short: &[usize], seed: u64) {
    for &size in sizes.iter().filter(|&&s| s <= fft_max_size::<T>()) {
        for w in short.iter().copied().chain([size / 2 + 1, size - 1]) {
            let mask = common::data::<T>(w, seed + w as u64);
            let l = fft_tile(size, w);
            for shape in [(2, 2 * l + 5), (2, w + 2)] {
                for mb in [
                    (Mode::Same, Boundary::Zero),
                    (Mode::Full, Boundary::Reflect),
                ] {
                    check_rows(gpu, &mask, mb, size, shape, 1500);
                }
            }
        }
    }
}

/// `Auto` runs long masks through FFTs (the size the device picks: the width table's, or the
/// long spans from `conv1d.fft_span_from` on) and matches the reference.
#[test]
fn gpu_fft_auto_long_masks() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu, widths: &[usize]) {
        let n = (1 << 20) + 7;
        let x = common::data::<T>(n, 5);
        for &w in widths {
            let mask = common::data::<T>(w, 6 + w as u64);
            let conv = Conv1d::convolution(gpu, &mask, Options::new()).unwrap();
            let size = common::device_fft_size::<T>(gpu, w).unwrap();
            let even_odd =
                size > fft_pair_max::<T>() || size as u64 >= gpu.tuned("conv1d.fft_even_odd_from");
            let want = if even_odd {
                Path::FftEvenOdd { size: size as u32 }
            } else {
                Path::Fft { size: size as u32 }
            };
            assert_eq!(conv.path(n).unwrap(), want, "{} w {w}", T::NAME);
            let y = conv.run(&x).unwrap();
            let m = Operation::Convolution.effective_mask(&mask).unwrap();
            common::check_fft(&y, &x, &m, Mode::Same, Boundary::Zero, size, 2000)
                .unwrap_or_else(|e| panic!("{} w {w}: {e}", T::NAME));
        }
    }
    // Below this device's crossings past one span: to the parts (`conv1d.fft_parts_from`,
    // `_f64`) and to cuFFT (`conv1d.cufft_min_width`, where libcufft loads; a fixed one for f64).
    let cufft_min = gpu.tuned("conv1d.cufft_min_width") as usize;
    let parts_from = gpu.tuned("conv1d.fft_parts_from") as usize;
    let top = |max: usize| max.min(cufft_min - 1).min(parts_from - 1);
    let top64 = fft_max_width::<f64>()
        .min(gpu_conv1d::cufft_min_width::<f64>() - 1)
        .min(gpu.tuned("conv1d.fft_parts_from_f64") as usize - 1);
    case::<f32>(
        &gpu,
        &[1023, top(4095), top(8191), top(fft_max_width::<f32>())],
    );
    case::<f64>(&gpu, &[1023, 4095, top64]);
    case::<f16>(&gpu, &[top(16383)]);
}

/// NaN, infinities and overflow: a transform (a pair of tiles, or one tile's even and odd
/// points) whose spans hold one, or which overflows, is computed by the direct sums, so every
/// output is bit for bit the basic kernel's where that one is not finite, and within the
/// tolerance elsewhere.
#[test]
fn gpu_fft_non_finite_inputs_and_overflow() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu, x: &[T], w: usize, what: &str) {
        let mask = common::data::<T>(w, 42);
        for boundary in [Boundary::Zero, Boundary::Wrap] {
            let options = Options::new().boundary(boundary);
            let fft = Conv1d::correlation(gpu, &mask, options.strategy(Strategy::FFT)).unwrap();
            let basic = Conv1d::correlation(gpu, &mask, options.strategy(Strategy::Basic)).unwrap();
            let got = fft.run(x).unwrap();
            let want = basic.run(x).unwrap();
            let size = common::device_fft_size::<T>(gpu, w).unwrap();
            let m2 = mask.iter().map(|v| v.to_f64().powi(2)).sum::<f64>().sqrt();
            let off = Mode::Same.offset(w);
            let mut non_finite = 0;
            let finite_scale = x
                .iter()
                .map(|v| v.to_f64().abs())
                .filter(|v| v.is_finite())
                .fold(0.0, f64::max);
            for (o, (g, b)) in got.iter().zip(&want).enumerate() {
                let (g, b) = (g.to_f64(), b.to_f64());
                if !b.is_finite() || !g.is_finite() {
                    non_finite += 1;
                    assert!(
                        g.to_bits() == b.to_bits() || (g.is_nan() && b.is_nan()),
                        "{what} {} {}: output {o}: fft {g:e}, basic {b:e}",
                        T::NAME,
                        boundary.name()
                    );
                } else {
                    let (_, mag) =
                        gpu_conv1d::cpu::reference_at(x, &mask, o as i64 + off, boundary);
                    let tol = common::fft_tolerance::<T>(size, finite_scale, m2, w, mag);
                    assert!(
                        (g - b).abs() <= 2.0 * tol,
                        "{what} {} {}: output {o}: fft {g:e}, basic {b:e}",
                        T::NAME,
                        boundary.name()
                    );
                }
            }
            assert!(non_finite > 0, "{what}: the case has no non-finite output");
        }
    }
    // w = 1023: the 4096-point pairs; 8191: the even-and-odd spans (32768 points, f64 16384).
    fn signals<T: Real>(gpu: &Gpu) {
        for w in [1023, 8191] {
            signals_of::<T>(gpu, w);
        }
    }
    fn signals_of<T: Real>(gpu: &Gpu, w: usize) {
        let n = 100_000;
        let mut x = common::data::<T>(n, 3);
        x[500] = T::from_f64(f64::NAN);
        x[40_000] = T::from_f64(f64::INFINITY);
        x[40_010] = T::from_f64(f64::NEG_INFINITY);
        x[n - 1] = T::from_f64(f64::NAN);
        case::<T>(gpu, &x, w, "nan/inf");
        // Finite inputs whose sums overflow the accumulator: a run of large values (not for
        // f16, whose sums in f32 cannot overflow).
        if T::NAME == "f16" {
            return;
        }
        let mut x = common::data::<T>(n, 4);
        let big = if T::NAME == "f64" {
            f64::MAX / 4.0
        } else {
            f32::MAX as f64 / 4.0
        };
        for v in &mut x[70_000..72_000] {
            *v = T::from_f64(big);
        }
        case::<T>(gpu, &x, w, "overflow");
    }
    signals::<f32>(&gpu);
    signals::<f64>(&gpu);
    signals::<f16>(&gpu);
    signals::<bf16>(&gpu);
}

/// Accuracy of the FFT path against f64, as the largest `|y − y64| / (‖x window‖₂·‖m‖₂)` (the
/// issue's measure), beside the direct FMA kernels', on random data and on adversarial data (a
/// large dynamic range; one spike beside tiny values). Prints the table (`--nocapture`) and
/// holds the FFT path to `8·ε·log2(size)` of the span's largest value times `‖m‖₂` per output.
#[test]
fn gpu_fft_accuracy() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn measure<T: Real>(gpu: &Gpu, x: &[T], mask: &[T], strategy: Strategy) -> (f64, Vec<T>) {
        let y = Conv1d::correlation(gpu, mask, Options::new().strategy(strategy))
            .unwrap()
            .run(x)
            .unwrap();
        let w = mask.len();
        let off = Mode::Same.offset(w);
        let m2 = mask.iter().map(|v| v.to_f64().powi(2)).sum::<f64>().sqrt();
        let mut worst = 0.0f64;
        for o in common::sample(y.len(), 5_000) {
            let (r, _) = gpu_conv1d::cpu::reference_at(x, mask, o as i64 + off, Boundary::Zero);
            let win = (0..w as i64)
                .filter_map(|j| Boundary::Zero.index(o as i64 + off + j, x.len()))
                .map(|i| x[i].to_f64().powi(2))
                .sum::<f64>()
                .sqrt();
            if win > 0.0 {
                worst = worst.max((y[o].to_f64() - r).abs() / (win * m2));
            }
        }
        (worst, y)
    }
    fn case<T: Real>(
        gpu: &Gpu,
        name: &str,
        x: &[T],
        widths: &[usize],
        seed: u64,
        mlo: i32,
        mhi: i32,
    ) {
        for &w in widths {
            let mask = common::spread::<T>(w, seed + w as u64, mlo, mhi);
            let (fft, y) = measure(gpu, x, &mask, Strategy::FFT);
            let (direct, _) = measure(gpu, x, &mask, Strategy::RegisterTiled);
            let size = common::device_fft_size::<T>(gpu, w).unwrap();
            println!(
                "fft accuracy {} {name} w={w} size={size}: max |y − y64| / (‖x window‖·‖m‖) fft \
                 {fft:.2e}, direct {direct:.2e}",
                T::NAME
            );
            common::check_fft(&y, x, &mask, Mode::Same, Boundary::Zero, size, 20_000)
                .unwrap_or_else(|e| panic!("{} {name} w {w}: {e}", T::NAME));
        }
    }
    fn all<T: Real>(gpu: &Gpu, widths: &[usize]) {
        let n = 1 << 18;
        let random = common::data::<T>(n, 77);
        case::<T>(gpu, "random", &random, widths, 80, 0, 0);
        // f16: sums must stay below its 65504 (larger ones are infinite on every path).
        let ((lo, hi), (mlo, mhi)) = if T::NAME == "f16" {
            ((-12, 2), (-8, -3))
        } else {
            ((-40, 40), (-8, 8))
        };
        let wide = common::spread::<T>(n, 78, lo, hi);
        case::<T>(gpu, "wide range", &wide, widths, 81, mlo, mhi);
        let mut spike: Vec<T> = common::data::<T>(n, 79)
            .into_iter()
            .map(|v| T::from_f64(v.to_f64() * 1e-3))
            .collect();
        for i in (0..n).step_by(5000) {
            spike[i] = T::from_f64(1e3);
        }
        case::<T>(gpu, "spikes", &spike, widths, 82, 0, 0);
    }
    all::<f32>(&gpu, &[31, 127, 1023, 4095, fft_max_width::<f32>()]);
    all::<f64>(&gpu, &[31, 127, 1023, 4095, fft_max_width::<f64>()]);
    all::<f16>(&gpu, &[127, 1023]);
    all::<bf16>(&gpu, &[127, 1023]);
}

/// Past 2^31 elements: a 2^31 + 33-element f16 signal (4 GiB) through the FFT path; the last
/// 3000 outputs and a spread of others against the reference.
#[test]
fn gpu_fft_length_beyond_2_pow_31() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 33;
    let w = 1023;
    let mask = common::data::<f16>(w, 1);
    let x: Vec<f16> = (0..n)
        .map(|i| f16::from_f32(((i % 1013) as f32 - 506.0) / 512.0))
        .collect();
    let conv = Conv1d::correlation(&gpu, &mask, Options::new().strategy(Strategy::FFT)).unwrap();
    let y = conv.run(&x).unwrap();
    assert_eq!(y.len(), n);
    let size = common::device_fft_size::<f16>(&gpu, w).unwrap();
    let m2 = mask.iter().map(|v| v.to_f64().powi(2)).sum::<f64>().sqrt();
    let off = Mode::Same.offset(w);
    let outputs = (n - 3000..n).chain((0..n).step_by(n / 997));
    for o in outputs {
        let (r, mag) = gpu_conv1d::cpu::reference_at(&x, &mask, o as i64 + off, Boundary::Zero);
        let tol = common::fft_tolerance::<f16>(size, 1.0, m2, w, mag);
        let g = y[o].to_f64();
        assert!(
            (g - r).abs() <= tol,
            "output {o}: {g:e} vs {r:e} (tol {tol:e})"
        );
    }
}

/// Bad arguments: clear errors naming the argument, nothing launched.
#[test]
fn gpu_fft_bad_arguments() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mask = vec![0.5f32; 100];
    let bad = |strategy: Strategy, mask: &[f32]| {
        Conv1d::correlation(&gpu, mask, Options::new().strategy(strategy)).unwrap_err()
    };
    let e = bad(Strategy::Fft { size: 3000 }, &mask);
    assert!(e.to_string().contains("strategy"), "{e}");
    let e = bad(Strategy::Fft { size: 512 }, &[1.0; 512]);
    assert!(e.to_string().contains("mask"), "{e}");
    // A mask longer than the cuFFT segment named for it.
    let e = bad(
        Strategy::Fft { size: 1 << 16 },
        &vec![1.0f32; (1 << 16) + 1],
    );
    assert!(e.to_string().contains("segments of 65536"), "{e}");
    // A mask that leaves no output in the largest block span.
    let e = bad(Strategy::Fft { size: 1 << 15 }, &vec![1.0f32; 1 << 15]);
    assert!(
        e.to_string().contains("mask") && e.to_string().contains("32768"),
        "{e}"
    );
    let e = bad(
        Strategy::Fft {
            size: (1 << 15) + 1,
        },
        &mask,
    );
    assert!(e.to_string().contains("cuFFT"), "{e}");
    let e = Conv1d::correlation(
        &gpu,
        &[1.0f64; 3],
        Options::new().strategy(Strategy::Fft { size: 12288 }),
    )
    .unwrap_err();
    assert!(e.to_string().contains("16384"), "{e}");
    let e = bad(Strategy::FFT, &[]);
    assert!(e.to_string().contains("mask"), "{e}");
    // A strategy set by the builder after `new` is checked when the convolution runs.
    let conv = Conv1d::correlation(&gpu, &mask, Options::new())
        .unwrap()
        .strategy(Strategy::Fft { size: 64 });
    let e = conv.run(&[1.0f32; 1000]).unwrap_err();
    assert!(e.to_string().contains("strategy"), "{e}");
    // Valid mode with a signal shorter than the mask.
    let conv = Conv1d::correlation(
        &gpu,
        &mask,
        Options::new().mode(Mode::Valid).strategy(Strategy::FFT),
    )
    .unwrap();
    let e = conv.run(&[1.0f32; 50]).unwrap_err();
    assert!(e.to_string().contains("signal"), "{e}");
}

/// Masks past one block's transform go through cuFFT: every mode and boundary, both
/// operations, f32 just past the block FFT's widest mask (signals shorter than the mask,
/// one segment, several), f64 and f16 once each, against the f64 reference at sampled outputs
/// with the transforms' tolerance; `Auto` takes the same path.
#[test]
fn gpu_cufft_every_mode_and_boundary() {
    let Some(gpu) = gpu_or_skip() else { return };
    let Some(()) = common::cufft_or_skip("gpu_cufft_every_mode_and_boundary") else {
        return;
    };
    fn case<T: Real>(gpu: &Gpu, w: usize, lengths: &[usize], modes: &[Mode], bounds: &[Boundary]) {
        let mask = common::data::<T>(w, 17 + w as u64);
        let mut runs = 0;
        for &n in lengths {
            let x = common::data::<T>(n, n as u64);
            for (k, &mode) in modes.iter().enumerate() {
                for (j, &b) in bounds.iter().enumerate() {
                    let op = OPS[(k + j + n) % 2];
                    let options = Options::new()
                        .mode(mode)
                        .boundary(b)
                        .strategy(Strategy::FFT);
                    let conv = Conv1d::new(gpu, op, &mask, options).unwrap();
                    let what = format!("{} n {n} w {w} {op:?} {mode:?} {b:?}", T::NAME);
                    if mode == Mode::Valid && n < w {
                        assert!(conv.run(&x).is_err(), "{what}");
                        continue;
                    }
                    let path = conv.path(n).unwrap();
                    assert!(matches!(path, Path::CuFft { .. }), "{what}: {path:?}");
                    let got = run_rows(gpu, &conv, &x, 1);
                    common::check_path(&got, op, &x, &mask, mode, b, 600, path)
                        .unwrap_or_else(|e| panic!("{what} ({path:?}): {e}"));
                    runs += 1;
                }
            }
        }
        println!("{}: {runs} cuFFT runs match the reference", T::NAME);
    }
    let w = fft_max_width::<f32>() + 639; // 32 384
    case::<f32>(
        &gpu,
        w,
        &[1, 9_999, 100_003, (1 << 20) + 77],
        &Mode::ALL,
        &Boundary::ALL,
    );
    case::<f64>(
        &gpu,
        fft_max_width::<f64>() + 1,
        &[100_003],
        &Mode::ALL,
        &Boundary::ALL,
    );
    case::<f16>(&gpu, w, &[100_003], &[Mode::Same], &[Boundary::Reflect]);
    case::<bf16>(&gpu, w, &[100_003], &[Mode::Full], &[Boundary::Wrap]);
    // Auto takes the parts past the block FFT, and cuFFT past the parts' crossing with it.
    let mask = common::data::<f32>(w, 3);
    let conv = Conv1d::correlation(&gpu, &mask, Options::new()).unwrap();
    let path = conv.path(1 << 20).unwrap();
    assert!(matches!(path, Path::FftEvenOddParts { .. }), "{path:?}");
    let past = gpu.tuned("conv1d.fft_parts_to") as usize + 1;
    let mask = common::data::<f32>(past, 3);
    let conv = Conv1d::correlation(&gpu, &mask, Options::new()).unwrap();
    let path = conv.path(1 << 20).unwrap();
    assert!(matches!(path, Path::CuFft { .. }), "w {past}: {path:?}");
}

/// Many segments in several batches (segments of 2^16 named, at most 4095 per batch: 4699 in
/// two batches here), batches of rows, and the full correlation of two signals of 2^20 (zero
/// ghosts: one circular transform).
#[test]
fn gpu_cufft_segments_rows_and_full_correlation() {
    let Some(gpu) = gpu_or_skip() else { return };
    let Some(()) = common::cufft_or_skip("gpu_cufft_segments_rows_and_full_correlation") else {
        return;
    };
    let w = 40_000;
    let mask = common::data::<f32>(w, 8);
    let n = 120_000_000;
    let x = common::data::<f32>(n, 9);
    let conv = Conv1d::correlation(
        &gpu,
        &mask,
        Options::new()
            .boundary(Boundary::Nearest)
            .strategy(Strategy::Fft { size: 1 << 16 }),
    )
    .unwrap();
    let path = conv.path(n).unwrap();
    assert_eq!(path, Path::CuFft { size: 1 << 16 });
    let got = run_rows(&gpu, &conv, &x, 1);
    common::check_path(
        &got,
        Operation::Correlation,
        &x,
        &mask,
        Mode::Same,
        Boundary::Nearest,
        3000,
        path,
    )
    .unwrap_or_else(|e| panic!("4699 segments: {e}"));
    // Rows: each against its own reference.
    let (rows, len) = (3, 50_001);
    let x = common::data::<f32>(rows * len, 10);
    let conv = Conv1d::convolution(&gpu, &mask, Options::new().boundary(Boundary::Mirror)).unwrap();
    let path = conv.path(len).unwrap();
    let got = run_rows(&gpu, &conv, &x, rows);
    for r in 0..rows {
        let row = &x[r * len..(r + 1) * len];
        common::check_path(
            &got[r * len..(r + 1) * len],
            Operation::Convolution,
            row,
            &mask,
            Mode::Same,
            Boundary::Mirror,
            600,
            path,
        )
        .unwrap_or_else(|e| panic!("row {r} ({path:?}): {e}"));
    }
    // Full correlation of two signals of 2^20 (the mask as long as the signal).
    let n = 1 << 20;
    let (a, b) = (common::data::<f32>(n, 11), common::data::<f32>(n, 12));
    let conv = Conv1d::correlation(&gpu, &b, Options::new().mode(Mode::Full)).unwrap();
    let path = conv.path(n).unwrap();
    assert!(matches!(path, Path::CuFft { .. }), "{path:?}");
    let got = conv.run(&a).unwrap();
    assert_eq!(got.len(), 2 * n - 1);
    common::check_path(
        &got,
        Operation::Correlation,
        &a,
        &b,
        Mode::Full,
        Boundary::Zero,
        400,
        path,
    )
    .unwrap_or_else(|e| panic!("full correlation of 2^20 ({path:?}): {e}"));
}

/// Without libcufft (`GPU_PRIMS_NO_CUFFT` set, in a child process): an explicit FFT request
/// for a mask past one block's transform is a clear error naming what to install; `Auto` runs
/// such a mask in parts while they take it (f32: up to 64 parts of a 32768-point span), and the
/// direct path past that.
#[test]
fn gpu_cufft_missing_library() {
    if std::env::var_os("GPU_PRIMS_NO_CUFFT").is_some() {
        let Some(gpu) = gpu_or_skip() else { return };
        assert!(!gpu_conv1d::cufft_available());
        let mask = common::data::<f32>(40_000, 1);
        let e = Conv1d::correlation(&gpu, &mask, Options::new().strategy(Strategy::FFT))
            .unwrap_err()
            .to_string();
        assert!(e.contains("libcufft") && e.contains("strategy"), "{e}");
        let conv = Conv1d::correlation(&gpu, &mask, Options::new()).unwrap();
        let path = conv.path(100_000).unwrap();
        assert!(matches!(path, Path::FftEvenOddParts { .. }), "{path:?}");
        let x = common::data::<f32>(100_000, 2);
        let got = conv.run(&x).unwrap();
        common::check_path(
            &got,
            Operation::Correlation,
            &x,
            &mask,
            Mode::Same,
            Boundary::Zero,
            200,
            path,
        )
        .unwrap();
        // Past what 64 parts take: the direct path.
        let w = (1..=64 * 32768)
            .rev()
            .find(|&w| gpu_conv1d::fft_parts::<f32>(w).is_some())
            .unwrap()
            + 1;
        let mask = common::data::<f32>(w, 3);
        let conv = Conv1d::correlation(&gpu, &mask, Options::new()).unwrap();
        let path = conv.path(4099).unwrap();
        assert_eq!(path, Path::RegisterTiled, "w {w}");
        let x = common::data::<f32>(4099, 4);
        let got = conv.run(&x).unwrap();
        common::check(
            &got,
            Operation::Correlation,
            &x,
            &mask,
            Mode::Same,
            Boundary::Zero,
            200,
        )
        .unwrap_or_else(|e| panic!("w {w} ({path:?}): {e}"));
        return;
    }
    let Some(_gpu) = gpu_or_skip() else { return };
    let (ok, out) = gpu_core::testing::run_test_in_child(
        "gpu_cufft_missing_library",
        &[("GPU_PRIMS_NO_CUFFT", Some("1"))],
    );
    assert!(ok, "the child failed:\n{out}");
}
