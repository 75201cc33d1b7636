//! Shared pieces of the workspace benchmarks (`benches/benches/*.rs`) and of the report
//! (`src/bin/report.rs`, the workspace's main job).
//!
//! - [`data`]: the generated inputs (deterministic, from `gpu_core::data`).
//! - [`stats`]: medians of repeated runs, CPU timing.
//! - `gpu` (`cuda`): CUDA-event timing of enqueued work and the device-to-device copy reference
//!   every figure is quoted against.
//! - [`crit`]: criterion helpers (event-timed `iter_custom`, byte throughput, quick defaults,
//!   skipping GPU groups without a device).
//! - [`report`]: the report's cases, runner, table, Markdown, JSON, peers and plots.
//! - [`svg`]: hand-written SVG line charts.
//! - [`fft_sweep`]: the FFT path's width sweep (`bin conv1d-fft`, `scripts/peers_fft.py`) as a
//!   chart.
//! - [`tune_choice`]: how `bin tune` turns its measurements into tuning values.
//! - [`first_call`]: first-call latency in fresh processes, and the kernel bytes each crate
//!   embeds.
//!
//! # The copy reference
//! Every GPU figure is quoted as a fraction of a device-to-device copy of an array of the same
//! element count and type, measured in the same process: the copy moves `2·n·size` bytes (read +
//! write), so its bandwidth is `2·n·size / t_copy`. A reduction moves `n·size` bytes, a scan
//! `2·n·size`, an f32 convolution `8·n`; the fraction is the primitive's bandwidth over the
//! copy's.

pub mod crit;
pub mod data;
pub mod fft_sweep;
pub mod first_call;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod report;
pub mod stats;
pub mod svg;
pub mod tune_choice;

/// docs/shapes.md, compiled here (this crate depends on every primitive) so its example is
/// checked with the `cuda` feature.
#[cfg(feature = "cuda")]
#[doc = include_str!("../../docs/shapes.md")]
pub mod shapes_guide {}

/// The stream type GPU work is enqueued on: `gpu_core::Stream` with the `cuda` feature, an
/// uninhabited placeholder without it (so GPU closures type-check and can never be called).
#[cfg(feature = "cuda")]
pub use gpu_core::Stream;

/// Placeholder for `gpu_core::Stream` in builds without the `cuda` feature: no value exists.
#[cfg(not(feature = "cuda"))]
#[derive(Debug)]
pub enum Stream {}

/// Why GPU work is absent in this build or on this machine, or `None` when a GPU is usable.
pub fn gpu_absent_reason() -> Option<String> {
    #[cfg(feature = "cuda")]
    {
        match gpu_core::Gpu::default_device() {
            Ok(_) => None,
            Err(e) => Some(format!("no usable GPU: {e}")),
        }
    }
    #[cfg(not(feature = "cuda"))]
    {
        Some("built without the `cuda` feature (rebuild with `--features cuda`)".to_string())
    }
}

/// `2^k` for powers of two, the plain number otherwise.
pub fn size_label(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// A duration in milliseconds as `µs`, `ms` or `s` with 3–4 significant digits.
pub fn fmt_ms(ms: f64) -> String {
    if !ms.is_finite() {
        "—".to_string()
    } else if ms < 1.0 {
        format!("{:.2} µs", ms * 1e3)
    } else if ms < 1000.0 {
        format!("{ms:.3} ms")
    } else {
        format!("{:.2} s", ms / 1e3)
    }
}

/// The GPU's name, or why there is none.
pub fn device_name() -> String {
    #[cfg(feature = "cuda")]
    {
        match gpu_core::Gpu::default_device() {
            Ok(gpu) => gpu.properties().name.clone(),
            Err(e) => format!("no GPU: {e}"),
        }
    }
    #[cfg(not(feature = "cuda"))]
    {
        "no GPU: built without the `cuda` feature".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(size_label(1 << 20), "2^20");
        assert_eq!(size_label(123_123_123), "123123123");
        assert_eq!(fmt_ms(0.0123), "12.30 µs");
        assert_eq!(fmt_ms(1.5), "1.500 ms");
        assert_eq!(fmt_ms(2500.0), "2.50 s");
    }
}
