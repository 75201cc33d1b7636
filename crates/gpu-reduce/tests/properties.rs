//! Properties on random lengths and values: of the CPU references (always), and GPU against CPU
//! (with the `cuda` feature; skipped visibly without a GPU).

use gpu_core::{Element, Mat2, Monoid, Op};
use gpu_reduce::cpu;
use quickcheck::QuickCheck;

fn op_from(i: u8) -> Op {
    Op::ALL[i as usize % Op::ALL.len()]
}

#[test]
fn parallel_equals_serial_for_integers() {
    fn prop(x: Vec<i64>, op: u8, repeat: u8) -> bool {
        // Repeat the input so the parallel chunks are exercised too.
        let x: Vec<i64> = x
            .iter()
            .copied()
            .cycle()
            .take(x.len() * (1 + (repeat % 4) as usize * 300))
            .collect();
        let op = op_from(op);
        cpu::reduce(&x, op).unwrap() == cpu::par_reduce(&x, op).unwrap()
            && cpu::argmin(&x) == cpu::par_argmin(&x)
            && cpu::argmax(&x) == cpu::par_argmax(&x)
    }
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop as fn(Vec<i64>, u8, u8) -> bool);
}

#[test]
fn reduction_splits_at_any_point() {
    fn prop(x: Vec<u32>, cut: usize, op: u8) -> bool {
        let op = op_from(op);
        let cut = if x.is_empty() { 0 } else { cut % (x.len() + 1) };
        let (a, b) = x.split_at(cut);
        let whole = cpu::reduce(&x, op).unwrap();
        whole == u32::combine(op, cpu::reduce(a, op).unwrap(), cpu::reduce(b, op).unwrap())
    }
    QuickCheck::new().quickcheck(prop as fn(Vec<u32>, usize, u8) -> bool);
}

#[test]
fn argmin_and_argmax_are_the_first_extremes() {
    fn prop(x: Vec<i32>) -> bool {
        match (cpu::argmin(&x), cpu::argmax(&x)) {
            (None, None) => x.is_empty(),
            (Some(i), Some(j)) => {
                x.iter().all(|&v| v >= x[i])
                    && x[..i].iter().all(|&v| v > x[i])
                    && x.iter().all(|&v| v <= x[j])
                    && x[..j].iter().all(|&v| v < x[j])
            }
            _ => false,
        }
    }
    QuickCheck::new().quickcheck(prop as fn(Vec<i32>) -> bool);
}

#[test]
fn nan_wins_min_max_and_arg() {
    fn prop(x: Vec<f32>) -> bool {
        let first_nan = x.iter().position(|v| v.is_nan());
        match first_nan {
            Some(p) => {
                cpu::min(&x).unwrap().is_nan()
                    && cpu::max(&x).unwrap().is_nan()
                    && cpu::argmin(&x) == Some(p)
                    && cpu::argmax(&x) == Some(p)
            }
            None => cpu::max(&x) == x.iter().copied().reduce(f32::max),
        }
    }
    // quickcheck's f32 generator includes NaN and infinities.
    QuickCheck::new()
        .tests(500)
        .quickcheck(prop as fn(Vec<f32>) -> bool);
}

/// f16 and bf16 on the CPU: sums in f32 within f32 rounding of the f64 sum, min/max/argmin/
/// argmax exact and the same serial and parallel.
#[test]
fn half_reductions_accumulate_in_f32() {
    fn prop(x: Vec<f32>, repeat: u8) -> bool {
        let x: Vec<f32> = x
            .iter()
            .copied()
            .cycle()
            .take(x.len() * (1 + (repeat % 4) as usize * 300))
            .collect();
        fn check<T: Element<Accumulator = f32>>(x: &[f32]) -> bool {
            let h: Vec<T> = x.iter().map(|&v| T::from_f64(v as f64)).collect();
            let exact: f64 = h.iter().map(|v| v.to_f64()).sum();
            let magnitude: f64 = h.iter().map(|v| v.to_f64().abs()).sum();
            let sum = cpu::sum(&h) as f64;
            let sum_ok = if exact.is_finite() && magnitude < 1e30 {
                (sum - exact).abs() <= 64.0 * f32::EPSILON as f64 * magnitude
            } else {
                true
            };
            let naive_max = h.iter().copied().reduce(|a, b| T::combine(Op::Max, a, b));
            let same = |a: Option<T>, b: Option<T>| match (a, b) {
                (Some(a), Some(b)) => a == b || (a.is_nan() && b.is_nan()),
                (a, b) => a.is_none() && b.is_none(),
            };
            sum_ok
                && same(cpu::max(&h), naive_max)
                && same(cpu::par_max(&h), naive_max)
                && same(cpu::min(&h), cpu::par_min(&h))
                && cpu::argmin(&h) == cpu::par_argmin(&h)
                && cpu::argmax(&h) == cpu::par_argmax(&h)
        }
        check::<gpu_core::f16>(&x) && check::<gpu_core::bf16>(&x)
    }
    QuickCheck::new()
        .tests(100)
        .quickcheck(prop as fn(Vec<f32>, u8) -> bool);
}

#[test]
fn monoid_reduction_splits_in_order() {
    fn prop(seeds: Vec<(u32, u32)>, cut: usize) -> bool {
        let x: Vec<Mat2<u32>> = seeds
            .iter()
            .map(|&(a, b)| Mat2([1, a, b, 1u32.wrapping_add(a.wrapping_mul(b))]))
            .collect();
        let cut = if x.is_empty() { 0 } else { cut % (x.len() + 1) };
        let (a, b) = x.split_at(cut);
        cpu::reduce_monoid(&x) == Mat2::combine(cpu::reduce_monoid(a), cpu::reduce_monoid(b))
            && cpu::reduce_monoid(&x) == cpu::par_reduce_monoid(&x)
    }
    QuickCheck::new().quickcheck(prop as fn(Vec<(u32, u32)>, usize) -> bool);
}

#[test]
fn widened_sum_is_exact() {
    fn prop(x: Vec<i32>) -> bool {
        let exact: i128 = x.iter().map(|&v| v as i128).sum();
        cpu::sum_wide(&x) as i128 == exact && cpu::sum(&x) == exact as i32
    }
    QuickCheck::new().quickcheck(prop as fn(Vec<i32>) -> bool);
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use gpu_core::data::SplitMix64;
    use gpu_core::testing::gpu_or_skip;
    use gpu_reduce::{Algorithm, Operation, Reduce};
    use quickcheck::TestResult;

    /// Random data of length `len` for the GPU properties: dyadic floats (exact sums in any
    /// order), integers of every bit pattern.
    fn random<T: Element>(len: usize, seed: u64) -> Vec<T> {
        let mut rng = SplitMix64::new(seed);
        (0..len)
            .map(|_| {
                let r = rng.next_u64();
                if T::IS_FLOAT {
                    T::from_f64(((r % 257) as f64 - 128.0) / 8.0)
                } else {
                    T::from_f64((r % 2001) as f64 - 1000.0)
                }
            })
            .collect()
    }

    /// `default` random cases, or `QUICKCHECK_TESTS` when set (fewer under compute-sanitizer).
    fn cases(default: u64) -> u64 {
        std::env::var("QUICKCHECK_TESTS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }

    fn pick(i: u8) -> Algorithm {
        Algorithm::ALL[i as usize % Algorithm::ALL.len()]
    }

    fn same<T: Element>(a: T, b: T) -> bool {
        a == b || (a.is_nan() && b.is_nan())
    }

    fn check<T: Element>(len: u16, seed: u64, alg: u8, op: u8, block: u8) -> TestResult {
        let Some(gpu) = gpu_or_skip() else {
            return TestResult::discard();
        };
        let len = len as usize * (1 + seed as usize % 7);
        let op = op_from(op);
        if !op.supports::<T>() {
            return TestResult::discard();
        }
        let mut x: Vec<T> = random(len, seed);
        if T::IS_FLOAT && op == Op::Product {
            // Float products of arbitrary dyadic values round differently in different
            // orders; ±1 keeps them exact, so any order must agree bit for bit (rounding of
            // products is covered with a tolerance in gpu.rs).
            let one = T::from_f64(1.0);
            x.iter_mut().for_each(|v| {
                *v = if v.to_f64() < 0.0 {
                    T::from_f64(-1.0)
                } else {
                    one
                }
            });
        }
        let alg = pick(alg);
        let mut r = Reduce::new(&gpu).algorithm(alg);
        if block % 3 == 0 {
            r = r.block_size(32 << (block as u32 % 6));
        }
        let got = r.reduce(&x, op).unwrap();
        let want = cpu::reduce(&x, op).unwrap();
        if !same(got, want) {
            return TestResult::error(format!(
                "{alg} {op} {} len {len}: {got:?} vs {want:?}",
                T::NAME
            ));
        }
        if alg.check(Operation::ArgMin).is_ok() {
            let (gi, wi) = (r.argmin(&x).unwrap(), cpu::argmin(&x));
            let (gx, wx) = (r.argmax(&x).unwrap(), cpu::argmax(&x));
            if gi != wi || gx != wx {
                return TestResult::error(format!(
                    "{alg} arg {} len {len}: {gi:?}/{gx:?} vs {wi:?}/{wx:?}",
                    T::NAME
                ));
            }
        }
        TestResult::passed()
    }

    #[test]
    fn gpu_matches_cpu_on_random_inputs() {
        if gpu_or_skip().is_none() {
            return;
        }
        QuickCheck::new()
            .tests(cases(150))
            .quickcheck(check::<i32> as fn(u16, u64, u8, u8, u8) -> TestResult);
        QuickCheck::new()
            .tests(cases(100))
            .quickcheck(check::<u64> as fn(u16, u64, u8, u8, u8) -> TestResult);
        QuickCheck::new()
            .tests(cases(100))
            .quickcheck(check::<f32> as fn(u16, u64, u8, u8, u8) -> TestResult);
        QuickCheck::new()
            .tests(cases(60))
            .quickcheck(check::<f64> as fn(u16, u64, u8, u8, u8) -> TestResult);
        QuickCheck::new()
            .tests(cases(60))
            .quickcheck(check::<gpu_core::f16> as fn(u16, u64, u8, u8, u8) -> TestResult);
        QuickCheck::new()
            .tests(cases(60))
            .quickcheck(check::<gpu_core::bf16> as fn(u16, u64, u8, u8, u8) -> TestResult);
    }

    #[test]
    fn gpu_monoids_match_cpu_on_random_inputs() {
        fn prop(seeds: Vec<(u32, u32)>, repeat: u8, alg: u8) -> TestResult {
            let Some(gpu) = gpu_or_skip() else {
                return TestResult::discard();
            };
            let x: Vec<Mat2<u32>> = seeds
                .iter()
                .cycle()
                .take(seeds.len() * (1 + repeat as usize * 40))
                .enumerate()
                .map(|(i, &(a, b))| {
                    let a = a.wrapping_add(i as u32);
                    Mat2([1, a, b, 1u32.wrapping_add(a.wrapping_mul(b))])
                })
                .collect();
            let alg = pick(alg);
            let got = Reduce::new(&gpu).algorithm(alg).reduce_monoid(&x);
            if !alg.keeps_order() {
                return TestResult::from_bool(got.is_err());
            }
            TestResult::from_bool(got.unwrap() == cpu::reduce_monoid(&x))
        }
        if gpu_or_skip().is_none() {
            return;
        }
        QuickCheck::new()
            .tests(cases(100))
            .quickcheck(prop as fn(Vec<(u32, u32)>, u8, u8) -> TestResult);
    }
}
