//! f16 and bf16 scans on a real GPU: every size of the suite × operator (sum, min, max) × kind
//! × look-back algorithm × output type (the element type, or f32 with `scan_accumulated`) ×
//! tile (registers, and staged where the GPU has them) against the CPU references; NaN and infinities; determinism of the float sums; unaligned
//! inputs and in-place scans; the refusals; lengths past 2^31. Skipped visibly without a GPU;
//! failing with GPU_PRIMS_REQUIRE_GPU=1.
//!
//! Data are small integers, so every prefix sum is exact in f32 and the GPU and CPU results
//! (each rounded once from the same f32 value) agree bit for bit; typical data are compared
//! with the f64 running sum within f32 rounding.
#![cfg(feature = "cuda")]

mod common;

use common::{same_bits, small_integers};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, f16, DeviceSlice, Element, Gpu, Op};
use gpu_scan::{cpu, plan, Algorithm, Scan, ScanKind, TileStaging};

/// 0, 1, 31, 32, 33, the register tile (1024 threads × 32 values) ± 1, the staged tiles (1024 ×
/// 56 for 16-bit results, 256 × 80 for f32 results) ± 1, 2^k ± 1 and a few tiles.
fn sizes() -> Vec<usize> {
    let mut s = vec![
        0, 1, 31, 32, 33, 255, 256, 257, 8191, 8192, 8193, 20479, 20480, 20481, 32767, 32769,
        57343, 57344, 57345, 163_841,
    ];
    for k in [16, 20] {
        s.push((1 << k) - 1);
        s.push((1 << k) + 1);
    }
    s.push(3 << 20);
    s
}

const ALGORITHMS: [Algorithm; 3] = [
    Algorithm::Auto,
    Algorithm::LookBack,
    Algorithm::LookBackDeterministic,
];

/// The tile kinds this GPU runs: registers, and staged tiles from compute capability 8.0 on.
fn stagings(gpu: &Gpu) -> Vec<TileStaging> {
    let mut t = vec![TileStaging::Registers];
    if plan::staged_tiles_available(gpu.properties().compute_capability) {
        t.push(TileStaging::Staged);
    }
    t
}

fn check_type<T: Element<Accumulator = f32>>(gpu: &Gpu) {
    for n in sizes() {
        let x: Vec<T> = small_integers(n, n as u64 + 5);
        let dx = gpu.upload(&x).unwrap();
        for op in [Op::Sum, Op::Min, Op::Max] {
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                let want_acc = cpu::scan_accumulated(&x, op, kind).unwrap();
                let want = cpu::scan(&x, op, kind).unwrap();
                for a in ALGORITHMS {
                    for t in stagings(gpu) {
                        let s = Scan::new(gpu).kind(kind).algorithm(a).staging(t);
                        let ctx = format!("{} {op} {kind:?} {a:?} {t:?} n={n}", T::NAME);
                        assert!(same_bits(&s.scan(&dx, op).unwrap(), &want), "{ctx}");
                        let acc = s.scan_accumulated(&dx, op).unwrap();
                        assert!(same_bits(&acc, &want_acc), "{ctx} (f32)");
                    }
                }
            }
        }
    }
}

#[test]
fn every_size_operator_kind_algorithm_and_output_f16() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_type::<f16>(&gpu);
}

#[test]
fn every_size_operator_kind_algorithm_and_output_bf16() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_type::<bf16>(&gpu);
}

/// Running sums past the 16-bit types' range and precision stay right in f32; NaN and
/// infinities propagate as in PyTorch's cumsum/cummax.
#[test]
fn f32_accumulation_nan_and_infinities() {
    let Some(gpu) = gpu_or_skip() else { return };
    let scan = Scan::new(&gpu);
    let ones = vec![bf16::ONE; 100_000];
    let acc = scan.scan_accumulated(&ones, Op::Sum).unwrap();
    assert!(acc.iter().enumerate().all(|(i, &v)| v == (i + 1) as f32));
    let big = vec![f16::MAX; 3000];
    let acc = scan.scan_accumulated(&big, Op::Sum).unwrap();
    assert_eq!(acc[2999], 3000.0 * 65504.0);
    let rounded = scan.scan(&big, Op::Sum).unwrap();
    assert_eq!(rounded[0], f16::MAX);
    assert_eq!(rounded[1], f16::INFINITY); // 131008 is past f16's range: rounded once
                                           // NaN in a register row of the first tile, -inf in a staged row of it, and NaN again in
                                           // the second staged tile.
    let mut x = vec![f16::ONE; 200_000];
    x[40_000] = f16::NAN;
    x[50_000] = f16::NEG_INFINITY;
    x[120_000] = f16::NAN;
    for t in stagings(&gpu) {
        for op in [Op::Sum, Op::Max, Op::Min] {
            let got = scan.clone().staging(t).scan(&x, op).unwrap();
            let want = cpu::scan(&x, op, ScanKind::Inclusive).unwrap();
            assert!(same_bits(&got, &want), "{op} {t:?}");
            assert!(!got[39_999].is_nan() && got[40_000].is_nan() && got[199_999].is_nan());
        }
    }
}

/// A sum's first values keep their sign of zero (-0 + -0 is -0), as on the CPU; an exclusive
/// scan starts from +0, the identity.
#[test]
fn signed_zeros_keep_their_bits() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut x = vec![f16::NEG_ZERO; 3];
    x.extend(vec![f16::ONE; 100_000]);
    let bits = |v: &[f16]| v.iter().map(|h| h.to_bits()).collect::<Vec<u16>>();
    for t in stagings(&gpu) {
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let got = Scan::new(&gpu)
                .kind(kind)
                .staging(t)
                .scan(&x, Op::Sum)
                .unwrap();
            let want = cpu::scan(&x, Op::Sum, kind).unwrap();
            assert_eq!(bits(&got[..4]), bits(&want[..4]), "{kind:?} {t:?}");
            assert!(same_bits(&got, &want), "{kind:?} {t:?}");
        }
    }
    let want = cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
    assert_eq!(want[2].to_bits(), f16::NEG_ZERO.to_bits());
}

/// Typical (non-integer) data: the default float sum is the fixed-order look-back, so two runs
/// give the same bits, within f32 rounding of the f64 running sum.
#[test]
fn float_sums_are_deterministic_and_accurate() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1 << 22) + 3;
    let x: Vec<f16> = gpu_core::data::typical(n, 9);
    let dx = gpu.upload(&x).unwrap();
    for t in stagings(&gpu) {
        let scan = Scan::new(&gpu).staging(t);
        let a = scan.scan_accumulated(&dx, Op::Sum).unwrap();
        let b = scan.scan_accumulated(&dx, Op::Sum).unwrap();
        assert!(
            same_bits(&a, &b),
            "the default f16 sum is not deterministic ({t:?})"
        );
        let (mut exact, mut magnitude) = (0f64, 0f64);
        for (i, v) in x.iter().enumerate() {
            exact += v.to_f64();
            magnitude += v.to_f64().abs();
            let err = (a[i] as f64 - exact).abs();
            assert!(
                err <= 64.0 * f32::EPSILON as f64 * magnitude.max(1.0),
                "{t:?} {i}: {} vs {exact}",
                a[i]
            );
        }
    }
}

/// Unaligned inputs (a slice from element 1: the scalar path), in-place scans, `_into` and
/// exclusive scans into f32.
#[test]
fn unaligned_in_place_and_into() {
    let Some(gpu) = gpu_or_skip() else { return };
    for t in stagings(&gpu) {
        unaligned_in_place_and_into_with(&gpu, t);
    }
}

fn unaligned_in_place_and_into_with(gpu: &Gpu, t: TileStaging) {
    let x: Vec<bf16> = small_integers(200_003, 3);
    let d = gpu.upload(&x).unwrap();
    let tail = DeviceSlice::new(&d, 1..).unwrap();
    let scan = Scan::new(gpu).staging(t);
    let want = cpu::scan(&x[1..], Op::Sum, ScanKind::Inclusive).unwrap();
    assert!(same_bits(&scan.scan(&tail, Op::Sum).unwrap(), &want));
    let mut out = gpu.alloc::<f32>(200_002).unwrap();
    scan.clone()
        .exclusive()
        .scan_accumulated_into(&tail, &mut out, Op::Max)
        .unwrap();
    let want = cpu::scan_accumulated(&x[1..], Op::Max, ScanKind::Exclusive).unwrap();
    assert!(same_bits(&out.to_vec().unwrap(), &want));
    let mut data = gpu.upload(&x).unwrap();
    scan.scan_in_place(&mut data, Op::Min).unwrap();
    let want = cpu::scan(&x, Op::Min, ScanKind::Inclusive).unwrap();
    assert!(same_bits(&data.to_vec().unwrap(), &want));
}

#[test]
fn refusals_are_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = gpu.upload(&[f16::ONE; 100]).unwrap();
    let scan = Scan::new(&gpu);
    for a in [
        Algorithm::HillisSteele,
        Algorithm::Blelloch,
        Algorithm::BlellochPadded,
    ] {
        let e = scan
            .clone()
            .algorithm(a)
            .scan(&x, Op::Sum)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not built for 16-bit floats"), "{a:?}: {e}");
    }
    let e = scan.scan(&x, Op::Product).unwrap_err().to_string();
    assert!(e.contains("sums, minima and maxima"), "{e}");
    // Axis and segmented scans: tests/half_shaped_gpu.rs.
    let v = vec![f16::ONE; 10];
    // The CPU algorithms through the builder.
    let cpu_scan = scan.clone().algorithm(Algorithm::Rayon);
    assert_eq!(cpu_scan.scan_accumulated(&v, Op::Sum).unwrap()[9], 10.0);
    let empty = gpu.alloc::<bf16>(0).unwrap();
    assert!(scan.scan(&empty, Op::Sum).unwrap().is_empty());
}

/// 2^31 + 7 values (4 GiB of f16): tile indices and offsets past 32 bits.
#[test]
fn more_than_two_to_the_31_values() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 7;
    let far = (1usize << 31) + 3;
    let mut host = vec![f16::ZERO; n];
    host[far] = f16::from_f32(2.0);
    host[5] = f16::from_f32(-1.0);
    let mut d = gpu.upload(&host).unwrap();
    drop(host);
    Scan::new(&gpu).scan_in_place(&mut d, Op::Max).unwrap();
    let y = d.to_vec().unwrap();
    assert_eq!(y[4], f16::ZERO);
    assert_eq!(y[far - 1], f16::ZERO);
    assert!(y[far..].iter().all(|&v| v == f16::from_f32(2.0)));
    assert!(y[..far].iter().all(|&v| v == f16::ZERO));
}
