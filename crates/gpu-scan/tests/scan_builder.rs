//! `Scan`, the builder in the workspace's one API shape: every input kind, host and device
//! results, streams, threads sharing one object, and the bad inputs.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::{DeviceSlice, Element, Gpu, Mat2, Op};
use gpu_scan::{cpu, Algorithm, Scan, ScanKind, TileStaging};

/// Integers (floats too): every partial sum is exact in any order, so results compare equal.
fn data<T: Element>(n: usize) -> Vec<T> {
    if T::IS_FLOAT {
        (0..n)
            .map(|i| T::from_f64(((i * 7919) % 17) as f64 - 8.0))
            .collect()
    } else {
        gpu_core::data::typical(n, n as u64 + 5)
    }
}

fn every_form<T: Element>(gpu: &Gpu) {
    let ops: &[Op] = if T::IS_FLOAT {
        &[Op::Sum, Op::Max]
    } else {
        &[Op::Sum, Op::Min, Op::BitXor]
    };
    for n in [
        0usize,
        1,
        31,
        32,
        33,
        255,
        256,
        257,
        1023,
        1025,
        (1 << 16) + 1,
    ] {
        let x: Vec<T> = data(n);
        let dev = gpu.upload(&x).unwrap();
        for &op in ops {
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                for algorithm in [
                    Algorithm::Auto,
                    Algorithm::HillisSteele,
                    Algorithm::BlellochPadded,
                    Algorithm::LookBackDeterministic,
                ] {
                    let scan = Scan::new(gpu).kind(kind).algorithm(algorithm);
                    let want = cpu::scan(&x, op, kind).unwrap();
                    let close = |got: &[T]| {
                        got.len() == want.len()
                            && got.iter().zip(&want).all(|(g, w)| {
                                g == w
                                    || (T::IS_FLOAT
                                        && (g.to_f64() - w.to_f64()).abs()
                                            <= 1e-4 * w.to_f64().abs().max(1.0))
                            })
                    };
                    let label = format!("{} {op:?} {kind:?} {algorithm:?} n = {n}", T::NAME);
                    assert!(close(&scan.scan(&x, op).unwrap()), "{label} (Vec)");
                    assert!(close(&scan.scan(&dev, op).unwrap()), "{label} (device)");
                    let mut out = gpu.alloc::<T>(n + 3).unwrap();
                    out.fill(T::from_f64(9.0), gpu.stream()).unwrap();
                    scan.scan_into(&dev, &mut out, op).unwrap();
                    let got = out.to_vec().unwrap();
                    assert!(close(&got[..n]), "{label} (into)");
                    assert!(
                        got[n..].iter().all(|&v| v == T::from_f64(9.0)),
                        "{label}: wrote past n"
                    );
                    let mut inplace = dev.try_clone().unwrap();
                    scan.scan_in_place(&mut inplace, op).unwrap();
                    assert!(close(&inplace.to_vec().unwrap()), "{label} (in place)");
                    assert_eq!(dev.to_vec().unwrap(), x, "{label}: the input changed");
                }
            }
        }
    }
}

#[test]
fn gpu_scan_builder_every_type_form_and_input() {
    let Some(gpu) = gpu_or_skip() else { return };
    every_form::<i32>(&gpu);
    every_form::<u32>(&gpu);
    every_form::<i64>(&gpu);
    every_form::<u64>(&gpu);
    every_form::<f32>(&gpu);
    every_form::<f64>(&gpu);
}

#[test]
fn gpu_scan_builder_on_a_stream_and_shared_by_threads() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x: Vec<u64> = (1..=300_000).collect();
    let want = cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
    let dev = gpu.upload(&x).unwrap();
    let stream = gpu.new_stream().unwrap();
    let on_stream = Scan::new(&gpu).stream(&stream);
    let mut y = gpu.alloc::<u64>(x.len()).unwrap();
    on_stream.scan_into(&dev, &mut y, Op::Sum).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(y.to_vec().unwrap(), want);
    assert_eq!(on_stream.scan(&x, Op::Sum).unwrap(), want);
    let shared = Scan::new(&gpu).staging(TileStaging::Auto);
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let (shared, gpu) = (&shared, &gpu);
            s.spawn(move || {
                let x: Vec<u64> = (0..100_000 + t).map(|i| i * (t + 1)).collect();
                let want = cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
                for _ in 0..5 {
                    assert_eq!(shared.scan(&x, Op::Sum).unwrap(), want);
                    let d = gpu.upload(&x).unwrap();
                    let mut out = gpu.alloc::<u64>(x.len()).unwrap();
                    shared.clone().scan_into(&d, &mut out, Op::Sum).unwrap();
                    assert_eq!(out.to_vec().unwrap(), want);
                }
            });
        }
    });
}

#[test]
fn gpu_scan_builder_slices_monoids_recurrences_and_cpu_algorithms() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x: Vec<i32> = data(10_001);
    let dev = gpu.upload(&x).unwrap();
    let slice = DeviceSlice::new(&dev, 17..9_000).unwrap();
    let want = cpu::scan(&x[17..9_000], Op::Sum, ScanKind::Exclusive).unwrap();
    assert_eq!(
        Scan::new(&gpu).exclusive().scan(&slice, Op::Sum).unwrap(),
        want
    );
    // CPU algorithms give host results from any input, and refuse device results.
    let serial = Scan::new(&gpu).algorithm(Algorithm::Serial);
    assert_eq!(serial.exclusive().scan(&slice, Op::Sum).unwrap(), want);
    let mut out = gpu.alloc::<i32>(x.len()).unwrap();
    let rayon = Scan::new(&gpu).algorithm(Algorithm::Rayon);
    assert!(rayon.scan_into(&dev, &mut out, Op::Sum).is_err());
    // Monoids in sequence order.
    let m: Vec<Mat2<u32>> = (0..5000u32).map(|i| Mat2([1, i % 3, 0, 1])).collect();
    let want = cpu::scan_monoid(&m, ScanKind::Inclusive);
    let dm = gpu.upload(&m).unwrap();
    assert_eq!(Scan::new(&gpu).scan_monoid(&m).unwrap(), want);
    assert_eq!(Scan::new(&gpu).scan_monoid(&dm).unwrap(), want);
    let mut mo = gpu.alloc::<Mat2<u32>>(m.len()).unwrap();
    Scan::new(&gpu).scan_monoid_into(&dm, &mut mo).unwrap();
    assert_eq!(mo.to_vec().unwrap(), want);
    let serial_m = Scan::new(&gpu)
        .algorithm(Algorithm::Serial)
        .scan_monoid(&dm)
        .unwrap();
    assert_eq!(serial_m, want);
    // The recurrence through the builder.
    let (a, b) = (vec![0.5f64; 2000], vec![1.0f64; 2000]);
    let got = Scan::new(&gpu).linear_recurrence(&a, &b, 4.0).unwrap();
    let reference = cpu::linear_recurrence(&a, &b, 4.0).unwrap();
    assert!(got
        .iter()
        .zip(&reference)
        .all(|(g, r)| (g - r).abs() <= 1e-12 * r.abs()));
}

#[test]
fn gpu_scan_builder_refuses_bad_inputs_with_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = gpu.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut short = gpu.alloc::<f32>(2).unwrap();
    let e = Scan::new(&gpu)
        .scan_into(&x, &mut short, Op::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("out"), "{e}");
    assert!(
        Scan::new(&gpu).scan(&x, Op::BitAnd).is_err(),
        "bitwise ops on floats"
    );
    assert!(Scan::new(&gpu)
        .block_size(100)
        .scan(&[1u32; 1000], Op::Sum)
        .is_err());
    assert!(Scan::new(&gpu)
        .algorithm(Algorithm::Blelloch)
        .block_size(2048)
        .scan(&[1u32; 10], Op::Sum)
        .is_err());
    assert_eq!(
        Scan::new(&gpu).scan::<u32>(&[], Op::Sum).unwrap(),
        Vec::<u32>::new()
    );
}

/// The extension methods on device arrays, the monoid scan in place and the recurrence into a
/// device array: thin wrappers, checked against the CPU references.
#[test]
fn gpu_device_scan_methods_and_device_results() {
    use gpu_core::{Affine, DeviceArray};
    use gpu_scan::DeviceScan;
    let Some(gpu) = gpu_or_skip() else { return };
    for n in [0usize, 1, 33, 1025, (1 << 20) + 1] {
        let x: Vec<i64> = data(n);
        let mut d = gpu.upload(&x).unwrap();
        for op in [Op::Sum, Op::Max, Op::BitXor] {
            let inc = cpu::scan(&x, op, ScanKind::Inclusive).unwrap();
            let exc = cpu::scan(&x, op, ScanKind::Exclusive).unwrap();
            assert_eq!(d.scan(op).unwrap(), inc, "scan {op} n={n}");
            assert_eq!(d.exclusive_scan(op).unwrap(), exc, "exclusive {op} n={n}");
            let mut out: DeviceArray<i64> = gpu.alloc(n).unwrap();
            d.scan_into(&mut out, op).unwrap();
            assert_eq!(out.to_vec().unwrap(), inc, "scan_into {op} n={n}");
        }
        d.scan_in_place(Op::Sum).unwrap();
        assert_eq!(
            d.to_vec().unwrap(),
            cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap()
        );
        // Affine maps in place, both forms (|a| ≤ 1 and small b: nothing overflows).
        let m: Vec<Affine<i64>> = x
            .iter()
            .map(|&v| Affine {
                a: (v % 3).signum(),
                b: v % 1000,
            })
            .collect();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let mut dm = gpu.upload(&m).unwrap();
            Scan::new(&gpu)
                .kind(kind)
                .scan_monoid_in_place(&mut dm)
                .unwrap();
            assert_eq!(
                dm.to_vec().unwrap(),
                cpu::scan_monoid(&m, kind),
                "{kind:?} n={n}"
            );
        }
        // x[t] = a[t]·x[t−1] + b[t] into a longer device array: the tail is left alone.
        let a: Vec<f64> = (0..n).map(|i| 0.5 + (i % 5) as f64 * 0.1).collect();
        let b: Vec<f64> = (0..n).map(|i| (i % 7) as f64 - 3.0).collect();
        let want = cpu::linear_recurrence(&a, &b, 1.5).unwrap();
        let mut out = gpu.alloc::<f64>(n + 2).unwrap();
        out.fill(-7.0, gpu.stream()).unwrap();
        Scan::new(&gpu)
            .linear_recurrence_into(&a, &b, 1.5, &mut out)
            .unwrap();
        let got = out.to_vec().unwrap();
        for i in 0..n {
            assert!(
                (got[i] - want[i]).abs() <= 1e-9 * (1.0 + want[i].abs()),
                "x[{i}] n={n}"
            );
        }
        assert_eq!(&got[n..], &[-7.0, -7.0], "tail n={n}");
    }
}
