//! Every gpu-sync kernel at modest sizes, for compute-sanitizer on the GPU machine:
//!
//! ```text
//! for tool in memcheck racecheck synccheck; do
//!   GPU_PRIMS_REQUIRE_GPU=1 compute-sanitizer --tool $tool --error-exitcode 1 \
//!     gpu-bundle/tests/gpu-sync__sanitize --test-threads=1 || echo "$tool FAILED"
//! done
//! ```
//!
//! A wrong result fails the test (non-zero exit) even without the sanitizer; the sanitizer
//! adds its own reports and, with `--error-exitcode 1`, a non-zero exit on any finding.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_sync::selftest::{guard_probe, queue_probe, Fetch};
use gpu_sync::{
    demo_reference_with_setup, heavy_tailed_items, run_demo, Demo, HeavyTail, LastBlockCounter,
    Schedule,
};

#[test]
fn sanitize_guard() {
    let Some(gpu) = gpu_or_skip() else { return };
    let sm = gpu.properties().sm_count;
    let counter = LastBlockCounter::new(&gpu).unwrap();
    for grid in [1, 2, sm] {
        for (block, delay_ns) in [(64, 1000), (256, 0)] {
            guard_probe(&counter, grid, block, 3, delay_ns, gpu.stream())
                .unwrap()
                .check()
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    assert_eq!(counter.read(gpu.stream()).unwrap(), 0);
}

#[test]
fn sanitize_queue() {
    let Some(gpu) = gpu_or_skip() else { return };
    for n in [0usize, 1, 5, 10_000] {
        for fetch in [Fetch::Single, Fetch::Batch(1), Fetch::Batch(7)] {
            queue_probe(&gpu, n, fetch, None, gpu.stream())
                .unwrap()
                .check()
                .unwrap_or_else(|e| panic!("{n} items: {e}"));
        }
    }
}

#[test]
fn sanitize_demo() {
    let Some(gpu) = gpu_or_skip() else { return };
    let tail = HeavyTail {
        median: 4,
        alpha: 1.2,
        max_ratio: 100.0,
    };
    let items = heavy_tailed_items(3000, 5, &tail).unwrap();
    for schedule in Schedule::all(4) {
        let run = run_demo(&gpu, &items, schedule, gpu.stream()).unwrap();
        assert!(
            run.is_correct(),
            "{schedule}: {} mismatches, taken {:?}",
            run.mismatches,
            run.taken
        );
    }
}

/// The demonstration with a per-block setup: the shared-memory table is built and read under
/// every schedule.
#[test]
fn sanitize_demo_with_setup() {
    let Some(gpu) = gpu_or_skip() else { return };
    let tail = HeavyTail {
        median: 4,
        alpha: 1.2,
        max_ratio: 100.0,
    };
    let items = heavy_tailed_items(1500, 9, &tail).unwrap();
    let reference = demo_reference_with_setup(&items, 3);
    let mut demo = Demo::with_setup(&gpu, &items, 3).unwrap();
    for schedule in Schedule::all(4) {
        demo.clear_results(gpu.stream()).unwrap();
        demo.enqueue(schedule, gpu.stream()).unwrap();
        assert!(
            demo.results(gpu.stream()).unwrap() == reference,
            "{schedule}"
        );
    }
}
