//! The crate's embedded kernels (`kernels/sync.cu`, built by `scripts/ptx.sh`): one PTX module
//! per kernel, with sm_80 and sm_90 machine code beside it, loaded on first use.

use gpu_core::{Cubins, Gpu, Ptx, Result};

/// gpu-sync's kernels, compiled from `kernels/sync.cu`: the probes of [`selftest`] and the
/// demonstration's `sync_demo_{static,strided,queue}`.
///
/// [`selftest`]: crate::selftest
pub static SYNC_PTX: Ptx = Ptx::archive("gpu-sync/sync", include_bytes!("ptx/sync.ptx.kpack"))
    .with_cubins(&[
        Cubins::new(80, include_bytes!("ptx/sync.sm_80.kpack")),
        Cubins::new(90, include_bytes!("ptx/sync.sm_90.kpack")),
    ]);

/// Every kernel pack this crate embeds (for size reports and [`preload`]).
pub static KERNELS: &[&Ptx] = &[&SYNC_PTX];

/// Loads every kernel of gpu-sync on `gpu` now, in parallel, instead of on first use;
/// returns how many.
pub fn preload(gpu: &Gpu) -> Result<usize> {
    KERNELS.iter().map(|k| gpu.preload(k)).sum()
}
