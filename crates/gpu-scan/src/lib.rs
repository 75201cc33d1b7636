//! # gpu-scan
//!
//! Prefix scans (inclusive and exclusive) on the CPU and the GPU: the serial and a rayon
//! scan, the three GPU scans of the prefix-scan report (Hillis–Steele double buffer, Blelloch
//! work-efficient, Blelloch with bank-conflict padding, each on any length through recursively
//! scanned block sums), and the default: a single-pass scan with decoupled look-back that reads
//! and writes every element once.
//!
//! ```no_run
//! # #[cfg(feature = "cuda")]
//! # fn main() -> gpu_core::Result<()> {
//! use gpu_core::{Gpu, Op};
//! use gpu_scan::{Algorithm, Scan};
//!
//! let gpu = Gpu::default_device()?;
//! // Any input in (slices, Vecs, ndarrays, device arrays), the result on the host.
//! let sums = Scan::new(&gpu).scan(&[3i32, 1, 4, 1, 5], Op::Sum)?;
//! assert_eq!(sums, vec![3, 4, 8, 9, 14]);
//!
//! // Builder options, device results, any algorithm and form.
//! let x = gpu.upload(&[2.0f32, 7.0, 1.0, 8.0])?;
//! let mut y = gpu.alloc::<f32>(x.len())?;
//! let maxima = Scan::new(&gpu).exclusive().algorithm(Algorithm::Blelloch).block_size(256);
//! maxima.scan_into(&x, &mut y, Op::Max)?;
//! assert_eq!(y.to_vec()?, vec![f32::NEG_INFINITY, 2.0, 7.0, 7.0]);
//!
//! // On a stream of yours: only enqueued.
//! let stream = gpu.new_stream()?;
//! Scan::new(&gpu).stream(&stream).scan_into(&x, &mut y, Op::Sum)?;
//! stream.synchronize()?;
//! # Ok(()) }
//! # #[cfg(not(feature = "cuda"))] fn main() {}
//! ```
//!
//! `gpu_scan::scan(&gpu, &x, op, &options)` is the one-line form. The shape is the
//! workspace's one API shape, described in gpu-core's guide (`docs/api.md`). `Scanner` (a `&mut` scanner taking
//! [`ScanOptions`] per call) is deprecated and stays for one release.
//!
//! The CPU scans need no GPU and follow the same semantics:
//!
//! ```
//! use gpu_core::Op;
//! use gpu_scan::{cpu, ScanKind};
//!
//! let x = [3u32, 1, 4, 1, 5];
//! assert_eq!(cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap(), vec![3, 4, 8, 9, 14]);
//! assert_eq!(cpu::scan(&x, Op::Sum, ScanKind::Exclusive).unwrap(), vec![0, 3, 4, 8, 9]);
//! assert_eq!(cpu::par_scan(&x, Op::Max, ScanKind::Inclusive).unwrap(), vec![3, 3, 4, 4, 5]);
//! // Integer sums wrap, as on the GPU.
//! assert_eq!(cpu::scan(&[i32::MAX, 1], Op::Sum, ScanKind::Inclusive).unwrap(), vec![i32::MAX, i32::MIN]);
//! ```
//!
//! ## Operators
//! Every [`Op`] on every [`Element`] it applies to (sum, product, min, max for i32, u32, i64,
//! u64, f32, f64; and/or/xor for the integers), plus the non-commutative monoids
//! [`gpu_core::Mat2`] and [`gpu_core::Affine`], whose scans keep sequence order. A first-order
//! linear recurrence `x[t] = a[t]·x[t−1] + b[t]` is solved with an affine scan
//! ([`cpu::linear_recurrence`], and `Scan::linear_recurrence` on the GPU).
//!
//! f16 and bf16 ([`gpu_core::f16`], [`gpu_core::bf16`]): sum, min and max, scanned in f32 (the
//! [`Element::Accumulator`]) and written either rounded once to the element type
//! (`Scan::scan`, as PyTorch's `cumsum`) or as f32 (`Scan::scan_accumulated`, as
//! `cumsum(dtype=torch.float32)`), with the look-back algorithms (the default is deterministic,
//! as for f32), along axes (`Scan::scan_axis`, `scan_axis_accumulated`) and over segments
//! (`Scan::segmented_scan`, `segmented_scan_accumulated`) with the same rule.
//!
//! ## Float determinism
//! A look-back scan combines its predecessors' partial results in an order that depends on
//! timing; float sums and products can then differ in the last bits between runs.
//! [`Algorithm::LookBackDeterministic`] always uses the same grouping (a left fold over tile
//! aggregates), so its results are identical run to run. [`Algorithm::Auto`] picks it for float
//! sums, products and float monoids when [`DETERMINISTIC_FLOATS`] is true (the default), and the
//! plain look-back everywhere else (where grouping cannot change a result). See the [guide].
//!
//! ## Look-back tiles
//! On GPUs of compute capability 8.0 and later, long inputs scan in larger tiles staged through
//! shared memory ([`TileStaging`]): from the device's tuned `scan.staged_from` values on
//! ([`plan::STAGED_MIN_LEN`] on GPUs like the H100, 2^24 on faster memory per SM; block sizes
//! likewise, see `gpu_core::tuning` and `Scan::lookback_plan`). Older GPUs and the
//! matrix/affine monoids use register tiles. [`ScanOptions::staging`] forces either.
//!
//! ## Timing
//! `Scan::stream(&s)` with `scan_into` / `scan_in_place` only enqueue work on a stream (no
//! host synchronisation), for CUDA-event timing; `Scan::block_size` sets the block size of any
//! GPU algorithm (a power of two in 32..=1024) for block-size sweeps.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

/// The crate's guide (docs/scan.md: every scan algorithm explained, float determinism, measured tables), reproduced from the repository so that it travels with the
/// crate.
#[doc = include_str!("../GUIDE.md")]
pub mod guide {}

pub mod cpu;
pub mod plan;

#[cfg(feature = "cuda")]
mod device_scan;
#[cfg(feature = "cuda")]
mod gpu;
#[cfg(feature = "cuda")]
mod host_async;
#[cfg(feature = "cuda")]
mod kernels;
#[cfg(feature = "cuda")]
mod scan;
#[cfg(feature = "cuda")]
mod seeded;
#[cfg(feature = "cuda")]
mod shaped;
#[cfg(feature = "cuda")]
pub use device_scan::DeviceScan;
#[cfg(feature = "cuda")]
pub use kernels::{preload, KERNELS};
#[cfg(feature = "cuda")]
pub use scan::Scan;

#[cfg(feature = "cuda")]
#[allow(deprecated)]
pub use gpu::Scanner;
#[cfg(feature = "cuda")]
pub use gpu::{linear_recurrence, scan, scan_monoid};

use gpu_core::{Affine, Element, Mat2, Monoid, Op};

/// `Ok` when gpu-scan scans `T` with `op` (flat scans): the operator applies to the type, and
/// for f16 and bf16 (scanned in f32) it is one of sum, min and max.
pub(crate) fn check_op<T: Element>(op: Op) -> gpu_core::Result<()> {
    op.check::<T>()?;
    if T::computes_wider() && !matches!(op, Op::Sum | Op::Min | Op::Max) {
        return Err(gpu_core::Error::invalid(
            "op",
            format!(
                "{} scans are sums, minima and maxima (in {}), not `{op}`",
                T::NAME,
                T::Accumulator::NAME
            ),
        ));
    }
    Ok(())
}

/// [`check_op`] for the seeded scans (`scan_from_into`, `scan_from_in_place`), which f16
/// and bf16 do not have: a clear [`gpu_core::Error::InvalidArgument`].
#[cfg(feature = "cuda")]
pub(crate) fn check_op_seeded<T: Element>(op: Op) -> gpu_core::Result<()> {
    check_op::<T>(op)?;
    if T::computes_wider() {
        return Err(gpu_core::Error::invalid(
            "T",
            format!(
                "gpu-scan has no seeded {} scans (scan_from_*; flat, axis and segmented scans \
                 have them); convert to {} first",
                T::NAME,
                T::Accumulator::NAME
            ),
        ));
    }
    Ok(())
}

/// Whether [`Algorithm::Auto`] uses the fixed-order (deterministic) look-back for scans whose
/// result depends on grouping (float sums and products, float matrix and affine monoids).
///
/// Set from measurements: the deterministic look-back is the default when it costs under 10% of
/// bandwidth against the plain look-back (see `docs/scan.md`).
pub const DETERMINISTIC_FLOATS: bool = true;

/// A scan algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// Serial loop on the CPU.
    Serial,
    /// Blocked parallel scan on the CPU with rayon: chunk totals, a scan of the totals, fix-up.
    /// Fixed chunk size, so float results do not depend on the thread count.
    Rayon,
    /// GPU: double-buffered Hillis–Steele scan per block (one value per thread), block sums
    /// scanned recursively and added back.
    HillisSteele,
    /// GPU: Blelloch work-efficient scan per block (two values per thread), same multi-block
    /// scheme.
    Blelloch,
    /// GPU: Blelloch with bank-conflict-avoiding padding (element i at i + i/32).
    BlellochPadded,
    /// GPU: single-pass scan with decoupled look-back (each element read and written once).
    /// Float sums and products may differ in the last bits from run to run.
    LookBack,
    /// GPU: single-pass look-back with a fixed combination order: identical float results run to
    /// run. For operators where grouping cannot change a result it is the plain look-back.
    LookBackDeterministic,
    /// GPU default: [`LookBackDeterministic`](Algorithm::LookBackDeterministic) where grouping
    /// matters and [`DETERMINISTIC_FLOATS`] is set, [`LookBack`](Algorithm::LookBack) otherwise.
    #[default]
    Auto,
}

impl Algorithm {
    /// Every algorithm.
    pub const ALL: [Algorithm; 8] = [
        Algorithm::Serial,
        Algorithm::Rayon,
        Algorithm::HillisSteele,
        Algorithm::Blelloch,
        Algorithm::BlellochPadded,
        Algorithm::LookBack,
        Algorithm::LookBackDeterministic,
        Algorithm::Auto,
    ];

    /// The GPU algorithms.
    pub const GPU: [Algorithm; 6] = [
        Algorithm::HillisSteele,
        Algorithm::Blelloch,
        Algorithm::BlellochPadded,
        Algorithm::LookBack,
        Algorithm::LookBackDeterministic,
        Algorithm::Auto,
    ];

    /// A short lowercase name, for benchmark ids and tables.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Serial => "serial",
            Algorithm::Rayon => "rayon",
            Algorithm::HillisSteele => "hillis_steele",
            Algorithm::Blelloch => "blelloch",
            Algorithm::BlellochPadded => "blelloch_padded",
            Algorithm::LookBack => "lookback",
            Algorithm::LookBackDeterministic => "lookback_det",
            Algorithm::Auto => "auto",
        }
    }

    /// Whether the algorithm runs on the GPU.
    pub const fn is_gpu(self) -> bool {
        !matches!(self, Algorithm::Serial | Algorithm::Rayon)
    }

    /// What [`Auto`](Algorithm::Auto) stands for when grouping can (`exact == false`) or cannot
    /// change the result; other algorithms are returned unchanged.
    pub const fn resolve(self, exact: bool) -> Algorithm {
        match self {
            Algorithm::Auto if !exact && DETERMINISTIC_FLOATS => Algorithm::LookBackDeterministic,
            Algorithm::Auto => Algorithm::LookBack,
            other => other,
        }
    }
}

/// Inclusive (`out[i] = x[0] ∘ … ∘ x[i]`) or exclusive (`out[i] = x[0] ∘ … ∘ x[i−1]`, the
/// identity at 0) scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ScanKind {
    /// `out[i]` includes `x[i]`.
    #[default]
    Inclusive,
    /// `out[i]` stops before `x[i]`; `out[0]` is the identity.
    Exclusive,
}

/// Where the look-back scan ([`Algorithm::LookBack`], [`Algorithm::LookBackDeterministic`],
/// [`Algorithm::Auto`]) and the segmented scans (`Scan::segmented_scan`: staged for sum, prod,
/// min and max of 4- and 8-byte values, whatever the length, under `Auto`) keep each tile;
/// other algorithms ignore it.
///
/// A staged tile keeps part of its values in shared memory, fetched with `cp.async` (compute
/// capability 8.0 and later), so tiles grow to 224 bytes per thread without more registers:
/// larger tiles amortise each tile's fixed latencies. Measured on an H100 at 2^28 i32: 0.95× a
/// device-to-device copy against 0.85× for register tiles (docs/scan.md). f16 and bf16 stage
/// too: runs of 56 values scanned by one thread each for 16-bit results (0.84–0.86× a copy at
/// 2^28 against 0.60–0.65× in registers), 80 values per thread for f32 results.
///
/// ```
/// use gpu_scan::{ScanOptions, TileStaging};
/// // Register tiles everywhere (e.g. to compare with the staged default on a large input).
/// let o = ScanOptions::inclusive().staging(TileStaging::Registers);
/// assert_eq!(o.staging, TileStaging::Registers);
/// assert_eq!(ScanOptions::default().staging, TileStaging::Auto);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TileStaging {
    /// Staged where possible (compute capability 8.0+, element operators) for inputs of at
    /// least the device's tuned `scan.staged_from` values ([`plan::STAGED_MIN_LEN`] on GPUs of
    /// ordinary memory bandwidth per SM); registers otherwise.
    #[default]
    Auto,
    /// Every value in registers (the compute_70 kernels: every GPU, every operator).
    Registers,
    /// Staged; an error on GPUs older than compute capability 8.0 and for the matrix and affine
    /// monoids.
    Staged,
}

impl TileStaging {
    /// A short lowercase name, for benchmark ids and tables.
    pub const fn name(self) -> &'static str {
        match self {
            TileStaging::Auto => "auto",
            TileStaging::Registers => "registers",
            TileStaging::Staged => "staged",
        }
    }
}

/// What to run: form, algorithm, (GPU) block size and look-back tile staging.
///
/// ```
/// use gpu_scan::{Algorithm, ScanKind, ScanOptions};
/// let o = ScanOptions::exclusive().algorithm(Algorithm::BlellochPadded).block_size(128);
/// assert_eq!(o.kind, ScanKind::Exclusive);
/// assert_eq!(ScanOptions::default().algorithm, Algorithm::Auto);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanOptions {
    /// Inclusive or exclusive.
    pub kind: ScanKind,
    /// Which algorithm.
    pub algorithm: Algorithm,
    /// Threads per block for the GPU algorithms (a power of two in 32..=1024); `None` for the
    /// device's tuned look-back blocks (`gpu_core::tuning`'s `scan.*` keys: on GPUs of ordinary
    /// memory bandwidth per SM [`plan::default_lookback_block`] and
    /// [`plan::DEFAULT_STAGED_BLOCK`]) or [`plan::DEFAULT_REPORT_BLOCK`].
    pub block_size: Option<u32>,
    /// Where the look-back scan and the segmented scans keep their tiles.
    pub staging: TileStaging,
    /// Whether host-to-host scans (`Scan::scan` of a host slice, `Scan::scan_to_slice`;
    /// look-back algorithms; `Scan::scan_axis` of a host array, see there) stream through the
    /// device in overlapped chunks
    /// (`gpu_core::Gpu::host_pipeline`); from 32 MiB of input on by default
    /// ([`gpu_core::Pipelining::Auto`]).
    pub pipelining: gpu_core::Pipelining,
}

impl ScanOptions {
    /// Inclusive scan with the default algorithm.
    pub fn inclusive() -> Self {
        ScanOptions::default()
    }

    /// Exclusive scan with the default algorithm.
    pub fn exclusive() -> Self {
        ScanOptions {
            kind: ScanKind::Exclusive,
            ..ScanOptions::default()
        }
    }

    /// The same options with another form.
    pub fn kind(mut self, kind: ScanKind) -> Self {
        self.kind = kind;
        self
    }

    /// The same options with another algorithm.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// The same options with a block size (checked when the scan runs).
    pub fn block_size(mut self, block: u32) -> Self {
        self.block_size = Some(block);
        self
    }

    /// The same options with another look-back tile staging (checked when the scan runs).
    pub fn staging(mut self, staging: TileStaging) -> Self {
        self.staging = staging;
        self
    }

    /// The same options with another choice of host pipeline for host-to-host scans.
    pub fn pipelining(mut self, pipelining: gpu_core::Pipelining) -> Self {
        self.pipelining = pipelining;
        self
    }
}

/// Whether every grouping of `op` over `T` gives the same result: true for integers (wrapping
/// arithmetic is associative) and for min/max; false for float sums and products.
pub fn is_exact<T: Element>(op: Op) -> bool {
    !T::IS_FLOAT || matches!(op, Op::Min | Op::Max)
}

/// The algorithm [`Algorithm::Auto`] runs for `op` over `T`.
pub fn auto_algorithm<T: Element>(op: Op) -> Algorithm {
    Algorithm::Auto.resolve(is_exact::<T>(op))
}

mod sealed {
    pub trait Sealed {}
    pub trait Real {}
    impl Real for f32 {}
    impl Real for f64 {}
}

/// The monoids the GPU scans: [`Mat2<T>`] and [`Affine<T>`] over the six element types.
/// (The CPU scans accept any [`Monoid`].)
pub trait ScanMonoid: Monoid + sealed::Sealed {
    /// Whether every grouping gives the same result (integer element types).
    const EXACT: bool;
}

impl<T: Element> sealed::Sealed for Mat2<T> where Mat2<T>: Monoid {}
impl<T: Element> ScanMonoid for Mat2<T>
where
    Mat2<T>: Monoid,
{
    const EXACT: bool = !T::IS_FLOAT;
}
impl<T: Element> sealed::Sealed for Affine<T> where Affine<T>: Monoid {}
impl<T: Element> ScanMonoid for Affine<T>
where
    Affine<T>: Monoid,
{
    const EXACT: bool = !T::IS_FLOAT;
}

/// The float element types of the linear recurrence: f32 and f64.
pub trait Real: Element + sealed::Real {}
impl Real for f32 {}
impl Real for f64 {}
