//! gpu-conv1d: every strategy × mask width {3, 7, 31, 127} × n {2^20, 2^24, 2^28}, f32, and the
//! default (`auto`) for f16 and bf16 (summed in f32), `same` output, zero boundary
//! (cross-correlation), device time by CUDA events through `Conv1d::run_into` on the timed
//! stream; throughput `2·n·size` bytes (read + write), a `copy` line of the same array in every
//! group (`conv1d/<type>/w<w>`), and the rayon (and, at 2^20, serial) baseline
//! (`conv1d/cpu/<type>/w<w>`).
//!
//! `cargo bench -p gpu-prims-benches [--features cuda] --bench conv1d`;
//! `GPU_PRIMS_BENCH_MAX_LOG2=28` adds 2^28.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gpu_conv1d::{cpu, Boundary, Mode, Real, Strategy};
use gpu_prims_benches::{crit, data};

const SIZES_LOG2: [u32; 3] = [20, 24, 28];
const WIDTHS: [usize; 4] = [3, 7, 31, 127];
const SERIAL_MAX_LOG2: u32 = 20;

fn bench(c: &mut Criterion) {
    bench_type::<f32>(c, &Strategy::ALL);
    bench_type::<gpu_core::f16>(c, &[Strategy::Auto]);
    bench_type::<gpu_core::bf16>(c, &[Strategy::Auto]);
}

fn bench_type<T: Real>(c: &mut Criterion, strategies: &[Strategy]) {
    let sizes = crit::sizes(&SIZES_LOG2);
    let size = std::mem::size_of::<T>() as u64;
    let signals: Vec<Vec<T>> = sizes.iter().map(|&n| data::values::<T>(n, 1)).collect();
    for w in WIDTHS {
        let mask = data::mask::<T>(w, 2);
        let mut g = c.benchmark_group(format!("conv1d/cpu/{}/w{w}", T::NAME));
        for x in &signals {
            let n = x.len();
            g.throughput(Throughput::BytesDecimal(2 * size * n as u64));
            if n <= 1 << SERIAL_MAX_LOG2 {
                g.bench_function(crit::id("serial", n), |b| {
                    b.iter(|| cpu::correlate(x, &mask, Mode::Same, Boundary::Zero).unwrap())
                });
            }
            g.bench_function(crit::id("rayon", n), |b| {
                b.iter(|| cpu::par_correlate(x, &mask, Mode::Same, Boundary::Zero).unwrap())
            });
        }
        g.finish();
        #[cfg(feature = "cuda")]
        gpu::bench_width(c, &signals, &mask, strategies);
        #[cfg(not(feature = "cuda"))]
        {
            let _ = strategies;
            crit::skipped(
                &format!("conv1d/{}/w{w}", T::NAME),
                "built without the `cuda` feature",
            );
        }
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use criterion::{Criterion, Throughput};
    use gpu_conv1d::{Conv1d, Options, Real, Strategy};
    use gpu_prims_benches::crit;

    pub fn bench_width<T: Real>(
        c: &mut Criterion,
        signals: &[Vec<T>],
        mask: &[T],
        strategies: &[Strategy],
    ) {
        let w = mask.len();
        let size = std::mem::size_of::<T>();
        let group = format!("conv1d/{}/w{w}", T::NAME);
        let Some(gpu) = crit::gpu_or_skip(&group) else {
            return;
        };
        let mut g = c.benchmark_group(group.as_str());
        for host in signals {
            let n = host.len();
            if !crit::fits(&gpu, 4 * size * n) {
                crit::skipped(
                    &format!("{group}/*/{}", gpu_prims_benches::size_label(n)),
                    "does not fit",
                );
                continue;
            }
            let x = gpu.upload(host).expect("upload");
            let mut y = gpu.alloc::<T>(n).expect("alloc");
            crit::bench_copy(&mut g, &gpu, size * n, n);
            g.throughput(Throughput::BytesDecimal((2 * size * n) as u64));
            for &strategy in strategies {
                let conv = match Conv1d::correlation(&gpu, mask, Options::new().strategy(strategy))
                {
                    Ok(c) => c,
                    Err(e) => {
                        crit::skipped(&format!("{group}/{}", strategy.name()), &e.to_string());
                        continue;
                    }
                };
                let conv = conv.stream(gpu.stream());
                g.bench_function(crit::id(strategy.name(), n), |b| {
                    crit::iter_gpu(b, &gpu, |_| conv.run_into(&x, &mut y))
                });
            }
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
