//! The embedded kernels: every one has fresh sm_80/sm_90 machine code (the sm90a module: sm_90a
//! only; checked without a GPU),
//! and on a GPU every one loads, from its cubin and from its PTX.
#![cfg(feature = "cuda")]

use gpu_conv1d::{preload, KERNELS};
use gpu_core::testing::{
    assert_cubins_complete, assert_every_pack_loads_from_ptx,
    assert_loads_on_first_use_and_by_preload, gpu_or_skip,
};

#[test]
fn every_kernel_has_cubins_built_from_its_ptx() {
    // The architecture-specific module (compute_90a, `wgmma`) runs on compute capability 9.0
    // only, so it carries sm_90a machine code alone.
    let (specific, portable): (Vec<_>, Vec<_>) = KERNELS
        .iter()
        .copied()
        .partition(|p| p.name.ends_with("_sm90a"));
    assert_eq!(specific.len(), 1);
    assert_cubins_complete(&portable, &[80, 90]);
    assert_cubins_complete(&specific, &[90]);
}

#[test]
fn gpu_every_kernel_loads_on_first_use_and_by_preload() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert_loads_on_first_use_and_by_preload(&gpu, KERNELS, "conv1d_auto_w3_f32", preload);
}

#[test]
fn gpu_every_kernel_loads_from_its_ptx() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert_every_pack_loads_from_ptx(&gpu, KERNELS);
}
