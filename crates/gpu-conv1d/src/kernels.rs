//! The crate's embedded kernels (`kernels/conv1d.cu`, `kernels/conv1d_sm80.cu` and
//! `kernels/conv1d_sm90a.cu`, built by
//! `scripts/ptx.sh`): one PTX module per kernel, with sm_80 and sm_90 machine code beside it. gpu-core loads each kernel
//! on its first use; [`preload`] loads them all at once.

use gpu_core::{Cubins, Gpu, Ptx, Result};

/// The crate's kernels, compiled from `kernels/conv1d.cu`.
pub static PTX: Ptx = Ptx::archive("gpu-conv1d/conv1d", include_bytes!("ptx/conv1d.ptx.kpack"))
    .with_cubins(&[
        Cubins::new(80, include_bytes!("ptx/conv1d.sm_80.kpack")),
        Cubins::new(90, include_bytes!("ptx/conv1d.sm_90.kpack")),
    ]);

/// The tensor-core kernels and the bf16 fixed-width ones again, compiled from
/// `kernels/conv1d_sm80.cu` for compute_80: loaded only on GPUs of compute capability 8.0 and
/// later.
pub(crate) static PTX_SM80: Ptx = Ptx::archive(
    "gpu-conv1d/conv1d_sm80",
    include_bytes!("ptx/conv1d_sm80.ptx.kpack"),
)
.with_cubins(&[
    Cubins::new(80, include_bytes!("ptx/conv1d_sm80.sm_80.kpack")),
    Cubins::new(90, include_bytes!("ptx/conv1d_sm80.sm_90.kpack")),
]);

/// The warpgroup tensor-core kernels, compiled from `kernels/conv1d_sm90a.cu` for the
/// architecture-specific compute_90a (`wgmma`): loaded only on GPUs of compute capability 9.0
/// (H100, H200), with their sm_90a machine code.
pub(crate) static PTX_SM90A: Ptx = Ptx::archive(
    "gpu-conv1d/conv1d_sm90a",
    include_bytes!("ptx/conv1d_sm90a.ptx.kpack"),
)
.with_cubins(&[Cubins::new(
    90,
    include_bytes!("ptx/conv1d_sm90a.sm_90.kpack"),
)]);

/// Every kernel pack this crate embeds (for size reports and [`preload`]).
pub static KERNELS: &[&Ptx] = &[&PTX, &PTX_SM80, &PTX_SM90A];

/// Loads every kernel of gpu-conv1d that `gpu` can run, now and in parallel, instead of on
/// first use; returns how many. Optional: for programs that would rather pay all loads up front.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// let gpu = gpu_core::Gpu::default_device()?;
/// assert!(gpu_conv1d::preload(&gpu)? > 0);
/// # Ok(()) }
/// ```
pub fn preload(gpu: &Gpu) -> Result<usize> {
    let mut n = gpu.preload(&PTX)?;
    if gpu.properties().compute_capability >= (8, 0) {
        n += gpu.preload(&PTX_SM80)?;
    }
    if gpu.properties().compute_capability == (9, 0) {
        n += gpu.preload(&PTX_SM90A)?;
    }
    Ok(n)
}
