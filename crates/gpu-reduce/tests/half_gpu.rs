//! f16 and bf16 on a real GPU: what only the 16-bit floats have — f32 accumulation (sums past
//! the element type's range or precision), infinities, NaNs and subnormals, the refusals, the
//! device-side results in f32, and lengths past 2^31. The operator × algorithm × size grids
//! run in `gpu.rs` and `shaped_gpu.rs` with the other types. Skipped visibly without a GPU;
//! failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, f16, DeviceArrayD, Element, Gpu, Op};
use gpu_reduce::{cpu, Algorithm, DeviceReduce, DeviceReduceAxis, Operation, Reduce, Workspace};
use ndarray::{Array2, Axis};

fn every_algorithm(gpu: &Gpu) -> impl Iterator<Item = Reduce<'static>> + '_ {
    Algorithm::ALL
        .into_iter()
        .map(move |a| Reduce::new(gpu).algorithm(a))
}

fn same(a: f32, b: f32) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Sums that a 16-bit accumulator would get wrong: past f16's largest value, past bf16's 8
/// significant bits. In f32 they are exact.
#[test]
fn sums_accumulate_in_f32() {
    let Some(gpu) = gpu_or_skip() else { return };
    let big = vec![f16::MAX; 4000]; // 4000 × 65504: f16 overflows at the second term
    let ones = vec![bf16::ONE; 100_003]; // bf16 stops counting at 256
    let tenths: Vec<f16> = (0..5000).map(|_| f16::from_f32(0.1)).collect();
    let (db, d1, dt) = (
        gpu.upload(&big).unwrap(),
        gpu.upload(&ones).unwrap(),
        gpu.upload(&tenths).unwrap(),
    );
    let tenth = f16::from_f32(0.1).to_f32() as f64;
    for r in every_algorithm(&gpu) {
        let a = r.selected_algorithm();
        assert_eq!(r.sum(&db).unwrap(), 4000.0 * 65504.0, "{a}");
        assert_eq!(r.sum(&d1).unwrap(), 100_003.0, "{a}");
        let s = r.sum(&dt).unwrap() as f64;
        assert!(
            (s - 5000.0 * tenth).abs() < 5000.0 * tenth * 1e-5,
            "{a}: {s}"
        );
        assert_eq!(r.product(&d1).unwrap(), 1.0, "{a}");
    }
    // The CPU references accumulate in f32 too.
    assert_eq!(cpu::sum(&big), 4000.0 * 65504.0);
    assert_eq!(cpu::par_sum(&ones), 100_003.0);
}

/// PyTorch's rules: inf + -inf is NaN, a NaN wins min/max (and argmin/argmax take the first
/// NaN), infinities are ordinary extremes; subnormals are kept (no flush to zero).
#[test]
fn infinities_nans_and_subnormals() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn check<T: Element<Accumulator = f32>>(gpu: &Gpu, tiny: T) {
        let inf = T::from_f64(f64::INFINITY);
        let nan = T::from_f64(f64::NAN);
        let one = T::from_f64(1.0);
        let cases: Vec<Vec<T>> = vec![
            vec![inf, one, T::from_f64(-f64::INFINITY)],
            vec![inf, one, one],
            vec![one, nan, inf, nan],
            vec![T::from_f64(-f64::INFINITY), one],
            vec![tiny; 4096],
            vec![one, tiny, T::from_f64(-0.0), T::from_f64(0.0)],
        ];
        for (k, host) in cases.iter().enumerate() {
            let dev = gpu.upload(host).unwrap();
            for r in every_algorithm(gpu) {
                let ctx = format!("{} case {k} {}", T::NAME, r.selected_algorithm());
                for op in [Op::Sum, Op::Product, Op::Min, Op::Max] {
                    let (got, want) = (r.reduce(&dev, op).unwrap(), cpu::reduce(host, op).unwrap());
                    assert!(same(got, want), "{op} {ctx}: {got} vs {want}");
                }
                if r.selected_algorithm().check(Operation::ArgMin).is_ok() {
                    assert_eq!(r.argmin(&dev).unwrap(), cpu::argmin(host), "{ctx}");
                    assert_eq!(r.argmax(&dev).unwrap(), cpu::argmax(host), "{ctx}");
                }
            }
        }
        // Spot values, independent of the CPU reference.
        let r = Reduce::new(gpu);
        assert!(r.sum(&cases[0]).unwrap().is_nan());
        assert_eq!(r.sum(&cases[1]).unwrap(), f32::INFINITY);
        assert!(r.max(&cases[2]).unwrap().unwrap().is_nan());
        assert_eq!(r.argmin(&cases[2]).unwrap(), Some(1));
        assert_eq!(r.min(&cases[3]).unwrap(), Some(T::from_f64(-f64::INFINITY)));
        assert_eq!(r.sum(&cases[4]).unwrap(), 4096.0 * tiny.to_accumulator());
        assert_eq!(r.min(&cases[5]).unwrap().map(|v| v.to_f64()), Some(0.0)); // a zero, not `tiny`
        assert_eq!(r.max(&cases[5][1..]).unwrap(), Some(tiny));
    }
    check(&gpu, f16::MIN_POSITIVE_SUBNORMAL);
    check(&gpu, bf16::MIN_POSITIVE_SUBNORMAL);
    assert_eq!(
        f16::MIN_POSITIVE_SUBNORMAL.to_f32() * 4096.0,
        2f32.powi(-12),
        "the subnormal sum is exact"
    );
}

/// Device-side results are f32 (the accumulator); method syntax and axis methods too.
#[test]
fn device_results_are_in_the_accumulator_type() {
    let Some(gpu) = gpu_or_skip() else { return };
    let host: Vec<bf16> = (0..10_000)
        .map(|i| bf16::from_f32((i % 7) as f32))
        .collect();
    let x = gpu.upload(&host).unwrap();
    let (mut out, mut ws) = (gpu.alloc::<f32>(1).unwrap(), Workspace::new(&gpu).unwrap());
    let want: f32 = host.iter().map(|v| v.to_f32()).sum();
    Reduce::new(&gpu)
        .reduce_into(&x, Op::Sum, &mut out, &mut ws)
        .unwrap();
    gpu.stream().synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap()[0], want);
    Reduce::new(&gpu)
        .reduce_into(&x, Op::Max, &mut out, &mut ws)
        .unwrap();
    gpu.stream().synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap()[0], 6.0);
    assert_eq!(x.sum().unwrap(), want);
    assert_eq!(x.max().unwrap(), Some(bf16::from_f32(6.0)));
    assert_eq!(x.argmax().unwrap(), Some(6));

    let m = Array2::from_shape_vec((100, 100), host.clone()).unwrap();
    let d = DeviceArrayD::from_array(&gpu, &m).unwrap();
    let sums: DeviceArrayD<f32> = d.sum_axis(Axis(1)).unwrap();
    assert_eq!(
        sums.to_array().unwrap(),
        cpu::sum_axis(m.view(), Axis(1)).unwrap().into_dyn()
    );
    let r = Reduce::new(&gpu);
    let maxima = r.max_axis(&m, Axis(0)).unwrap();
    assert_eq!(maxima.len(), 100);
    assert!(maxima.iter().all(|&v| v == bf16::from_f32(6.0)));
    let seg = r.segmented_min(&host, &[0u64, 3, 3, 10_000]).unwrap();
    assert_eq!(
        seg,
        vec![Some(bf16::ZERO), None, Some(bf16::ZERO)],
        "segments"
    );
}

#[test]
fn refusals_are_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut x = gpu.upload(&[f16::ONE, f16::ONE]).unwrap();
    let r = Reduce::new(&gpu);
    let e = r.reduce(&x, Op::BitXor).unwrap_err().to_string();
    assert!(e.contains("not defined for element type f16"), "{e}");
    let e = r.reduce_in_place(&mut x, Op::Sum).unwrap_err().to_string();
    assert!(e.contains("in place"), "{e}");
    let e = r
        .clone()
        .algorithm(Algorithm::WarpShuffle)
        .argmax(&x)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not built"), "{e}");
    // The widening methods are for i32/u32/f32: f16's sum already is f32 (a compile-time
    // matter, `Widen` is not implemented). Empty inputs: identities in f32, None.
    let empty = gpu.alloc::<bf16>(0).unwrap();
    assert_eq!(r.sum(&empty).unwrap(), 0.0);
    assert_eq!(r.product(&empty).unwrap(), 1.0);
    assert_eq!(r.max(&empty).unwrap(), None);
    assert_eq!(r.argmin(&empty).unwrap(), None);
}

/// 2^31 + 7 values (4 GiB of f16): indices, axis and segment offsets past 32 bits.
#[test]
fn more_than_two_to_the_31_values() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 7;
    let far = (1usize << 31) + 3;
    let mut host = vec![f16::ZERO; n];
    host[far] = f16::from_f32(2.0);
    host[5] = f16::from_f32(-1.0);
    let x = gpu.upload(&host).unwrap();
    for a in [
        Algorithm::Auto,
        Algorithm::LastBlock,
        Algorithm::TwoPass,
        Algorithm::Unrolled,
    ] {
        let r = Reduce::new(&gpu).algorithm(a);
        assert_eq!(r.sum(&x).unwrap(), 1.0, "{a}");
        assert_eq!(r.max(&x).unwrap(), Some(f16::from_f32(2.0)), "{a}");
        assert_eq!(r.argmax(&x).unwrap(), Some(far), "{a}");
        assert_eq!(r.argmin(&x).unwrap(), Some(5), "{a}");
    }
    let r = Reduce::new(&gpu);
    let offsets = [0u64, 5, far as u64, n as u64];
    assert_eq!(r.segmented_sum(&x, &offsets).unwrap(), vec![0.0, -1.0, 2.0]);
    assert_eq!(
        r.segmented_argmax(&x, &offsets).unwrap(),
        vec![Some(0), Some(1), Some(0)]
    );
    let d = DeviceArrayD::from_device(x, &[1, n]).unwrap();
    assert_eq!(r.sum_axis(&d, Axis(1)).unwrap()[[0]], 1.0);
    assert_eq!(r.argmax_axis(&d, Axis(1)).unwrap()[[0]], far);
}

/// Every lane mapping on small f16/bf16 inputs — packed rows, vector columns, a block per
/// lane with splits, segments by thread and by tiles, unaligned starts — against the CPU:
/// small enough to run under compute-sanitizer (`lanes_small` in the test name).
#[test]
fn half_lanes_small_every_mapping() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn check<T: Element<Accumulator = f32>>(gpu: &Gpu) {
        let r = Reduce::new(gpu);
        let value = |i: usize| T::from_f64(((i * 7919) % 41) as f64 - 20.0);
        for (rows, cols) in [
            (1, 1),
            (7, 3),
            (33, 31),
            (300, 8),
            (8, 300),
            (3, 9000),
            (4100, 24),
        ] {
            let m = Array2::from_shape_fn((rows, cols), |(i, j)| value(i * cols + j));
            for axis in 0..2 {
                for op in [Op::Sum, Op::Product, Op::Min, Op::Max] {
                    let data = if op == Op::Product {
                        m.mapv(|v| T::from_f64(if v.to_f64() < 0.0 { -1.0 } else { 1.0 }))
                    } else {
                        m.clone()
                    };
                    assert_eq!(
                        r.reduce_axis(&data, Axis(axis), op).unwrap(),
                        cpu::reduce_axis(data.view(), Axis(axis), op)
                            .unwrap()
                            .into_dyn(),
                        "{} {rows}x{cols} axis {axis} {op}",
                        T::NAME
                    );
                }
                assert_eq!(
                    r.argmax_axis(&m, Axis(axis)).unwrap(),
                    cpu::argmax_axis(m.view(), Axis(axis)).unwrap().into_dyn()
                );
            }
        }
        // Segments: short ones (tiles) and a long one (split), from an unaligned start.
        let mut offsets = vec![0u64];
        for k in 0..700u64 {
            offsets.push(offsets.last().unwrap() + k % 37);
        }
        offsets.push(offsets.last().unwrap() + 70_001);
        let n = *offsets.last().unwrap() as usize;
        let v: Vec<T> = (0..=n).map(value).collect();
        let d = gpu.upload(&v).unwrap();
        let tail = gpu_core::DeviceSlice::new(&d, 1..).unwrap();
        assert_eq!(
            r.segmented_sum(&tail, &offsets).unwrap(),
            cpu::segmented_reduce(&v[1..], &offsets, Op::Sum).unwrap()
        );
        assert_eq!(
            r.segmented_argmin(&tail, &offsets).unwrap(),
            cpu::segmented_argmin(&v[1..], &offsets).unwrap()
        );
        let maxima = r.segmented_max(&tail, &offsets).unwrap();
        for (k, w) in offsets.windows(2).enumerate() {
            assert_eq!(
                maxima[k],
                cpu::max(&v[1 + w[0] as usize..1 + w[1] as usize])
            );
        }
    }
    check::<f16>(&gpu);
    check::<bf16>(&gpu);
}
