//! Properties (quickcheck): `scan(x)[i] == fold(x[..=i])`, the exclusive scan is the inclusive
//! one shifted right with the identity in front, in place = out of place; for the CPU scans
//! always, and (feature `cuda`) GPU against CPU on random inputs.

use gpu_core::{Element, Mat2, Monoid, Op};
use gpu_scan::{cpu, ScanKind};
use quickcheck::{quickcheck, TestResult};

fn fold<T: Element>(x: &[T], op: Op) -> T {
    x.iter()
        .copied()
        .reduce(|a, b| T::combine(op, a, b))
        .unwrap_or(op.identity::<T>().unwrap())
}

fn op_of(k: u8) -> Op {
    Op::ALL[k as usize % Op::ALL.len()]
}

/// Equal, NaN included.
fn same<T: Element>(a: T, b: T) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn inclusive_is_prefix_fold<T: Element>(x: Vec<T>, op: Op) -> bool {
    let s = cpu::scan(&x, op, ScanKind::Inclusive).unwrap();
    let p = cpu::par_scan(&x, op, ScanKind::Inclusive).unwrap();
    (0..x.len()).all(|i| same(s[i], fold(&x[..=i], op)) && same(p[i], s[i]))
}

fn exclusive_is_shifted_inclusive<T: Element>(x: Vec<T>, op: Op) -> bool {
    let inc = cpu::scan(&x, op, ScanKind::Inclusive).unwrap();
    let exc = cpu::scan(&x, op, ScanKind::Exclusive).unwrap();
    let mut shifted = vec![op.identity::<T>().unwrap()];
    shifted.extend_from_slice(&inc[..inc.len().saturating_sub(1)]);
    shifted.truncate(x.len());
    let mut inplace = x.clone();
    cpu::parallel_in_place(&mut inplace, op, ScanKind::Exclusive).unwrap();
    exc == shifted && inplace == exc
}

quickcheck! {
    fn prop_inclusive_is_prefix_fold_i32(x: Vec<i32>, k: u8) -> bool {
        inclusive_is_prefix_fold(x, op_of(k))
    }
    fn prop_inclusive_is_prefix_fold_u32(x: Vec<u32>, k: u8) -> bool {
        inclusive_is_prefix_fold(x, op_of(k))
    }
    fn prop_inclusive_is_prefix_fold_i64(x: Vec<i64>, k: u8) -> bool {
        inclusive_is_prefix_fold(x, op_of(k))
    }
    fn prop_inclusive_is_prefix_fold_u64(x: Vec<u64>, k: u8) -> bool {
        inclusive_is_prefix_fold(x, op_of(k))
    }
    // Float min/max are exact (each result is one of the inputs), so equality holds.
    fn prop_inclusive_is_prefix_fold_f64_min_max(x: Vec<f64>, max: bool) -> bool {
        inclusive_is_prefix_fold(x, if max { Op::Max } else { Op::Min })
    }
    fn prop_exclusive_is_shifted_inclusive_i32(x: Vec<i32>, k: u8) -> bool {
        exclusive_is_shifted_inclusive(x, op_of(k))
    }
    fn prop_exclusive_is_shifted_inclusive_u64(x: Vec<u64>, k: u8) -> bool {
        exclusive_is_shifted_inclusive(x, op_of(k))
    }
    // The serial float sum is the left fold itself, so even floats match the definition.
    fn prop_serial_float_sum_is_left_fold(x: Vec<f32>) -> TestResult {
        if x.iter().any(|v| !v.is_finite()) {
            return TestResult::discard();
        }
        let s = cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
        TestResult::from_bool((0..x.len()).all(|i| s[i].to_bits() == fold(&x[..=i], Op::Sum).to_bits()))
    }
    fn prop_matrix_scan_is_ordered_product(x: Vec<(u32, u32, u32, u32)>) -> bool {
        let m: Vec<Mat2<u32>> = x.iter().map(|&(a, b, c, d)| Mat2([a, b, c, d])).collect();
        let s = cpu::par_scan_monoid(&m, ScanKind::Inclusive);
        (0..m.len()).all(|i| s[i] == m[..=i].iter().copied().reduce(Mat2::combine).unwrap())
    }
    // Long inputs: several rayon chunks.
    fn prop_rayon_equals_serial_long(seed: u64, len: u32, k: u8) -> bool {
        let n = len as usize % (4 * cpu::PAR_CHUNK);
        let x: Vec<u32> = gpu_core::data::uniform(n, seed, 0.0, 4e9);
        let op = op_of(k);
        [ScanKind::Inclusive, ScanKind::Exclusive].into_iter().all(|kind| {
            cpu::par_scan(&x, op, kind).unwrap() == cpu::scan(&x, op, kind).unwrap()
        })
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use gpu_core::testing::gpu_or_skip;
    use gpu_core::{Affine, Pipelining};
    use gpu_scan::{Algorithm, Scan, ScanOptions, TileStaging};
    use quickcheck::QuickCheck;

    fn algorithm_of(k: u8) -> Algorithm {
        Algorithm::GPU[k as usize % Algorithm::GPU.len()]
    }

    fn block_of(k: u8) -> Option<u32> {
        match k % 7 {
            6 => None,
            b => Some(32 << b),
        }
    }

    /// Register or staged look-back tiles (staged only where the GPU has them).
    fn staging_of(k: u8, gpu: &gpu_core::Gpu) -> TileStaging {
        let staged = gpu_scan::plan::staged_tiles_available(gpu.properties().compute_capability);
        match k % 3 {
            0 => TileStaging::Auto,
            1 if staged => TileStaging::Staged,
            _ => TileStaging::Registers,
        }
    }

    fn kind_of(k: u8) -> ScanKind {
        if k & 1 == 0 {
            ScanKind::Inclusive
        } else {
            ScanKind::Exclusive
        }
    }

    fn gpu_equals_cpu<T: Element>(x: Vec<T>, op: Op, a: u8, b: u8, k: u8) -> TestResult {
        let Some(gpu) = gpu_or_skip() else {
            return TestResult::discard();
        };
        if !gpu_scan::is_exact::<T>(op) || !op.supports::<T>() {
            return TestResult::discard();
        }
        let o = ScanOptions {
            kind: kind_of(k),
            algorithm: algorithm_of(a),
            block_size: block_of(b),
            staging: staging_of(k >> 1, &gpu),
            // Host to host in one chunk of the pipeline, or the one-shot path.
            pipelining: if k & 16 != 0 {
                Pipelining::Always
            } else {
                Pipelining::Never
            },
        };
        let got = Scan::new(&gpu).options(o).scan(&x, op).unwrap();
        TestResult::from_bool(got == cpu::scan(&x, op, o.kind).unwrap())
    }

    fn run<A: quickcheck::Testable>(f: A) {
        QuickCheck::new().tests(100).max_tests(1000).quickcheck(f);
    }

    fn i32_case(x: Vec<i32>, op: u8, a: u8, b: u8, k: u8) -> TestResult {
        gpu_equals_cpu(x, op_of(op), a, b, k)
    }

    fn u64_case(x: Vec<u64>, op: u8, a: u8, b: u8, k: u8) -> TestResult {
        gpu_equals_cpu(x, op_of(op), a, b, k)
    }

    fn long_case(seed: u64, len: u32, op: u8, a: u8, b: u8, k: u8) -> TestResult {
        let n = len as usize % 300_000;
        let x: Vec<u32> = gpu_core::data::uniform(n, seed, 0.0, 4e9);
        gpu_equals_cpu(x, op_of(op), a, b, k)
    }

    fn affine_case(x: Vec<(i64, i64)>, a: u8, b: u8, k: u8) -> TestResult {
        let Some(gpu) = gpu_or_skip() else {
            return TestResult::discard();
        };
        let m: Vec<Affine<i64>> = x.iter().map(|&(a, b)| Affine { a, b }).collect();
        let o = ScanOptions {
            kind: kind_of(k),
            algorithm: algorithm_of(a),
            block_size: block_of(b),
            staging: TileStaging::Auto,
            ..ScanOptions::default()
        };
        let got = Scan::new(&gpu).options(o).scan_monoid(&m).unwrap();
        TestResult::from_bool(got == cpu::scan_monoid(&m, o.kind))
    }

    #[test]
    fn gpu_random_inputs_match_cpu_i32() {
        if gpu_or_skip().is_some() {
            run(i32_case as fn(Vec<i32>, u8, u8, u8, u8) -> TestResult);
        }
    }

    #[test]
    fn gpu_random_inputs_match_cpu_u64() {
        if gpu_or_skip().is_some() {
            run(u64_case as fn(Vec<u64>, u8, u8, u8, u8) -> TestResult);
        }
    }

    /// Long random inputs (many tiles and blocks, several recursion levels).
    #[test]
    fn gpu_random_long_inputs_match_cpu() {
        if gpu_or_skip().is_some() {
            run(long_case as fn(u64, u32, u8, u8, u8, u8) -> TestResult);
        }
    }

    /// Affine maps over wrapping integers: exact, so any reordering would show.
    #[test]
    fn gpu_random_affine_i64_keeps_order() {
        if gpu_or_skip().is_some() {
            run(affine_case as fn(Vec<(i64, i64)>, u8, u8, u8) -> TestResult);
        }
    }
}
