//! GPU timing with CUDA events: kernel-only time and time including host↔device copies.

use std::time::Duration;

use crate::device::Gpu;
use crate::error::Result;
use crate::stream::{Event, Stream};

/// Times work on a stream with a pair of CUDA events, so host overhead stays out of the figure.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// let gpu = gpu_core::Gpu::default_device()?;
/// let timer = gpu_core::GpuTimer::new(&gpu)?;
/// timer.start(gpu.stream())?;
/// let x = gpu.upload(&vec![1.0f32; 1 << 20])?;
/// timer.stop(gpu.stream())?;
/// println!("upload took {:.3} ms", timer.elapsed_ms()?);
/// # Ok(()) }
/// ```
pub struct GpuTimer {
    start: Event,
    stop: Event,
}

impl GpuTimer {
    /// A timer on `gpu`.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(GpuTimer {
            start: gpu.new_event(true)?,
            stop: gpu.new_event(true)?,
        })
    }

    /// Marks the start at the current end of `stream`.
    pub fn start(&self, stream: &Stream) -> Result<()> {
        self.start.record(stream)
    }

    /// Marks the end at the current end of `stream`.
    pub fn stop(&self, stream: &Stream) -> Result<()> {
        self.stop.record(stream)
    }

    /// Milliseconds between start and stop; waits for the stop event.
    pub fn elapsed_ms(&self) -> Result<f32> {
        self.stop.elapsed_ms_since(&self.start)
    }

    /// Runs `work` between a start and a stop on `stream` and returns its result with the time.
    pub fn time<R>(
        &self,
        stream: &Stream,
        work: impl FnOnce() -> Result<R>,
    ) -> Result<(R, Duration)> {
        self.start(stream)?;
        let r = work()?;
        self.stop(stream)?;
        let ms = self.elapsed_ms()?;
        Ok((r, Duration::from_secs_f64(ms as f64 / 1e3)))
    }
}

/// The two figures of the scan report: device work alone, and with the host↔device copies.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Timings {
    /// Kernels only (data already on the device).
    pub kernel: Duration,
    /// Upload, kernels and download.
    pub with_copies: Duration,
}
