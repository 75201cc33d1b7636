//! The per-context kernel cache: a slot per (module name, kernel) holding its loaded module
//! and function. Plain data under the device handle; `module.rs` (above the handle) fills it.

use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use crate::driver::sys as cu;

use crate::kernel_pack::KernelImage;

#[derive(Clone, Copy)]
pub(crate) struct Loaded {
    pub(crate) module: cu::CUmodule,
    /// Null for a whole-module slot.
    pub(crate) function: cu::CUfunction,
    pub(crate) image: KernelImage,
    /// Whether this slot loaded `module` (and so unloads it); kernels of a plain PTX text
    /// share their whole-module slot's module.
    pub(crate) owns_module: bool,
}

#[derive(Default)]
pub(crate) struct Slot {
    pub(crate) state: Mutex<Option<Loaded>>,
    /// Module loads this slot made (stays at most 1: the property the tests check).
    pub(crate) loads: AtomicUsize,
    /// Dynamic shared memory the function is allowed so far (bytes): the driver attribute
    /// belongs to the function, which every `Kernel` of this slot shares, so it only grows
    /// (one caller lowering it would fail another's launch in flight).
    pub(crate) shared_allowed: Mutex<usize>,
}

/// One context's kernels: a slot per (module name, kernel).
#[derive(Default)]
pub(crate) struct LoadedModules {
    pub(crate) slots: HashMap<(&'static str, String), Arc<Slot>>,
}

// SAFETY: the driver handles inside are valid on any thread (the context is made current
// before each use).
unsafe impl Send for Slot {}
// SAFETY: as above; the state is behind a mutex.
unsafe impl Sync for Slot {}

impl LoadedModules {
    pub(crate) fn unload_all(&mut self) {
        for (_, slot) in self.slots.drain() {
            let state = slot.state.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(l) = *state {
                if l.owns_module {
                    // SAFETY: module loaded by this slot, unloaded once, context current
                    // (the caller binds).
                    unsafe {
                        cu::cuModuleUnload(l.module);
                    }
                }
            }
        }
    }
}
