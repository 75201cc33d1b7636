//! The look-back scan under per-device tuning on a real GPU: the plan follows the `scan.*` keys
//! (`Scan::lookback_plan`), and results stay exact whatever the tuned block or staging.
//! Skipped (visibly) without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::{data, Op, Tuning};
use gpu_scan::{cpu, Scan, ScanKind};

/// One test function: the tuning is per device and process.
#[test]
fn tuned_lookback_plans_and_results() {
    let Some(gpu) = gpu_or_skip() else { return };
    let staged_ok = gpu.properties().compute_capability >= (8, 0);
    // The built-in rule first.
    let scan = Scan::new(&gpu);
    let big = scan
        .lookback_plan::<f32>(1 << 28, Op::Sum)
        .unwrap()
        .unwrap();
    if staged_ok {
        assert!(big.staged);
        assert_eq!(big.block as u64, gpu.tuned("scan.staged_block"));
    } else {
        assert_eq!(big.block as u64, gpu.tuned("scan.block_large"));
    }
    let medium = scan
        .lookback_plan::<f32>(1 << 24, Op::Sum)
        .unwrap()
        .unwrap();
    if staged_ok && (1 << 24) >= gpu.tuned("scan.staged_from") {
        assert!(medium.staged);
        assert_eq!(medium.block as u64, gpu.tuned("scan.staged_block_medium"));
    }
    let small = scan.lookback_plan::<i32>(1000, Op::Sum).unwrap().unwrap();
    assert!(!small.staged);
    assert_eq!(small.block as u64, gpu.tuned("scan.block_small"));
    // The CPU algorithms make no look-back launch.
    let serial = Scan::new(&gpu).algorithm(gpu_scan::Algorithm::Serial);
    assert_eq!(serial.lookback_plan::<f32>(10, Op::Sum).unwrap(), None);

    // Staged blocks of any whole number of warps (768: the H200's below scan.large_from; 96:
    // three warps), beside powers of two.
    for (staged_block, staged_from, small_block) in [
        (256, 1u64 << 12, 32),
        (512, 1 << 40, 1024),
        (768, 1 << 12, 32),
        (96, 1 << 12, 64),
    ] {
        let mut t = Tuning::new();
        t.set("scan.staged_block_medium", staged_block).unwrap();
        t.set("scan.staged_block", 1024).unwrap();
        t.set("scan.staged_from", staged_from).unwrap();
        t.set("scan.block_small", small_block).unwrap();
        t.set("scan.medium_from", 1 << 30).unwrap();
        gpu.set_tuning(t).unwrap();
        for n in [
            0usize,
            1,
            4095,
            4096,
            32 * small_block as usize + 1,
            (1 << 20) + 3,
            3 * 56 * staged_block as usize - 1,
        ] {
            let plan = scan.lookback_plan::<f32>(n, Op::Sum).unwrap().unwrap();
            let staged = staged_ok && n as u64 >= staged_from;
            assert_eq!(plan.staged, staged, "n {n}");
            let want_block = if staged { staged_block } else { small_block };
            assert_eq!(plan.block as u64, want_block, "n {n}");
            let xf: Vec<f32> = data::exact(n, Op::Sum, n as u64);
            let xi: Vec<i32> = data::exact(n, Op::Sum, n as u64 + 1);
            let xl: Vec<i64> = data::exact(n, Op::Sum, n as u64 + 2);
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                let s = Scan::new(&gpu).kind(kind);
                assert_eq!(
                    s.scan(&xf[..], Op::Sum).unwrap(),
                    cpu::scan(&xf, Op::Sum, kind).unwrap(),
                    "f32 n {n} {kind:?}"
                );
                assert_eq!(
                    s.scan(&xi[..], Op::Max).unwrap(),
                    cpu::scan(&xi, Op::Max, kind).unwrap(),
                    "i32 n {n} {kind:?}"
                );
                assert_eq!(
                    s.scan(&xl[..], Op::Sum).unwrap(),
                    cpu::scan(&xl, Op::Sum, kind).unwrap(),
                    "i64 n {n} {kind:?}"
                );
            }
        }
    }
    // The caller's block wins over the tuning.
    let p = Scan::new(&gpu)
        .block_size(128)
        .lookback_plan::<i32>(1000, Op::Sum)
        .unwrap()
        .unwrap();
    assert_eq!(p.block, 128);
    gpu.set_tuning(Tuning::new()).unwrap();
}
