//! # gpu-reduce
//!
//! Parallel reductions on the GPU — sum, product, min, max, bitwise and/or/xor, argmin/argmax,
//! widening sums, and in-order products of non-commutative monoids — with every classic
//! technique selectable ([`Algorithm`]) and a default that reads at memory bandwidth.
//!
//! ```no_run
//! # #[cfg(feature = "cuda")]
//! # fn main() -> gpu_core::Result<()> {
//! use gpu_core::{Gpu, Op};
//! use gpu_reduce::{Algorithm, DeviceReduce, Reduce};
//!
//! let gpu = Gpu::default_device()?;
//! let x = gpu.upload(&[3.0f32, -1.0, 7.5, -1.0])?;
//! assert_eq!(x.sum()?, 8.5);                       // the default algorithm, on x's device
//! assert_eq!(x.argmin()?, Some(1));                // the first minimum
//!
//! let r = Reduce::new(&gpu);                       // host data is uploaded for you
//! assert_eq!(r.max(&vec![1u32, 9, 4])?, Some(9));
//! assert_eq!(r.sum_wide(&[i32::MAX, 1])?, 1 << 31); // i32 accumulated in i64
//! let h = vec![gpu_core::f16::MAX; 4];             // 16-bit floats sum in f32:
//! assert_eq!(r.sum(&h)?, 4.0 * 65504.0);           // no overflow to infinity
//! let tree = r.clone().algorithm(Algorithm::TwoPass).block_size(512);
//! assert_eq!(tree.reduce(&ndarray::array![[1u64, 2], [3, 4]], Op::Product)?, 24);
//! # Ok(()) }
//! # #[cfg(not(feature = "cuda"))] fn main() {}
//! ```
//!
//! The CPU references have the same semantics and need no GPU:
//!
//! ```
//! use gpu_core::{Mat2, Op};
//! use gpu_reduce::cpu;
//! assert_eq!(cpu::reduce(&[i32::MAX, 1], Op::Sum).unwrap(), i32::MIN); // integer sums wrap
//! assert!(cpu::max(&[1.0, f64::NAN, 3.0]).unwrap().is_nan());         // NaN propagates
//! assert_eq!(cpu::argmax(&[1.0, f64::NAN, 3.0]), Some(1));             // first NaN
//! assert_eq!(cpu::min::<i64>(&[]), None);
//! let (a, b) = (Mat2([1u32, 1, 0, 1]), Mat2([1u32, 0, 1, 1]));
//! assert_ne!(cpu::reduce_monoid(&[a, b]), cpu::reduce_monoid(&[b, a])); // order matters
//! ```
//!
//! ## Semantics (CPU and GPU alike)
//! - Integer sums and products wrap. [`Widen`] accumulates `i32` in `i64`, `u32` in `u64`,
//!   `f32` in `f64` ([`Reduce::reduce_wide`], [`cpu::reduce_wide`]).
//! - `f16` and `bf16` ([`gpu_core::f16`], [`gpu_core::bf16`]) are read into f32, their
//!   [`Element::Accumulator`](gpu_core::Element::Accumulator): `sum`, `product`, `reduce` and
//!   every device-side result are f32 (PyTorch's `sum(dtype=torch.float32)`); `min`, `max`,
//!   `argmin`, `argmax` are exact in the element type. Not in place
//!   ([`Reduce::reduce_in_place`] refuses them).
//! - Float min/max propagate NaN, as [`gpu_core::Element::combine`] does (PyTorch's rule).
//!   argmin/argmax return the index of the first extreme, or of the **first NaN** if there is
//!   one (also PyTorch's rule); ties go to the smaller index, `-0.0` and `0.0` tie.
//! - Empty input: the operator's identity for [`Reduce::reduce`], `sum`, `product`,
//!   `reduce_wide`, `reduce_monoid`; `None` for `min`, `max`, `argmin`, `argmax`. Nothing is
//!   launched.
//! - Bitwise operators apply to integers only; non-commutative monoids need an order-keeping
//!   algorithm ([`Algorithm::keeps_order`]). Unsupported combinations, block sizes and unroll
//!   factors give [`gpu_core::Error::InvalidArgument`], never a panic.
//! - Determinism: every algorithm gives bit-identical results from run to run for the same
//!   input and device, floats included (no atomics accumulate; combine order is fixed by the
//!   length, the launch configuration and the device). The single-block and unrolled ones are
//!   also independent of the device ([`Algorithm::is_device_independent`]). Float results of
//!   different algorithms differ in rounding.
//!
//! ## The default ([`Algorithm::Auto`])
//! One launch on a grid of SMs × resident blocks per SM (occupancy API), capped by what the
//! input needs. Each thread keeps four independent 16-byte loads in flight per iteration of a
//! grid-stride loop over the 16-byte-aligned body (the unaligned head and tail go to the first
//! threads), folds them in registers, then the block reduces with warp shuffles and the last
//! block to finish (the last-block guard) merges the per-block partials in block order. Every
//! operator and type is supported; non-commutative monoids take the order-preserving
//! [`Algorithm::WarpShuffle`] kernel instead (a contiguous chunk per block).
//!
//! ## Layout
//! - [`Algorithm`], [`Operation`]: the techniques and what each accepts.
//! - [`plan`]: launch planning (block sizes, grids, shared memory, unrolled passes).
//! - [`cpu`]: serial and rayon references.
//! - With the `cuda` feature: [`Reduce`] (the builder), [`Input`] / [`DeviceSlice`] (what it
//!   reduces), [`Workspace`] with [`Reduce::reduce_into`] (device-side results on a stream,
//!   without waiting) and [`Reduce::prepare_into`] / [`Prepared`] (planned once, launched
//!   many times: timing loops), shortcuts [`sum`], [`min`], [`argmax`], … and
//!   [`DeviceReduce`] (method syntax on device arrays).
//!
//! See the [guide] (the repository's `docs/reduce.md`) for each algorithm, when to choose it, and the
//! measurements.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
// Without `cuda` the GPU items the docs link to do not exist.
#![cfg_attr(not(feature = "cuda"), allow(rustdoc::broken_intra_doc_links))]

/// The crate's guide (docs/reduce.md: every reduction algorithm explained, when to choose which, measured tables), reproduced from the repository so that it travels with the
/// crate.
#[doc = include_str!("../GUIDE.md")]
pub mod guide {}

mod algorithm;
pub mod cpu;
pub mod plan;
mod value;

pub use algorithm::{Algorithm, Operation};
pub use value::{arg_combine, DeviceMonoid, Extreme, Widen};

#[cfg(feature = "cuda")]
mod gpu;
#[cfg(feature = "cuda")]
mod kernels;
#[cfg(feature = "cuda")]
pub use kernels::{preload, KERNELS};

#[cfg(feature = "cuda")]
pub use gpu::{
    argmax, argmin, max, min, product, reduce, reduce_monoid, sum, sum_wide, DeviceReduce,
    DeviceReduceAxis, Prepared, Reduce, Workspace,
};
/// The input layer lives in gpu-core (every primitive accepts the same inputs); re-exported
/// here where it started.
#[cfg(feature = "cuda")]
pub use gpu_core::{DeviceSlice, Input, Staged};
