//! Driver result codes as plain integers: every value the driver may return is a valid
//! [`DriverCode`], named when cuda.h names it, kept as a number when it does not.
//!
//! Why not an enum: a Rust enum holding a value outside its variants is undefined behaviour,
//! and each driver release adds codes (CUDA 12 and 13 added 19 that cust's enum lacks).

use std::fmt;

use crate::driver_code_table::{CODES, CUDA_H_VERSION};
use crate::error::{Error, Result};

/// A `CUresult` as the driver returned it: any `i32`, known to cuda.h or not.
///
/// ```
/// use gpu_core::DriverCode;
/// assert_eq!(DriverCode(700).name(), Some("CUDA_ERROR_ILLEGAL_ADDRESS"));
/// assert!(DriverCode(700).loses_context());
/// assert_eq!(DriverCode(12345).name(), None);
/// assert_eq!(DriverCode(12345).to_string(), "CUDA error 12345 (unknown to CUDA 13.0's cuda.h)");
/// ```
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DriverCode(pub i32);

/// What a driver failure means for the caller, beyond its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DriverCodeKind {
    /// `CUDA_SUCCESS`.
    Success,
    /// No driver, no device, or the link-only stub library instead of the driver.
    NoDevice,
    /// A fault in a kernel (or an uncontained hardware error): the driver fails every later
    /// call of this process on the device; only a new process can use it again.
    ContextLost,
    /// The device refuses this process: exclusive-process mode held by another process, or
    /// an MPS server that does not take us.
    DeviceUnavailable,
    /// The driver cannot run our kernels: no machine code for the GPU and no usable JIT.
    KernelImage,
    /// The installed driver is older than the call or the PTX needs.
    DriverTooOld,
    /// Any other failure of one call; the context stays usable.
    Other,
}

/// Codes whose cuda.h text says the process is left in an inconsistent state (every later
/// call fails the same way) or the context must be destroyed.
const CONTEXT_LOST: [i32; 13] = [
    226, // CONTAINED
    700, // ILLEGAL_ADDRESS
    702, // LAUNCH_TIMEOUT
    710, // ASSERT
    714, // HARDWARE_STACK_ERROR
    715, // ILLEGAL_INSTRUCTION
    716, // MISALIGNED_ADDRESS
    717, // INVALID_ADDRESS_SPACE
    718, // INVALID_PC
    719, // LAUNCH_FAILED
    721, // TENSOR_MEMORY_LEAK
    810, // MPS_CLIENT_TERMINATED
    911, // EXTERNAL_DEVICE
];

impl DriverCode {
    /// The `CUDA_VERSION` of the cuda.h whose codes [`name`](Self::name) knows (13000: 13.0).
    pub const TABLE_VERSION: u32 = CUDA_H_VERSION;
    /// `CUDA_SUCCESS`.
    pub const SUCCESS: DriverCode = DriverCode(0);
    /// `CUDA_ERROR_INVALID_VALUE`.
    pub const INVALID_VALUE: DriverCode = DriverCode(1);
    /// `CUDA_ERROR_OUT_OF_MEMORY`.
    pub const OUT_OF_MEMORY: DriverCode = DriverCode(2);
    /// `CUDA_ERROR_NOT_FOUND`.
    pub const NOT_FOUND: DriverCode = DriverCode(500);
    /// `CUDA_ERROR_NOT_READY` (work still running: a query's answer, not a failure).
    pub const NOT_READY: DriverCode = DriverCode(600);

    /// `Ok` on `CUDA_SUCCESS`, else the typed error ([`Error::driver`]) naming `call`
    /// (a trailing `_v2` of the entry point's symbol is dropped).
    pub fn check(self, call: &'static str) -> Result<()> {
        if self.is_success() {
            return Ok(());
        }
        Err(Error::driver(
            call.strip_suffix("_v2").unwrap_or(call),
            self,
        ))
    }

    /// Whether this is `CUDA_SUCCESS`.
    pub fn is_success(self) -> bool {
        self.0 == 0
    }

    /// The name cuda.h gives the code (`CUDA_ERROR_ILLEGAL_ADDRESS`), `None` when the header
    /// the table was generated from (CUDA 13.0) does not know it.
    pub fn name(self) -> Option<&'static str> {
        CODES
            .binary_search_by_key(&self.0, |&(code, _)| code)
            .ok()
            .map(|i| CODES[i].1)
    }

    /// Every code the table names, in order: for tests and tools.
    pub fn known() -> impl Iterator<Item = (DriverCode, &'static str)> {
        CODES.iter().map(|&(c, n)| (DriverCode(c), n))
    }

    /// Whether the code means the device's context is lost for this process.
    pub fn loses_context(self) -> bool {
        CONTEXT_LOST.contains(&self.0)
    }

    /// What the failure means for the caller.
    pub fn kind(self) -> DriverCodeKind {
        use DriverCodeKind as K;
        match self.0 {
            0 => K::Success,
            // NOT_INITIALIZED, DEINITIALIZED, STUB_LIBRARY, NO_DEVICE, INVALID_DEVICE,
            // SYSTEM_NOT_READY, SYSTEM_DRIVER_MISMATCH, COMPAT_NOT_SUPPORTED_ON_DEVICE
            3 | 4 | 34 | 100 | 101 | 802..=804 => K::NoDevice,
            c if CONTEXT_LOST.contains(&c) => K::ContextLost,
            // DEVICE_UNAVAILABLE, CONTEXT_ALREADY_IN_USE, MPS connection and capacity
            46 | 216 | 805..=809 => K::DeviceUnavailable,
            // NO_BINARY_FOR_GPU, INVALID_PTX, JIT_COMPILER_NOT_FOUND, JIT_COMPILATION_DISABLED
            209 | 218 | 221 | 223 => K::KernelImage,
            // CALL_REQUIRES_NEWER_DRIVER, UNSUPPORTED_PTX_VERSION
            36 | 222 => K::DriverTooOld,
            _ => K::Other,
        }
    }

    /// What a user can do about it, for the codes that have a remedy beyond fixing a bug.
    pub fn remedy(self) -> Option<&'static str> {
        Some(match self.0 {
            34 => {
                "the CUDA driver loaded is a stub library: run on a machine with an NVIDIA \
                 driver, and keep stub directories off LD_LIBRARY_PATH"
            }
            100 | 101 => "no usable CUDA device: check `nvidia-smi` and CUDA_VISIBLE_DEVICES",
            36 | 222 => "the NVIDIA driver is too old for this call or PTX: update the driver",
            46 | 216 => {
                "the GPU is in exclusive-process compute mode and another process holds it \
                 (`nvidia-smi -q -d COMPUTE` shows the mode): wait for that process, pick \
                 another device with `Gpu::new(n)`, or ask for Default compute mode"
            }
            805..=809 => {
                "the MPS server refused this process: check that nvidia-cuda-mps-control is \
                 running and has room for another client"
            }
            209 => {
                "no machine code for this GPU in the module and no PTX it can use: update the \
                 NVIDIA driver, or rebuild the kernels for this GPU"
            }
            218 | 221 | 223 => {
                "the driver cannot JIT-compile PTX (CUDA_DISABLE_PTX_JIT set, or JIT \
                 unavailable) and the crate has no machine code for this GPU: unset \
                 CUDA_DISABLE_PTX_JIT, or use a GPU with machine code in the crate \
                 (sm_80, sm_90), and do not force PTX with GPU_PRIMS_KERNEL_IMAGES=ptx"
            }
            c if CONTEXT_LOST.contains(&c) => {
                "a kernel faulted and the driver now fails every call of this process on this \
                 device; no new context can be made in this process: restart the process"
            }
            _ => return None,
        })
    }
}

impl fmt::Display for DriverCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name} ({})", self.0),
            None => write!(
                f,
                "CUDA error {} (unknown to CUDA {}.{}'s cuda.h)",
                self.0,
                CUDA_H_VERSION / 1000,
                CUDA_H_VERSION % 1000 / 10
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_unique_and_named_like_cuda_h() {
        assert!(CODES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(
            CODES.len(),
            101,
            "CUDA 13.0's cuda.h has 101 CUresult codes"
        );
        for (code, name) in CODES {
            assert!(name.starts_with("CUDA_"), "{code}: {name}");
            assert_eq!(DriverCode(*code).name(), Some(*name));
        }
    }

    #[test]
    fn codes_missing_from_cust_raw_are_named() {
        for (code, name) in [
            (36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"),
            (46, "CUDA_ERROR_DEVICE_UNAVAILABLE"),
            (225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"),
            (226, "CUDA_ERROR_CONTAINED"),
            (402, "CUDA_ERROR_LOSSY_QUERY"),
            (721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"),
            (810, "CUDA_ERROR_MPS_CLIENT_TERMINATED"),
            (811, "CUDA_ERROR_CDP_NOT_SUPPORTED"),
            (812, "CUDA_ERROR_CDP_VERSION_MISMATCH"),
            (912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"),
            (913, "CUDA_ERROR_FUNCTION_NOT_LOADED"),
            (914, "CUDA_ERROR_INVALID_RESOURCE_TYPE"),
            (915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"),
            (916, "CUDA_ERROR_KEY_ROTATION"),
        ] {
            assert_eq!(DriverCode(code).name(), Some(name));
        }
    }

    #[test]
    fn every_value_is_a_code_unknown_ones_stay_numbers() {
        for c in [-1, 9, 47, 227, 917, 919, 1000, i32::MAX, i32::MIN] {
            let code = DriverCode(c);
            assert_eq!(code.name(), None);
            assert_eq!(code.kind(), DriverCodeKind::Other);
            assert!(code.to_string().contains(&c.to_string()));
        }
        assert_eq!(
            DriverCode(700).to_string(),
            "CUDA_ERROR_ILLEGAL_ADDRESS (700)"
        );
    }

    #[test]
    fn kinds() {
        use DriverCodeKind as K;
        assert_eq!(DriverCode(0).kind(), K::Success);
        for c in [3, 34, 100, 101] {
            assert_eq!(DriverCode(c).kind(), K::NoDevice, "{c}");
        }
        for c in CONTEXT_LOST {
            assert!(DriverCode(c).name().is_some(), "{c} is in cuda.h");
            assert_eq!(DriverCode(c).kind(), K::ContextLost, "{c}");
            assert!(DriverCode(c)
                .remedy()
                .unwrap()
                .contains("restart the process"));
        }
        assert_eq!(DriverCode(46).kind(), K::DeviceUnavailable);
        assert!(DriverCode(46)
            .remedy()
            .unwrap()
            .contains("exclusive-process"));
        assert_eq!(DriverCode(223).kind(), K::KernelImage);
        assert!(DriverCode(223)
            .remedy()
            .unwrap()
            .contains("CUDA_DISABLE_PTX_JIT"));
        assert_eq!(DriverCode(36).kind(), K::DriverTooOld);
        assert_eq!(DriverCode(1).kind(), K::Other);
        assert_eq!(DriverCode(1).remedy(), None);
        // Every classified code is one cuda.h names.
        for c in 0..=1000 {
            if DriverCode(c).kind() != K::Other {
                assert!(DriverCode(c).name().is_some(), "{c}");
            }
        }
    }
}
