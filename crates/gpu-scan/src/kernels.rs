//! The crate's embedded kernels (`kernels/scan.cu` and `kernels/scan_sm80.cu`, built by
//! `scripts/ptx.sh`): one PTX module per kernel, with sm_80 and sm_90 machine code beside it.
//! gpu-core loads each kernel on its first use; [`preload`] loads them all at once.

use gpu_core::{Cubins, Gpu, Ptx, Result};

/// gpu-scan's kernels, compiled from `kernels/scan.cu` for compute_70 (every GPU).
pub(crate) static SCAN_PTX: Ptx =
    Ptx::archive("gpu-scan/scan", include_bytes!("ptx/scan.ptx.kpack")).with_cubins(&[
        Cubins::new(80, include_bytes!("ptx/scan.sm_80.kpack")),
        Cubins::new(90, include_bytes!("ptx/scan.sm_90.kpack")),
    ]);
/// The staged look-back kernels, compiled from `kernels/scan_sm80.cu` for compute_80: loaded only
/// on GPUs of compute capability 8.0 and later.
pub(crate) static SCAN_SM80_PTX: Ptx = Ptx::archive(
    "gpu-scan/scan_sm80",
    include_bytes!("ptx/scan_sm80.ptx.kpack"),
)
.with_cubins(&[
    Cubins::new(80, include_bytes!("ptx/scan_sm80.sm_80.kpack")),
    Cubins::new(90, include_bytes!("ptx/scan_sm80.sm_90.kpack")),
]);

/// Every kernel pack this crate embeds (for size reports and [`preload`]).
pub static KERNELS: &[&Ptx] = &[&SCAN_PTX, &SCAN_SM80_PTX];

/// Loads every kernel of gpu-scan that `gpu` can run, now and in parallel, instead of on
/// first use; returns how many. Optional: for programs that would rather pay all loads up
/// front.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// let gpu = gpu_core::Gpu::default_device()?;
/// assert!(gpu_scan::preload(&gpu)? > 0);
/// # Ok(()) }
/// ```
pub fn preload(gpu: &Gpu) -> Result<usize> {
    let mut n = gpu.preload(&SCAN_PTX)?;
    if gpu.properties().compute_capability >= (8, 0) {
        n += gpu.preload(&SCAN_SM80_PTX)?;
    }
    Ok(n)
}
