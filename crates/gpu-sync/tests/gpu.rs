//! gpu-sync on a real GPU: skipped (visibly) without one, failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::Error;
use gpu_sync::selftest::{
    guard_probe, queue_probe, Fetch, QueueProbe, MAX_DELAY_NS, QUEUE_PROBE_BLOCK,
};
use gpu_sync::{
    demo_reference, heavy_tailed_items, persistent_config, persistent_config_capped, run_demo,
    Demo, HeavyTail, LastBlockCounter, Schedule, WorkQueue, SYNC_PTX,
};

// ---- Guard ---------------------------------------------------------------------------------

#[test]
fn gpu_guard_exactly_one_last_block_per_launch() {
    let Some(gpu) = gpu_or_skip() else { return };
    let sm = gpu.properties().sm_count;
    // One counter for everything below, never reset: each launch's last block leaves it at 0,
    // whatever the next launch's grid.
    let counter = LastBlockCounter::new(&gpu).unwrap();
    for grid in [1, 2, sm, 10 * sm] {
        for (block, delay_ns) in [(256, 0), (64, 2000), (1024, 500)] {
            let r = guard_probe(&counter, grid, block, 3, delay_ns, gpu.stream()).unwrap();
            r.check().unwrap_or_else(|e| panic!("{e}"));
            let last: Vec<_> = (0..3).map(|l| r.last_blocks(l)[0]).collect();
            eprintln!("grid {grid:5} block {block:4} delay {delay_ns:4} ns: last blocks {last:?}");
        }
    }
    assert_eq!(counter.read(gpu.stream()).unwrap(), 0);
}

#[test]
fn gpu_guard_1000_launches_back_to_back_without_reset() {
    let Some(gpu) = gpu_or_skip() else { return };
    let sm = gpu.properties().sm_count;
    let stream = gpu.new_stream().unwrap();
    let counter = LastBlockCounter::new(&gpu).unwrap();
    let r = guard_probe(&counter, 2 * sm, 128, 1000, 300, &stream).unwrap();
    r.check().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.counter_after, 0);
    assert_eq!(counter.read(&stream).unwrap(), 0);
    // The counter is still good for another series, with another grid.
    let r = guard_probe(&counter, 10 * sm, 256, 20, 0, &stream).unwrap();
    r.check().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn gpu_guard_probe_refuses_bad_shapes() {
    let Some(gpu) = gpu_or_skip() else { return };
    let counter = LastBlockCounter::new(&gpu).unwrap();
    let bad = [
        (0, 256, 1, 0),
        (4, 100, 1, 0),
        (4, 2048, 1, 0),
        (4, 256, 0, 0),
        (4, 256, 1, MAX_DELAY_NS + 1),
    ];
    for (grid, block, launches, delay_ns) in bad {
        let e = guard_probe(&counter, grid, block, launches, delay_ns, gpu.stream()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    }
    counter.reset(gpu.stream()).unwrap();
    assert_eq!(counter.read(gpu.stream()).unwrap(), 0);
}

// ---- Queue ---------------------------------------------------------------------------------

const FETCHES: [Fetch; 5] = [
    Fetch::Single,
    Fetch::Batch(1),
    Fetch::Batch(3),
    Fetch::Batch(64),
    Fetch::Batch(1000),
];

#[test]
fn gpu_queue_every_item_exactly_once() {
    let Some(gpu) = gpu_or_skip() else { return };
    for n in [0usize, 1, 5, 1_000_000] {
        for fetch in FETCHES {
            let run = queue_probe(&gpu, n, fetch, None, gpu.stream()).unwrap();
            run.check().unwrap_or_else(|e| panic!("{n} items: {e}"));
            assert_eq!(run.report.taken, n as u64);
            if n == 5 {
                // Fewer items than blocks: most blocks find the queue empty at once.
                assert!(run.config.grid > 5, "{:?}", run.config);
            }
        }
    }
}

#[test]
fn gpu_queue_with_fixed_grids() {
    let Some(gpu) = gpu_or_skip() else { return };
    let sm = gpu.properties().sm_count;
    for (n, grid) in [(3usize, sm), (1000, 1), (1000, 2), (77_777, 10 * sm)] {
        for fetch in FETCHES {
            let run = queue_probe(&gpu, n, fetch, Some(grid), gpu.stream()).unwrap();
            run.check()
                .unwrap_or_else(|e| panic!("{n} items, grid {grid}: {e}"));
        }
    }
}

#[test]
fn gpu_queue_needs_a_reset_between_launches() {
    let Some(gpu) = gpu_or_skip() else { return };
    let stream = gpu.new_stream().unwrap();
    let mut probe = QueueProbe::new(&gpu, 10_000, 9).unwrap();
    probe.launch(Fetch::Batch(7), None, &stream).unwrap();
    probe.report(&stream).unwrap().check_hits(1).unwrap();
    // Without a reset the queue is empty: a second launch takes nothing.
    probe.launch(Fetch::Batch(7), None, &stream).unwrap();
    let r = probe.report(&stream).unwrap();
    r.check_hits(1).unwrap();
    assert!(r.cursor > 10_000);
    // After a reset every item is taken once more.
    probe.queue().reset(&stream).unwrap();
    assert_eq!(probe.queue().taken(&stream).unwrap(), 0);
    probe.launch(Fetch::Single, None, &stream).unwrap();
    probe
        .report(&stream)
        .unwrap()
        .check_hits(1 + QUEUE_PROBE_BLOCK)
        .unwrap();
}

#[test]
fn gpu_work_queue_host_side() {
    let Some(gpu) = gpu_or_skip() else { return };
    let q = WorkQueue::new(&gpu, &[1u64, 2, 3]).unwrap();
    assert_eq!(q.len(), 3);
    assert_eq!(q.args().total, 3);
    assert_eq!(q.args().cursor, q.cursor_ptr());
    assert_eq!(q.cursor(gpu.stream()).unwrap(), 0);
    assert_eq!(q.taken(gpu.stream()).unwrap(), 0);
    assert_eq!(q.items().to_vec().unwrap(), vec![1, 2, 3]);
    let empty = WorkQueue::<u32>::new(&gpu, &[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.items_ptr(), 0);
    let from_device = WorkQueue::from_device(gpu.iota::<u32>(5).unwrap()).unwrap();
    assert_eq!(
        from_device.into_items().to_vec().unwrap(),
        vec![0, 1, 2, 3, 4]
    );
}

// ---- Persistent grids ----------------------------------------------------------------------

#[test]
fn gpu_persistent_config_is_sms_times_occupancy() {
    let Some(gpu) = gpu_or_skip() else { return };
    let sm = gpu.properties().sm_count;
    let kernel = gpu.kernel(&SYNC_PTX, "sync_demo_queue").unwrap();
    let per_sm = kernel.max_active_blocks_per_sm(256, 0).unwrap();
    assert!(per_sm >= 1);
    let c = persistent_config(&kernel, 256, 0).unwrap();
    assert_eq!((c.grid, c.block, c.shared_bytes), (sm * per_sm, 256, 0));
    assert_eq!(
        persistent_config_capped(&kernel, 256, 0, Some(3))
            .unwrap()
            .grid,
        3
    );
    assert_eq!(
        persistent_config_capped(&kernel, 256, 0, Some(0))
            .unwrap()
            .grid,
        1
    );
    for block in [0, 2048] {
        let e = persistent_config(&kernel, block, 0).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    }
}

// ---- Demonstration -------------------------------------------------------------------------

fn schedules() -> Vec<Schedule> {
    let mut s = Schedule::all(1).to_vec();
    s.push(Schedule::Queue { batch: 8 });
    s
}

#[test]
fn gpu_demo_every_schedule_matches_the_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let items = heavy_tailed_items(30_000, 11, &HeavyTail::default()).unwrap();
    let stream = gpu.new_stream().unwrap();
    for schedule in schedules() {
        let run = run_demo(&gpu, &items, schedule, &stream).unwrap();
        assert_eq!(run.mismatches, 0, "{schedule}");
        assert!(run.is_correct(), "{schedule}: {:?}", run.taken);
        let config = run.config.unwrap();
        assert_eq!(config.block, gpu_sync::DEMO_BLOCK);
        if schedule == Schedule::BlockPerItem {
            assert_eq!(config.grid, 30_000);
        }
        eprintln!("{schedule:>16}: {config:?} {:?}", run.kernel_time);
    }
}

#[test]
fn gpu_demo_reused_across_schedules() {
    let Some(gpu) = gpu_or_skip() else { return };
    let tail = HeavyTail {
        median: 4,
        alpha: 1.0,
        max_ratio: 2000.0,
    };
    for n in [1usize, 7, 5000] {
        let items = heavy_tailed_items(n, n as u64, &tail).unwrap();
        let reference = demo_reference(&items);
        let mut demo = Demo::new(&gpu, &items).unwrap();
        for schedule in schedules() {
            demo.clear_results(gpu.stream()).unwrap();
            demo.enqueue(schedule, gpu.stream()).unwrap().unwrap();
            assert!(
                demo.results(gpu.stream()).unwrap() == reference,
                "{n} items, {schedule}"
            );
            if let Schedule::Queue { .. } = schedule {
                assert_eq!(demo.taken(gpu.stream()).unwrap(), n as u64);
            }
        }
        // Twice in a row: the queue resets its own cursor.
        for _ in 0..2 {
            demo.clear_results(gpu.stream()).unwrap();
            demo.enqueue(Schedule::Queue { batch: 2 }, gpu.stream())
                .unwrap();
            assert!(demo.results(gpu.stream()).unwrap() == reference);
        }
    }
}

/// With a per-block setup (a shared-memory table built once per block) every schedule still
/// gives the CPU's results, and the launch carries the table's 16 KiB.
#[test]
fn gpu_demo_with_setup_matches_the_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let tail = HeavyTail {
        median: 16,
        alpha: 1.2,
        max_ratio: 500.0,
    };
    for (n, setup) in [(1usize, 1u32), (300, 7), (20_000, 64)] {
        let items = heavy_tailed_items(n, n as u64 + 3, &tail).unwrap();
        let reference = gpu_sync::demo_reference_with_setup(&items, setup);
        assert!(
            reference != demo_reference(&items),
            "the table changes results"
        );
        let mut demo = Demo::with_setup(&gpu, &items, setup).unwrap();
        assert_eq!(demo.setup(), setup);
        for schedule in schedules() {
            demo.clear_results(gpu.stream()).unwrap();
            let config = demo.enqueue(schedule, gpu.stream()).unwrap().unwrap();
            assert_eq!(config.shared_bytes, 4 * gpu_sync::DEMO_TABLE_WORDS);
            assert!(
                demo.results(gpu.stream()).unwrap() == reference,
                "{n} items, setup {setup}, {schedule}"
            );
        }
    }
}

#[test]
fn gpu_demo_empty_and_bad_batch() {
    let Some(gpu) = gpu_or_skip() else { return };
    for schedule in schedules() {
        let run = run_demo(&gpu, &[], schedule, gpu.stream()).unwrap();
        assert!(run.config.is_none() && run.results.is_empty() && run.is_correct());
    }
    let items = heavy_tailed_items(10, 1, &HeavyTail::default()).unwrap();
    let e = run_demo(&gpu, &items, Schedule::Queue { batch: 0 }, gpu.stream()).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
}
