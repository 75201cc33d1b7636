//! # gpu-core
//!
//! The base the gpu-prims crates stand on: element types and operators with their CPU
//! semantics (always available), and, with the `cuda` feature, the device handle `Gpu`,
//! typed device arrays `DeviceArray`, launch planning, kernel loading on first use (per-kernel
//! PTX and cubins embedded by each crate), GPU
//! timing and the one [`Error`] type.
//!
//! ```no_run
//! # #[cfg(feature = "cuda")]
//! # fn main() -> gpu_core::Result<()> {
//! use gpu_core::Gpu;
//! let gpu = Gpu::default_device()?;
//! let x = gpu.upload(&[1.0f32, 2.0, 3.0])?;        // host → device
//! assert_eq!(x.to_vec()?, vec![1.0, 2.0, 3.0]);      // device → host
//! let p = gpu.properties();
//! println!("{}: {} SMs, {} KiB L2", p.name, p.sm_count, p.l2_cache / 1024);
//! # Ok(()) }
//! # #[cfg(not(feature = "cuda"))] fn main() {}
//! ```
//!
//! Operators follow one set of rules everywhere, CPU and GPU alike: integer sums and products
//! wrap, float min/max propagate NaN, bitwise operators apply to integers only.
//!
//! ```
//! use gpu_core::{Element, Op};
//! assert_eq!(i32::combine(Op::Sum, i32::MAX, 1), i32::MIN);
//! assert!(Op::BitAnd.check::<f32>().is_err());
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

/// The crate's guide (docs/api.md, docs/loading.md, docs/errors.md, docs/host-link.md and docs/tuning.md: the one API shape every primitive follows, how kernels load, what a user sees when the GPU fails, the host pipeline, and tuning per device), reproduced from the repository so that it travels with the
/// crate.
#[doc = include_str!("../GUIDE.md")]
pub mod guide {}

pub mod data;
mod driver_code;
mod driver_code_table;
mod element;
mod error;
#[cfg(any(test, feature = "fault-injection"))]
pub mod fault_injection;
mod kernel_archive;
mod kernel_pack;
mod lane_boxes;
mod lanes;
pub mod launch;
mod lookback;
mod monoid;
mod op;
mod pending;
mod pipelining;
mod shape;
pub mod tuning;

pub use driver_code::{DriverCode, DriverCodeKind};
pub use element::{Element, Pod};
pub use error::{Error, Result};
/// The 16-bit float element types (the `half` crate's).
pub use half::{bf16, f16};
pub use host_alloc::{host_output_array, host_output_vec};
pub use kernel_pack::{Cubins, EmbeddedBytes, KernelImage, Ptx};
pub use lane_boxes::lane_boxes;
pub use lanes::{
    axis_lanes, axis_lanes_pair, check_no_alias, segment_tile_bounds, AxisLanes, ColumnLanes,
    LaneAccess, LaneBatches, LanePlan, LaneTiling, SegmentLanes, SegmentPairLanes, SegmentTiles,
    COLUMN_LONG_ROWS, COLUMN_ROWS, COLUMN_STAGED_ROWS, LANES_BLOCK,
};
pub use launch::{check_block_size, grid_for, LaunchConfig};
pub use lookback::{epoch_status_words, StatusLayout};
pub use monoid::{Affine, Mat2, Monoid};
pub use op::Op;
pub use pending::Pending;
pub use pipelining::{
    aligned_count, Pipelining, PIPELINE_CHUNK_BYTES, PIPELINE_MIN_BYTES, PIPELINE_RING_SLOTS,
};
pub use shape::{check_axis, check_offsets};
pub use tuning::{DeviceProfile, Tuning};

// The GPU side, bottom layer first: each module imports only from those above it here.
#[cfg(feature = "cuda")]
mod array_nd;
#[cfg(feature = "cuda")]
mod context;
#[cfg(feature = "cuda")]
mod copy_crew;
#[cfg(feature = "cuda")]
mod device;
#[cfg(feature = "cuda")]
pub mod driver;
#[cfg(feature = "cuda")]
mod exit;
#[cfg(feature = "cuda")]
mod fill;
mod host_alloc;
#[cfg(feature = "cuda")]
mod host_pipeline;
#[cfg(feature = "cuda")]
mod input;
#[cfg(feature = "cuda")]
mod kernel_cache;
#[cfg(feature = "cuda")]
mod layout;
#[cfg(feature = "cuda")]
mod memory;
#[cfg(feature = "cuda")]
mod module;
#[cfg(feature = "cuda")]
mod occupancy;
#[cfg(feature = "cuda")]
mod segments;
#[cfg(feature = "cuda")]
mod staging;
#[cfg(feature = "cuda")]
mod stream;
#[cfg(feature = "cuda")]
pub mod testing;
#[cfg(feature = "cuda")]
mod timer;

#[cfg(feature = "cuda")]
pub use array_nd::{DeviceArrayD, HostNd, ShapedInput, StagedNd};
#[cfg(feature = "cuda")]
pub use device::{DeviceProperties, Gpu};
#[cfg(feature = "cuda")]
pub use exit::on_exit;
#[cfg(feature = "cuda")]
pub use fill::KERNELS;
#[cfg(feature = "cuda")]
pub use host_pipeline::PipelineStep;
#[cfg(feature = "cuda")]
pub use input::{DeviceSlice, Input, Staged};
#[cfg(feature = "cuda")]
pub use layout::enqueue_layout_copy_at;
#[cfg(feature = "cuda")]
pub use memory::{DeviceArray, PinnedBuffer};
#[cfg(feature = "cuda")]
pub use module::{Kernel, KERNEL_IMAGES_VAR};
#[cfg(feature = "cuda")]
pub use segments::{LongSegments, SegmentOffsets, Segments, ShortSegmentLayout};
#[cfg(feature = "cuda")]
pub use stream::{Event, Stream};
#[cfg(feature = "cuda")]
pub use timer::{GpuTimer, Timings};
