//! gpu-reduce: every algorithm × {i32, f32, bf16, f16} × {2^10, 2^16, 2^20, 2^24, 2^28, 2^30} (sum; `auto`
//! also max), device time by CUDA events through `Reduce::reduce_into` (no host
//! synchronisation inside the timed loop), throughput `n·size` bytes read, a `copy` line of the
//! same array (its throughput `2·n·size`: read + written) in every group (`reduce/<type>`), and
//! the serial and rayon reductions (`reduce/cpu/<type>`).
//!
//! `cargo bench -p gpu-prims-benches [--features cuda] --bench reduce`;
//! `GPU_PRIMS_BENCH_MAX_LOG2=30` adds 2^28 and 2^30 (4 GiB of f32).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gpu_core::{Element, Op};
use gpu_prims_benches::{crit, data};
use gpu_reduce::cpu;

const SIZES_LOG2: [u32; 6] = [10, 16, 20, 24, 28, 30];
const SERIAL_MAX_LOG2: u32 = 24;

fn bench_type<T: Element>(c: &mut Criterion) {
    let name = T::NAME;
    let sizes = crit::sizes(&SIZES_LOG2);
    let mut g = c.benchmark_group(format!("reduce/cpu/{name}"));
    for &n in &sizes {
        let x = data::values::<T>(n, 1);
        g.throughput(Throughput::BytesDecimal(
            (n * std::mem::size_of::<T>()) as u64,
        ));
        if n <= 1 << SERIAL_MAX_LOG2 {
            g.bench_function(crit::id("serial", n), |b| {
                b.iter(|| cpu::reduce(&x, Op::Sum).unwrap())
            });
        }
        g.bench_function(crit::id("rayon", n), |b| {
            b.iter(|| cpu::par_reduce(&x, Op::Sum).unwrap())
        });
    }
    g.finish();
    #[cfg(feature = "cuda")]
    gpu::bench_type::<T>(c, &sizes);
    #[cfg(not(feature = "cuda"))]
    crit::skipped(
        &format!("reduce/{name}"),
        "built without the `cuda` feature",
    );
}

#[cfg(feature = "cuda")]
mod gpu {
    use criterion::{Criterion, Throughput};
    use gpu_core::{Element, Op};
    use gpu_prims_benches::{crit, data};
    use gpu_reduce::{Algorithm, Reduce, Workspace};

    pub fn bench_type<T: Element>(c: &mut Criterion, sizes: &[usize]) {
        let name = T::NAME;
        let group = format!("reduce/{name}");
        let Some(gpu) = crit::gpu_or_skip(&group) else {
            return;
        };
        let size = std::mem::size_of::<T>();
        let mut ws = Workspace::new(&gpu).expect("workspace");
        let mut out = gpu.alloc::<T::Accumulator>(1).expect("alloc");
        let mut g = c.benchmark_group(group.as_str());
        for &n in sizes {
            // Input, the unrolled algorithm's scratch, the copy's two arrays.
            if !crit::fits(&gpu, 4 * n * size) {
                crit::skipped(
                    &format!("{group}/*/{}", gpu_prims_benches::size_label(n)),
                    "does not fit in device memory",
                );
                continue;
            }
            let x = gpu.upload(&data::values::<T>(n, 1)).expect("upload");
            crit::bench_copy(&mut g, &gpu, n * size, n);
            g.throughput(Throughput::BytesDecimal((n * size) as u64));
            let mut runs: Vec<(String, Algorithm, Op)> = Algorithm::ALL
                .iter()
                .map(|&a| (a.name().to_string(), a, Op::Sum))
                .collect();
            runs.push(("auto_max".into(), Algorithm::Auto, Op::Max));
            for (label, a, op) in runs {
                let r = Reduce::new(&gpu).algorithm(a);
                if let Err(e) = r.reduce_into(&x, op, &mut out, &mut ws) {
                    crit::skipped(&format!("{group}/{label}"), &e.to_string());
                    continue;
                }
                g.bench_function(crit::id(&label, n), |b| {
                    crit::iter_gpu(b, &gpu, |s| {
                        Reduce::new(&gpu)
                            .algorithm(a)
                            .stream(s)
                            .reduce_into(&x, op, &mut out, &mut ws)
                    })
                });
            }
            drop(x);
        }
        g.finish();
    }
}

fn bench(c: &mut Criterion) {
    bench_type::<i32>(c);
    bench_type::<f32>(c);
    bench_type::<gpu_core::bf16>(c);
    bench_type::<gpu_core::f16>(c);
}

criterion_group! {
    name = benches;
    config = crit::criterion();
    targets = bench
}
criterion_main!(benches);
