//! The one error type of the workspace.

use std::fmt;

use crate::driver_code::{DriverCode, DriverCodeKind};

/// Everything that can go wrong in the gpu-prims crates.
///
/// Bad input never panics: it comes back as [`Error::InvalidArgument`] naming the argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA driver or no device (including the link-only stub used on machines without CUDA).
    #[error("no CUDA device available: {0}")]
    NoDevice(String),
    /// A CUDA driver call failed; the context stays usable (other calls may succeed).
    #[error("CUDA call `{call}` failed: {error}")]
    Cuda {
        /// The driver function, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The driver's name and number for the error, what was being done, and the remedy
        /// where there is one.
        error: String,
        /// The `CUresult`, any value the driver returned.
        code: DriverCode,
    },
    /// A kernel faulted (illegal address, trap, misaligned access, …): the driver fails every
    /// later call of this process on the device, a new `Gpu` included. Only a new process can
    /// use the device again.
    #[error(
        "the GPU's CUDA context is lost: `{call}` returned {code} after a fault in a kernel; \
         every later call on this device fails the same way, and the driver makes no new \
         context in this process: restart the process"
    )]
    ContextLost {
        /// The driver function that reported it (often a synchronisation after the fault).
        call: &'static str,
        /// The sticky error, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        code: DriverCode,
    },
    /// The device refuses this process (exclusive-process mode taken by another process, an
    /// MPS server without room).
    #[error("the GPU refuses this process: `{call}` returned {code}: {remedy}")]
    DeviceUnavailable {
        /// The driver function.
        call: &'static str,
        /// The driver's code, e.g. `CUDA_ERROR_DEVICE_UNAVAILABLE`.
        code: DriverCode,
        /// What to do about it.
        remedy: &'static str,
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
    /// The ranks of a multi-GPU communicator could not agree (gpu-dist): a collective or the
    /// communicator's setup failed, or `timed_out` because a rank did not answer in time (the
    /// communicator was aborted: make a new one).
    #[error("communication `{call}` failed{}: {error}", if *timed_out { " (timed out)" } else { "" })]
    Communication {
        /// The library call, e.g. `ncclAllGather`.
        call: &'static str,
        /// What the library said, and the remedy where there is one.
        error: String,
        /// Whether the wait for the other ranks ran past its timeout.
        timed_out: bool,
    },
    /// A CUDA library call failed (cuFFT for gpu-conv1d's longest masks), or the library is
    /// missing: what it returned, and the remedy where there is one.
    #[error("`{call}` failed: {error}")]
    Library {
        /// The library call, e.g. `cufftExecR2C`.
        call: &'static str,
        /// What the library said, and the remedy where there is one.
        error: String,
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
    /// The error for driver call `call` returning `code` (not `CUDA_SUCCESS`): typed by what
    /// the code means ([`DriverCode::kind`]), with the driver's name and the remedy.
    pub fn driver(call: &'static str, code: DriverCode) -> Self {
        match code.kind() {
            DriverCodeKind::NoDevice => Error::NoDevice(match code.remedy() {
                Some(remedy) => format!("{call}: {code}: {remedy}"),
                None => format!("{call}: {code}"),
            }),
            DriverCodeKind::ContextLost => Error::ContextLost { call, code },
            DriverCodeKind::DeviceUnavailable => Error::DeviceUnavailable {
                call,
                code,
                remedy: code.remedy().unwrap_or("another process holds the device"),
            },
            _ => Error::Cuda {
                call,
                error: match code.remedy() {
                    Some(remedy) => format!("{code}: {remedy}"),
                    None => code.to_string(),
                },
                code,
            },
        }
    }

    /// Whether this error means the device cannot be used again by this process.
    pub fn is_context_lost(&self) -> bool {
        matches!(self, Error::ContextLost { .. })
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(name: &'static str, reason: impl fmt::Display) -> Self {
        Error::InvalidArgument {
            name,
            reason: reason.to_string(),
        }
    }
}
