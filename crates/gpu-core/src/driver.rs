//! Turning driver `CUresult`s into [`Error`]s.

use std::ffi::CStr;

use cu::cudaError_enum as R;
use cust::sys as cu;

use crate::error::{Error, Result};

/// `Ok` on `CUDA_SUCCESS`, otherwise an error naming the call and the driver's error.
pub(crate) fn check(call: &'static str, result: cu::CUresult) -> Result<()> {
    if result == R::CUDA_SUCCESS {
        return Ok(());
    }
    let error = error_name(result);
    Err(match result {
        R::CUDA_ERROR_NO_DEVICE | R::CUDA_ERROR_INVALID_DEVICE | R::CUDA_ERROR_NOT_INITIALIZED => {
            Error::NoDevice(format!("{call}: {error}"))
        }
        _ => Error::Cuda {
            call,
            error,
            code: result as i32,
        },
    })
}

/// The driver's name for an error code, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
pub(crate) fn error_name(result: cu::CUresult) -> String {
    let mut name: *const std::os::raw::c_char = std::ptr::null();
    // SAFETY: cuGetErrorName writes a pointer to a static NUL-terminated string, or fails.
    let ok = unsafe { cu::cuGetErrorName(result, &mut name) } == R::CUDA_SUCCESS;
    if ok && !name.is_null() {
        // SAFETY: non-null pointer to a static C string owned by the driver.
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    } else {
        format!("{result:?}")
    }
}
