//! gpu-scan: every GPU algorithm × {i32, f32} (the look-back ones for bf16, f16) × {2^16, 2^20,
//! 2^24, 2^28} inclusive sum, kernel
//! only (`scan/kernel/<type>`) and with the pageable host↔device copies
//! (`scan/with_copies/<type>`), the block-size sweep 32…1024 at 2^24 (`scan/block_sweep/i32`), and
//! the serial and rayon scans (`scan/cpu/<type>`). GPU time by CUDA events; throughput
//! `2·n·size` bytes; every GPU group has a `copy` line of the same array.
//!
//! `cargo bench -p gpu-prims-benches [--features cuda] --bench scan`;
//! `GPU_PRIMS_BENCH_MAX_LOG2=28` adds 2^28.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gpu_core::{Element, Op};
use gpu_prims_benches::{crit, data};
use gpu_scan::{cpu, ScanKind};

const SIZES_LOG2: [u32; 4] = [16, 20, 24, 28];
/// Serial baselines stop here (they are slow and say nothing new beyond).
const SERIAL_MAX_LOG2: u32 = 24;

fn bench_type<T: Element>(c: &mut Criterion) {
    let name = T::NAME;
    let sizes = crit::sizes(&SIZES_LOG2);
    let mut g = c.benchmark_group(format!("scan/cpu/{name}"));
    for &n in &sizes {
        let x = data::values::<T>(n, 1);
        let mut y = vec![T::default(); n];
        g.throughput(Throughput::BytesDecimal(
            2 * (n * std::mem::size_of::<T>()) as u64,
        ));
        if n <= 1 << SERIAL_MAX_LOG2 {
            g.bench_function(crit::id("serial", n), |b| {
                b.iter(|| cpu::serial(&x, &mut y, Op::Sum, ScanKind::Inclusive).unwrap())
            });
        }
        g.bench_function(crit::id("rayon", n), |b| {
            b.iter(|| cpu::parallel(&x, &mut y, Op::Sum, ScanKind::Inclusive).unwrap())
        });
    }
    g.finish();
    #[cfg(feature = "cuda")]
    gpu::bench_type::<T>(c, &sizes);
    #[cfg(not(feature = "cuda"))]
    crit::skipped(
        &format!("scan/kernel|with_copies|block_sweep/{name}"),
        "built without the `cuda` feature",
    );
}

#[cfg(feature = "cuda")]
mod gpu {
    use criterion::{Criterion, Throughput};
    use gpu_core::{Element, Op};
    use gpu_prims_benches::{crit, data};
    use gpu_scan::{plan, Algorithm, Scan, ScanOptions, TileStaging};

    /// The sweep's algorithms and its size.
    const SWEEP: [Algorithm; 4] = [
        Algorithm::HillisSteele,
        Algorithm::Blelloch,
        Algorithm::BlellochPadded,
        Algorithm::LookBack,
    ];
    const SWEEP_LOG2: u32 = 24;
    const BLOCKS: [u32; 6] = [32, 64, 128, 256, 512, 1024];

    pub fn bench_type<T: Element>(c: &mut Criterion, sizes: &[usize]) {
        let name = T::NAME;
        let Some(gpu) = crit::gpu_or_skip(&format!("scan/*/{name}")) else {
            return;
        };
        let size = std::mem::size_of::<T>();
        for timing in ["kernel", "with_copies"] {
            let mut g = c.benchmark_group(format!("scan/{timing}/{name}"));
            for &n in sizes {
                if !crit::fits(&gpu, 4 * n * size) {
                    crit::skipped(&format!("scan/{timing}/{name}/{n}"), "does not fit");
                    continue;
                }
                let host = data::values::<T>(n, 1);
                let mut out = vec![T::default(); n];
                let mut x = gpu.upload(&host).expect("upload");
                let mut y = gpu.alloc::<T>(n).expect("alloc");
                crit::bench_copy(&mut g, &gpu, n * size, n);
                g.throughput(Throughput::BytesDecimal(2 * (n * size) as u64));
                // The look-back with each tile kind, whatever the default picks at this n.
                let mut options: Vec<(String, ScanOptions)> = Algorithm::GPU
                    .iter()
                    .map(|&a| (a.name().to_string(), ScanOptions::inclusive().algorithm(a)))
                    .collect();
                let staged = plan::staged_tiles_available(gpu.properties().compute_capability);
                for t in [TileStaging::Registers, TileStaging::Staged] {
                    if t == TileStaging::Registers || staged {
                        let o = ScanOptions::inclusive()
                            .algorithm(Algorithm::LookBack)
                            .staging(t);
                        options.push((format!("lookback_{}", t.name()), o));
                    }
                }
                if T::computes_wider() {
                    // f16/bf16: the look-back with register tiles only (what is built for them).
                    options = [
                        Algorithm::Auto,
                        Algorithm::LookBack,
                        Algorithm::LookBackDeterministic,
                    ]
                    .iter()
                    .map(|&a| (a.name().to_string(), ScanOptions::inclusive().algorithm(a)))
                    .collect();
                }
                for (label, o) in &options {
                    // Enqueued on the stream criterion times (iter_gpu's: the default stream).
                    let scan = Scan::new(&gpu).options(*o).stream(gpu.stream());
                    g.bench_function(crit::id(label, n), |b| {
                        if timing == "kernel" {
                            crit::iter_gpu(b, &gpu, |_| scan.scan_into(&x, &mut y, Op::Sum))
                        } else {
                            crit::iter_gpu(b, &gpu, |_| {
                                x.copy_from(&host)?;
                                scan.scan_into(&x, &mut y, Op::Sum)?;
                                y.copy_to(&mut out)
                            })
                        }
                    });
                }
            }
            g.finish();
        }
        // The sweep for the first type only (the prefix-scan report swept int).
        let Some(&n) = crit::sizes(&[SWEEP_LOG2]).first() else {
            return;
        };
        if name != "i32" {
            return;
        }
        let host = data::values::<T>(n, 1);
        let (x, mut y) = (
            gpu.upload(&host).expect("upload"),
            gpu.alloc::<T>(n).expect("alloc"),
        );
        let mut g = c.benchmark_group(format!("scan/block_sweep/{name}"));
        crit::bench_copy(&mut g, &gpu, n * size, n);
        g.throughput(Throughput::BytesDecimal(2 * (n * size) as u64));
        for a in SWEEP {
            for block in BLOCKS {
                let scan = Scan::new(&gpu)
                    .algorithm(a)
                    .block_size(block)
                    .staging(TileStaging::Registers)
                    .stream(gpu.stream());
                let id = criterion::BenchmarkId::new(a.name(), format!("block{block}"));
                g.bench_function(id, |b| {
                    crit::iter_gpu(b, &gpu, |_| scan.scan_into(&x, &mut y, Op::Sum))
                });
            }
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
