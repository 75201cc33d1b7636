//! A retained primary context: what the device handle, its streams and its events all need,
//! and so the lowest layer of the GPU side (it imports only the driver).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

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

    /// The raw handle (valid while `self` lives).
    pub(crate) fn raw(&self) -> cu::CUcontext {
        self.raw
    }

    /// Lets this context read and write `peer`'s memory directly (NVLink or PCIe), once per
    /// pair and process: whether the devices can. Where they cannot, peer copies still work
    /// (the driver stages them through the host), so `false` is no error.
    pub(crate) fn enable_peer_access(&self, peer: &Context) -> Result<bool> {
        // Peer access is a property of the pair of contexts, process-wide: remember it there
        // (primary contexts live as long as the process uses the device).
        static ENABLED: OnceLock<Mutex<HashMap<(usize, usize), bool>>> = OnceLock::new();
        let key = (self.raw as usize, peer.raw as usize);
        let mut enabled = ENABLED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(&on) = enabled.get(&key) {
            return Ok(on);
        }
        let mut can = 0;
        // SAFETY: out-pointer to a local; both devices came from cuDeviceGet.
        check("cuDeviceCanAccessPeer", unsafe {
            driver_code!(cuDeviceCanAccessPeer(&mut can, self.device, peer.device))
        })?;
        let on = can != 0;
        if on {
            self.bind()?;
            // SAFETY: `peer.raw` is a retained primary context; flags must be 0.
            let code = unsafe { driver_code!(cuCtxEnablePeerAccess(peer.raw, 0)) };
            // 704: enabled already (by another library in this process): as good.
            if code != crate::DriverCode(704) {
                check("cuCtxEnablePeerAccess", code)?;
            }
        }
        enabled.insert(key, on);
        Ok(on)
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
