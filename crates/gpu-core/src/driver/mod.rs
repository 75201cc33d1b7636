//! Calling the CUDA driver: the entry points with integer results ([`sys`]), the macros every
//! crate calls them through, and the driver's own names for codes.
//!
//! ```no_run
//! # fn main() -> gpu_core::Result<()> {
//! use gpu_core::{driver_call, Gpu};
//! let gpu = Gpu::default_device()?;
//! gpu.bind()?;
//! let (mut free, mut total) = (0usize, 0usize);
//! // SAFETY: out-pointers to locals; the context is current (bind).
//! unsafe { driver_call!(cuMemGetInfo_v2(&mut free, &mut total)) }?;
//! # Ok(()) }
//! ```

use std::ffi::CStr;

pub mod sys;

use crate::driver_code::DriverCode;
use crate::error::Result;

/// `Ok` on `CUDA_SUCCESS`, otherwise the typed error naming `call`.
pub(crate) fn check(call: &'static str, result: DriverCode) -> Result<()> {
    result.check(call)
}

/// Runs one driver call, unless the `fault-injection` feature has armed a failure for it
/// (then the armed code comes back and the driver is not called). Used by
/// [`driver_code!`](crate::driver_code); without the feature this is the call itself.
#[doc(hidden)]
#[inline(always)]
pub fn intercepted(name: &'static str, call: impl FnOnce() -> sys::CUresult) -> DriverCode {
    #[cfg(feature = "fault-injection")]
    if let Some(code) = crate::fault_injection::intercept(name) {
        return code;
    }
    let _ = name;
    DriverCode(call())
}

/// Calls entry point `f` of [`gpu_core::driver::sys`](crate::driver::sys) and returns its
/// [`DriverCode`]. The expansion calls an `unsafe fn`: write it inside an
/// `unsafe` block whose SAFETY comment covers the arguments.
#[macro_export]
macro_rules! driver_code {
    ($f:ident ( $($arg:expr),* $(,)? )) => {
        $crate::driver::intercepted(stringify!($f), || $crate::driver::sys::$f($($arg),*))
    };
}

/// Calls entry point `f` of [`gpu_core::driver::sys`](crate::driver::sys): `Ok(())` on
/// success, else the typed [`Error`](crate::Error) naming `f` (see
/// [`Error::driver`](crate::Error::driver)). Inside `unsafe`, as [`driver_code!`].
#[macro_export]
macro_rules! driver_call {
    ($f:ident ( $($arg:expr),* $(,)? )) => {
        $crate::driver_code!($f($($arg),*)).check(stringify!($f))
    };
}

/// The installed driver's name for `code` (`cuGetErrorName`), `None` where it has none. For
/// checking [`DriverCode::name`] against the driver; errors use the built-in table.
pub fn driver_error_name(code: DriverCode) -> Option<String> {
    let mut name: *const std::os::raw::c_char = std::ptr::null();
    // SAFETY: any int is a valid argument; cuGetErrorName writes a pointer to a static
    // NUL-terminated string, or fails with CUDA_ERROR_INVALID_VALUE.
    let ok = unsafe { sys::cuGetErrorName(code.0, &mut name) } == 0;
    // SAFETY: non-null pointer to a static C string owned by the driver.
    (ok && !name.is_null()).then(|| {
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    })
}

/// The installed driver's version (`cuDriverGetVersion`, e.g. 13000 for 13.0).
pub fn driver_version() -> Result<i32> {
    let mut v = 0;
    // SAFETY: out-pointer to a local; callable before cuInit.
    unsafe { crate::driver_call!(cuDriverGetVersion(&mut v)) }?;
    Ok(v)
}
