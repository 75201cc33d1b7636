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
