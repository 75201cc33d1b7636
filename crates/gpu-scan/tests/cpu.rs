//! The CPU scans: serial and rayon, every form, operator and type, in place and not.

use gpu_core::data::{self, SplitMix64};
use gpu_core::{Affine, Element, Mat2, Monoid, Op};
use gpu_scan::cpu::{self, PAR_CHUNK};
use gpu_scan::{Algorithm, ScanKind, ScanOptions};

const KINDS: [ScanKind; 2] = [ScanKind::Inclusive, ScanKind::Exclusive];

fn sizes() -> Vec<usize> {
    vec![
        0,
        1,
        2,
        31,
        32,
        33,
        1000,
        PAR_CHUNK - 1,
        PAR_CHUNK,
        PAR_CHUNK + 1,
        3 * PAR_CHUNK + 7,
    ]
}

/// The definition, quadratic-free: out[i] = fold(x[..=i]) (inclusive) or fold(x[..i]).
fn by_definition<T: Element>(x: &[T], op: Op, kind: ScanKind) -> Vec<T> {
    let id = op.identity::<T>().unwrap();
    let mut acc: Option<T> = None;
    x.iter()
        .map(|&v| {
            let before = acc;
            acc = Some(before.map_or(v, |a| T::combine(op, a, v)));
            match kind {
                ScanKind::Inclusive => acc.unwrap(),
                ScanKind::Exclusive => before.unwrap_or(id),
            }
        })
        .collect()
}

fn check_exact<T: Element>() {
    for op in Op::ALL.into_iter().filter(|op| op.supports::<T>()) {
        for n in sizes() {
            let x: Vec<T> = data::typical(n, n as u64 + 1);
            for kind in KINDS {
                let want = by_definition(&x, op, kind);
                let what = format!("{} {op} {kind:?} n={n}", T::NAME);
                assert_eq!(cpu::scan(&x, op, kind).unwrap(), want, "serial {what}");
                if gpu_scan::is_exact::<T>(op) {
                    assert_eq!(cpu::par_scan(&x, op, kind).unwrap(), want, "rayon {what}");
                    let mut out = vec![T::default(); n];
                    cpu::parallel(&x, &mut out, op, kind).unwrap();
                    assert_eq!(out, want, "rayon out of place {what}");
                    let mut inplace = x.clone();
                    cpu::serial_in_place(&mut inplace, op, kind).unwrap();
                    assert_eq!(inplace, want, "serial in place {what}");
                }
            }
        }
    }
}

#[test]
fn every_operator_and_type_matches_the_definition() {
    check_exact::<i32>();
    check_exact::<u32>();
    check_exact::<i64>();
    check_exact::<u64>();
    check_exact::<f32>();
    check_exact::<f64>();
}

/// Rayon float sums regroup: compared with the f64 reference relative to the running Σ|x|
/// (see tests/gpu.rs for why that scale).
#[test]
fn rayon_float_sums_within_tolerance() {
    let n = 5 * PAR_CHUNK + 3;
    let x: Vec<f32> = data::typical(n, 42);
    for kind in KINDS {
        let got = cpu::par_scan(&x, Op::Sum, kind).unwrap();
        let (mut acc, mut scale) = (0.0f64, 0.0f64);
        for i in 0..n {
            if kind == ScanKind::Inclusive {
                acc += x[i] as f64;
                scale += x[i].abs() as f64;
            }
            let tol = 64.0 * 2f64.powi(-24) * scale;
            assert!((got[i] as f64 - acc).abs() <= tol, "{kind:?} at {i}");
            if kind == ScanKind::Exclusive {
                acc += x[i] as f64;
                scale += x[i].abs() as f64;
            }
        }
        // Fixed chunking: the same result however many threads run it.
        let pool = rayon_pool(1);
        let single = pool.install(|| cpu::par_scan(&x, Op::Sum, kind).unwrap());
        assert!(single
            .iter()
            .zip(&got)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn monoids_keep_order() {
    let mut r = SplitMix64::new(1);
    let n = 2 * PAR_CHUNK + 5;
    let m: Vec<Mat2<u32>> = (0..n)
        .map(|_| Mat2([(); 4].map(|_| r.next_u64() as u32)))
        .collect();
    for kind in KINDS {
        let serial = cpu::scan_monoid(&m, kind);
        // The definition, by a plain loop with the identity.
        let mut acc = Mat2::<u32>::identity();
        for (i, &v) in m.iter().enumerate() {
            let before = acc;
            acc = Mat2::combine(acc, v);
            let want = if kind == ScanKind::Inclusive {
                acc
            } else {
                before
            };
            assert_eq!(serial[i], want, "{kind:?} at {i}");
        }
        assert_eq!(cpu::par_scan_monoid(&m, kind), serial);
        let mut out = vec![Mat2::default(); n];
        cpu::parallel_monoid(&m, &mut out, kind).unwrap();
        assert_eq!(out, serial);
        cpu::serial_monoid(&m, &mut out, kind).unwrap();
        assert_eq!(out, serial);
    }
    // Reversing the order changes a matrix product.
    let a = Mat2([1u32, 2, 3, 4]);
    let b = Mat2([0u32, 1, 1, 0]);
    assert_ne!(
        cpu::scan_monoid(&[a, b], ScanKind::Inclusive)[1],
        cpu::scan_monoid(&[b, a], ScanKind::Inclusive)[1]
    );
}

#[test]
fn linear_recurrence_scan_matches_the_loop() {
    let mut r = SplitMix64::new(7);
    let n = 3 * PAR_CHUNK + 11;
    let a: Vec<f64> = (0..n).map(|_| 0.5 + 0.4 * r.next_f64()).collect();
    let b: Vec<f64> = (0..n).map(|_| 2.0 * r.next_f64() - 1.0).collect();
    let looped = cpu::linear_recurrence(&a, &b, 0.25).unwrap();
    let scanned = cpu::linear_recurrence_scan(&a, &b, 0.25).unwrap();
    for i in 0..n {
        assert!(
            (looped[i] - scanned[i]).abs() <= 1e-12 * (1.0 + looped[i].abs()),
            "x[{i}]: {} vs {}",
            looped[i],
            scanned[i]
        );
    }
    // The affine maps compose in order: x1 = a1·(a0·x + b0) + b1.
    let f = cpu::scan_monoid(
        &[Affine { a: 2.0, b: 1.0 }, Affine { a: 3.0, b: -4.0 }],
        ScanKind::Inclusive,
    );
    assert_eq!(f[1].apply(5.0), 3.0 * (2.0 * 5.0 + 1.0) - 4.0);
    assert!(cpu::linear_recurrence::<f32>(&[], &[], 1.0)
        .unwrap()
        .is_empty());
}

#[test]
fn scan_with_picks_cpu_algorithms_and_refuses_gpu_ones() {
    let x = [1i64, 2, 3];
    for (algorithm, ok) in [(Algorithm::Serial, true), (Algorithm::Rayon, true)] {
        let o = ScanOptions::exclusive().algorithm(algorithm);
        assert_eq!(cpu::scan_with(&x, Op::Sum, &o).is_ok(), ok);
        assert_eq!(cpu::scan_with(&x, Op::Sum, &o).unwrap(), vec![0, 1, 3]);
    }
    for algorithm in Algorithm::GPU {
        let e = cpu::scan_with(&x, Op::Sum, &ScanOptions::inclusive().algorithm(algorithm))
            .unwrap_err();
        assert!(e.to_string().contains("GPU"), "{e}");
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let mut short = [0u64; 1];
    let e = cpu::parallel(&[1, 2], &mut short, Op::Sum, ScanKind::Inclusive).unwrap_err();
    assert!(e.to_string().contains("needs at least 2"), "{e}");
    let e = cpu::scan(&[1.0f64], Op::BitOr, ScanKind::Inclusive).unwrap_err();
    assert!(e.to_string().contains("not defined"), "{e}");
    let mut m = [Mat2::<u32>::default(); 1];
    assert!(cpu::serial_monoid(&[Mat2::<u32>::default(); 2], &mut m, ScanKind::Inclusive).is_err());
}

/// f16 and bf16 on the CPU: scanned in f32, each result rounded once to the element type
/// (`scan`) or kept in f32 (`scan_accumulated`); serial and rayon agree; along axes and over
/// segments each lane as the flat scan; products are refused with a clear error.
#[test]
fn half_precision_scans_in_f32() {
    use gpu_core::{bf16, f16};
    // 4096 ones: an f16 running sum would stop at 2048; in f32 every prefix is exact.
    let ones = vec![f16::ONE; 4096];
    let acc = cpu::scan_accumulated(&ones, Op::Sum, ScanKind::Inclusive).unwrap();
    assert_eq!(acc[4095], 4096.0);
    let rounded = cpu::scan(&ones, Op::Sum, ScanKind::Inclusive).unwrap();
    assert_eq!(rounded[2048], f16::from_f32(2049.0)); // 2049 rounds to even: 2048
    assert_eq!(rounded[2049], f16::from_f32(2050.0));
    assert_eq!(
        cpu::par_scan(&ones, Op::Sum, ScanKind::Exclusive).unwrap()[4095],
        f16::from_f32(4095.0)
    );
    let x: Vec<bf16> = (0..300_000u64)
        .map(|i| bf16::from_f32(((i * 7919) % 17) as f32 - 8.0))
        .collect();
    for op in [Op::Sum, Op::Min, Op::Max] {
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let want = cpu::scan_accumulated(&x, op, kind).unwrap();
            assert_eq!(cpu::par_scan_accumulated(&x, op, kind).unwrap(), want);
            let rounded: Vec<bf16> = want.iter().map(|&v| bf16::from_f32(v)).collect();
            assert_eq!(cpu::scan(&x, op, kind).unwrap(), rounded, "{op} {kind:?}");
            assert_eq!(
                cpu::par_scan(&x, op, kind).unwrap(),
                rounded,
                "{op} {kind:?}"
            );
        }
    }
    let e = cpu::scan(&ones, Op::Product, ScanKind::Inclusive)
        .unwrap_err()
        .to_string();
    assert!(e.contains("sums, minima and maxima"), "{e}");
    // Along an axis and over segments: each lane or segment as the flat scan, rounded once.
    let m = ndarray::Array2::from_elem((3, 4096), f16::ONE);
    for scan_axis in [gpu_scan::cpu::scan_axis, gpu_scan::cpu::par_scan_axis] {
        let y = scan_axis(m.view(), ndarray::Axis(1), Op::Sum, ScanKind::Inclusive).unwrap();
        assert_eq!(y.row(2).to_vec(), rounded, "rows as the flat scan");
        let e = scan_axis(m.view(), ndarray::Axis(0), Op::Product, ScanKind::Inclusive)
            .unwrap_err()
            .to_string();
        assert!(e.contains("sums, minima and maxima"), "{e}");
    }
    let offsets = [0u64, 4096, 4096, 4096 + 300_000];
    let values: Vec<bf16> = ones
        .iter()
        .map(|v| bf16::from_f32(v.to_f32()))
        .chain(x.iter().copied())
        .collect();
    let whole = cpu::scan(&x, Op::Max, ScanKind::Exclusive).unwrap();
    for segmented_scan in [cpu::segmented_scan, cpu::par_segmented_scan] {
        let y = segmented_scan(&values, &offsets, Op::Max, ScanKind::Exclusive).unwrap();
        assert_eq!(y[4096..], whole[..], "a segment as the flat scan");
    }
}
