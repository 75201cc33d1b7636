//! The warp-specialised flat scan (`kernels/scan_sm90.cu`, `scan_ws_*`: compute capability
//! 9.0+, `scan.warp_specialized_from`): forced on at every length through the tuning key, it
//! gives the CPU scan's results bit for bit (data on which every grouping is exact) for every
//! operator and type it has a kernel for (sum, prod, min and max of 4- and 8-byte values; float
//! sums and products with the plain look-back and the fixed-order one, `Auto`'s for them),
//! inclusive and exclusive, in place too, at the edge lengths of its tiles (8192 4-byte values,
//! 4096 8-byte ones) and past one tile per SM; float sums with rounding repeat bit for bit and
//! a host input's pipelined chunks give the one-shot bits; one `Scan`
//! alternates between it and the look-back tiles (the same epoch-tagged status and counter);
//! options that fix the block or the staging keep the look-back tiles. Skipped (visibly) without
//! a GPU or below compute capability 9.0; failing with GPU_PRIMS_REQUIRE_GPU=1 without a GPU.
//! `WS_TEST_MAX_LEN=n` leaves out the longer lengths (for the sanitizers' slow runs).
#![cfg(feature = "cuda")]

mod common;

use gpu_core::testing::gpu_or_skip;
use gpu_core::{Element, Gpu, Op, Tuning};
use gpu_scan::{Algorithm, Scan, ScanKind, TileStaging};

fn check<T: Element>(scan: &Scan, n: usize, op: Op, seed: u64, ws: bool, what: &str) {
    assert_eq!(
        scan.warp_specialized::<T>(n, op).unwrap(),
        ws,
        "{what}: {} {op} n={n}",
        T::NAME
    );
    common::check_scan::<T>(scan, n, op, seed, what);
}

/// In place: the kernel reads each tile before its consumers store it.
fn check_in_place<T: Element>(scan: &Scan, n: usize, op: Op, seed: u64, what: &str) {
    let x: Vec<T> = gpu_core::data::exact(n, op, seed);
    let mut d = scan.gpu().upload(&x).unwrap();
    scan.scan_in_place(&mut d, op).unwrap();
    let want = gpu_scan::cpu::scan(&x, op, scan.scan_options().kind).unwrap();
    common::assert_equal_values(
        &d.to_vec().unwrap(),
        &want,
        format_args!("{what}: in place {} {op} n={n}", T::NAME),
    );
}

fn tune(gpu: &Gpu, from: u64) {
    let mut t = Tuning::new();
    t.set("scan.warp_specialized_from", from).unwrap();
    gpu.set_tuning(t).unwrap();
}

/// One test function: the tuning is per device and process.
#[test]
fn gpu_warp_specialized_scans_match_the_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    if gpu.properties().compute_capability < gpu_scan::plan::WARP_SPECIALIZED_MIN_COMPUTE {
        eprintln!(
            "skipped: compute capability {:?} has no warp-specialised scan",
            gpu.properties().compute_capability
        );
        return;
    }
    let sms = gpu.properties().sm_count as usize;
    let max_len: usize = std::env::var("WS_TEST_MAX_LEN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    // Tiles: 8192 4-byte values, 4096 8-byte ones; the last two lengths take more tiles than
    // the grid has blocks (one a SM), so blocks go round their buffers many times.
    let lengths: Vec<usize> = [
        1usize,
        3,
        31,
        33,
        1025,
        4095,
        4096,
        4097,
        8191,
        8192,
        8193,
        3 * 8192 + 1,
        6 * 8192 + 5,
        sms * 8192 * 7 + 8189,
        (1 << 22) + 3,
    ]
    .into_iter()
    .filter(|&n| n <= max_len)
    .collect();
    tune(&gpu, 1);
    let mut cases = 0;
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let scan = Scan::new(&gpu).kind(kind);
        let det = scan.clone().algorithm(Algorithm::LookBackDeterministic);
        let plain = scan.clone().algorithm(Algorithm::LookBack);
        let what = format!("{kind:?} warp-specialised");
        for (k, &n) in lengths.iter().enumerate() {
            let seed = 100 * k as u64 + kind as u64;
            check::<i32>(&scan, n, Op::Sum, seed, true, &what);
            check::<u32>(&scan, n, Op::Product, seed + 1, true, &what);
            check::<f32>(&scan, n, Op::Min, seed + 2, true, &what);
            check::<i32>(&scan, n, Op::Max, seed + 3, true, &what);
            check::<f64>(&plain, n, Op::Sum, seed + 4, true, &what);
            check::<i64>(&scan, n, Op::Max, seed + 5, true, &what);
            check::<u64>(&det, n, Op::Min, seed + 6, true, &what);
            check::<f64>(&plain, n, Op::Product, seed + 7, true, &what);
            check::<f32>(&plain, n, Op::Sum, seed + 10, true, &what);
            check::<u64>(&plain, n, Op::Sum, seed + 11, true, &what);
            // Float sums and products with the fixed-order look-back (Auto's): scan_ws_det_*.
            check::<f32>(&scan, n, Op::Sum, seed + 8, true, &what);
            check::<f64>(&det, n, Op::Sum, seed + 9, true, &what);
            check::<f32>(&det, n, Op::Product, seed + 15, true, &what);
            check_in_place::<i32>(&scan, n, Op::Sum, seed + 12, &what);
            check_in_place::<f64>(&scan, n, Op::Max, seed + 13, &what);
            // No kernel of its own: bitwise operators take the look-back tiles.
            check::<u32>(&scan, n, Op::BitXor, seed + 14, false, &what);
            cases += 16;
        }
        // Options that fix the block or the staging keep the look-back tiles.
        let n = 3 * 8192 + 1;
        check::<i32>(&scan.clone().block_size(1024), n, Op::Sum, 5, false, &what);
        check::<f32>(
            &scan.clone().staging(TileStaging::Staged),
            n,
            Op::Sum,
            6,
            false,
            &what,
        );
        cases += 2;
    }
    // One Scan across the threshold and back: the warp-specialised kernel (whose blocks each
    // take one counter value past the last tile) and the look-back tiles share its status.
    tune(&gpu, 1 << 20);
    let scan = Scan::new(&gpu).algorithm(Algorithm::LookBack);
    for (k, n) in [
        (1 << 20) + 7,
        5000,
        (1 << 21) + 1,
        (1 << 20) - 1,
        (1 << 20) + 7,
        1 << 20,
    ]
    .into_iter()
    .filter(|&n| n <= max_len)
    .enumerate()
    {
        let ws = n >= 1 << 20;
        check::<f32>(&scan, n, Op::Sum, 7000 + k as u64, ws, "threshold");
        check::<u32>(&scan, n, Op::Sum, 7100 + k as u64, ws, "threshold");
        check::<f64>(&scan, n, Op::Min, 7200 + k as u64, ws, "threshold");
        cases += 3;
    }
    // Float sums with rounding, with the fixed-order look-back (Auto's): the same bits on
    // every run, and a host input's pipelined chunks (the same kernel over each chunk's tiles,
    // continuing the status) give the one-shot scan's bits, within the tests' float tolerance
    // of the f64 scan.
    tune(&gpu, 1);
    let n = max_len.min(3 * (8 << 20) / 4 + 12345);
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let scan = Scan::new(&gpu).kind(kind);
        let x: Vec<f32> = gpu_core::data::typical(n, 31 + kind as u64);
        let bits = |v: &[f32]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
        let d = gpu.upload(&x).unwrap();
        let mut y = gpu.alloc::<f32>(n).unwrap();
        scan.scan_into(&d, &mut y, Op::Sum).unwrap();
        let one_shot = bits(&y.to_vec().unwrap());
        scan.scan_into(&d, &mut y, Op::Sum).unwrap();
        assert_eq!(
            one_shot,
            bits(&y.to_vec().unwrap()),
            "{kind:?} f32 sum: runs differ"
        );
        let piped = scan
            .clone()
            .pipelining(gpu_core::Pipelining::Always)
            .scan(&x, Op::Sum)
            .unwrap();
        assert_eq!(
            one_shot,
            bits(&piped),
            "{kind:?} f32 sum: pipelined bits differ"
        );
        let y64 = gpu_scan::cpu::scan(
            &x.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(),
            Op::Sum,
            kind,
        )
        .unwrap();
        let mut bound = 0f64;
        for (i, (&g, &w)) in piped.iter().zip(&y64).enumerate() {
            bound += f64::from(x[i].abs());
            let err = (f64::from(g) - w).abs();
            assert!(
                err <= 64.0 * f64::from(f32::EPSILON) / 2.0 * bound.max(f64::MIN_POSITIVE),
                "{kind:?} f32 sum at {i}: {g} against {w}"
            );
        }
        cases += 2;
    }
    // The built-in rule.
    gpu.set_tuning(Tuning::new()).unwrap();
    let n = (1usize << 24) + 3;
    let builtin = gpu.tuned("scan.warp_specialized_from") as usize <= n;
    if n <= max_len {
        check::<i32>(&Scan::new(&gpu), n, Op::Sum, 9001, builtin, "built-in");
        let plain = Scan::new(&gpu).exclusive().algorithm(Algorithm::LookBack);
        check::<f32>(&plain, n, Op::Sum, 9002, builtin, "built-in");
        check::<f32>(&Scan::new(&gpu), n, Op::Sum, 9003, builtin, "built-in");
        cases += 3;
    }
    eprintln!("warp-specialised scans: {cases} cases match the CPU (built-in rule at 2^24 + 3: {builtin})");
}
