//! Properties over random shapes: the CPU versions against the f64 reference and each other, and
//! (with `--features cuda` and a GPU) every strategy against the CPU.

mod common;

use gpu_conv1d::{cpu, output_len, Boundary, Mode, Operation};
use quickcheck::{QuickCheck, TestResult};

fn mode_of(k: u8) -> Mode {
    Mode::ALL[k as usize % 3]
}

fn boundary_of(k: u8) -> Boundary {
    Boundary::ALL[k as usize % 5]
}

fn op_of(k: u8) -> Operation {
    if k % 2 == 0 {
        Operation::Correlation
    } else {
        Operation::Convolution
    }
}

#[test]
fn cpu_matches_the_f64_reference() {
    fn prop<T: gpu_conv1d::Real>(
        n: u16,
        w: u8,
        mode: u8,
        boundary: u8,
        op: u8,
        seed: u64,
    ) -> TestResult {
        let (n, w) = (n as usize % 3000, w as usize % 200 + 1);
        let (mode, boundary, op) = (mode_of(mode), boundary_of(boundary), op_of(op));
        let x = common::data::<T>(n, seed);
        let m = common::data::<T>(w, seed ^ 0xabc);
        match cpu::apply(op, &x, &m, mode, boundary, seed % 2 == 0) {
            Err(_) => TestResult::from_bool(mode == Mode::Valid && n > 0 && n < w),
            Ok(y) => match common::check(&y, op, &x, &m, mode, boundary, usize::MAX) {
                Ok(()) => TestResult::passed(),
                Err(e) => TestResult::error(e),
            },
        }
    }
    QuickCheck::new()
        .tests(200)
        .quickcheck(prop::<f32> as fn(u16, u8, u8, u8, u8, u64) -> TestResult);
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop::<gpu_core::f16> as fn(u16, u8, u8, u8, u8, u64) -> TestResult);
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop::<gpu_core::bf16> as fn(u16, u8, u8, u8, u8, u64) -> TestResult);
}

/// The FFT path and `Auto` (which takes the FFT path or the direct sums by the sizes) within the
/// direct sums' bound of the f64 reference (and the transforms' error), for every type, mode, boundary and operation, masks
/// up to 3000 wide and signals around one and two transforms' tiles.
#[test]
fn cpu_fft_and_auto_match_the_f64_reference() {
    fn prop<T: gpu_conv1d::Real>(
        n: u16,
        w: u16,
        mode: u8,
        boundary: u8,
        op: u8,
        seed: u64,
    ) -> TestResult {
        let (n, w) = (n as usize % 20_000, w as usize % 3000 + 1);
        let (mode, boundary, op) = (mode_of(mode), boundary_of(boundary), op_of(op));
        let x = common::data::<T>(n, seed);
        let m = common::data::<T>(w, seed ^ 0xabc);
        let par = seed % 2 == 0;
        for y in [
            cpu::apply_fft(op, &x, &m, mode, boundary, par),
            cpu::apply_auto(op, &x, &m, mode, boundary, par),
        ] {
            match y {
                Err(_) if mode == Mode::Valid && n > 0 && n < w => {}
                Err(e) => return TestResult::error(e.to_string()),
                Ok(y) => {
                    // The transforms' f64 error scales with the span, not the window: a bound
                    // of 1e-12 of the largest |x| times Σ|m| on top of the direct sums' bound.
                    let xmax = x.iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
                    let msum: f64 = m.iter().map(|v| v.to_f64().abs()).sum();
                    let tol = |w, mag| common::tolerance::<T>(w, mag) + 1e-12 * xmax * msum;
                    let cases = (mode, boundary);
                    if let Err(e) = common::check_within(&y, op, &x, &m, cases, 300, tol) {
                        return TestResult::error(format!(
                            "n {n} w {w} {mode:?} {boundary:?}: {e}"
                        ));
                    }
                }
            }
        }
        TestResult::passed()
    }
    type Prop = fn(u16, u16, u8, u8, u8, u64) -> TestResult;
    QuickCheck::new().tests(40).quickcheck(prop::<f32> as Prop);
    QuickCheck::new().tests(40).quickcheck(prop::<f64> as Prop);
    QuickCheck::new()
        .tests(25)
        .quickcheck(prop::<gpu_core::f16> as Prop);
    QuickCheck::new()
        .tests(25)
        .quickcheck(prop::<gpu_core::bf16> as Prop);
}

#[test]
fn serial_equals_rayon_and_convolve_is_reversed_correlate() {
    fn prop(n: u16, w: u8, mode: u8, boundary: u8, seed: u64) -> bool {
        let (n, w) = (n as usize % 5000, w as usize % 64 + 1);
        let (mode, boundary) = (mode_of(mode), boundary_of(boundary));
        let x = common::data::<f64>(n, seed);
        let m = common::data::<f64>(w, seed.wrapping_add(1));
        let rev: Vec<f64> = m.iter().rev().copied().collect();
        let a = cpu::convolve(&x, &m, mode, boundary);
        let b = cpu::par_convolve(&x, &m, mode, boundary);
        let c = cpu::correlate(&x, &rev, mode, boundary);
        match (a, b, c) {
            (Ok(a), Ok(b), Ok(c)) => a == b && a == c && a.len() == output_len(n, w, mode).unwrap(),
            (Err(_), Err(_), Err(_)) => mode == Mode::Valid && n < w,
            _ => false,
        }
    }
    QuickCheck::new()
        .tests(200)
        .quickcheck(prop as fn(u16, u8, u8, u8, u64) -> bool);
}

#[test]
fn linear_in_the_signal() {
    fn prop(n: u16, w: u8, boundary: u8, seed: u64) -> bool {
        let (n, w) = (n as usize % 2000 + 1, w as usize % 40 + 1);
        let boundary = boundary_of(boundary);
        let x = common::data::<f64>(n, seed);
        let z = common::data::<f64>(n, seed.wrapping_add(7));
        let m = common::data::<f64>(w, seed.wrapping_add(9));
        let sum: Vec<f64> = x.iter().zip(&z).map(|(a, b)| 2.0 * a + b).collect();
        let f = |s: &[f64]| cpu::correlate(s, &m, Mode::Full, boundary).unwrap();
        let (fx, fz, fs) = (f(&x), f(&z), f(&sum));
        fs.iter()
            .zip(fx.iter().zip(&fz))
            .all(|(s, (a, b))| (s - (2.0 * a + b)).abs() <= 1e-12 * (1.0 + s.abs()) * w as f64)
    }
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop as fn(u16, u8, u8, u64) -> bool);
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use gpu_conv1d::{Conv1d, Options, Strategy};
    use gpu_core::testing::gpu_or_skip;

    fn strategy_of(k: u8) -> Strategy {
        match k % 10 {
            0 => Strategy::Basic,
            1 => Strategy::ConstantMask,
            2 => Strategy::TILED_HALO,
            3 => Strategy::TiledHalo { tile: 64 },
            4 => Strategy::TILED_CACHED,
            5 => Strategy::TiledCached { tile: 512 },
            6 => Strategy::TensorCore, // f16, bf16, f32 on compute capability 8.0+ only
            7 => Strategy::FFT,
            8 => Strategy::Warpgroup, // f16, bf16 on compute capability 9.0 only
            _ => Strategy::Auto,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn prop<T: gpu_conv1d::Real>(
        n: u16,
        rows: u8,
        w: u16,
        mode: u8,
        boundary: u8,
        op: u8,
        strategy: u8,
        seed: u64,
    ) -> TestResult {
        let Some(gpu) = gpu_or_skip() else {
            return TestResult::discard();
        };
        let (n, rows, w) = (
            n as usize % 12_000,
            rows as usize % 4 + 1,
            w as usize % 300 + 1,
        );
        let (mode, boundary, op) = (mode_of(mode), boundary_of(boundary), op_of(op));
        let mut strategy = strategy_of(strategy);
        if strategy == Strategy::TensorCore
            && !(T::NAME != "f64" && gpu.properties().compute_capability >= (8, 0))
        {
            strategy = Strategy::Auto;
        }
        if strategy == Strategy::Warpgroup
            && !(matches!(T::NAME, "f16" | "bf16") && gpu.properties().compute_capability == (9, 0))
        {
            strategy = Strategy::Auto;
        }
        let x = common::data::<T>(rows * n, seed);
        let m = common::data::<T>(w, seed ^ 77);
        let conv = Conv1d::new(
            &gpu,
            op,
            &m,
            Options {
                mode,
                boundary,
                strategy,
                ..Options::default()
            },
        )
        .unwrap();
        let n_out = match conv.output_len(n) {
            Ok(v) => v,
            Err(_) => return TestResult::from_bool(mode == Mode::Valid && n < w),
        };
        let xs = gpu.upload(&x).unwrap();
        let mut y = gpu.alloc::<T>(rows * n_out).unwrap();
        y.fill(T::from_f64(f64::NAN), gpu.stream()).unwrap();
        let r = if rows == 1 {
            conv.run_into(&xs, &mut y)
        } else {
            conv.run_rows_into(&xs, rows, &mut y)
        };
        if let Err(e) = r {
            return TestResult::error(e.to_string());
        }
        let y = y.to_vec().unwrap();
        let path = conv.path(n).unwrap();
        for r in 0..rows {
            if let Err(e) = common::check_path(
                &y[r * n_out..(r + 1) * n_out],
                op,
                &x[r * n..(r + 1) * n],
                &m,
                mode,
                boundary,
                2048,
                path,
            ) {
                return TestResult::error(format!(
                    "{} {} rows={rows} n={n} w={w} {op:?} {mode:?} {boundary:?} row {r}: {e}",
                    strategy.name(),
                    T::NAME
                ));
            }
        }
        TestResult::passed()
    }

    #[test]
    fn gpu_every_strategy_matches_the_reference_f32() {
        if gpu_or_skip().is_none() {
            return;
        }
        QuickCheck::new()
            .tests(150)
            .quickcheck(prop::<f32> as fn(u16, u8, u16, u8, u8, u8, u8, u64) -> TestResult);
    }

    #[test]
    fn gpu_every_strategy_matches_the_reference_f16() {
        if gpu_or_skip().is_none() {
            return;
        }
        QuickCheck::new().tests(100).quickcheck(
            prop::<gpu_core::f16> as fn(u16, u8, u16, u8, u8, u8, u8, u64) -> TestResult,
        );
    }

    #[test]
    fn gpu_every_strategy_matches_the_reference_bf16() {
        if gpu_or_skip().is_none() {
            return;
        }
        QuickCheck::new().tests(100).quickcheck(
            prop::<gpu_core::bf16> as fn(u16, u8, u16, u8, u8, u8, u8, u64) -> TestResult,
        );
    }

    #[test]
    fn gpu_every_strategy_matches_the_reference_f64() {
        if gpu_or_skip().is_none() {
            return;
        }
        QuickCheck::new()
            .tests(150)
            .quickcheck(prop::<f64> as fn(u16, u8, u16, u8, u8, u8, u8, u64) -> TestResult);
    }
}
