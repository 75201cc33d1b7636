//! The embedded kernels: every one has fresh sm_80/sm_90 machine code (checked without a GPU),
//! and on a GPU every one loads, from its cubin and from its PTX.
#![cfg(feature = "cuda")]

use gpu_core::testing::{
    assert_cubins_complete, assert_every_pack_loads_from_ptx,
    assert_loads_on_first_use_and_by_preload, gpu_or_skip,
};
use gpu_reduce::{preload, KERNELS};

#[test]
fn every_kernel_has_cubins_built_from_its_ptx() {
    assert_cubins_complete(KERNELS, &[80, 90]);
}

#[test]
fn gpu_every_kernel_loads_on_first_use_and_by_preload() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert_loads_on_first_use_and_by_preload(&gpu, KERNELS, "reduce_auto_sum_f32", preload);
}

#[test]
fn gpu_every_kernel_loads_from_its_ptx() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert_every_pack_loads_from_ptx(&gpu, KERNELS);
}
