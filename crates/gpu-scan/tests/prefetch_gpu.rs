//! The staged look-back scans that prefetch a later tile's input into L2 (`kernels/scan_sm90.cu`,
//! compute capability 9.0+, `scan.prefetch_from` and `scan.shaped_prefetch_from`): forced on at every length through the tuning
//! keys, one tile ahead and the built-in distance, they give the CPU scan's results bit for bit
//! (data on which every grouping is exact) for every operator family and value size (f16 and
//! bf16 too, with results in their own type and in f32), at the edge
//! lengths where the prefetch reaches past the input; the shaped scans' twins (long column
//! spans, segment tiles) likewise; one `Scan` alternates between them and
//! the kernels without the prefetch (the same epoch-tagged status). Skipped (visibly) without a
//! GPU or below compute capability 9.0; failing with GPU_PRIMS_REQUIRE_GPU=1 without a GPU.
//! `PREFETCH_TEST_MAX_LEN=n` leaves out the longer lengths (for the sanitizers' slow runs).
#![cfg(feature = "cuda")]

mod common;

use common::{check_axis, AxisCase};

use gpu_core::data::{exact, offsets_with};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, f16, Element, Gpu, Op, Segments, Tuning};
use gpu_scan::{cpu, Algorithm, Scan, ScanKind, TileStaging};

fn check<T: Element>(scan: &Scan, n: usize, op: Op, seed: u64, prefetching: bool, what: &str) {
    let plan = scan
        .lookback_plan::<T>(n, op)
        .unwrap()
        .expect("a look-back plan");
    assert_eq!(
        plan.prefetch_tiles > 0,
        prefetching,
        "{what}: {} {op} n={n}: {plan:?}",
        T::NAME
    );
    common::check_scan::<T>(scan, n, op, seed, what);
}

/// `check` for f32 results of 16-bit input (`scan_accumulated`), always prefetching here.
fn check_accumulated<T: Element<Accumulator = f32>>(
    scan: &Scan,
    n: usize,
    op: Op,
    seed: u64,
    what: &str,
) {
    let plan = scan
        .lookback_plan_accumulated::<T>(n, op)
        .unwrap()
        .expect("a look-back plan");
    assert!(
        plan.prefetch_tiles > 0,
        "{what}: {} {op} n={n}: {plan:?}",
        T::NAME
    );
    let x: Vec<T> = gpu_core::data::exact(n, op, seed);
    let got = scan
        .scan_accumulated(&scan.gpu().upload(&x).unwrap(), op)
        .unwrap();
    let want = gpu_scan::cpu::scan_accumulated(&x, op, scan.scan_options().kind).unwrap();
    if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: {} {op} to f32 n={n}: first difference at {i}: got {}, want {}",
            T::NAME,
            got[i],
            want[i]
        );
    }
}

/// `count` segments of the lengths `len` gives, scanned on device values: the prefetching plan
/// (checked) and the CPU's results. Returns whether it ran (not over `max_len` values).
fn check_segments<T: Element>(
    scan: &Scan,
    count: usize,
    len: impl Fn(u64) -> u64,
    op: Op,
    seed: u64,
    max_len: usize,
    what: &str,
) -> bool {
    let offsets = offsets_with(count, seed, len);
    let n = *offsets.last().unwrap() as usize;
    if n > max_len {
        return false;
    }
    let gpu = scan.gpu();
    let segs = Segments::new(gpu, &offsets, n).unwrap();
    let v = exact::<T>(n, op, seed);
    let mut out = gpu.alloc::<T>(n).unwrap();
    let plan = scan
        .segmented_scan_into(&gpu.upload(&v).unwrap(), &segs, op, &mut out)
        .unwrap();
    let case = format!("{what}: {} {op} {count} segments of {n} values", T::NAME);
    assert!(plan.access.prefetch() > 0, "{case}: {plan}");
    let want = cpu::segmented_scan(&v, &offsets, op, scan.scan_options().kind).unwrap();
    assert_eq!(out.to_vec().unwrap(), want, "{case}: {plan}");
    true
}

/// The shaped scans' prefetching kernels (long column spans, segment tiles) for every value
/// size, each plan checked to prefetch; returns the cases run (those of at most `max_len`
/// values: 300000 keeps some of each kernel).
fn check_shaped(gpu: &Gpu, kib: u64, max_len: usize) -> usize {
    // Long column spans: one tile of many spans (each span's rows one range), the same lanes
    // of a Fortran array, a column slice of a wider array (a range per row), 8-byte lanes, and
    // three tiles of a 3-D array.
    let cols = AxisCase::new(4100 * 64, &[4100, 64], &[64, 1], 0);
    let cols_f = AxisCase::new(4100 * 64, &[64, 4100], &[1, 64], 1);
    let cols_slice = AxisCase::new(2100 * 128, &[2100, 64], &[128, 1], 0);
    let cols_8 = AxisCase::new(9000 * 32, &[9000, 32], &[32, 1], 0);
    let cols_3d = AxisCase::new(3 * 5000 * 64, &[3, 5000, 64], &[320_000, 64, 1], 1);
    let cols_long = AxisCase::new(40_000 * 64, &[40_000, 64], &[64, 1], 0);
    // Column tiles share the distance (`scan.prefetch_kib`): with 1 KiB, less than a span
    // each where several run side by side, so those prefetch nothing.
    let prefetching =
        |p: &gpu_core::LanePlan| (p.access.prefetch() > 0) != (kib == 1 && p.tiles > 1);
    let mut cases = 0;
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let scan = Scan::new(gpu).kind(kind);
        let what = format!("{kind:?} prefetch {kib} KiB");
        let (w, m, s) = (what.as_str(), max_len, kib + kind as u64);
        let ran = [
            check_axis::<f32>(&scan, &cols, Op::Sum, s, m, w, prefetching),
            check_axis::<i32>(&scan, &cols_f, Op::Max, s, m, w, prefetching),
            check_axis::<f32>(&scan, &cols_slice, Op::Sum, s, m, w, prefetching),
            check_axis::<f64>(&scan, &cols_8, Op::Sum, s, m, w, prefetching),
            check_axis::<u32>(&scan, &cols_3d, Op::Product, s, m, w, prefetching),
            check_axis::<i64>(&scan, &cols_long, Op::Min, s, m, w, prefetching),
            // Segment tiles (14336 4-byte values, 7168 of 8, per tile): short, long and mixed
            // segments, empty ones among them.
            check_segments::<i32>(&scan, 200_000, |k| 1 + k % 8, Op::Sum, s, m, w),
            check_segments::<i32>(&scan, 50_000, |k| 1 + k % 8, Op::Sum, s + 1, m, w),
            check_segments::<f32>(&scan, 250, |k| k % 2001, Op::Sum, s, m, w),
            check_segments::<f64>(&scan, 2, |k| 100_000 + k % 20_000, Op::Max, s, m, w),
            check_segments::<f64>(&scan, 3, |k| 100_000 + k % 50_000, Op::Max, s + 1, m, w),
            check_segments::<u64>(&scan, 50_000, |k| k % 5, Op::Min, s, m, w),
            check_segments::<u32>(&scan, 700, |k| k % 700, Op::Product, s, m, w),
        ];
        cases += ran.iter().filter(|&&r| r).count();
    }
    cases
}

fn tune(gpu: &Gpu, from: u64, kib: u64) {
    let mut t = Tuning::new();
    t.set("scan.prefetch_from", from).unwrap();
    t.set("scan.shaped_prefetch_from", from).unwrap();
    t.set("scan.prefetch_kib", kib).unwrap();
    gpu.set_tuning(t).unwrap();
}

/// One test function: the tuning is per device and process.
#[test]
fn gpu_prefetching_scans_match_the_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    if gpu.properties().compute_capability < gpu_scan::plan::PREFETCH_MIN_COMPUTE {
        eprintln!(
            "skipped: compute capability {:?} has no bulk L2 prefetch",
            gpu.properties().compute_capability
        );
        return;
    }
    // A staged tile of 1024 threads holds 57344 4-byte values (28672 of 8 bytes), and so does
    // the 16-bit thread-run tile; the convert tile of 16-bit input and f32 results 81920.
    let lengths = [
        1usize,
        31,
        33,
        1025,
        57_343,
        57_345,
        81_919,
        81_921,
        3 * 57_344 + 1,
        (1 << 20) + 1,
        (1 << 22) + 3,
    ];
    let max_len: usize = std::env::var("PREFETCH_TEST_MAX_LEN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let lengths: Vec<usize> = lengths.into_iter().filter(|&n| n <= max_len).collect();
    let mut cases = 0;
    // 1 KiB: one tile ahead (the next tile, often taken already); 7168: the built-in distance.
    for kib in [1u64, 7168] {
        tune(&gpu, 1, kib);
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let scan = Scan::new(&gpu)
                .kind(kind)
                .staging(TileStaging::Staged)
                .block_size(1024);
            let what = format!("{kind:?} prefetch {kib} KiB");
            for (k, &n) in lengths.iter().enumerate() {
                let seed = 100 * k as u64 + kib;
                check::<i32>(&scan, n, Op::Sum, seed, true, &what);
                check::<f32>(&scan, n, Op::Sum, seed + 1, true, &what);
                check::<u32>(&scan, n, Op::BitXor, seed + 2, true, &what);
                check::<f64>(&scan, n, Op::Sum, seed + 3, true, &what);
                check::<i64>(&scan, n, Op::Max, seed + 4, true, &what);
                check::<u64>(&scan, n, Op::BitAnd, seed + 5, true, &what);
                check::<f32>(&scan, n, Op::Min, seed + 6, true, &what);
                check::<i32>(&scan, n, Op::Product, seed + 7, true, &what);
                // 16-bit floats: the fixed-order sum (Auto), min and max, the plain sum.
                check::<f16>(&scan, n, Op::Sum, seed + 8, true, &what);
                check::<bf16>(&scan, n, Op::Sum, seed + 9, true, &what);
                check::<f16>(&scan, n, Op::Min, seed + 10, true, &what);
                check::<bf16>(&scan, n, Op::Max, seed + 11, true, &what);
                let plain = scan.clone().algorithm(Algorithm::LookBack);
                check::<f16>(&plain, n, Op::Sum, seed + 12, true, &what);
                check::<bf16>(&plain, n, Op::Sum, seed + 13, true, &what);
                // f32 results of 16-bit input (the warp-striped convert tiles).
                check_accumulated::<f16>(&scan, n, Op::Sum, seed + 14, &what);
                check_accumulated::<bf16>(&plain, n, Op::Sum, seed + 15, &what);
                check_accumulated::<bf16>(&scan, n, Op::Max, seed + 16, &what);
                cases += 17;
            }
        }
        cases += check_shaped(&gpu, kib, max_len);
    }
    // One Scan across the threshold and back: prefetching and plain kernels share its status.
    tune(&gpu, 1 << 20, 7168);
    let scan = Scan::new(&gpu).staging(TileStaging::Staged);
    for (k, n) in [
        (1 << 20) + 7,
        5000,
        (1 << 21) + 1,
        (1 << 20) - 1,
        (1 << 20) + 7,
    ]
    .into_iter()
    .filter(|&n| n <= max_len)
    .enumerate()
    {
        check::<f32>(
            &scan,
            n,
            Op::Sum,
            7000 + k as u64,
            n >= 1 << 20,
            "threshold",
        );
        check::<u32>(
            &scan,
            n,
            Op::Sum,
            7100 + k as u64,
            n >= 1 << 20,
            "threshold",
        );
        cases += 2;
    }
    // The built-in rule: the flat scan of a long input prefetches where the device's tuning
    // (fast memory per SM) says so.
    gpu.set_tuning(Tuning::new()).unwrap();
    let n = (1usize << 27) + 3;
    let builtin = gpu.tuned("scan.prefetch_from") as usize <= n;
    if n <= max_len {
        check::<i32>(&Scan::new(&gpu), n, Op::Sum, 9001, builtin, "built-in");
        cases += 1;
    }
    eprintln!("prefetching scans: {cases} cases match the CPU (built-in rule prefetches at 2^27: {builtin})");
}
