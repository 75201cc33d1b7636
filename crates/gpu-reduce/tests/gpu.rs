//! gpu-reduce on a real GPU: every algorithm × type × operator against the serial CPU
//! reference, skipped (visibly) without a GPU, failing with GPU_PRIMS_REQUIRE_GPU=1.
//!
//! Float comparisons: sums of dyadic data (multiples of 1/4, small) are exact in any order and
//! compared exactly; sums of typical data in [-1, 1) are compared with the f64 sum of the same
//! values, within 64 ulps (of the type) of the sum of magnitudes. Products, min, max and the arg
//! variants are exact.
#![cfg(feature = "cuda")]

use gpu_core::data::{typical, SplitMix64};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{Affine, DeviceArray, Element, Gpu, Mat2, Monoid, Op};
use gpu_reduce::{
    cpu, Algorithm, DeviceMonoid, DeviceReduce, DeviceSlice, Operation, Reduce, Widen, Workspace,
};

/// 0, 1, 31, 32, 33, 1023, 1024, 1025 and 2^k ± 1 for k = 11, 13, 16, 20.
fn sizes() -> Vec<usize> {
    let mut s = vec![0, 1, 31, 32, 33, 1023, 1024, 1025];
    for k in [11, 13, 16, 20] {
        s.push((1 << k) - 1);
        s.push((1 << k) + 1);
    }
    s
}

fn same<T: Element>(a: T, b: T) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Integer-typed test data from raw bits.
trait Bits: Element {
    fn from_bits64(b: u64) -> Self;
    const BITS: u32;
}
macro_rules! bits {
    ($($t:ty),*) => { $(
        impl Bits for $t {
            fn from_bits64(b: u64) -> Self { b as $t }
            const BITS: u32 = <$t>::BITS;
        }
    )* };
}
bits!(i32, u32, i64, u64);
impl Bits for f32 {
    fn from_bits64(b: u64) -> Self {
        b as f32
    }
    const BITS: u32 = 32;
}
impl Bits for f64 {
    fn from_bits64(b: u64) -> Self {
        b as f64
    }
    const BITS: u32 = 64;
}
// The 16-bit floats take only the float branches of `data_for` (no bitwise operators).
macro_rules! half_bits {
    ($($t:ty),*) => { $(
        impl Bits for $t {
            fn from_bits64(b: u64) -> Self {
                <$t>::from_f64(b as f64)
            }
            const BITS: u32 = 16;
        }
    )* };
}
half_bits!(gpu_core::f16, gpu_core::bf16);

/// Data that exercises `op` on `T` without saturating it, with exact float results in any
/// order: sums of small dyadic values; products of ±1 with a few 2s (integers: odd values, so
/// wrapping products stay non-zero); bitwise operators on bit patterns that leave
/// something to find.
fn data_for<T: Bits>(op: Op, n: usize, seed: u64) -> Vec<T> {
    let mut rng = SplitMix64::new(seed ^ (n as u64).wrapping_mul(0x9E37_79B9));
    (0..n)
        .map(|i| {
            let r = rng.next_u64();
            match op {
                Op::Sum if T::IS_FLOAT => T::from_f64(((r % 65) as f64 - 32.0) / 4.0),
                Op::Sum | Op::Min | Op::Max => {
                    if T::IS_FLOAT {
                        T::from_f64(((r % 4001) as f64 - 2000.0) / 64.0)
                    } else {
                        T::from_bits64(r >> (r % 64))
                    }
                }
                // At most n / 10007 factors of 2 (≤ 2^105 for n ≤ 2^20): no partial product
                // of any subset can overflow, whatever the grouping.
                Op::Product if T::IS_FLOAT => T::from_f64(match i % 10007 {
                    5 => 2.0,
                    _ if r % 2 == 0 => -1.0,
                    _ => 1.0,
                }),
                Op::Product => T::from_bits64(r | 1),
                Op::BitAnd => T::from_bits64(if r % 64 == 0 {
                    !(1u64 << ((r >> 58) % T::BITS as u64))
                } else {
                    !0
                }),
                Op::BitOr => T::from_bits64(if r % 64 == 0 {
                    1u64 << ((r >> 58) % T::BITS as u64)
                } else {
                    0
                }),
                Op::BitXor => T::from_bits64(r),
            }
        })
        .collect()
}

/// Every algorithm × operator × size for one type.
fn every_algorithm_and_operator<T: Bits>(gpu: &Gpu) {
    let reducers: Vec<Reduce> = Algorithm::ALL
        .iter()
        .map(|&a| Reduce::new(gpu).algorithm(a))
        .collect();
    for op in Op::ALL {
        if !op.supports::<T>() {
            continue;
        }
        for n in sizes() {
            let host: Vec<T> = data_for(op, n, 1);
            let want = cpu::reduce(&host, op).unwrap();
            let dev = gpu.upload(&host).unwrap();
            for r in &reducers {
                let got = r.reduce(&dev, op).unwrap();
                assert!(
                    same(got, want),
                    "{} {op} {} n={n}: got {got:?}, want {want:?}",
                    r.selected_algorithm(),
                    T::NAME
                );
            }
        }
    }
}

macro_rules! per_type_test {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            let Some(gpu) = gpu_or_skip() else { return };
            every_algorithm_and_operator::<$t>(&gpu);
        }
    };
}
per_type_test!(gpu_every_algorithm_operator_size_i32, i32);
per_type_test!(gpu_every_algorithm_operator_size_u32, u32);
per_type_test!(gpu_every_algorithm_operator_size_i64, i64);
per_type_test!(gpu_every_algorithm_operator_size_u64, u64);
per_type_test!(gpu_every_algorithm_operator_size_f32, f32);
per_type_test!(gpu_every_algorithm_operator_size_f64, f64);
per_type_test!(gpu_every_algorithm_operator_size_f16, gpu_core::f16);
per_type_test!(gpu_every_algorithm_operator_size_bf16, gpu_core::bf16);

/// Typical float data in [-1, 1): within the stated tolerance of the f64 sum (ulps of the
/// accumulator: f32 for f16 and bf16).
fn float_sums_within_tolerance<T: Element>(gpu: &Gpu) {
    let ulp = if std::mem::size_of::<T::Accumulator>() == 4 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    for n in sizes() {
        let host: Vec<T> = typical(n, 7);
        let reference: f64 = host.iter().map(|v| v.to_f64()).sum();
        let magnitude: f64 = host.iter().map(|v| v.to_f64().abs()).sum();
        let dev = gpu.upload(&host).unwrap();
        for a in Algorithm::ALL {
            let got = Reduce::new(gpu).algorithm(a).sum(&dev).unwrap().to_f64();
            assert!(
                (got - reference).abs() <= 64.0 * ulp * magnitude,
                "{a} {} n={n}: {got} vs {reference}",
                T::NAME
            );
        }
    }
}

#[test]
fn gpu_float_sums_within_tolerance_of_f64() {
    let Some(gpu) = gpu_or_skip() else { return };
    float_sums_within_tolerance::<f32>(&gpu);
    float_sums_within_tolerance::<f64>(&gpu);
    float_sums_within_tolerance::<gpu_core::f16>(&gpu);
    float_sums_within_tolerance::<gpu_core::bf16>(&gpu);
}

/// min/max/argmin/argmax with ties (few distinct values) and, for floats, NaNs.
fn arg_and_extremes<T: Element>(gpu: &Gpu) {
    for n in sizes() {
        let mut host: Vec<T> = gpu_core::data::uniform(n, n as u64 + 3, -5.0, 5.0);
        for with_nan in [false, true] {
            if with_nan {
                if !T::IS_FLOAT || n < 3 {
                    continue;
                }
                host[n / 3 + 1] = T::from_f64(f64::NAN);
                host[n - 1] = T::from_f64(f64::NAN);
            }
            let dev = gpu.upload(&host).unwrap();
            for a in Algorithm::ALL {
                let r = Reduce::new(gpu).algorithm(a);
                let ctx = format!("{a} {} n={n} nan={with_nan}", T::NAME);
                let (mn, mx) = (r.min(&dev).unwrap(), r.max(&dev).unwrap());
                assert_eq!(mn.is_none(), n == 0, "{ctx}");
                assert_eq!(mx.is_none(), n == 0, "{ctx}");
                if let (Some(g), Some(w)) = (mn, cpu::min(&host)) {
                    assert!(same(g, w), "min {ctx}: {g:?} vs {w:?}");
                }
                if let (Some(g), Some(w)) = (mx, cpu::max(&host)) {
                    assert!(same(g, w), "max {ctx}: {g:?} vs {w:?}");
                }
                if a.check(Operation::ArgMin).is_ok() {
                    assert_eq!(r.argmin(&dev).unwrap(), cpu::argmin(&host), "argmin {ctx}");
                    assert_eq!(r.argmax(&dev).unwrap(), cpu::argmax(&host), "argmax {ctx}");
                } else {
                    let e = r.argmin(&dev).unwrap_err().to_string();
                    assert!(e.contains("not built"), "{ctx}: {e}");
                }
            }
        }
    }
}

#[test]
fn gpu_min_max_argmin_argmax_with_ties_and_nan() {
    let Some(gpu) = gpu_or_skip() else { return };
    arg_and_extremes::<i32>(&gpu);
    arg_and_extremes::<u32>(&gpu);
    arg_and_extremes::<i64>(&gpu);
    arg_and_extremes::<u64>(&gpu);
    arg_and_extremes::<f32>(&gpu);
    arg_and_extremes::<f64>(&gpu);
    arg_and_extremes::<gpu_core::f16>(&gpu);
    arg_and_extremes::<gpu_core::bf16>(&gpu);
}

/// `op` widened, every algorithm, against the CPU's widened reduction: exactly, or (typical
/// float sums) within 64 f64 ulps of the sum of magnitudes.
fn widening<T: Widen>(gpu: &Gpu, host: &[T], op: Op, exact: bool) {
    let dev = gpu.upload(host).unwrap();
    let want = cpu::reduce_wide(host, op).unwrap();
    let magnitude: f64 = host.iter().map(|v| v.to_f64().abs()).sum();
    for a in Algorithm::ALL {
        let got = Reduce::new(gpu).algorithm(a).reduce_wide(&dev, op);
        if a.check(Operation::Widened(op)).is_err() {
            assert!(got.is_err(), "{a}");
            continue;
        }
        let got = got.unwrap();
        let ok = if exact {
            same(got, want)
        } else {
            (got.to_f64() - want.to_f64()).abs() <= 64.0 * f64::EPSILON * magnitude
        };
        assert!(
            ok,
            "{a} wide {op} {} n={}: {got:?} vs {want:?}",
            T::NAME,
            host.len()
        );
    }
}

#[test]
fn gpu_widening_i32_u32_f32() {
    let Some(gpu) = gpu_or_skip() else { return };
    for n in sizes() {
        // Large i32 / u32 values: the plain sum wraps, the widened one does not.
        let big: Vec<i32> = gpu_core::data::uniform(n, 5, (i32::MAX / 2) as f64, i32::MAX as f64);
        widening(&gpu, &big, Op::Sum, true);
        widening(&gpu, &big, Op::Product, true);
        if n > 2 {
            let exact: i64 = big.iter().map(|&v| v as i64).sum();
            assert_eq!(Reduce::new(&gpu).sum_wide(&big).unwrap(), exact);
            assert_ne!(Reduce::new(&gpu).sum(&big).unwrap() as i64, exact);
        }
        let words: Vec<u32> = data_for::<u32>(Op::Sum, n, 8);
        widening(&gpu, &words, Op::Sum, true);
        let odd: Vec<u32> = data_for::<u32>(Op::Product, n, 9);
        widening(&gpu, &odd, Op::Product, true);
        let f: Vec<f32> = typical(n, 11);
        widening(&gpu, &f, Op::Sum, false);
        let dyadic: Vec<f32> = data_for::<f32>(Op::Sum, n, 12);
        widening(&gpu, &dyadic, Op::Sum, true);
        let factors: Vec<f32> = data_for::<f32>(Op::Product, n, 13);
        widening(&gpu, &factors, Op::Product, true);
    }
}

/// Unimodular matrices (determinant 1, never degenerate): a swap of two neighbours changes the
/// product, so any reordering by the GPU shows.
fn unimodular<T: Element>(n: usize, seed: u64, small: bool) -> Vec<Mat2<T>> {
    let mut rng = SplitMix64::new(seed);
    let one = T::from_f64(1.0);
    (0..n)
        .map(|_| {
            let (a, b) = if small {
                // Near the identity, for floats: products stay bounded.
                (
                    T::from_f64((rng.next_f64() - 0.5) / 16.0),
                    T::from_f64((rng.next_f64() - 0.5) / 16.0),
                )
            } else {
                (
                    T::from_f64((rng.next_u64() >> 40) as f64),
                    T::from_f64((rng.next_u64() >> 40) as f64),
                )
            };
            let d = T::combine(Op::Sum, one, T::combine(Op::Product, a, b));
            Mat2([one, a, b, d])
        })
        .collect()
}

fn monoid_all_algorithms<M: DeviceMonoid>(gpu: &Gpu, host: &[M], close: impl Fn(M, M) -> bool) {
    let want = cpu::reduce_monoid(host);
    let dev = gpu.upload(host).unwrap();
    for a in Algorithm::ALL {
        let got = Reduce::new(gpu).algorithm(a).reduce_monoid(&dev);
        if !a.keeps_order() {
            let e = got.unwrap_err().to_string();
            assert!(e.contains("commutative"), "{a}: {e}");
            continue;
        }
        let got = got.unwrap();
        assert!(
            close(got, want),
            "{a} {} n={}: {got:?} vs {want:?}",
            M::NAME,
            host.len()
        );
    }
}

#[test]
fn gpu_non_commutative_mat2_keeps_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    for n in sizes() {
        let x: Vec<Mat2<u32>> = unimodular(n, 1, false);
        if n >= 2 {
            // The input really does detect reordering.
            let mut y = x.clone();
            y.swap(n / 2 - 1, n / 2);
            assert_ne!(cpu::reduce_monoid(&x), cpu::reduce_monoid(&y));
            let mut rev = x.clone();
            rev.reverse();
            assert_ne!(cpu::reduce_monoid(&x), cpu::reduce_monoid(&rev));
        }
        monoid_all_algorithms(&gpu, &x, |a, b| a == b);
        monoid_all_algorithms(&gpu, &unimodular::<i32>(n, 2, false), |a, b| a == b);
        monoid_all_algorithms(&gpu, &unimodular::<u64>(n, 3, false), |a, b| a == b);
        monoid_all_algorithms(&gpu, &unimodular::<i64>(n, 4, false), |a, b| a == b);
        let affine: Vec<Affine<i64>> = (0..n as i64)
            .map(|i| Affine {
                a: 2 * i + 1,
                b: i - 7,
            })
            .collect();
        monoid_all_algorithms(&gpu, &affine, |a, b| a == b);
        if n <= 1 << 16 {
            let close = |a: Mat2<f64>, b: Mat2<f64>| {
                let scale = b.0.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                a.0.iter()
                    .zip(b.0)
                    .all(|(x, y)| (x - y).abs() <= 1e-9 * scale)
            };
            monoid_all_algorithms(&gpu, &unimodular::<f64>(n, 5, true), close);
            let closef = |a: Mat2<f32>, b: Mat2<f32>| {
                let scale = b.0.iter().fold(1.0f32, |m, v| m.max(v.abs()));
                a.0.iter()
                    .zip(b.0)
                    .all(|(x, y)| (x - y).abs() <= 1e-2 * scale)
            };
            monoid_all_algorithms(&gpu, &unimodular::<f32>(n, 6, true), closef);
        }
    }
}

#[test]
fn gpu_large_2_pow_24_plus_5() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1 << 24) + 5;
    let i: Vec<i32> = data_for(Op::Sum, n, 24);
    let f: Vec<f32> = data_for(Op::Sum, n, 25);
    let (di, df) = (gpu.upload(&i).unwrap(), gpu.upload(&f).unwrap());
    let (wi, wf) = (cpu::sum(&i), cpu::sum(&f));
    let mx = cpu::max(&f);
    for a in Algorithm::ALL {
        let r = Reduce::new(&gpu).algorithm(a);
        assert_eq!(r.sum(&di).unwrap(), wi, "{a}");
        assert_eq!(r.sum(&df).unwrap(), wf, "{a}");
        assert_eq!(r.max(&df).unwrap(), mx, "{a}");
    }
}

/// Host data straight in, one-shot: pageable and page-locked slices (the latter read by the
/// DMA engine directly) give the results of the same data on the device, bit for bit, floats
/// included. (The default host pipeline's float sums are tested in `host_pipeline.rs`.)
#[test]
fn gpu_host_slices_pageable_and_pinned() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (3 << 22) + 7; // 48 MiB of f32: the staged path for pageable data
    let f: Vec<f32> = typical(n, 31);
    let pinned = gpu.pinned_from(&f).unwrap();
    let on_device = gpu.upload(&f).unwrap();
    let r = Reduce::new(&gpu).pipelining(gpu_core::Pipelining::Never);
    let want = r.sum(&on_device).unwrap();
    assert_eq!(r.sum(&f).unwrap().to_bits(), want.to_bits());
    assert_eq!(
        r.sum(pinned.as_slice().unwrap()).unwrap().to_bits(),
        want.to_bits()
    );
    assert_eq!(
        r.argmax(pinned.as_slice().unwrap()).unwrap(),
        r.argmax(&on_device).unwrap()
    );
    assert_eq!(r.argmax(&on_device).unwrap(), cpu::argmax(&f));
}

#[test]
fn gpu_large_2_pow_28() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1 << 28;
    let i: Vec<i32> = data_for(Op::Sum, n, 28);
    let di = gpu.upload(&i).unwrap();
    let wi = cpu::par_sum(&i);
    drop(i);
    let mut f: Vec<f32> = data_for(Op::Max, n, 29);
    let p = n - 12345;
    f[p] = 1e9; // a unique maximum near the end
    let df = gpu.upload(&f).unwrap();
    drop(f);
    for a in Algorithm::ALL {
        let r = Reduce::new(&gpu).algorithm(a);
        assert_eq!(r.sum(&di).unwrap(), wi, "{a} sum i32");
        assert_eq!(r.max(&df).unwrap(), Some(1e9), "{a} max f32");
    }
    assert_eq!(Reduce::new(&gpu).argmax(&df).unwrap(), Some(p));
}

#[test]
fn gpu_length_beyond_2_pow_31() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n: usize = (1 << 31) + 7;
    // iota in i32 wraps: 0, 1, …, 2^31 − 1, −2^31, …, −2^31 + 6. Generated on the device.
    let x = gpu.iota::<i32>(n).unwrap();
    let half = 1i128 << 31;
    let exact: i128 = half * (half - 1) / 2 + (0..7).map(|j| j - half).sum::<i128>();
    let wrapped = (n as u128 * (n as u128 - 1) / 2) as u32 as i32;
    for a in [
        Algorithm::Auto,
        Algorithm::LastBlock,
        Algorithm::TwoPass,
        Algorithm::Unrolled,
    ] {
        let r = Reduce::new(&gpu).algorithm(a);
        assert_eq!(r.sum(&x).unwrap(), wrapped, "{a}");
        assert_eq!(r.argmin(&x).unwrap(), Some(1 << 31), "{a}");
        assert_eq!(r.argmax(&x).unwrap(), Some((1 << 31) - 1), "{a}");
    }
    assert_eq!(Reduce::new(&gpu).sum_wide(&x).unwrap() as i128, exact);
    assert_eq!(
        Reduce::new(&gpu)
            .algorithm(Algorithm::WarpShuffle)
            .reduce(&x, Op::Min)
            .unwrap(),
        i32::MIN
    );
}

#[test]
fn gpu_results_are_run_to_run_identical() {
    let Some(gpu) = gpu_or_skip() else { return };
    let host: Vec<f32> = typical((1 << 22) + 3, 99);
    let dev = gpu.upload(&host).unwrap();
    let stream = gpu.new_stream().unwrap();
    let mut ws = Workspace::new(&gpu).unwrap();
    let mut out = gpu.alloc::<f32>(1).unwrap();
    for a in Algorithm::ALL {
        let r = Reduce::new(&gpu).algorithm(a);
        let first = r.sum(&dev).unwrap().to_bits();
        for _ in 0..3 {
            assert_eq!(r.sum(&dev).unwrap().to_bits(), first, "{a}");
        }
        // The same bits through the asynchronous path on another stream.
        r.clone()
            .stream(&stream)
            .reduce_into(&dev, Op::Sum, &mut out, &mut ws)
            .unwrap();
        stream.synchronize().unwrap();
        assert_eq!(out.to_vec().unwrap()[0].to_bits(), first, "{a} reduce_into");
    }
}

#[test]
fn gpu_reduce_into_on_a_stream_without_waiting() {
    let Some(gpu) = gpu_or_skip() else { return };
    let stream = gpu.new_stream().unwrap();
    let mut ws = Workspace::new(&gpu).unwrap();
    ws.set_poison(true);
    let host: Vec<i64> = typical(100_003, 4);
    let dev = gpu.upload(&host).unwrap();
    let mut outs: Vec<DeviceArray<i64>> = Vec::new();
    // Enqueue every algorithm back to back, then read all results.
    for a in Algorithm::ALL {
        let mut out = gpu.alloc::<i64>(1).unwrap();
        out.fill(0x5a5a, gpu.stream()).unwrap();
        gpu.synchronize().unwrap();
        Reduce::new(&gpu)
            .algorithm(a)
            .stream(&stream)
            .reduce_into(&dev, Op::Max, &mut out, &mut ws)
            .unwrap();
        outs.push(out);
    }
    stream.synchronize().unwrap();
    for (a, out) in Algorithm::ALL.iter().zip(&outs) {
        assert_eq!(out.to_vec().unwrap()[0], cpu::max(&host).unwrap(), "{a}");
    }
    // Every guarded launch's last block left the counter at zero.
    assert_eq!(ws.last_block_counter().read(&stream).unwrap(), 0);
    // Planned once, launched many times.
    for a in Algorithm::ALL {
        let mut out = gpu.alloc::<i64>(1).unwrap();
        let r = Reduce::new(&gpu).algorithm(a).stream(&stream);
        let mut plan = r.prepare_into(&dev, Op::Sum, &mut out, &mut ws).unwrap();
        let launches = plan.kernels();
        match a {
            Algorithm::TwoPass => assert_eq!(launches.len(), 2, "{launches:?}"),
            Algorithm::Unrolled => assert!(launches.len() >= 5, "{launches:?}"),
            _ => assert_eq!(launches.len(), 1, "{launches:?}"),
        }
        for _ in 0..3 {
            plan.launch().unwrap();
        }
        drop(plan);
        stream.synchronize().unwrap();
        assert_eq!(out.to_vec().unwrap()[0], cpu::sum(&host), "{a} prepared");
    }
    assert_eq!(ws.last_block_counter().read(&stream).unwrap(), 0);
    // Empty input: the identity is written.
    let empty = gpu.alloc::<u32>(0).unwrap();
    let mut out = gpu.alloc::<u32>(2).unwrap();
    let r = Reduce::new(&gpu).stream(&stream);
    r.reduce_into(&empty, Op::BitAnd, &mut out, &mut ws)
        .unwrap();
    stream.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap()[0], u32::MAX);
    // Widened and monoid forms.
    let words: Vec<u32> = vec![u32::MAX; 1000];
    let dw = gpu.upload(&words).unwrap();
    let mut wide = gpu.alloc::<u64>(1).unwrap();
    r.reduce_wide_into(&dw, Op::Sum, &mut wide, &mut ws)
        .unwrap();
    let mats: Vec<Mat2<u64>> = unimodular(5000, 8, false);
    let dm = gpu.upload(&mats).unwrap();
    let mut prod = gpu.alloc::<Mat2<u64>>(1).unwrap();
    r.reduce_monoid_into(&dm, &mut prod, &mut ws).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(wide.to_vec().unwrap()[0], 1000 * u32::MAX as u64);
    assert_eq!(prod.to_vec().unwrap()[0], cpu::reduce_monoid(&mats));
    // No room for the result.
    let mut none = gpu.alloc::<i64>(0).unwrap();
    let e = r
        .reduce_into(&dev, Op::Sum, &mut none, &mut ws)
        .unwrap_err();
    assert!(e.to_string().contains("out"), "{e}");
}

#[test]
fn gpu_unaligned_slices_and_views() {
    let Some(gpu) = gpu_or_skip() else { return };
    // Offsets that break 16-byte alignment exercise the default kernel's head and tail.
    let host: Vec<f64> = data_for(Op::Sum, 10_007, 3);
    let dev = gpu.upload(&host).unwrap();
    let ints: Vec<i32> = data_for(Op::Sum, 10_007, 4);
    let di = gpu.upload(&ints).unwrap();
    for start in [0usize, 1, 2, 3, 5] {
        for end in [start, start + 1, start + 3, 9_000, 10_006, 10_007] {
            let s = DeviceSlice::new(&dev, start..end).unwrap();
            let si = DeviceSlice::new(&di, start..end).unwrap();
            for a in Algorithm::ALL {
                let r = Reduce::new(&gpu).algorithm(a);
                assert_eq!(
                    r.sum(&s).unwrap(),
                    cpu::sum(&host[start..end]),
                    "{a} {start}..{end}"
                );
                assert_eq!(
                    r.sum(&si).unwrap(),
                    cpu::sum(&ints[start..end]),
                    "{a} {start}..{end}"
                );
                if a.check(Operation::ArgMax).is_ok() {
                    assert_eq!(
                        r.argmax(&si).unwrap(),
                        cpu::argmax(&ints[start..end]),
                        "{a}"
                    );
                }
            }
        }
    }
    assert!(DeviceSlice::new(&dev, std::ops::Range { start: 5, end: 3 }).is_err());
    assert!(DeviceSlice::new(&dev, ..10_008).is_err());
    // Host slices, Vecs, arrays and ndarray views (logical order, any layout).
    let r = Reduce::new(&gpu);
    assert_eq!(r.sum(&ints[..]).unwrap(), cpu::sum(&ints));
    assert_eq!(r.sum(&[1u64, 2, 3]).unwrap(), 6);
    let m = ndarray::Array2::from_shape_fn((37, 41), |(i, j)| (i * 41 + j) as i64 - 700);
    let t = m.t();
    let logical: Vec<i64> = t.iter().copied().collect();
    assert_eq!(r.sum(&t).unwrap(), cpu::sum(&logical));
    assert_eq!(r.argmax(&t).unwrap(), cpu::argmax(&logical));
    assert_eq!(r.min(&m.column(3)).unwrap(), Some(3 - 700));
    // Method syntax and shortcuts.
    assert_eq!(di.sum().unwrap(), cpu::sum(&ints));
    assert_eq!(di.argmin().unwrap(), cpu::argmin(&ints));
    assert_eq!(gpu_reduce::max(&dev).unwrap(), cpu::max(&host));
}

#[test]
fn gpu_in_place_unrolled() {
    let Some(gpu) = gpu_or_skip() else { return };
    for n in [1usize, 2, 6, 7, 8, 48, 49, 50, 1000, (1 << 20) + 1] {
        let host: Vec<u64> = data_for(Op::BitXor, n, 6);
        for uf in [2, 3, 7, 16] {
            let r = Reduce::new(&gpu).unroll(uf);
            let mut dev = gpu.upload(&host).unwrap();
            // The non-destructive form leaves the input alone.
            let kept = r
                .clone()
                .algorithm(Algorithm::Unrolled)
                .reduce(&dev, Op::BitXor)
                .unwrap();
            assert_eq!(dev.to_vec().unwrap(), host);
            let got = r.reduce_in_place(&mut dev, Op::BitXor).unwrap();
            let want = cpu::reduce(&host, Op::BitXor).unwrap();
            assert_eq!(got, want, "n={n} uf={uf}");
            assert_eq!(kept, want, "n={n} uf={uf}");
        }
    }
    let mut empty = gpu.alloc::<f32>(0).unwrap();
    assert_eq!(
        Reduce::new(&gpu)
            .reduce_in_place(&mut empty, Op::Product)
            .unwrap(),
        1.0
    );
}

#[test]
fn gpu_block_sizes() {
    let Some(gpu) = gpu_or_skip() else { return };
    let host: Vec<u32> = data_for(Op::Sum, 70_001, 12);
    let dev = gpu.upload(&host).unwrap();
    let want = cpu::sum(&host);
    let mats: Vec<Mat2<f64>> = unimodular(3000, 13, true);
    let dm = gpu.upload(&mats).unwrap();
    for block in [32, 64, 128, 256, 512, 1024] {
        for a in Algorithm::ALL {
            let r = Reduce::new(&gpu).algorithm(a).block_size(block);
            assert_eq!(r.sum(&dev).unwrap(), want, "{a} block {block}");
            if a.keeps_order() {
                // Mat2<f64> with 1024 threads needs 64 KiB for the pairwise kernels: opt-in.
                r.reduce_monoid(&dm).unwrap();
            }
        }
    }
}

#[test]
fn gpu_bad_inputs_give_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let f = gpu.upload(&[1.0f32, 2.0]).unwrap();
    let r = Reduce::new(&gpu);
    let msg = |e: gpu_core::Error| e.to_string();
    assert!(msg(r.reduce(&f, Op::BitAnd).unwrap_err()).contains("not defined for element type f32"));
    let mats = gpu.upload(&[Mat2([1u32, 1, 0, 1])]).unwrap();
    for a in [
        Algorithm::TwoPass,
        Algorithm::SingleBlock,
        Algorithm::LastBlock,
        Algorithm::WarpSmem,
        Algorithm::Unrolled,
    ] {
        let e = msg(r.clone().algorithm(a).reduce_monoid(&mats).unwrap_err());
        assert!(e.contains("commutative"), "{a}: {e}");
    }
    let e = msg(r
        .clone()
        .algorithm(Algorithm::WarpShuffle)
        .argmin(&f)
        .unwrap_err());
    assert!(e.contains("not built"), "{e}");
    for uf in [0, 1, 5000] {
        let e = msg(r
            .clone()
            .algorithm(Algorithm::Unrolled)
            .unroll(uf)
            .sum(&f)
            .unwrap_err());
        assert!(e.contains("unroll"), "{e}");
    }
    for block in [0, 16, 100, 2048] {
        let e = msg(r.clone().block_size(block).sum(&f).unwrap_err());
        assert!(e.contains("block_size"), "{e}");
    }
    // Checked even when nothing would be launched.
    let empty = gpu.alloc::<f32>(0).unwrap();
    assert!(r.clone().block_size(100).sum(&empty).is_err());
    assert!(r.reduce(&empty, Op::BitXor).is_err());
    let e = msg(r.reduce_wide(&[1i32], Op::Max).unwrap_err());
    assert!(e.contains("widening"), "{e}");
    // Empty inputs otherwise give identities and None.
    assert_eq!(r.sum(&empty).unwrap(), 0.0);
    assert_eq!(r.product(&empty).unwrap(), 1.0);
    assert_eq!(r.max(&empty).unwrap(), None);
    assert_eq!(r.argmin(&empty).unwrap(), None);
    assert_eq!(
        r.reduce_monoid(&gpu.alloc::<Mat2<i32>>(0).unwrap())
            .unwrap(),
        Mat2::identity()
    );
}
