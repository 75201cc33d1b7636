//! A retained primary context: what the device handle, its streams and its events all need,
//! and so the lowest layer of the GPU side (it imports only the driver).

use std::sync::Arc;

use crate::driver::sys as cu;
use crate::driver_code;

use crate::driver::check;
use crate::error::Result;

/// One device's primary context, retained while any holder lives: the [`crate::Gpu`]'s inner
/// state, and each stream and event this crate made (they may outlive the handle).
pub(crate) struct Context {
    raw: cu::CUcontext,
    device: cu::CUdevice,
}

// SAFETY: a retained context is a driver handle usable from any thread; `bind` makes it
// current on the calling thread before use.
unsafe impl Send for Context {}
// SAFETY: as above.
unsafe impl Sync for Context {}

impl Context {
    /// Retains `device`'s primary context (released when the last holder drops).
    pub(crate) fn retain_primary(device: cu::CUdevice) -> Result<Arc<Self>> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; `device` came from cuDeviceGet.
        check("cuDevicePrimaryCtxRetain", unsafe {
            driver_code!(cuDevicePrimaryCtxRetain(&mut raw, device))
        })?;
        Ok(Arc::new(Context { raw, device }))
    }

    /// Makes this context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        // SAFETY: `raw` is a retained primary context, valid until `drop`.
        check("cuCtxSetCurrent", unsafe {
            driver_code!(cuCtxSetCurrent(self.raw))
        })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: releases the retain taken in `retain_primary`; no holder is left.
        unsafe {
            cu::cuDevicePrimaryCtxRelease_v2(self.device);
        }
    }
}
