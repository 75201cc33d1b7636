//! The one error type of the workspace.

use std::fmt;

/// Everything that can go wrong in the gpu-prims crates.
///
/// Bad input never panics: it comes back as [`Error::InvalidArgument`] naming the argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA driver or no device (including the link-only stub used on machines without CUDA).
    #[error("no CUDA device available: {0}")]
    NoDevice(String),
    /// A CUDA driver call failed.
    #[error("CUDA call `{call}` failed: {error} (code {code})")]
    Cuda {
        /// The driver function, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The driver's name for the error, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        error: String,
        /// The numeric `CUresult`.
        code: i32,
    },
    /// An argument was out of range or inconsistent with the others.
    #[error("invalid argument `{name}`: {reason}")]
    InvalidArgument {
        /// Which argument.
        name: &'static str,
        /// Why it was rejected.
        reason: String,
    },
    /// A device allocation did not fit.
    #[error("out of device memory: asked for {requested} bytes, {free} bytes free")]
    OutOfMemory {
        /// Bytes asked for.
        requested: usize,
        /// Bytes the driver reported free at the time.
        free: usize,
    },
    /// A kernel's module (PTX, or a cubin) was rejected by the driver, or its embedded image
    /// is unreadable. Other kernels are unaffected.
    #[error("kernel module `{module}` failed to load ({error}); JIT log:\n{log}")]
    PtxLoad {
        /// Which embedded module: `crate/file:kernel` for a kernel of a pack, with
        /// `(sm_NN cubin)` when it was machine code.
        module: String,
        /// The driver error.
        error: String,
        /// The JIT compiler's error log.
        log: String,
    },
}

/// Result alias used throughout the workspace.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(name: &'static str, reason: impl fmt::Display) -> Self {
        Error::InvalidArgument {
            name,
            reason: reason.to_string(),
        }
    }
}
