//! The choice between a host pipeline and the one-shot path for calls whose data start and
//! end in host memory (the pipeline itself, `Gpu::host_pipeline`, needs the `cuda` feature;
//! the choice is part of every primitive's options, so it exists without it).

/// Largest chunk of a host pipeline, in bytes (each staging buffer holds one).
pub const PIPELINE_CHUNK_BYTES: usize = 8 << 20;
/// Chunks in flight in a host pipeline: one being filled or emptied by the host, one on the
/// link, one waiting; also the slots of an upload-only pipeline's device ring
/// (`Gpu::host_stream_in`).
pub const PIPELINE_RING_SLOTS: usize = 3;
/// Host data of at least this many bytes goes through the pipeline under
/// [`Pipelining::Auto`] (the default). Measured on an H100 host (docs/host-link.md): scans and
/// convolutions gain from 16 MiB on, reductions break even at 64 MiB and lose at 16 MiB.
pub const PIPELINE_MIN_BYTES: usize = 4 * PIPELINE_CHUNK_BYTES;

/// Whether a call with its data in host memory goes through the host pipeline
/// (`Gpu::host_pipeline` and its forms, with the `cuda` feature: chunks uploaded, processed and
/// downloaded at once on three streams) or the one-shot path (upload everything, work,
/// download everything). Scans and convolutions give the same results bit for bit either way;
/// float sums and products of a reduction are associated by 8 MiB chunks on the pipeline
/// (deterministic, but not always the last bits of the one-launch reduction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Pipelining {
    /// Always the one-shot path.
    Never,
    /// The pipeline from [`PIPELINE_MIN_BYTES`] of input on (the default).
    #[default]
    Auto,
    /// The pipeline whenever the primitive has one for the call.
    Always,
}

impl Pipelining {
    /// Whether an input of `bytes` bytes takes the pipeline.
    pub fn applies(self, bytes: usize) -> bool {
        match self {
            Pipelining::Auto => bytes >= PIPELINE_MIN_BYTES,
            Pipelining::Never => false,
            Pipelining::Always => bytes > 0,
        }
    }
}

/// The fewest consecutive units of `unit_bytes` bytes (rows, slices) that together span a
/// multiple of 16 bytes: chunks of a multiple of that many start every ring slot, and every
/// chunk inside it, 16-byte aligned, as whole arrays are (1 for a `unit_bytes` of 0).
///
/// ```
/// assert_eq!(gpu_core::aligned_count(4 * 5000), 1);
/// assert_eq!(gpu_core::aligned_count(4 * 1001), 4);
/// assert_eq!(gpu_core::aligned_count(8 * 3), 2);
/// ```
pub fn aligned_count(unit_bytes: usize) -> usize {
    let low = unit_bytes.trailing_zeros().min(4);
    if unit_bytes == 0 {
        1
    } else {
        16 >> low
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelining_choice() {
        assert_eq!(Pipelining::default(), Pipelining::Auto);
        assert!(!Pipelining::Never.applies(1 << 30));
        assert!(!Pipelining::Auto.applies(PIPELINE_MIN_BYTES - 1));
        assert!(Pipelining::Auto.applies(PIPELINE_MIN_BYTES));
        assert!(Pipelining::Always.applies(1));
        assert!(!Pipelining::Always.applies(0));
    }
}
