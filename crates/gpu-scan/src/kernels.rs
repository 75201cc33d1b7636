//! The crate's embedded kernels (`kernels/scan.cu`, `kernels/scan_sm80.cu` and
//! `kernels/scan_sm90.cu`, built by `scripts/ptx.sh`): one PTX module per kernel, with machine
//! code for sm_80 and sm_90 beside it (sm_90 only for `scan_sm90`).
//! gpu-core loads each kernel on its first use; [`preload`] loads them all at once.

use gpu_core::{Cubins, Gpu, Ptx, Result};

use crate::plan;

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

/// The staged look-back kernels that prefetch a later tile's input into L2, compiled from
/// `kernels/scan_sm90.cu` for compute_90: loaded only on GPUs of compute capability 9.0 and
/// later whose tuning asks for the prefetch (`scan.prefetch_from`, `scan.shaped_prefetch_from`).
pub(crate) static SCAN_SM90_PTX: Ptx = Ptx::archive(
    "gpu-scan/scan_sm90",
    include_bytes!("ptx/scan_sm90.ptx.kpack"),
)
.with_cubins(&[Cubins::new(90, include_bytes!("ptx/scan_sm90.sm_90.kpack"))]);

/// Every kernel pack this crate embeds (for size reports and [`preload`]).
pub static KERNELS: &[&Ptx] = &[&SCAN_PTX, &SCAN_SM80_PTX, &SCAN_SM90_PTX];

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
    if gpu.properties().compute_capability >= plan::PREFETCH_MIN_COMPUTE {
        n += gpu.preload(&SCAN_SM90_PTX)?;
    }
    Ok(n)
}
