//! The crate's embedded kernels (`kernels/reduce.cu`, built by `scripts/ptx.sh`): one PTX
//! module per kernel, with sm_80 and sm_90 machine code beside it. gpu-core loads each kernel
//! on its first use; [`preload`] loads them all at once.

use gpu_core::{Cubins, Gpu, Ptx, Result};

/// The reduction kernels, compiled from `kernels/reduce.cu` by `scripts/ptx.sh`.
pub(crate) static REDUCE_PTX: Ptx =
    Ptx::archive("gpu-reduce/reduce", include_bytes!("ptx/reduce.ptx.kpack")).with_cubins(&[
        Cubins::new(80, include_bytes!("ptx/reduce.sm_80.kpack")),
        Cubins::new(90, include_bytes!("ptx/reduce.sm_90.kpack")),
    ]);

/// Every kernel pack this crate embeds (for size reports and [`preload`]).
pub static KERNELS: &[&Ptx] = &[&REDUCE_PTX];

/// Loads every kernel of gpu-reduce on `gpu` now, in parallel, instead of on first use;
/// returns how many. Optional: for programs that would rather pay all loads up front.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// let gpu = gpu_core::Gpu::default_device()?;
/// let loaded = gpu_reduce::preload(&gpu)?;
/// assert!(loaded > 0);
/// # Ok(()) }
/// ```
pub fn preload(gpu: &Gpu) -> Result<usize> {
    KERNELS.iter().map(|k| gpu.preload(k)).sum()
}
