//! A driver that refuses to JIT-compile PTX (`CUDA_DISABLE_PTX_JIT=1`): with machine code for
//! the GPU in the crate the reductions still run; forced onto PTX they fail with a clear error
//! naming the cause and the remedy. Each case runs in a child process, since the driver reads
//! the variable once.
#![cfg(feature = "cuda")]

use gpu_core::testing::{gpu_or_skip, run_test_in_child};
use gpu_core::{Gpu, KERNEL_IMAGES_VAR};
use gpu_reduce::Reduce;

const CHILD: &str = "GPU_PRIMS_JIT_CHILD";

#[test]
#[ignore = "run by `jit_disabled_gives_a_clear_error` in a process of its own"]
fn jit_child() {
    let Ok(expect) = std::env::var(CHILD) else {
        return;
    };
    let gpu = Gpu::default_device().unwrap();
    let x: Vec<f32> = (0..10_000).map(|i| (i % 4) as f32).collect();
    match (expect.as_str(), Reduce::new(&gpu).sum(&x[..])) {
        ("works", Ok(s)) => assert_eq!(s, 15_000.0),
        ("fails", Err(e)) => {
            let text = e.to_string();
            eprintln!("child: {text}");
            assert!(
                text.contains("CUDA_ERROR_JIT_COMPILATION_DISABLED"),
                "{text}"
            );
            assert!(text.contains("unset CUDA_DISABLE_PTX_JIT"), "{text}");
        }
        (want, got) => panic!("expected the sum to {want}, got {got:?}"),
    }
    eprintln!("child: as expected");
}

fn child(expect: &str, force_ptx: bool) {
    let images = force_ptx.then_some("ptx");
    let (passed, text) = run_test_in_child(
        "jit_child",
        &[
            (CHILD, Some(expect)),
            ("CUDA_DISABLE_PTX_JIT", Some("1")),
            ("CUDA_CACHE_DISABLE", Some("1")),
            (KERNEL_IMAGES_VAR, images),
        ],
    );
    assert!(
        passed && text.contains("child: as expected"),
        "{expect}:\n{text}"
    );
    if let Some(line) = text
        .lines()
        .find(|l| l.starts_with("child: ") && l.contains("JIT"))
    {
        eprintln!("{line}");
    }
}

#[test]
fn jit_disabled_gives_a_clear_error() {
    let Some(gpu) = gpu_or_skip() else { return };
    child("fails", true);
    // The crate carries sm_80 and sm_90 machine code: those GPUs need no JIT at all.
    if matches!(gpu.properties().compute_capability.0, 8 | 9) {
        child("works", false);
    }
}
