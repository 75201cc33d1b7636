//! The CPU references against naive, independently written folds: every type, every operator,
//! edge sizes around the parallel chunk.

use gpu_core::data::{typical, SplitMix64};
use gpu_core::{Affine, Element, Mat2, Monoid, Op};
use gpu_reduce::cpu::{self, PAR_CHUNK};

const SIZES: [usize; 12] = [
    0,
    1,
    2,
    31,
    32,
    33,
    1023,
    1025,
    PAR_CHUNK - 1,
    PAR_CHUNK,
    PAR_CHUNK + 1,
    3 * PAR_CHUNK + 7,
];

/// Naive integer folds written out per operator, independent of `Element::combine`.
macro_rules! int_checks {
    ($t:ty) => {{
        for (seed, &n) in SIZES.iter().enumerate() {
            let mut rng = SplitMix64::new(seed as u64);
            let x: Vec<$t> = (0..n).map(|_| rng.next_u64() as $t).collect();
            let naive = |op: Op| -> $t {
                let mut acc: $t = match op {
                    Op::Sum | Op::BitOr | Op::BitXor => 0,
                    Op::Product => 1,
                    Op::Min => <$t>::MAX,
                    Op::Max => <$t>::MIN,
                    Op::BitAnd => !0,
                };
                for &v in &x {
                    acc = match op {
                        Op::Sum => acc.wrapping_add(v),
                        Op::Product => acc.wrapping_mul(v | 1),
                        Op::Min => {
                            if v < acc {
                                v
                            } else {
                                acc
                            }
                        }
                        Op::Max => {
                            if v > acc {
                                v
                            } else {
                                acc
                            }
                        }
                        Op::BitAnd => acc & v,
                        Op::BitOr => acc | v,
                        Op::BitXor => acc ^ v,
                    };
                }
                acc
            };
            let odd: Vec<$t> = x.iter().map(|&v| v | 1).collect();
            for op in Op::ALL {
                let input = if op == Op::Product { &odd } else { &x };
                let want = naive(op);
                assert_eq!(
                    cpu::reduce(input, op).unwrap(),
                    want,
                    "{} {op} n={n}",
                    stringify!($t)
                );
                assert_eq!(
                    cpu::par_reduce(input, op).unwrap(),
                    want,
                    "par {} {op} n={n}",
                    stringify!($t)
                );
            }
            assert_eq!(cpu::sum(&x), naive(Op::Sum));
            assert_eq!(cpu::par_sum(&x), naive(Op::Sum));
            assert_eq!(cpu::product(&odd), naive(Op::Product));
            let (min, max) = (x.iter().copied().min(), x.iter().copied().max());
            assert_eq!(cpu::min(&x), min);
            assert_eq!(cpu::max(&x), max);
            assert_eq!(cpu::par_min(&x), min);
            assert_eq!(cpu::par_max(&x), max);
            // First extreme: Iterator::min_by_key keeps the first, max_by_key the last.
            let first_min = min.map(|m| x.iter().position(|&v| v == m).unwrap());
            let first_max = max.map(|m| x.iter().position(|&v| v == m).unwrap());
            assert_eq!(cpu::argmin(&x), first_min);
            assert_eq!(cpu::argmax(&x), first_max);
            assert_eq!(cpu::par_argmin(&x), first_min);
            assert_eq!(cpu::par_argmax(&x), first_max);
        }
    }};
}

#[test]
fn integers_every_operator_every_size() {
    int_checks!(i32);
    int_checks!(u32);
    int_checks!(i64);
    int_checks!(u64);
}

/// Floats: sums against an f64 (for f32) or exact-data reference, min/max/argmin/argmax with
/// NaN, bitwise refused.
fn float_checks<T: Element>() {
    for (seed, &n) in SIZES.iter().enumerate() {
        let x: Vec<T> = typical(n, seed as u64 + 100);
        // Dyadic values k/4: every partial sum is exact, so any order gives the same sum.
        let dyadic: Vec<T> = x
            .iter()
            .map(|v| T::from_f64((v.to_f64() * 32.0).round() / 4.0))
            .collect();
        let exact: f64 = dyadic.iter().map(|v| v.to_f64()).sum();
        assert_eq!(cpu::reduce(&dyadic, Op::Sum).unwrap().to_f64(), exact);
        assert_eq!(cpu::par_reduce(&dyadic, Op::Sum).unwrap().to_f64(), exact);
        // Typical values: within a stated tolerance of the f64 sum (64 ulps of the sum of
        // magnitudes; serial and chunked orders round differently).
        let reference: f64 = x.iter().map(|v| v.to_f64()).sum();
        let magnitude: f64 = x.iter().map(|v| v.to_f64().abs()).sum();
        let ulp = if std::mem::size_of::<T>() == 4 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        for got in [
            cpu::reduce(&x, Op::Sum).unwrap(),
            cpu::par_reduce(&x, Op::Sum).unwrap(),
        ] {
            assert!(
                (got.to_f64() - reference).abs() <= 64.0 * ulp * magnitude,
                "{} sum n={n}: {got:?} vs {reference}",
                T::NAME
            );
        }
        // min/max and arg variants, exact.
        let naive_min = x.iter().map(|v| v.to_f64()).fold(f64::INFINITY, f64::min);
        let naive_max = x
            .iter()
            .map(|v| v.to_f64())
            .fold(f64::NEG_INFINITY, f64::max);
        if n > 0 {
            assert_eq!(cpu::min(&x).unwrap().to_f64(), naive_min);
            assert_eq!(cpu::par_max(&x).unwrap().to_f64(), naive_max);
            let first = |m: f64| x.iter().position(|v| v.to_f64() == m);
            assert_eq!(cpu::argmin(&x), first(naive_min));
            assert_eq!(cpu::par_argmax(&x), first(naive_max));
        } else {
            assert_eq!(cpu::min(&x), None);
            assert_eq!(cpu::argmax(&x), None);
        }
        // NaN: min/max are NaN, argmin/argmax point at the first NaN.
        if n >= 3 {
            let mut y = x.clone();
            let p = n / 3;
            y[p] = T::from_f64(f64::NAN);
            y[n - 1] = T::from_f64(f64::NAN);
            assert!(cpu::min(&y).unwrap().is_nan());
            assert!(cpu::par_max(&y).unwrap().is_nan());
            assert!(cpu::reduce(&y, Op::Max).unwrap().is_nan());
            assert_eq!(cpu::argmin(&y), Some(p));
            assert_eq!(cpu::argmax(&y), Some(p));
            assert_eq!(cpu::par_argmin(&y), Some(p));
            assert_eq!(cpu::par_argmax(&y), Some(p));
        }
        for op in [Op::BitAnd, Op::BitOr, Op::BitXor] {
            let e = cpu::reduce(&x, op).unwrap_err().to_string();
            assert!(e.contains("not defined for element type"), "{e}");
        }
    }
}

#[test]
fn floats_every_operator_every_size() {
    float_checks::<f32>();
    float_checks::<f64>();
}

#[test]
fn empty_inputs_give_identities_and_none() {
    fn check<T: Element>() {
        for op in Op::ALL {
            if let Some(id) = T::Accumulator::identity(op) {
                assert_eq!(cpu::reduce::<T>(&[], op).unwrap(), id);
                assert_eq!(cpu::par_reduce::<T>(&[], op).unwrap(), id);
            }
        }
        assert_eq!(cpu::min::<T>(&[]), None);
        assert_eq!(cpu::par_max::<T>(&[]), None);
        assert_eq!(cpu::argmin::<T>(&[]), None);
        assert_eq!(cpu::par_argmax::<T>(&[]), None);
    }
    macro_rules! check_each {
        ($t:ty) => {
            check::<$t>()
        };
    }
    gpu_core::for_each_element!(check_each);
    gpu_core::for_each_half!(check_each);
}

#[test]
fn ties_go_to_the_first_index() {
    let x = [3i64, 1, 1, 7, 7, 1];
    assert_eq!(cpu::argmin(&x), Some(1));
    assert_eq!(cpu::argmax(&x), Some(3));
    let z = [0.0f32, -0.0, 0.0];
    assert_eq!(cpu::argmin(&z), Some(0)); // -0.0 == 0.0
    let big: Vec<u32> = (0..3 * PAR_CHUNK).map(|i| (i % 5) as u32).collect();
    assert_eq!(cpu::par_argmax(&big), Some(4));
    assert_eq!(cpu::par_argmin(&big), Some(0));
}

#[test]
fn widening() {
    let x: Vec<i32> = (0..3 * PAR_CHUNK as i32).map(|i| i32::MAX - i).collect();
    let exact: i64 = x.iter().map(|&v| v as i64).sum();
    assert_eq!(cpu::sum_wide(&x), exact);
    assert_eq!(cpu::par_reduce_wide(&x, Op::Sum).unwrap(), exact);
    assert_eq!(cpu::sum(&x), exact as i32); // wraps in i32
    let u: Vec<u32> = vec![u32::MAX; 1000];
    assert_eq!(cpu::sum_wide(&u), 1000 * u32::MAX as u64);
    let p: Vec<i32> = vec![3; 30];
    assert_eq!(cpu::reduce_wide(&p, Op::Product).unwrap(), 3i64.pow(30));
    let f: Vec<f32> = vec![0.1; 1 << 20];
    let wide = cpu::sum_wide(&f);
    assert!((wide - 0.1f32 as f64 * (1 << 20) as f64).abs() < 1e-6);
    assert!(cpu::reduce_wide(&f, Op::Min).is_err());
    assert_eq!(cpu::reduce_wide::<u32>(&[], Op::Product).unwrap(), 1);
}

/// Unimodular 2×2 matrices (determinant 1): products never degenerate, so a reordering shows.
fn unimodular(n: usize, seed: u64) -> Vec<Mat2<u32>> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let (a, b) = (rng.next_u64() as u32, rng.next_u64() as u32);
            Mat2([1, a, b, 1u32.wrapping_add(a.wrapping_mul(b))])
        })
        .collect()
}

#[test]
fn monoids_keep_order() {
    for &n in &SIZES {
        let x = unimodular(n, n as u64);
        let naive = x.iter().fold(Mat2::<u32>::identity(), |acc, m| {
            let (a, b) = (acc.0, m.0);
            Mat2([
                a[0].wrapping_mul(b[0])
                    .wrapping_add(a[1].wrapping_mul(b[2])),
                a[0].wrapping_mul(b[1])
                    .wrapping_add(a[1].wrapping_mul(b[3])),
                a[2].wrapping_mul(b[0])
                    .wrapping_add(a[3].wrapping_mul(b[2])),
                a[2].wrapping_mul(b[1])
                    .wrapping_add(a[3].wrapping_mul(b[3])),
            ])
        });
        assert_eq!(cpu::reduce_monoid(&x), naive, "n={n}");
        assert_eq!(cpu::par_reduce_monoid(&x), naive, "par n={n}");
        if n >= 2 {
            let mut swapped = x.clone();
            swapped.swap(n / 2 - 1, n / 2);
            assert_ne!(
                cpu::reduce_monoid(&swapped),
                naive,
                "swap undetected at n={n}"
            );
        }
    }
    // Affine maps: the composition applies them in order.
    let maps: Vec<Affine<i64>> = (1..=20).map(|k| Affine { a: k, b: -k }).collect();
    let composed = cpu::reduce_monoid(&maps);
    let direct = maps.iter().fold(5i64, |x, f| f.apply(x));
    assert_eq!(composed.apply(5), direct);
    assert_eq!(cpu::reduce_monoid::<Mat2<f64>>(&[]), Mat2::identity());
}
