//! f16 and bf16 scans along axes and over segments on a real GPU: shapes that take each lane
//! pattern open to them (look-back rows, the generic lanes with and without splits), C and
//! Fortran order, negative strides, 3-D arrays, empty axes; segments of lengths 0 … 2000 and
//! longer than many tiles; sum, min and max × inclusive and exclusive × results in the element
//! type and in f32, against the CPU references; NaN and infinities; the refusals; more than
//! 2^31 values. Skipped visibly without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
//!
//! Data are small integers, so every prefix sum is exact in f32 and the GPU and CPU results
//! (each rounded once from the same f32 value) agree bit for bit.
#![cfg(feature = "cuda")]

mod common;

use common::{same_bits, small_integers};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, f16, DeviceArrayD, Element, Gpu, LaneAccess, Op, Segments};
use gpu_scan::{cpu, Scan, ScanKind, TileStaging};
use ndarray::{s, Array, ArrayD, ArrayViewD, Axis, IxDyn, ShapeBuilder};

const OPS: [Op; 3] = [Op::Sum, Op::Min, Op::Max];
const KINDS: [ScanKind; 2] = [ScanKind::Inclusive, ScanKind::Exclusive];

fn flat<T: Clone>(a: &ArrayD<T>) -> Vec<T> {
    a.as_standard_layout().iter().cloned().collect()
}

/// Every axis, operator and kind of `x` in both result types against the CPU references.
fn check_axes<T: Element<Accumulator = f32>>(gpu: &Gpu, x: ArrayViewD<'_, T>, what: &str) {
    let acc_input = x.mapv(|v| v.to_accumulator());
    for axis in 0..x.ndim() {
        for op in OPS {
            for kind in KINDS {
                let ctx = format!(
                    "{} {what} {:?} axis {axis} {op} {kind:?}",
                    T::NAME,
                    x.shape()
                );
                let s = Scan::new(gpu).kind(kind);
                let want = cpu::scan_axis(x.view(), Axis(axis), op, kind).unwrap();
                let got = s.scan_axis(&x, Axis(axis), op).unwrap();
                assert_eq!(got.shape(), x.shape(), "{ctx}");
                assert!(same_bits(&flat(&got), &flat(&want)), "{ctx}");
                let want_acc = cpu::scan_axis(acc_input.view(), Axis(axis), op, kind).unwrap();
                let got_acc = s.scan_axis_accumulated(&x, Axis(axis), op).unwrap();
                assert!(same_bits(&flat(&got_acc), &flat(&want_acc)), "{ctx} (f32)");
            }
        }
    }
}

fn arrays<T: Element<Accumulator = f32>>(gpu: &Gpu) {
    let shapes: &[&[usize]] = &[
        &[0],
        &[1],
        &[33],
        &[0, 5],
        &[5, 0],
        &[1, 1],
        &[3, 1],
        &[33, 31],
        &[31, 33],
        &[2, 1025],
        &[4, 32769],
        &[7, 5000],
        &[70001, 3],
        &[65537, 2],
        &[5, 300, 7],
    ];
    for (i, shape) in shapes.iter().enumerate() {
        let n: usize = shape.iter().product();
        let data: Vec<T> = small_integers(n, 100 + i as u64);
        let c = Array::from_shape_vec(IxDyn(shape), data.clone()).unwrap();
        check_axes(gpu, c.view(), "C order");
        let f = Array::from_shape_vec(IxDyn(shape).f(), data).unwrap();
        check_axes(gpu, f.view(), "F order");
        if shape.len() == 2 {
            let back = c.slice(s![..;-1, ..;-2]).into_dyn();
            check_axes(gpu, back.view(), "negative strides");
        }
    }
}

#[test]
fn every_axis_operator_kind_and_output_f16() {
    let Some(gpu) = gpu_or_skip() else { return };
    arrays::<f16>(&gpu);
}

#[test]
fn every_axis_operator_kind_and_output_bf16() {
    let Some(gpu) = gpu_or_skip() else { return };
    arrays::<bf16>(&gpu);
}

/// The patterns the shapes above are meant to reach: look-back rows for long contiguous rows,
/// split lanes (totals, seeds) for long columns, one-split lanes for short ones.
#[test]
fn the_plans_reach_rows_and_split_lanes() {
    let Some(gpu) = gpu_or_skip() else { return };
    let s = Scan::new(&gpu);
    let rows = s
        .axis_plan::<f16>(&[4, 32769], &[32769, 1], Axis(1), Op::Sum)
        .unwrap();
    assert!(
        matches!(rows.access, LaneAccess::LookBackRows { .. }),
        "{rows:?}"
    );
    assert!(rows.splits > 1, "{rows:?}");
    let cols = s
        .axis_plan::<bf16>(&[70001, 3], &[3, 1], Axis(0), Op::Max)
        .unwrap();
    assert!(cols.splits > 1, "long columns take split lanes: {cols:?}");
    let short = s
        .axis_plan::<f16>(&[33, 31], &[31, 1], Axis(1), Op::Min)
        .unwrap();
    assert_eq!(short.splits, 1, "{short:?}");
}

/// Small cases of each kernel (look-back rows of two tiles, split lanes with their totals and
/// seeds, one-split lanes, segments across tiles), for the compute-sanitizer runs.
#[test]
fn small_cases_of_every_kernel() {
    let Some(gpu) = gpu_or_skip() else { return };
    let rows = Array::from_shape_vec((2, 33000), small_integers::<f16>(66000, 11)).unwrap();
    check_axes(&gpu, rows.view().into_dyn(), "rows");
    let cols = Array::from_shape_vec((9000, 3), small_integers::<bf16>(27000, 12)).unwrap();
    check_axes(&gpu, cols.view().into_dyn(), "columns");
    check_segments::<f16>(&gpu, &[5000, 0, 9000, 3, 1, 1], 13);
}

/// Device arrays in and out (`_into`) along both axes, and a Fortran-order host view.
#[test]
fn device_arrays_and_into() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = Array::from_shape_vec((300, 129), small_integers::<bf16>(300 * 129, 7)).unwrap();
    let dx = DeviceArrayD::from_array(&gpu, &x).unwrap();
    let s = Scan::new(&gpu).exclusive();
    for axis in 0..2 {
        let want = cpu::scan_axis(x.view(), Axis(axis), Op::Sum, ScanKind::Exclusive).unwrap();
        let mut out = DeviceArrayD::<bf16>::zeros(&gpu, &[300, 129]).unwrap();
        s.scan_axis_into(&dx, Axis(axis), Op::Sum, &mut out)
            .unwrap();
        assert!(same_bits(
            &flat(&out.to_array().unwrap()),
            &flat(&want.into_dyn())
        ));
        let xf = x.mapv(|v| v.to_f32());
        let want_acc = cpu::scan_axis(xf.view(), Axis(axis), Op::Sum, ScanKind::Exclusive).unwrap();
        let mut acc = DeviceArrayD::<f32>::zeros(&gpu, &[300, 129]).unwrap();
        s.scan_axis_accumulated_into(&dx, Axis(axis), Op::Sum, &mut acc)
            .unwrap();
        assert!(same_bits(
            &flat(&acc.to_array().unwrap()),
            &flat(&want_acc.into_dyn())
        ));
    }
    // A Fortran-order host view.
    let f = x.t().to_owned();
    let t = f.t();
    let want = cpu::scan_axis(t, Axis(1), Op::Max, ScanKind::Exclusive).unwrap();
    let got = s.scan_axis(&t, Axis(1), Op::Max).unwrap();
    assert!(same_bits(&flat(&got), &flat(&want.into_dyn())));
}

/// NaN and infinities along an axis follow the f32 rules of the flat scan (sum: NaN and
/// ±inf propagate, inf + -inf is NaN; min/max: NaN propagates).
#[test]
fn nan_and_infinities() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut x = Array::from_shape_vec((6, 40), small_integers::<f16>(240, 3)).unwrap();
    x[[1, 5]] = f16::NAN;
    x[[2, 7]] = f16::INFINITY;
    x[[3, 9]] = f16::INFINITY;
    x[[3, 30]] = f16::NEG_INFINITY;
    x[[4, 0]] = f16::NEG_INFINITY;
    x[[0, 39]] = f16::MAX;
    x[[5, 39]] = f16::MAX;
    x[[5, 38]] = f16::MAX;
    check_axes(&gpu, x.view().into_dyn(), "non-finite");
}

fn offsets_of(lengths: &[u64]) -> Vec<u64> {
    let mut o = vec![0u64];
    for l in lengths {
        o.push(o.last().unwrap() + l);
    }
    o
}

fn lengths(count: usize, max: u64, zeros: bool, seed: u64) -> Vec<u64> {
    let mut r = seed;
    (0..count)
        .map(|_| {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let lo = if zeros { 0 } else { 1 };
            lo + (r >> 33) % (max + 1 - lo)
        })
        .collect()
}

fn check_segments<T: Element<Accumulator = f32>>(gpu: &Gpu, lens: &[u64], seed: u64) {
    let offsets = offsets_of(lens);
    let n = *offsets.last().unwrap() as usize;
    let x: Vec<T> = small_integers(n, seed);
    let xf: Vec<f32> = x.iter().map(|v| v.to_accumulator()).collect();
    let dx = gpu.upload(&x).unwrap();
    let segments = Segments::new(gpu, &offsets, n).unwrap();
    for op in OPS {
        for kind in KINDS {
            let ctx = format!("{} n={n} segments={} {op} {kind:?}", T::NAME, lens.len());
            let want = cpu::segmented_scan(&x, &offsets, op, kind).unwrap();
            let want_acc = cpu::segmented_scan(&xf, &offsets, op, kind).unwrap();
            for staging in [TileStaging::Auto, TileStaging::Registers] {
                let s = Scan::new(gpu).kind(kind).staging(staging);
                assert!(
                    same_bits(&s.segmented_scan(&x, &offsets, op).unwrap(), &want),
                    "{ctx}"
                );
                let acc = s.segmented_scan_accumulated(&dx, &segments, op).unwrap();
                assert!(same_bits(&acc, &want_acc), "{ctx} (f32)");
            }
            let mut out = gpu.alloc::<T>(n).unwrap();
            Scan::new(gpu)
                .kind(kind)
                .segmented_scan_into(&dx, &segments, op, &mut out)
                .unwrap();
            assert!(same_bits(&out.to_vec().unwrap(), &want), "{ctx} (into)");
            let mut acc = gpu.alloc::<f32>(n).unwrap();
            Scan::new(gpu)
                .kind(kind)
                .segmented_scan_accumulated_into(&dx, &segments, op, &mut acc)
                .unwrap();
            assert!(
                same_bits(&acc.to_vec().unwrap(), &want_acc),
                "{ctx} (f32 into)"
            );
        }
    }
}

fn segments_of<T: Element<Accumulator = f32>>(gpu: &Gpu) {
    check_segments::<T>(gpu, &[], 1);
    check_segments::<T>(gpu, &[0], 2);
    check_segments::<T>(gpu, &[0, 0, 1, 0], 3);
    check_segments::<T>(gpu, &[1], 4);
    check_segments::<T>(gpu, &[31, 32, 33], 5);
    check_segments::<T>(gpu, &lengths(5000, 8, false, 6), 6);
    check_segments::<T>(gpu, &lengths(3000, 8, true, 7), 7);
    check_segments::<T>(gpu, &lengths(700, 2000, true, 8), 8);
    // Segments across many tiles (256 threads × 32 values each).
    check_segments::<T>(gpu, &[8191, 8192, 8193, 300_001, 0, 5], 9);
}

#[test]
fn segments_of_every_length_f16() {
    let Some(gpu) = gpu_or_skip() else { return };
    segments_of::<f16>(&gpu);
}

#[test]
fn segments_of_every_length_bf16() {
    let Some(gpu) = gpu_or_skip() else { return };
    segments_of::<bf16>(&gpu);
}

#[test]
fn refusals_are_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let m = ndarray::Array2::from_elem((3, 4), bf16::ONE);
    let s = Scan::new(&gpu);
    let e = s
        .scan_axis(&m, Axis(1), Op::Product)
        .unwrap_err()
        .to_string();
    assert!(e.contains("sums, minima and maxima"), "{e}");
    let e = s.scan_axis(&m, Axis(2), Op::Sum).unwrap_err().to_string();
    assert!(e.contains("axis"), "{e}");
    let v = vec![f16::ONE; 10];
    let e = s
        .clone()
        .staging(TileStaging::Staged)
        .segmented_scan(&v, &[0u64, 4, 10], Op::Sum)
        .unwrap_err()
        .to_string();
    assert!(e.contains("staging"), "{e}");
    let e = s
        .segmented_scan(&v, &[0u64, 4, 11], Op::Sum)
        .unwrap_err()
        .to_string();
    assert!(e.contains("offsets"), "{e}");
    let mut wrong = gpu.alloc::<f32>(9).unwrap();
    let segments = Segments::new(&gpu, &[0, 4, 10], 10).unwrap();
    let e = s
        .segmented_scan_accumulated_into(&v, &segments, Op::Max, &mut wrong)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out"), "{e}");
    let mut out = DeviceArrayD::<bf16>::zeros(&gpu, &[4, 3]).unwrap();
    let e = s
        .scan_axis_into(&m, Axis(0), Op::Sum, &mut out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out"), "{e}");
    let mut seeded = gpu.alloc::<f16>(10).unwrap();
    let e = s
        .scan_from_into(&v, &mut seeded, Op::Sum, f16::ONE)
        .unwrap_err()
        .to_string();
    assert!(e.contains("seeded f16"), "{e}");
    // The CPU algorithms are not shaped-scan algorithms.
    let e = s
        .clone()
        .algorithm(gpu_scan::Algorithm::Serial)
        .scan_axis(&m, Axis(0), Op::Sum)
        .unwrap_err()
        .to_string();
    assert!(e.contains("CPU algorithm"), "{e}");
}

/// 2^31 + 10 f16 values: rows of 2^30 + 5 along the last axis (look-back rows, 64-bit
/// offsets), and one segmented scan of the same values, the results checked where they change.
#[test]
fn more_than_two_to_the_31_values() {
    let Some(gpu) = gpu_or_skip() else { return };
    let cols = (1usize << 30) + 5;
    let n = 2 * cols;
    let mut host = vec![f16::ZERO; n];
    // Row 0: a 1 at column 3; row 1: a 2 at column 2^30 + 1 (past 2^31 in the flat array).
    host[3] = f16::ONE;
    host[cols + (1 << 30) + 1] = f16::from_f32(2.0);
    let x = Array::from_shape_vec((2, cols), host).unwrap();
    let s = Scan::new(&gpu);
    let y = s.scan_axis(&x, Axis(1), Op::Sum).unwrap();
    assert_eq!(y[[0, 2]], f16::ZERO);
    assert_eq!(y[[0, 3]], f16::ONE);
    assert_eq!(y[[0, cols - 1]], f16::ONE);
    assert_eq!(y[[1, 1 << 30]], f16::ZERO);
    assert_eq!(y[[1, (1 << 30) + 1]], f16::from_f32(2.0));
    assert_eq!(y[[1, cols - 1]], f16::from_f32(2.0));
    drop(y);
    // Segments [0, 5), [5, 2^31 + 8), [2^31 + 8, n): the mark at 2^31 + 6 in the second.
    let (host, _) = x.into_raw_vec_and_offset();
    let far = cols + (1 << 30) + 1;
    assert_eq!(far, (1 << 31) + 6);
    let offsets = [0u64, 5, (1 << 31) + 8, n as u64];
    let y = s
        .segmented_scan_accumulated(&host, &offsets, Op::Sum)
        .unwrap();
    assert_eq!(y[4], 1.0);
    assert_eq!(y[5], 0.0);
    assert_eq!(y[far - 1], 0.0);
    assert_eq!(y[far], 2.0);
    assert_eq!(y[(1 << 31) + 7], 2.0);
    assert_eq!(y[(1 << 31) + 8], 0.0);
    assert_eq!(y[n - 1], 0.0);
}
