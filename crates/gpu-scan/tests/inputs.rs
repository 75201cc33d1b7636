//! gpu-scan accepts every gpu-core `Input`: host data of any shape, device arrays and slices,
//! with the GPU and the CPU algorithms alike.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::{Affine, DeviceSlice, Op};
use gpu_scan::{cpu, Algorithm, Scan, ScanKind, ScanOptions};
use ndarray::{Array1, Array2};

#[test]
fn gpu_scan_takes_every_input_kind() {
    let Some(gpu) = gpu_or_skip() else { return };
    for n in [0usize, 1, 31, 32, 33, 1023, 1025, (1 << 17) + 3] {
        let x: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 201 - 100).collect();
        for options in [
            ScanOptions::default(),
            ScanOptions::exclusive(),
            ScanOptions::default().algorithm(Algorithm::Blelloch),
            ScanOptions::exclusive().algorithm(Algorithm::Serial),
        ] {
            let want = cpu::scan(&x, Op::Max, options.kind).unwrap();
            let dev = gpu.upload(&x).unwrap();
            assert_eq!(gpu_scan::scan(&gpu, &x, Op::Max, &options).unwrap(), want);
            assert_eq!(
                gpu_scan::scan(&gpu, x.as_slice(), Op::Max, &options).unwrap(),
                want
            );
            assert_eq!(
                gpu_scan::scan(&gpu, &Array1::from(x.clone()), Op::Max, &options).unwrap(),
                want
            );
            assert_eq!(
                Scan::new(&gpu)
                    .options(options)
                    .scan(&dev, Op::Max)
                    .unwrap(),
                want,
                "n = {n}"
            );
            assert_eq!(dev.to_vec().unwrap(), x, "the device input was changed");
            let part = n / 4..n - n / 5;
            let slice = DeviceSlice::new(&dev, part.clone()).unwrap();
            let want_part = cpu::scan(&x[part], Op::Max, options.kind).unwrap();
            assert_eq!(
                gpu_scan::scan(&gpu, &slice, Op::Max, &options).unwrap(),
                want_part
            );
        }
    }
}

#[test]
fn gpu_scan_reads_ndarrays_in_logical_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    let a = Array2::from_shape_fn((40, 33), |(i, j)| (i as f32) - (j as f32) * 0.5);
    let t = a.t();
    let logical: Vec<f32> = t.iter().copied().collect();
    let want = cpu::scan(&logical, Op::Sum, ScanKind::Inclusive).unwrap();
    let got = gpu_scan::scan(&gpu, &t, Op::Sum, &ScanOptions::default()).unwrap();
    assert_eq!(got, want);
}

#[test]
fn gpu_monoids_and_recurrences_take_device_inputs() {
    let Some(gpu) = gpu_or_skip() else { return };
    let m: Vec<Affine<f64>> = (0..5000)
        .map(|i| Affine {
            a: 0.5 + (i % 3) as f64 * 0.25,
            b: 1.0,
        })
        .collect();
    let dm = gpu.upload(&m).unwrap();
    let want = cpu::scan_monoid(&m, ScanKind::Inclusive);
    let got = gpu_scan::scan_monoid(&gpu, &dm, &ScanOptions::default()).unwrap();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g.a - w.a).abs() <= 1e-9 * w.a.abs().max(1.0));
        assert!((g.b - w.b).abs() <= 1e-9 * w.b.abs().max(1.0));
    }
    assert_eq!(dm.to_vec().unwrap(), m, "the device input was changed");
    let (a, b) = (vec![0.9f64; 3000], vec![1.0f64; 3000]);
    let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let want = cpu::linear_recurrence(&a, &b, 2.0).unwrap();
    for got in [
        gpu_scan::linear_recurrence(&gpu, &da, &db, 2.0).unwrap(),
        gpu_scan::linear_recurrence(&gpu, &a, &db, 2.0).unwrap(),
    ] {
        assert!(got
            .iter()
            .zip(&want)
            .all(|(g, w)| (g - w).abs() <= 1e-9 * w.abs()));
    }
    let short = gpu.upload(&b[..10]).unwrap();
    assert!(gpu_scan::linear_recurrence(&gpu, &da, &short, 0.0).is_err());
}
