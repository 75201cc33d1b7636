//! The embedded kernels: every one has fresh sm_80/sm_90 machine code (checked without a GPU),
//! and on a GPU every one loads, from its cubin and from its PTX.
#![cfg(feature = "cuda")]

use gpu_core::testing::{assert_cubins_complete, expected_image, gpu_or_skip, preload_from_ptx};
use gpu_sync::{preload, KERNELS};

#[test]
fn every_kernel_has_cubins_built_from_its_ptx() {
    assert_cubins_complete(KERNELS, &[80, 90]);
}

#[test]
fn gpu_every_kernel_loads_on_first_use_and_by_preload() {
    let Some(gpu) = gpu_or_skip() else { return };
    let kernel = gpu.kernel(KERNELS[0], "sync_demo_queue").unwrap();
    assert_eq!(
        kernel.image(),
        expected_image(&gpu, KERNELS[0], "sync_demo_queue")
    );
    assert!(gpu
        .loaded_kernels(KERNELS[0])
        .contains(&"sync_demo_queue".to_string()));
    let loaded = preload(&gpu).unwrap();
    let runnable: Vec<_> = KERNELS
        .iter()
        .filter(|k| !k.name.ends_with("_sm80") || gpu.properties().compute_capability >= (8, 0))
        .collect();
    assert_eq!(
        loaded,
        runnable
            .iter()
            .map(|k| k.kernel_names().len())
            .sum::<usize>()
    );
    for ptx in runnable {
        assert_eq!(gpu.loaded_kernels(ptx).len(), ptx.kernel_names().len());
        for name in ptx.kernel_names() {
            let k = gpu.kernel(ptx, name).unwrap();
            assert_eq!(k.image(), expected_image(&gpu, ptx, name), "{name}");
            assert_eq!(
                gpu.module_loads(ptx, name),
                1,
                "{name} loaded more than once"
            );
        }
    }
}

#[test]
fn gpu_every_kernel_loads_from_its_ptx() {
    let Some(gpu) = gpu_or_skip() else { return };
    for ptx in KERNELS {
        if ptx.name.ends_with("_sm80") && gpu.properties().compute_capability < (8, 0) {
            continue;
        }
        assert_eq!(preload_from_ptx(&gpu, ptx), ptx.kernel_names().len());
    }
}
