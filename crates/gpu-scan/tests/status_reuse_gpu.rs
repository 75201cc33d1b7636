//! One `Scan` called again and again: its flat look-back runs and its look-back rows (scans
//! along the axis of long rows) reuse the status words and tile counter the previous runs left (epoch-tagged, kernels/include/gpu_prims/lookback_epoch.cuh)
//! instead of zeroing them before each launch. A stale word read as this run's would hand a tile
//! another call's prefix, so every call here scans other data than the one before it, and each
//! result is compared with the CPU scan bit for bit (data on which every grouping is exact).
//! Skipped (visibly) without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

mod common;

use gpu_core::testing::gpu_or_skip;
use gpu_core::{data, Element, Gpu, Op};
use gpu_scan::{cpu, Algorithm, Scan, ScanKind, TileStaging};
use ndarray::{Array2, Axis};

/// Lengths that grow, shrink and repeat: the layout is reused while the tiles fit, replaced
/// (and zeroed) when they do not.
const LENGTHS: [usize; 12] = [
    1,
    33,
    100_000,
    3_000,
    100_000,
    (1 << 20) + 1,
    5,
    (1 << 20) + 1,
    (1 << 22) + 3,
    777,
    1 << 16,
    (1 << 22) + 3,
];

fn sequence(gpu: &Gpu, kind: ScanKind, staging: TileStaging, algorithm: Algorithm) {
    let scan = Scan::new(gpu)
        .kind(kind)
        .staging(staging)
        .algorithm(algorithm);
    let what = format!("{kind:?} {staging:?} {algorithm:?}");
    let mut seed = 1;
    for (k, &n) in LENGTHS.iter().enumerate() {
        seed += 1;
        common::check_scan::<i32>(&scan, n, Op::Sum, seed, &what);
        // The same length again, other data: the words of the run just before are all tagged.
        common::check_scan::<i32>(&scan, n, Op::Max, seed + 1000, &what);
        // Another value size in between (wide status: flags and value arrays), then back.
        if k % 3 == 0 {
            common::check_scan::<f64>(&scan, n, Op::Sum, seed + 2000, &what);
            common::check_scan::<u64>(&scan, n, Op::BitXor, seed + 3000, &what);
        }
        common::check_scan::<f32>(&scan, n, Op::Sum, seed + 4000, &what);
    }
    // Many runs of one length: the epochs climb, every one distinct.
    for r in 0..40 {
        common::check_scan::<u32>(&scan, 4097 * 3, Op::Sum, 9000 + r, &what);
    }
}

#[test]
fn gpu_one_scan_reuses_its_status_across_calls() {
    let Some(gpu) = gpu_or_skip() else { return };
    let staged_ok = gpu_scan::plan::staged_tiles_available(gpu.properties().compute_capability);
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        sequence(&gpu, kind, TileStaging::Auto, Algorithm::Auto);
        sequence(
            &gpu,
            kind,
            TileStaging::Registers,
            Algorithm::LookBackDeterministic,
        );
        if staged_ok {
            sequence(&gpu, kind, TileStaging::Staged, Algorithm::LookBack);
        } else {
            eprintln!("staged tiles not tested: compute capability below 8.0");
        }
    }
}

/// The other users of the scratch between flat scans (axis scans with their own zeroed status,
/// seeded scans, the host pipeline's chunked run, monoids) leave the next flat scan correct.
#[test]
fn gpu_flat_scans_interleaved_with_other_scans() {
    let Some(gpu) = gpu_or_skip() else { return };
    let scan = Scan::new(&gpu);
    let n = (1 << 20) + 7;
    common::check_scan::<i32>(&scan, n, Op::Sum, 1, "first");
    // Along an axis of long rows: look-back rows over status the lanes zero themselves.
    let m: Array2<i32> = Array2::from_shape_vec((3, n), data::exact(3 * n, Op::Sum, 2)).unwrap();
    let rows = scan.scan_axis(&m, Axis(1), Op::Sum).unwrap();
    for (r, row) in m.outer_iter().enumerate() {
        let want = cpu::scan(row.as_slice().unwrap(), Op::Sum, ScanKind::Inclusive).unwrap();
        assert_eq!(
            rows.index_axis(Axis(0), r)
                .iter()
                .copied()
                .collect::<Vec<_>>(),
            want,
            "axis row {r}"
        );
    }
    common::check_scan::<i32>(&scan, n, Op::Sum, 3, "after an axis scan");
    // Seeded (the fixed-order look-back continued from a value).
    let x: Vec<i64> = data::exact(n, Op::Sum, 4);
    let mut out = gpu.alloc::<i64>(n).unwrap();
    scan.scan_from_into(&x, &mut out, Op::Sum, 1000).unwrap();
    let mut want = cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
    want.iter_mut().for_each(|v| *v += 1000);
    assert_eq!(out.to_vec().unwrap(), want, "seeded");
    common::check_scan::<i64>(&scan, n, Op::Sum, 5, "after a seeded scan");
    // The host pipeline: one run over several launches (chunks of 8 MiB).
    let big: Vec<i32> = data::exact(5 << 20, Op::Sum, 6);
    let got = scan.scan(&big, Op::Sum).unwrap();
    assert_eq!(
        got,
        cpu::scan(&big, Op::Sum, ScanKind::Inclusive).unwrap(),
        "host pipeline"
    );
    common::check_scan::<i32>(&scan, n, Op::Sum, 7, "after the host pipeline");
    common::check_scan::<i32>(
        &scan,
        5 << 20,
        Op::Sum,
        8,
        "the host pipeline's length, from the device",
    );
    // Monoids (their own value size) in between.
    let mats: Vec<gpu_core::Mat2<i32>> = (0..1000)
        .map(|i| gpu_core::Mat2([1, i % 3, 0, 1]))
        .collect();
    let got = scan.scan_monoid(&mats).unwrap();
    let want = cpu::scan_monoid(&mats, ScanKind::Inclusive);
    assert_eq!(got, want, "monoid");
    common::check_scan::<i32>(&scan, n, Op::Sum, 9, "after a monoid scan");
}

/// Scans along the axis of long rows (the look-back rows kernels, epoch-tagged status as the
/// flat scan's) on one `Scan`, between flat scans, with shapes that grow, shrink and repeat:
/// one split per row and several, register and staged tiles, four value sizes.
#[test]
fn gpu_axis_rows_reuse_their_status_across_calls() {
    let Some(gpu) = gpu_or_skip() else { return };
    let scan = Scan::new(&gpu);
    let shapes = [
        (3, 100_000),
        (2, 40_000),
        (64, 16_384),
        (3, 100_000),
        (1, 1 << 21),
        (5, 70_001),
        (3, 100_000),
    ];
    let mut seed = 100;
    let mut lookback_rows = 0;
    for (k, &(rows, cols)) in shapes.iter().enumerate() {
        seed += 10;
        lookback_rows += rows_case::<i32>(&scan, rows, cols, Op::Sum, seed) as usize;
        lookback_rows += rows_case::<f32>(&scan, rows, cols, Op::Max, seed + 1) as usize;
        if k % 2 == 0 {
            lookback_rows += rows_case::<f64>(&scan, rows, cols, Op::Sum, seed + 2) as usize;
            lookback_rows += rows_case::<u64>(&scan, rows, cols, Op::BitXor, seed + 3) as usize;
        }
        common::check_scan::<i32>(&scan, cols, Op::Sum, seed + 4, "flat between axis scans");
    }
    eprintln!("look-back rows in {lookback_rows} of the axis cases");
    assert!(
        lookback_rows > 0,
        "no case took the look-back rows: the test tests nothing"
    );
}

/// Whether the case ran the look-back rows.
fn rows_case<T: Element>(scan: &Scan, rows: usize, cols: usize, op: Op, seed: u64) -> bool {
    let m: Array2<T> =
        Array2::from_shape_vec((rows, cols), data::exact(rows * cols, op, seed)).unwrap();
    let plan = scan
        .axis_plan::<T>(m.shape(), m.strides(), Axis(1), op)
        .unwrap();
    let got = scan.scan_axis(&m, Axis(1), op).unwrap();
    let want = cpu::scan_axis(m.view(), Axis(1), op, ScanKind::Inclusive).unwrap();
    assert!(
        got == want.into_dyn(),
        "{} {op} {rows}x{cols} axis 1 ({plan}): differs from the CPU",
        T::NAME
    );
    matches!(plan.access, gpu_core::LaneAccess::LookBackRows { .. })
}
