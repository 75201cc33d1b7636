//! Work done when the process exits: the crates drop their process-wide caches of device and
//! page-locked memory there, before the CUDA driver's own teardown, so that everything they
//! allocated is freed (and tools such as `compute-sanitizer --leak-check full` see it so).

use std::os::raw::c_int;
use std::sync::{Mutex, Once};

static HOOKS: Mutex<Vec<fn()>> = Mutex::new(Vec::new());
static REGISTER: Once = Once::new();

extern "C" {
    // The C library's exit handlers (C89, on every platform Rust targets with CUDA). Handlers
    // run in reverse order of registration, so one registered after `cuInit` runs before the
    // driver's own.
    fn atexit(handler: extern "C" fn()) -> c_int;
}

extern "C" fn run_hooks() {
    let hooks = std::mem::take(&mut *HOOKS.lock().unwrap_or_else(|p| p.into_inner()));
    for hook in hooks.into_iter().rev() {
        // A panic must not unwind into the C library.
        let _ = std::panic::catch_unwind(hook);
    }
}

/// Runs `hook` when the process exits normally (after `main` returns, or at
/// `std::process::exit`), before the CUDA driver shuts down; hooks run last-registered first.
/// For caches that live in statics and hold device memory or a [`crate::Gpu`]: the hook
/// empties them. Call it after the driver is initialised (any `Gpu` exists).
pub fn on_exit(hook: fn()) {
    REGISTER.call_once(|| {
        // SAFETY: registers a handler with the signature atexit expects; `run_hooks` never
        // unwinds (panics are caught).
        unsafe {
            atexit(run_hooks);
        }
    });
    HOOKS.lock().unwrap_or_else(|p| p.into_inner()).push(hook);
}
