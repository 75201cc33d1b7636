//! gpu-sync's rows: the heavy-tailed uneven workload (`gpu_sync::Demo`) under every schedule,
//! static partitioning against the work queue, with the speed-up over static in the note.
//!
//! There is no CPU row: the CPU reference (`gpu_sync::demo_reference`) computes each item's
//! result in closed form, not by the same work, so a rayon time would compare nothing.

use super::{Config, Env, Group, Row};

/// Queue batch sizes shown (the `Queue { batch }` schedule).
pub const BATCHES: [u32; 2] = [1, 8];

/// The schedules run: static, strided, block per item, then the queue with each batch.
pub fn schedules() -> Vec<gpu_sync::Schedule> {
    use gpu_sync::Schedule;
    let mut v = vec![Schedule::Static, Schedule::Strided, Schedule::BlockPerItem];
    v.extend(BATCHES.iter().map(|&batch| Schedule::Queue { batch }));
    v
}

/// One group per `--sync-setup` value: the demonstration at `--sync-items` items, with that
/// per-block setup (0: none).
pub fn groups(cfg: &Config, gpu: bool, notes: &mut Vec<String>) -> Vec<Group> {
    if !gpu {
        notes.push(
            "sync: the uneven-workload demonstration runs on the GPU only (its CPU reference is closed-form, not the same work)"
                .into(),
        );
        return Vec::new();
    }
    let n = cfg.sync_items;
    cfg.sync_setups
        .iter()
        .map(|&setup| {
            let label = match setup {
                0 => format!("sync uneven workload, {} items", crate::size_label(n)),
                s => format!(
                    "sync uneven workload, {} items, per-block setup {s} steps",
                    crate::size_label(n)
                ),
            };
            Group {
                label,
                cases: schedules().len(),
                run: Box::new(move |env: &mut Env| run(env, n, setup)),
            }
        })
        .collect()
}

#[cfg(not(feature = "cuda"))]
fn run(_env: &mut Env, _n: usize, _setup: u32) -> Vec<Row> {
    Vec::new()
}

#[cfg(feature = "cuda")]
fn run(env: &mut Env, n: usize, setup: u32) -> Vec<Row> {
    use std::cell::RefCell;

    use gpu_sync::{
        cost_summary, demo_reference_with_setup, heavy_tailed_items, Demo, HeavyTail, Schedule,
    };

    use super::{classify, Case, Verdict};

    let tail = HeavyTail::default();
    let items = match heavy_tailed_items(n, env.cfg.seed, &tail) {
        Ok(v) => v,
        Err(e) => {
            env.note(format!("sync: {e}"));
            return Vec::new();
        }
    };
    let c = cost_summary(&items);
    if setup > 0 {
        env.note(format!(
            "sync: per-block setup {setup} LCG steps for each of the {} words of a shared-memory table, once per block (per item for block-per-item)",
            gpu_sync::DEMO_TABLE_WORDS
        ));
    }
    env.note(format!(
        "sync: {} items, heavy-tailed costs (Pareto α = {}, capped at {}× the median): median {}, mean {:.1}, max {} LCG steps per lane, {} lanes per item",
        c.items, tail.alpha, tail.max_ratio, c.median, c.mean, c.max, gpu_sync::DEMO_LANES
    ));
    let reference = demo_reference_with_setup(&items, setup);
    let gpu = env.gpu.clone().expect("groups() is called with a GPU");
    let demo = match Demo::with_setup(&gpu, &items, setup) {
        Ok(d) => RefCell::new(d),
        Err(e) => {
            let (_, note) = classify(&e);
            env.note(format!("sync: {note}"));
            return Vec::new();
        }
    };
    let check = |schedule: Schedule| -> Verdict {
        let s = gpu.stream();
        let mut d = demo.borrow_mut();
        let mut run = || -> gpu_core::Result<(Vec<u32>, Option<u64>)> {
            d.clear_results(s)?;
            d.enqueue(schedule, s)?;
            let r = d.results(s)?;
            let taken = match schedule {
                Schedule::Queue { .. } => Some(d.taken(s)?),
                _ => None,
            };
            Ok((r, taken))
        };
        match run() {
            Err(e) => Verdict::error(&e),
            Ok((r, taken)) => {
                if let Some(t) = taken.filter(|&t| t != n as u64) {
                    return Verdict::Wrong(format!("the queue handed out {t} of {n} items"));
                }
                super::check::slices(&r, &reference)
            }
        }
    };
    let (demo, check) = (&demo, &check);
    let cases: Vec<Case<'_>> = schedules()
        .into_iter()
        .map(|schedule| {
            let variant = match setup {
                0 => "heavy-tailed items".to_string(),
                s => format!("heavy-tailed items, setup {s}"),
            };
            Case::new("sync", schedule.label(), variant, "items", n)
                .gpu(move |s| demo.borrow_mut().enqueue(schedule, s).map(|_| ()))
                .check(move || check(schedule))
        })
        .collect();
    let mut rows = env.run_cases(cases);
    let static_ms = rows
        .iter()
        .find(|r| r.algorithm == Schedule::Static.label())
        .and_then(Row::ms);
    for r in &mut rows {
        if let (Some(s), Some(t)) = (static_ms, r.ms()) {
            let speedup = format!("{:.2}× static", s / t);
            r.note = if r.note.is_empty() {
                speedup
            } else {
                format!("{speedup}; {}", r.note)
            };
        }
    }
    rows
}
