//! Criterion helpers shared by `benches/benches/*.rs`.
//!
//! - [`criterion()`]: quick defaults (10 samples, 0.2 s warm-up, 0.5 s measurement, no HTML plots),
//!   overridable through `GPU_PRIMS_BENCH_TIME` (measurement seconds) and criterion's own flags.
//! - [`sizes`]: the sizes of a bench list up to `GPU_PRIMS_BENCH_MAX_LOG2` (default 24), so the
//!   huge ones (2^28, 2^30) are opt-in.
//! - `iter_gpu` (`cuda`): `iter_custom` timed by a pair of CUDA events around the batch, so
//!   groups report device time; `bench_copy`: the device-to-device copy reference of a group.
//! - `gpu_or_skip` (`cuda`): the device, or a printed `SKIPPED <group>: <why>` without one
//!   (a panic with `GPU_PRIMS_REQUIRE_GPU=1`).
//!
//! Throughput is in bytes everywhere (the report's model: reduce `n·size`, scan `2·n·size`,
//! conv1d `2·n·size`, copy `2·n·size` read + written), so criterion's GB/s figures of a group
//! compare directly with its `copy` line.

use std::time::Duration;

use criterion::Criterion;

/// Variable capping the log2 sizes of every bench (default [`DEFAULT_MAX_LOG2`]).
pub const MAX_LOG2_VAR: &str = "GPU_PRIMS_BENCH_MAX_LOG2";
/// Default cap: sizes up to 2^24 (a full default run takes a few minutes on an H100).
pub const DEFAULT_MAX_LOG2: u32 = 24;
/// Variable setting criterion's measurement time in seconds (default 0.5).
pub const TIME_VAR: &str = "GPU_PRIMS_BENCH_TIME";

/// The largest log2 size to bench.
pub fn max_log2() -> u32 {
    std::env::var(MAX_LOG2_VAR)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_MAX_LOG2)
}

/// `1 << k` for every `k` of `log2s` up to [`max_log2`].
pub fn sizes(log2s: &[u32]) -> Vec<usize> {
    let max = max_log2();
    log2s
        .iter()
        .filter(|&&k| k <= max)
        .map(|&k| 1usize << k)
        .collect()
}

/// Criterion with the workspace's quick defaults.
pub fn criterion() -> Criterion {
    let secs = std::env::var(TIME_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .unwrap_or(0.5);
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs_f64(secs))
        .without_plots()
        .configure_from_args()
}

/// Prints a skipped group so it never reads as a silent pass.
pub fn skipped(group: &str, why: &str) {
    eprintln!("SKIPPED {group}: {why}");
}

/// A criterion benchmark id `algorithm/2^k`.
pub fn id(name: &str, n: usize) -> criterion::BenchmarkId {
    criterion::BenchmarkId::new(name, crate::size_label(n))
}

#[cfg(feature = "cuda")]
pub use gpu_parts::*;

#[cfg(feature = "cuda")]
mod gpu_parts {
    use std::time::Duration;

    use criterion::measurement::WallTime;
    use criterion::{Bencher, BenchmarkGroup, Throughput};
    use gpu_core::{DeviceArray, Gpu, GpuTimer, Result, Stream};

    /// The bench GPU, or `None` after printing `SKIPPED <group>: ...`. With
    /// `GPU_PRIMS_REQUIRE_GPU=1` a missing GPU panics instead.
    pub fn gpu_or_skip(group: &str) -> Option<Gpu> {
        match gpu_core::testing::shared_gpu() {
            Ok(g) => Some(g),
            Err(e) => {
                if gpu_core::testing::gpu_required() {
                    panic!("GPU_PRIMS_REQUIRE_GPU is set but no GPU is usable for {group}: {e}");
                }
                super::skipped(group, &format!("no GPU ({e})"));
                None
            }
        }
    }

    /// Runs `run` `iters` times back to back on the default stream between two CUDA events and
    /// reports the events' time: device time, not host time.
    pub fn iter_gpu(b: &mut Bencher<'_>, gpu: &Gpu, mut run: impl FnMut(&Stream) -> Result<()>) {
        let timer = GpuTimer::new(gpu).expect("creating CUDA events");
        let stream = gpu.stream();
        b.iter_custom(|iters| {
            timer.start(stream).expect("recording an event");
            for _ in 0..iters {
                run(stream).expect("GPU work failed");
            }
            timer.stop(stream).expect("recording an event");
            let ms = timer.elapsed_ms().expect("reading the events");
            Duration::from_secs_f64(ms as f64 / 1e3)
        });
    }

    /// Adds the group's reference line: a device-to-device copy of `array_bytes` bytes, with
    /// throughput `2 × array_bytes` (read + written), id `copy/<size>`.
    pub fn bench_copy(
        group: &mut BenchmarkGroup<'_, WallTime>,
        gpu: &Gpu,
        array_bytes: usize,
        n: usize,
    ) {
        let alloc = || -> Result<(DeviceArray<u8>, DeviceArray<u8>)> {
            let src = gpu.alloc::<u8>(array_bytes)?;
            src.memset_bytes(1, gpu.stream())?;
            Ok((src, gpu.alloc::<u8>(array_bytes)?))
        };
        let (src, mut dst) = match alloc() {
            Ok(v) => v,
            Err(e) => {
                super::skipped(&format!("copy/{}", crate::size_label(n)), &e.to_string());
                return;
            }
        };
        group.throughput(Throughput::BytesDecimal(2 * array_bytes as u64));
        group.bench_function(super::id("copy", n), |b| {
            iter_gpu(b, gpu, |s| dst.copy_from_device(&src, s))
        });
    }

    /// Whether `bytes` more device memory is likely to fit (with 256 MiB to spare).
    pub fn fits(gpu: &Gpu, bytes: usize) -> bool {
        gpu.memory_info()
            .map(|(free, _)| bytes.saturating_add(256 << 20) <= free)
            .unwrap_or(true)
    }
}
