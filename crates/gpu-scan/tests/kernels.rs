//! The embedded kernels: every one has fresh sm_80/sm_90 machine code (the sm90 module: sm_90
//! only; checked without a GPU),
//! and on a GPU every one loads, from its cubin and from its PTX.
#![cfg(feature = "cuda")]

use gpu_core::testing::{
    assert_cubins_complete, assert_every_pack_loads_from_ptx,
    assert_loads_on_first_use_and_by_preload, gpu_or_skip,
};
use gpu_scan::{preload, KERNELS};

#[test]
fn every_kernel_has_cubins_built_from_its_ptx() {
    // The compute_90 module (the bulk L2 prefetch) runs from compute capability 9.0 only.
    let (sm90, portable): (Vec<_>, Vec<_>) = KERNELS
        .iter()
        .copied()
        .partition(|p| p.name.ends_with("_sm90"));
    assert_eq!(sm90.len(), 1);
    assert_cubins_complete(&portable, &[80, 90]);
    assert_cubins_complete(&sm90, &[90]);
}

#[test]
fn gpu_every_kernel_loads_on_first_use_and_by_preload() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert_loads_on_first_use_and_by_preload(&gpu, KERNELS, "scan_lookback_sum_i32", preload);
}

#[test]
fn gpu_every_kernel_loads_from_its_ptx() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert_every_pack_loads_from_ptx(&gpu, KERNELS);
}
