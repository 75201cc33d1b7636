//! The staged look-back scans that prefetch a later tile's input into L2 (`kernels/scan_sm90.cu`,
//! compute capability 9.0+, `scan.prefetch_from`): forced on at every length through the tuning
//! keys, one tile ahead and the built-in distance, they give the CPU scan's results bit for bit
//! (data on which every grouping is exact) for every operator family and value size (f16 and
//! bf16 too, with results in their own type and in f32), at the edge
//! lengths where the prefetch reaches past the input; one `Scan` alternates between them and
//! the kernels without the prefetch (the same epoch-tagged status). Skipped (visibly) without a
//! GPU or below compute capability 9.0; failing with GPU_PRIMS_REQUIRE_GPU=1 without a GPU.
//! `PREFETCH_TEST_MAX_LEN=n` leaves out the longer lengths (for the sanitizers' slow runs).
#![cfg(feature = "cuda")]

mod common;

use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, f16, Element, Gpu, Op, Tuning};
use gpu_scan::{Algorithm, Scan, ScanKind, TileStaging};

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

fn tune(gpu: &Gpu, from: u64, kib: u64) {
    let mut t = Tuning::new();
    t.set("scan.prefetch_from", from).unwrap();
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
