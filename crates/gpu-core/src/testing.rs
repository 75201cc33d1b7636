//! GPU tests that skip visibly without a GPU, or fail when one is required.
//!
//! ```no_run
//! #[test]
//! fn gpu_round_trip() {
//!     let Some(gpu) = gpu_core::testing::gpu_or_skip() else { return };
//!     assert_eq!(gpu.upload(&[1u8, 2]).unwrap().to_vec().unwrap(), vec![1, 2]);
//! }
//! ```

use std::io::Write;
use std::sync::OnceLock;

use crate::device::Gpu;
use crate::error::Result;
use crate::kernel_pack::{KernelImage, Ptx};

/// Name of the variable that turns a missing GPU into a test failure.
pub const REQUIRE_GPU_VAR: &str = "GPU_PRIMS_REQUIRE_GPU";

/// Whether `GPU_PRIMS_REQUIRE_GPU` is set to something other than `0` or empty.
pub fn gpu_required() -> bool {
    std::env::var(REQUIRE_GPU_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The process-wide test GPU (device 0), opened once.
pub fn shared_gpu() -> &'static Result<Gpu> {
    static GPU: OnceLock<Result<Gpu>> = OnceLock::new();
    GPU.get_or_init(Gpu::default_device)
}

/// The test GPU, or `None` after printing `SKIPPED <test>: no GPU (...)` straight to the
/// terminal (past the test harness's output capture). With `GPU_PRIMS_REQUIRE_GPU=1` a missing
/// GPU panics instead, failing the test.
pub fn gpu_or_skip() -> Option<Gpu> {
    match shared_gpu() {
        Ok(gpu) => Some(gpu.clone()),
        Err(e) => {
            let test = std::thread::current()
                .name()
                .unwrap_or("<unnamed test>")
                .to_string();
            if gpu_required() {
                panic!("{REQUIRE_GPU_VAR} is set but no GPU is usable for {test}: {e}");
            }
            // Written to the raw stderr handle, which the harness does not capture, so the skip
            // shows in every run rather than reading as a silent pass.
            let line = format!("SKIPPED {test}: no GPU ({e})\n");
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
            None
        }
    }
}

/// Asserts that every kernel of every pack in `kernels` has its PTX (every archive frame
/// decompresses and matches its hash) and a cubin for each of `archs`, built from that PTX (so
/// those GPUs never JIT). Needs no GPU.
pub fn assert_cubins_complete(kernels: &[&Ptx], archs: &[u32]) {
    for ptx in kernels {
        let names = ptx.kernel_names();
        assert!(!names.is_empty(), "`{}` holds no kernels", ptx.name);
        for name in names {
            let section = ptx.kernel_ptx(name).unwrap_or_else(|e| panic!("{e}"));
            assert!(section.is_some(), "`{}:{name}` has no PTX", ptx.name);
            assert_eq!(
                ptx.cubin_archs(name),
                archs,
                "cubins of `{}:{name}` (run scripts/ptx.sh)",
                ptx.name
            );
        }
    }
}

/// Loads every kernel of `ptx` on `gpu` from its PTX (the JIT path of GPUs without cubins),
/// through a PTX-only twin named `<name>+ptx-only`, and returns how many loaded. Panics on the
/// first kernel that fails.
pub fn preload_from_ptx(gpu: &Gpu, ptx: &Ptx) -> usize {
    let name: &'static str = Box::leak(format!("{}+ptx-only", ptx.name).into_boxed_str());
    let twin = ptx.ptx_only(name);
    let n = gpu
        .preload(&twin)
        .unwrap_or_else(|e| panic!("PTX of `{}`: {e}", ptx.name));
    for kernel in ptx.kernel_names() {
        let k = gpu.kernel(&twin, kernel).unwrap();
        assert_eq!(k.image(), KernelImage::Ptx, "{kernel}");
    }
    n
}

/// The image the default loader picks for `kernel` of `ptx` on `gpu`: a cubin where `ptx`
/// has one for this GPU's architecture, else PTX.
pub fn expected_image(gpu: &Gpu, ptx: &Ptx, kernel: &str) -> KernelImage {
    let (major, minor) = gpu.properties().compute_capability;
    let forced = std::env::var(crate::module::KERNEL_IMAGES_VAR).is_ok_and(|v| v == "ptx");
    ptx.cubin_archs(kernel)
        .into_iter()
        .filter(|a| !forced && a / 10 == major && a % 10 <= minor)
        .max()
        .map_or(KernelImage::Ptx, |arch| KernelImage::Cubin { arch })
}

/// The packs of `kernels` that `gpu` can run: a pack named `<...>_sm<NN>` needs compute
/// capability NN / 10 (as each crate's `preload` decides), the others run everywhere.
pub fn runnable_packs<'a>(gpu: &Gpu, kernels: &[&'a Ptx]) -> Vec<&'a Ptx> {
    let cc = gpu.properties().compute_capability;
    kernels
        .iter()
        .copied()
        .filter(|k| {
            let needs = k
                .name
                .rsplit_once("_sm")
                .and_then(|(_, arch)| arch.parse::<u32>().ok());
            needs.map_or(true, |arch| cc >= (arch / 10, arch % 10))
        })
        .collect()
}

/// A crate's loading contract, for its `tests/kernels.rs`: `first` (a kernel of `kernels[0]`)
/// loads on first use from the image the loader should pick and is then listed as loaded;
/// `preload` loads every kernel `gpu` can run, each exactly once, from the expected image.
pub fn assert_loads_on_first_use_and_by_preload(
    gpu: &Gpu,
    kernels: &[&Ptx],
    first: &str,
    preload: impl FnOnce(&Gpu) -> Result<usize>,
) {
    let kernel = gpu.kernel(kernels[0], first).unwrap();
    assert_eq!(kernel.image(), expected_image(gpu, kernels[0], first));
    assert!(gpu.loaded_kernels(kernels[0]).contains(&first.to_string()));
    let loaded = preload(gpu).unwrap();
    let runnable = runnable_packs(gpu, kernels);
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
            assert_eq!(k.image(), expected_image(gpu, ptx, name), "{name}");
            assert_eq!(
                gpu.module_loads(ptx, name),
                1,
                "{name} loaded more than once"
            );
        }
    }
}

/// Every kernel of every pack `gpu` can run loads from its PTX (see [`preload_from_ptx`]).
pub fn assert_every_pack_loads_from_ptx(gpu: &Gpu, kernels: &[&Ptx]) {
    for ptx in runnable_packs(gpu, kernels) {
        assert_eq!(preload_from_ptx(gpu, ptx), ptx.kernel_names().len());
    }
}
