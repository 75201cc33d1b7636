//! Every driver call of every gpu-sync demonstration schedule failing in turn (the
//! `fault-injection` feature): an error naming the call, no panic, memory back to its baseline,
//! the next call right. Built and run by `scripts/gpu-bundle.sh`
//! (`--features cuda,fault-injection`); one test, so that nothing else allocates while memory
//! is compared.

use gpu_core::testing::{fail_every_call, gpu_or_skip};
use gpu_sync::{heavy_tailed_items, run_demo, HeavyTail, LastBlockCounter, Schedule};

#[test]
fn every_driver_call_of_every_demo_fails_cleanly() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut points = 0;
    let items = heavy_tailed_items(5_000, 7, &HeavyTail::default()).unwrap();
    let stream = gpu.new_stream().unwrap();
    let mut schedules = Schedule::all(1).to_vec();
    schedules.push(Schedule::Queue { batch: 8 });
    for schedule in schedules {
        points += fail_every_call(
            &gpu,
            &format!("demo {schedule}"),
            || run_demo(&gpu, &items, schedule, &stream),
            |run| {
                (run.mismatches == 0 && run.is_correct())
                    .then_some(())
                    .ok_or_else(|| format!("{} mismatches, taken {:?}", run.mismatches, run.taken))
            },
        )
        .points;
    }
    points += fail_every_call(
        &gpu,
        "last-block counter",
        || {
            let c = LastBlockCounter::new(&gpu)?;
            c.read(gpu.stream())
        },
        |&v| (v == 0).then_some(()).ok_or(format!("counter reads {v}")),
    )
    .points;
    eprintln!("fault injection: gpu-sync: {points} failure points, 0 panics, 0 leaks");
}
