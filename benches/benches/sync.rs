//! gpu-sync: the heavy-tailed uneven workload under static partitioning and the work queue
//! (and the other schedules), device time by CUDA events. Throughput: the bytes of the items
//! read and results written (12 per item), with a device copy of the same bytes; the workload
//! is compute-bound, so the comparison that matters is between schedules.
//!
//! `cargo bench -p gpu-prims-benches [--features cuda] --bench sync`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gpu_prims_benches::crit;
use gpu_sync::{demo_reference, heavy_tailed_items, HeavyTail};

const ITEMS_LOG2: [u32; 2] = [14, 16];
const BYTES_PER_ITEM: usize = 12;

fn bench(c: &mut Criterion) {
    let tail = HeavyTail::default();
    for n in crit::sizes(&ITEMS_LOG2) {
        let items = heavy_tailed_items(n, 7, &tail).expect("valid workload");
        let mut g = c.benchmark_group("sync/cpu");
        g.throughput(Throughput::BytesDecimal((n * BYTES_PER_ITEM) as u64));
        g.bench_function(crit::id("demo_reference_rayon", n), |b| {
            b.iter(|| demo_reference(&items))
        });
        g.finish();
        #[cfg(feature = "cuda")]
        gpu::bench(c, &items);
    }
    #[cfg(not(feature = "cuda"))]
    crit::skipped("sync/uneven", "built without the `cuda` feature");
}

#[cfg(feature = "cuda")]
mod gpu {
    use criterion::{Criterion, Throughput};
    use gpu_prims_benches::crit;
    use gpu_sync::{Demo, DemoItem, Schedule};

    pub fn bench(c: &mut Criterion, items: &[DemoItem]) {
        let n = items.len();
        let Some(gpu) = crit::gpu_or_skip("sync/uneven") else {
            return;
        };
        let mut demo = match Demo::new(&gpu, items) {
            Ok(d) => d,
            Err(e) => return crit::skipped("sync/uneven", &e.to_string()),
        };
        let mut g = c.benchmark_group("sync/uneven");
        crit::bench_copy(&mut g, &gpu, n * super::BYTES_PER_ITEM, n);
        g.throughput(Throughput::BytesDecimal((n * super::BYTES_PER_ITEM) as u64));
        for schedule in [
            Schedule::Static,
            Schedule::Strided,
            Schedule::BlockPerItem,
            Schedule::Queue { batch: 1 },
            Schedule::Queue { batch: 8 },
        ] {
            g.bench_function(crit::id(&schedule.label(), n), |b| {
                crit::iter_gpu(b, &gpu, |s| demo.enqueue(schedule, s).map(|_| ()))
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = crit::criterion();
    targets = bench
}
criterion_main!(benches);
