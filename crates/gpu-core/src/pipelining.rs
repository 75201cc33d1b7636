//! The choice between a host pipeline and the one-shot path for calls whose data start and
//! end in host memory (the pipeline itself, `Gpu::host_pipeline`, needs the `cuda` feature;
//! the choice is part of every primitive's options, so it exists without it).

/// Largest chunk of a host pipeline, in bytes (each staging buffer holds one).
pub const PIPELINE_CHUNK_BYTES: usize = 8 << 20;
/// Host data of at least this many bytes goes through the pipeline under
/// [`Pipelining::Auto`]: four chunks, so that uploads, work and downloads can overlap at all
/// (a first guess: the crossover is not measured yet).
pub const PIPELINE_MIN_BYTES: usize = 4 * PIPELINE_CHUNK_BYTES;

/// Whether a call with its data in host memory (in and out) goes through the host pipeline
/// (`Gpu::host_pipeline`, with the `cuda` feature) or the one-shot path (upload everything, work, download
/// everything). The default is the one-shot path until the pipeline is measured faster: its
/// results are the same bit for bit, but the first measurement (scans into a new `Vec`, where
/// allocating and faulting in the output dominates) showed no gain yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Pipelining {
    /// Always the one-shot path (the default).
    #[default]
    Never,
    /// The pipeline from [`PIPELINE_MIN_BYTES`] of input on.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelining_choice() {
        assert_eq!(Pipelining::default(), Pipelining::Never);
        assert!(!Pipelining::Never.applies(1 << 30));
        assert!(!Pipelining::Auto.applies(PIPELINE_MIN_BYTES - 1));
        assert!(Pipelining::Auto.applies(PIPELINE_MIN_BYTES));
        assert!(Pipelining::Always.applies(1));
        assert!(!Pipelining::Always.applies(0));
    }
}
