//! # gpu-dist
//!
//! Arrays split in shards across devices, and the workspace's primitives run over the shards
//! as over the concatenated data. A device may hold several shards: that is how the sharded
//! algorithms run (and are tested) on one GPU, and how a user tries them on a laptop.
//!
//! ```no_run
//! # #[cfg(feature = "cuda")]
//! # fn main() -> gpu_core::Result<()> {
//! use gpu_core::{Gpu, Op};
//! use gpu_dist::{InProcess, ShardLayout, ShardedArray, ShardedReduce};
//!
//! let gpu = Gpu::default_device()?;
//! let x: Vec<i64> = (1..=1000).collect();
//! // Four shards on one GPU (on a machine with four GPUs: one per device).
//! let devices = vec![gpu.clone(); 4];
//! let a = ShardedArray::from_host(&devices, &x, ShardLayout::even(x.len(), 4)?)?;
//! let comm = InProcess::new(4);
//! assert_eq!(ShardedReduce::new(&comm).reduce(&a, Op::Sum)?, 500_500);
//! assert_eq!(a.to_vec()?, x);
//! # Ok(()) }
//! # #[cfg(not(feature = "cuda"))] fn main() {}
//! ```
//!
//! ## What exists
//! - [`ShardLayout`]: an even split or given counts (empty shards allowed), and which shard
//!   holds an element.
//! - [`Communicator`], the one trait the sharded algorithms talk through, and its transports:
//!   [`InProcess`] (every rank driven by this process) and `Nccl` (feature `nccl`: NCCL through
//!   cudarc, loaded at run time, non-blocking with a timeout).
//! - `ShardedArray` (feature `cuda`): shards uploaded from a host slice, taken from
//!   per-device arrays, generated or filled on the devices, or allocated for outputs; a process
//!   may hold only its own ranks' shards (one process per GPU over NCCL); gathered back, every
//!   transfer one thread per shard.
//! - `ShardedReduce` (feature `cuda`): every reduction of gpu-reduce (each operator, widening,
//!   `Mat2`/`Affine` monoids in sequence order, min/max, argmin/argmax with the single-GPU
//!   tie and NaN rules). Each shard reduces locally with gpu-reduce's default algorithm; the
//!   partials are all-gathered and [combined in rank order](combine), so exact operators give
//!   the single-GPU value, ordered monoids keep their order, and float sums are grouped by
//!   shards: the same bits on every run and every rank for a given layout.
//! - `ShardedScan` (feature `cuda`): inclusive and exclusive scans of every operator and the
//!   `Mat2`/`Affine` monoids, into new arrays, into given ones or in place: each shard's total,
//!   the totals scanned in rank order, each shard scanned from its offset (gpu-scan's
//!   `scan_from_into`: one pass for sums); shards sharing one device are chained instead (each
//!   from the last prefix of the one before: one pass, no totals).
//! - `ShardedConv1d` (feature `cuda`): correlation and convolution in every mode and boundary;
//!   a long shard runs the plain `same` convolution over itself and recomputes its edges from
//!   its neighbours' halos ([`halo::ConvGeometry`]: peer copies between devices of this
//!   process, windows kept between calls); ranks of other processes send their halos through
//!   the communicator.
//!
//! Not built yet (see the [guide]): halos between processes by NCCL send/receive (they go
//! through an all-gather of every rank's edges via the host), one-pass seeded scans for the
//! operators other than sum, 16-bit sharded scans.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

/// The crate's guide (docs/dist.md: each sharded algorithm, its guarantees, measured tables and
/// what is still to build), reproduced from the repository so that it travels with the crate.
#[doc = include_str!("../GUIDE.md")]
pub mod guide {}

pub mod combine;
mod comm;
#[cfg(feature = "cuda")]
mod conv1d;
pub mod halo;
mod layout;
#[cfg(feature = "nccl")]
mod nccl;
#[cfg(feature = "cuda")]
mod reduce;
#[cfg(feature = "cuda")]
mod scan;
#[cfg(feature = "cuda")]
mod sharded;

#[cfg(feature = "cuda")]
pub use comm::DeviceBytes;
pub use comm::{all_gather_values, Communicator, InProcess};
#[cfg(feature = "cuda")]
pub use conv1d::ShardedConv1d;
pub use layout::ShardLayout;
#[cfg(feature = "nccl")]
pub use nccl::{Nccl, NcclId, DEFAULT_TIMEOUT, NCCL_ID_VAR};
#[cfg(feature = "cuda")]
pub use reduce::ShardedReduce;
#[cfg(feature = "cuda")]
pub use scan::ShardedScan;
#[cfg(feature = "cuda")]
pub use sharded::ShardedArray;
