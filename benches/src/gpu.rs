//! CUDA-event timing of enqueued GPU work and the device-to-device copy reference.

use std::collections::HashMap;

use gpu_core::{DeviceArray, Gpu, GpuTimer, Result, Stream};

use crate::stats::Stats;

/// How GPU work is timed: `warmup` untimed runs, then `reps` samples; each sample is one pair of
/// CUDA events around a batch of back-to-back runs, the batch sized so that a sample lasts at
/// least `min_sample_ms` (so microsecond kernels are not measured at the events' resolution).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuTiming {
    /// Untimed runs first (clocks up, modules loaded, caches and allocations settled).
    pub warmup: usize,
    /// Then more untimed runs until this much wall time has passed since the first: a GPU left
    /// idle for a second or more (a benchmark's CPU check) read slow for more than a few runs,
    /// its clocks unchanged (docs/report.md). `GPU_PRIMS_BENCH_WARMUP_MS` sets it.
    pub warmup_ms: f64,
    /// Timed samples; the median is reported.
    pub reps: usize,
    /// Shortest sample; short runs are batched up to it.
    pub min_sample_ms: f64,
    /// Most runs in one sample.
    pub max_batch: usize,
    /// Time budget of the timed samples: slow work gets fewer samples (at least 3).
    pub budget_ms: f64,
}

impl Default for GpuTiming {
    fn default() -> Self {
        GpuTiming {
            warmup: 3,
            warmup_ms: warmup_ms_from_env(),
            reps: 15,
            min_sample_ms: 0.2,
            max_batch: 200,
            budget_ms: 2000.0,
        }
    }
}

/// Untimed wall time before the samples unless `GPU_PRIMS_BENCH_WARMUP_MS` says otherwise. On an
/// H200 the shapes benchmark's f32 sums read 10–15 % slow after its CPU checks with three
/// warm-up runs, and level with the maxima of the same kernels after 200 ms (docs/report.md).
pub const DEFAULT_WARMUP_MS: f64 = 200.0;

/// `GPU_PRIMS_BENCH_WARMUP_MS`, else [`DEFAULT_WARMUP_MS`].
pub fn warmup_ms_from_env() -> f64 {
    std::env::var("GPU_PRIMS_BENCH_WARMUP_MS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .unwrap_or(DEFAULT_WARMUP_MS)
}

/// Times `run` (which enqueues work on `stream`, and may or may not wait for it) with CUDA
/// events on `stream`; returns the per-run summary.
///
/// Whatever `run` enqueues on another stream is not covered by the events.
pub fn time_gpu(
    gpu: &Gpu,
    stream: &Stream,
    timing: &GpuTiming,
    mut run: impl FnMut(&Stream) -> Result<()>,
) -> Result<Stats> {
    let timer = GpuTimer::new(gpu)?;
    let began = std::time::Instant::now();
    for _ in 0..timing.warmup {
        run(stream)?;
    }
    stream.synchronize()?;
    while began.elapsed().as_secs_f64() * 1e3 < timing.warmup_ms {
        run(stream)?;
        stream.synchronize()?;
    }
    // One timed run to size the batches.
    timer.start(stream)?;
    run(stream)?;
    timer.stop(stream)?;
    let one = timer.elapsed_ms()? as f64;
    let batch = if one >= timing.min_sample_ms {
        1
    } else {
        ((timing.min_sample_ms / one.max(1e-4)).ceil() as usize).clamp(1, timing.max_batch.max(1))
    };
    let affordable = (timing.budget_ms / one.max(1e-4)).floor() as usize;
    let reps = timing.reps.max(1).min(affordable.max(3));
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps {
        timer.start(stream)?;
        for _ in 0..batch {
            run(stream)?;
        }
        timer.stop(stream)?;
        samples.push(timer.elapsed_ms()? as f64 / batch as f64);
    }
    Ok(Stats::from_ms(samples).expect("at least one sample"))
}

/// Device-to-device copies of `bytes` bytes (`DeviceArray::copy_from_device`), measured once per
/// byte count per process and cached: the reference line of every figure.
#[derive(Default)]
pub struct CopyReference {
    cache: HashMap<usize, Stats>,
}

impl CopyReference {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The copy of `bytes` bytes (read `bytes`, write `bytes`), timed with `timing`.
    pub fn measure(&mut self, gpu: &Gpu, bytes: usize, timing: &GpuTiming) -> Result<Stats> {
        if let Some(s) = self.cache.get(&bytes) {
            return Ok(*s);
        }
        let s = time_copy(gpu, bytes, timing)?;
        self.cache.insert(bytes, s);
        Ok(s)
    }

    /// Every measured copy: (bytes, summary), smallest first.
    pub fn all(&self) -> Vec<(usize, Stats)> {
        let mut v: Vec<_> = self.cache.iter().map(|(&b, &s)| (b, s)).collect();
        v.sort_by_key(|&(b, _)| b);
        v
    }
}

/// Times a device-to-device copy of `bytes` bytes on the default stream.
pub fn time_copy(gpu: &Gpu, bytes: usize, timing: &GpuTiming) -> Result<Stats> {
    let src: DeviceArray<u8> = gpu.alloc(bytes)?;
    src.memset_bytes(1, gpu.stream())?;
    let mut dst: DeviceArray<u8> = gpu.alloc(bytes)?;
    time_gpu(gpu, gpu.stream(), timing, |s| dst.copy_from_device(&src, s))
}
