//! # gpu-sync
//!
//! Cooperation between the blocks of one CUDA launch, without a grid-wide barrier: the
//! **last-block guard** (`gp::is_last_block`: the block that finishes last, and only it, sees
//! every other block's results, so a reduction needs one launch instead of two) and the
//! **global work queue** (`gp::WorkQueue`: blocks take their next item from a shared atomic
//! cursor when they are free, so uneven items balance themselves). The device side is a
//! header, `gpu_prims/sync.cuh`, for this workspace's kernels and for yours; this crate adds
//! its host side, a persistent-grid launch helper, self-checks, and a demonstration on a
//! heavy-tailed workload.
//!
//! ```no_run
//! # #[cfg(feature = "cuda")]
//! # fn main() -> gpu_core::Result<()> {
//! use gpu_core::{kernel_args, Gpu, Ptx};
//! use gpu_sync::{persistent_config, LastBlockCounter, WorkQueue};
//!
//! // Your kernel, compiled against gpu_sync::write_headers(...) (see the `headers` module):
//! //
//! //   #include <gpu_prims/sync.cuh>
//! //   extern "C" __global__ void weigh(gp::WorkQueue q, const float* items, float* partial,
//! //                                    unsigned int* counter, float* total) {
//! //       __shared__ gp::u64 slot;
//! //       float mine = 0.0f;                          // this block's share
//! //       for (gp::u64 i = q.fetch(&slot); i < q.total; i = q.fetch(&slot))
//! //           if (threadIdx.x == 0) mine += expensive(items[i]);
//! //       if (threadIdx.x == 0) partial[blockIdx.x] = mine;
//! //       if (gp::is_last_block(counter) && threadIdx.x == 0) {   // one block, once
//! //           float t = 0.0f;
//! //           for (unsigned b = 0; b < gridDim.x; ++b) t += gp::load_coherent(&partial[b]);
//! //           *total = t;
//! //       }
//! //   }
//! static MY_PTX: Ptx = Ptx::new("my-crate/weigh", "...PTX text, e.g. include_str! of OUT_DIR...");
//!
//! let gpu = Gpu::default_device()?;
//! let kernel = gpu.kernel(&MY_PTX, "weigh")?;
//! let config = persistent_config(&kernel, 256, 0)?; // SMs × resident blocks per SM
//! let items: Vec<f32> = (0..100_000).map(|i| i as f32).collect();
//! let queue = WorkQueue::new(&gpu, &items)?;
//! let counter = LastBlockCounter::new(&gpu)?;
//! let partial = gpu.zeros::<f32>(config.grid as usize)?;
//! let total = gpu.zeros::<f32>(1)?;
//! // SAFETY: the arguments match `weigh`'s parameters; partial has `grid` elements; every
//! // buffer outlives the launch (we read the results back below, which waits for it).
//! unsafe {
//!     kernel.launch(config, gpu.stream(), &kernel_args![
//!         queue.args(), queue.items_ptr(), partial.device_ptr(),
//!         counter.device_ptr(), total.device_ptr()
//!     ])?;
//! }
//! assert_eq!(queue.taken(gpu.stream())?, 100_000);  // every item handed out once
//! assert_eq!(counter.read(gpu.stream())?, 0);        // ready for the next launch as is
//! println!("total = {}", total.to_vec()?[0]);
//! queue.reset(gpu.stream())?;                        // the queue, however, needs a reset
//! # Ok(()) }
//! # #[cfg(not(feature = "cuda"))] fn main() {}
//! ```
//!
//! What they guarantee, and what they do not (details in the [guide]
//! and in the header's comments):
//! - Neither ever makes a block wait for another block, so neither can deadlock, whatever
//!   the grid size. Blocks of one launch cannot wait for each other: nothing guarantees they
//!   are resident at the same time.
//! - The guard: exactly one block per launch is told it is last, every one of its threads
//!   is told, and it sees every write the other blocks made before calling the guard (read
//!   them with `gp::load_coherent`). The counter must be 0 at the start of the launch; the
//!   last block leaves it at 0. Which block is last is unspecified.
//! - The queue: each item goes to exactly one block, whose threads all get the same index;
//!   nothing about which block, or the order. The cursor must be reset between launches.
//!
//! Layout:
//! - [`headers`]: the device headers' text ([`SYNC_CUH`], [`HEADERS`]) and
//!   [`write_headers`] for a downstream build script.
//! - [`plan`]: persistent grids, [`Schedule`], the kernels' index arithmetic (CPU, tested).
//! - [`cpu`]: the heavy-tailed demonstration workload and its CPU reference.
//! - With the `cuda` feature: `LastBlockCounter`, `WorkQueue`, `persistent_config`,
//!   `Demo` / `run_demo`, `SYNC_PTX` and the `selftest` module.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

/// The crate's guide (docs/sync.md: the last-block guard and the work queue, their contracts, measured tables), reproduced from the repository so that it travels with the
/// crate.
#[doc = include_str!("../GUIDE.md")]
pub mod guide {}

mod args;
pub mod cpu;
pub mod headers;
pub mod plan;

pub use args::WorkQueueArgs;
pub use cpu::{
    cost_summary, demo_item_result, demo_reference, demo_reference_with_setup, demo_table_word,
    heavy_tailed_items, CostSummary, DemoItem, HeavyTail, DEMO_BLOCK, DEMO_LANES, DEMO_TABLE_WORDS,
};
pub use headers::{include_dir, write_headers, HEADERS, SYNC_CUH, TYPES_CUH};
pub use plan::Schedule;

#[cfg(feature = "cuda")]
mod gpu;
#[cfg(feature = "cuda")]
mod kernels;
#[cfg(feature = "cuda")]
pub use kernels::{preload, KERNELS, SYNC_PTX};
#[cfg(feature = "cuda")]
pub mod selftest;

#[cfg(feature = "cuda")]
pub use gpu::{
    persistent_config, persistent_config_capped, run_demo, Demo, DemoRun, LastBlockCounter,
    WorkQueue,
};
