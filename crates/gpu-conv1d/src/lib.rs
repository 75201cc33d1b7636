//! # gpu-conv1d
//!
//! 1-D convolution and cross-correlation of `f32` / `f64` / `f16` / `bf16` signals on the GPU
//! (16-bit signals summed in `f32`, see [`Real`]), with the output modes of `numpy.convolve` /
//! `scipy.signal` (`full`, `same`, `valid`), the boundary modes of `scipy.ndimage` for the
//! elements past the ends, batches of rows in one launch, and the kernels of [`Strategy`]: the
//! chapter's basic kernel, its constant-memory mask, its two tiling strategies, the register-tiled
//! FMA kernels, and tensor cores for long masks; [`Strategy::Auto`] picks among the last two.
//!
//! ```no_run
//! # #[cfg(feature = "cuda")]
//! # fn main() -> gpu_core::Result<()> {
//! use gpu_conv1d::{correlate, Boundary, Conv1d, Mode, Options, Strategy};
//! let gpu = gpu_core::Gpu::default_device()?;
//! let signal: Vec<f32> = (0..1 << 20).map(|i| (i % 17) as f32).collect();
//! let mask = [0.25f32, 0.5, 0.25];
//!
//! // One call: P[i] = Σ_j N[i − 1 + j]·M[j], ghost elements 0 (the chapter's form).
//! let smoothed = correlate(&gpu, &signal, &mask, Options::default())?;
//! assert_eq!(smoothed.len(), signal.len());
//!
//! // Prepared once (the mask uploaded), run many times; builder options, any input.
//! let conv = Conv1d::convolution(&gpu, &mask, Options::default())?
//!     .mode(Mode::Same)
//!     .boundary(Boundary::Reflect)
//!     .strategy(Strategy::Auto);
//! let x = gpu.upload(&signal)?;
//! let mut y = gpu.alloc::<f32>(conv.output_len(x.len())?)?;
//! conv.run_into(&x, &mut y)?;                  // device result, waited for
//! let stream = gpu.new_stream()?;
//! let on_stream = conv.stream(&stream);
//! on_stream.run_into(&x, &mut y)?;             // enqueued only: no host synchronisation
//! stream.synchronize()?;
//! # Ok(()) }
//! # #[cfg(not(feature = "cuda"))] fn main() {}
//! ```
//!
//! The CPU versions in [`cpu`] (serial and rayon) have the same semantics and are always built:
//!
//! ```
//! use gpu_conv1d::{cpu, Boundary, Mode};
//! let x = [1.0f64, 2.0, 3.0, 4.0];
//! // numpy.correlate(x, [1, 0, -1], 'same') == [-2, -2, -2, 3]
//! assert_eq!(cpu::correlate(&x, &[1.0, 0.0, -1.0], Mode::Same, Boundary::Zero)?, [-2.0, -2.0, -2.0, 3.0]);
//! // numpy.convolve(x, [1, 0, -1], 'valid') == [2, 2]
//! assert_eq!(cpu::convolve(&x, &[1.0, 0.0, -1.0], Mode::Valid, Boundary::Zero)?, [2.0, 2.0]);
//! // 'same' with the ends replicated instead of zero-padded
//! assert_eq!(cpu::correlate(&x, &[1.0, 0.0, -1.0], Mode::Same, Boundary::Nearest)?, [-1.0, -2.0, -2.0, -1.0]);
//! # Ok::<(), gpu_core::Error>(())
//! ```
//!
//! ## Semantics
//!
//! *Correlation* (the chapter's reference, `numpy.correlate`, `scipy.signal.correlate`) of a
//! signal `x` of `n` elements with a mask `m` of `w` elements is
//! `y[o] = Σ_{j<w} X(o + off + j)·m[j]`; *convolution* (`numpy.convolve`,
//! `scipy.signal.convolve`) is the correlation with the mask reversed. `X` is `x` extended past
//! its ends by the [`Boundary`] mode, `off` and the output length come from the [`Mode`]:
//!
//! | mode | length | `off` | `y[0]` is centred on |
//! | --- | --- | --- | --- |
//! | [`Mode::Full`] | `n + w − 1` | `−(w − 1)` | every overlap, first one element |
//! | [`Mode::Same`] | `n` | `−⌊w/2⌋` | `x[0]` under mask element `⌊w/2⌋` |
//! | [`Mode::Valid`] | `n − w + 1` | `0` | the first full overlap |
//!
//! For an even `w` the mask "centre" is element `w/2`, so `same` takes one more element from
//! the left of `x` than from the right (`w/2` before, `w/2 − 1` after) for a correlation, and —
//! the mask being reversed — one more from the right for a convolution: exactly
//! `numpy.correlate` / `numpy.convolve` / `scipy.signal.{correlate,convolve}` with `'same'`.
//! (`scipy.ndimage.convolve1d` shifts even masks the other way; it agrees with the odd ones.)
//! `same` always has `n` elements, as in `scipy.signal`, also when the mask is longer than the
//! signal (`numpy.convolve` returns `max(n, w)` elements then). The boundary mode applies
//! wherever a window reaches past the signal — `same` and `full`; `valid` never does.
//!
//! Errors ([`gpu_core::Error::InvalidArgument`]): an empty mask; `valid` with a signal shorter
//! than the mask; a mask too long for the constant-memory strategies
//! ([`constant_capacity`]); a tile that is not a power of two in 32..=1024. An empty signal gives
//! an empty result (in every mode).
//!
//! ## Strategies
//!
//! See [`Strategy`], and the [guide] (`docs/conv1d.md`) for the memory-traffic analysis of each. The
//! constant-memory strategies share one `__constant__` buffer per device context, so their
//! launches are serialised on the device (each waits, on its stream, for the previous one to
//! finish; the host never blocks); [`Strategy::Auto`] and [`Strategy::Basic`] run concurrently
//! on any number of streams.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

/// The crate's guide (docs/conv1d.md: every strategy's memory traffic, the default's design, measured tables), reproduced from the repository so that it travels with the
/// crate.
#[doc = include_str!("../GUIDE.md")]
pub mod guide {}

pub mod cpu;
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
mod fft;
mod plan;
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
mod tensor;

#[cfg(feature = "cuda")]
mod axis;
#[cfg(feature = "cuda")]
mod constant;
#[cfg(feature = "cuda")]
mod cufft;
#[cfg(feature = "cuda")]
mod gpu;
#[cfg(feature = "cuda")]
mod host;
#[cfg(feature = "cuda")]
mod host_async;
#[cfg(feature = "cuda")]
mod kernels;
#[cfg(feature = "cuda")]
mod outer_host;
#[cfg(feature = "cuda")]
mod rows_host;
#[cfg(feature = "cuda")]
mod slices_host;

pub use fft::{
    cufft_size, fft_max_size, fft_max_width, fft_pad, fft_pair_max, fft_part_width, fft_parts,
    fft_size, fft_tile, CUFFT_MIN_SIZE, FFT_EVEN_ODD_MIN, FFT_MAX_PARTS, FFT_SIZES,
};
pub use plan::{
    auto_fixed_tile, auto_tile, constant_capacity, cufft_min_width, fft_min_width, output_len,
    tensor_min_width, warpgroup_fft_min_width, warpgroup_min_width, wide_tile_widths, Path,
    AUTO_BLOCK, AUTO_FIXED_BLOCK, AUTO_FIXED_WIDTHS, CONSTANT_MASK_BYTES, DEFAULT_TILE,
    FFT_EVEN_ODD_FROM, TENSOR_LONG_ROW, TENSOR_MIN_WIDTH_LONG_ROWS, WARPGROUP_LONG_ROW,
    WARPGROUP_MIN_WIDTH_LONG_ROWS, WIDE_TILE_FROM_ORDINARY, WIDE_TILE_OUTPUTS_PER_THREAD,
    WIDE_TILE_OUTPUTS_PER_THREAD_16, WIDE_TILE_WIDTHS, WIDE_TILE_WIDTHS_16,
};
pub use tensor::{TENSOR_MAX_WIDTH, WARPGROUP_MAX_WIDTH};

#[cfg(feature = "cuda")]
pub use cufft::cufft_available;
#[cfg(feature = "cuda")]
pub use gpu::{convolve, convolve_rows, correlate, correlate_rows, Conv1d};
#[cfg(feature = "cuda")]
pub use kernels::{preload, KERNELS, PTX};

use std::ops::{Add, Mul, Neg, Sub};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for gpu_core::f16 {}
    impl Sealed for gpu_core::bf16 {}
}

/// The element types of this crate: `f32`, `f64`, and the 16-bit floats
/// [`f16`](gpu_core::f16) and [`bf16`](gpu_core::bf16).
///
/// Products are summed in [`Real::Wide`]: the type itself for `f32` and `f64`, `f32` for the
/// 16-bit floats (as PyTorch computes its half-precision convolutions). A 16-bit mask is widened
/// once, when a `Conv1d` is built, and each output is rounded to the element type once, at
/// the end.
///
/// ```
/// use gpu_conv1d::{cpu, Boundary, Mode, Real};
/// use gpu_core::bf16;
/// let x: Vec<bf16> = [1.0f32, 2.0, 3.0, 4.0].map(bf16::from_f32).to_vec();
/// let m = [bf16::from_f32(0.5); 2];
/// let y = cpu::correlate(&x, &m, Mode::Valid, Boundary::Zero)?;
/// assert_eq!(y.iter().map(|v| v.widen()).collect::<Vec<f32>>(), [1.5, 2.5, 3.5]);
/// # Ok::<(), gpu_core::Error>(())
/// ```
pub trait Real:
    gpu_core::Element
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + sealed::Sealed
{
    /// The type products are summed in (and the mask is kept in on the device): `Self`, or
    /// `f32` for `f16` and `bf16`. The same type as [`gpu_core::Element::Accumulator`].
    type Wide: Real;
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Machine epsilon (the gap between 1 and the next value), for tolerances.
    const EPSILON: Self;
    /// |self|.
    fn abs(self) -> Self;
    /// Whether the value is neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// The value in [`Real::Wide`] (exact).
    fn widen(self) -> Self::Wide;
    /// A [`Real::Wide`] value rounded to `Self` (to nearest even; the identity for `f32` and
    /// `f64`).
    fn narrow(wide: Self::Wide) -> Self;
    /// `values` as [`Real::Wide`] values without a copy, where they already are (`f32`, `f64`).
    #[doc(hidden)]
    fn as_wide(values: &[Self]) -> Option<&[Self::Wide]>;
    /// Appends `values`, widened, to `out` (in bulk: F16C / SIMD conversions for the halves).
    #[doc(hidden)]
    fn widen_into(values: &[Self], out: &mut Vec<Self::Wide>);
}

macro_rules! real_float {
    ($t:ty) => {
        impl Real for $t {
            type Wide = Self;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const EPSILON: Self = <$t>::EPSILON;
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn widen(self) -> Self {
                self
            }
            fn narrow(wide: Self) -> Self {
                wide
            }
            fn as_wide(values: &[Self]) -> Option<&[Self]> {
                Some(values)
            }
            fn widen_into(values: &[Self], out: &mut Vec<Self>) {
                out.extend_from_slice(values);
            }
        }
    };
}
real_float!(f32);
real_float!(f64);

macro_rules! real_half {
    ($t:ty) => {
        impl Real for $t {
            type Wide = f32;
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            const EPSILON: Self = <$t>::EPSILON;
            fn abs(self) -> Self {
                <$t>::from_bits(self.to_bits() & 0x7fff)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn widen(self) -> f32 {
                self.to_f32()
            }
            fn narrow(wide: f32) -> Self {
                <$t>::from_f32(wide)
            }
            fn as_wide(_: &[Self]) -> Option<&[f32]> {
                None
            }
            fn widen_into(values: &[Self], out: &mut Vec<f32>) {
                use half::slice::HalfFloatSliceExt;
                let start = out.len();
                out.resize(start + values.len(), 0.0);
                values.convert_to_f32_slice(&mut out[start..]);
            }
        }
    };
}
real_half!(gpu_core::f16);
real_half!(gpu_core::bf16);

/// Correlation (the chapter's `P[i] = Σ_j N[i − r + j]·M[j]`) or true convolution (the same
/// with the mask reversed), as `numpy.correlate` vs `numpy.convolve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Operation {
    /// `y[o] = Σ_j X(o + off + j)·m[j]`: the mask slides unreversed (`numpy.correlate`).
    #[default]
    Correlation,
    /// `y[o] = Σ_j X(o + off + j)·m[w − 1 − j]`: the mask is reversed (`numpy.convolve`).
    Convolution,
}

impl Operation {
    /// The mask as the kernels apply it: unchanged for a correlation, reversed for a
    /// convolution. Fails on an empty mask.
    pub fn effective_mask<T: Copy>(self, mask: &[T]) -> gpu_core::Result<Vec<T>> {
        plan::check_mask(mask.len())?;
        Ok(match self {
            Operation::Correlation => mask.to_vec(),
            Operation::Convolution => mask.iter().rev().copied().collect(),
        })
    }
}

/// Output mode: which outputs of the sliding product are kept (numpy / scipy.signal names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Every position where mask and signal overlap: `n + w − 1` outputs.
    Full,
    /// `n` outputs centred like the input (mask centre `⌊w/2⌋`): the chapter's output.
    #[default]
    Same,
    /// Only positions where the mask lies entirely inside the signal: `n − w + 1` outputs.
    Valid,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 3] = [Mode::Full, Mode::Same, Mode::Valid];

    /// Lower-case name, as numpy spells it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Same => "same",
            Mode::Valid => "valid",
        }
    }

    /// Input position under mask element 0 for output 0 (`off` in `y[o] = Σ_j X(o + off + j)·m[j]`).
    pub fn offset(self, mask_len: usize) -> i64 {
        plan::offset(self, mask_len)
    }
}

/// What a window reads past the ends of the signal (scipy.ndimage names).
///
/// For `x = [a, b, c, d]`:
///
/// | mode | left of `x` | right of `x` | also known as |
/// | --- | --- | --- | --- |
/// | [`Zero`](Boundary::Zero) | `0 0 0` | `0 0 0` | ndimage `constant` (cval 0); numpy's and the chapter's ghost elements |
/// | [`Nearest`](Boundary::Nearest) | `a a a` | `d d d` | clamp, replicate (`numpy.pad` `edge`) |
/// | [`Reflect`](Boundary::Reflect) | `c b a` | `d c b` | half-sample symmetric (`numpy.pad` `symmetric`) |
/// | [`Mirror`](Boundary::Mirror) | `d c b` | `c b a` | whole-sample symmetric (`numpy.pad` `reflect`) |
/// | [`Wrap`](Boundary::Wrap) | `b c d` | `a b c` | periodic |
///
/// Far from the signal (masks longer than it) the patterns repeat, as in `scipy.ndimage`:
/// reflect has period `2n`, mirror `2n − 2` (a one-element signal repeats), wrap `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Boundary {
    /// Ghost elements are 0.
    #[default]
    Zero,
    /// The nearest end element.
    Nearest,
    /// Reflection about the edge, the edge element repeated (`d c b a | a b c d | d c b a`).
    Reflect,
    /// Reflection about the edge element, not repeated (`d c b | a b c d | c b a`).
    Mirror,
    /// The signal repeated periodically.
    Wrap,
}

impl Boundary {
    /// Every boundary mode.
    pub const ALL: [Boundary; 5] = [
        Boundary::Zero,
        Boundary::Nearest,
        Boundary::Reflect,
        Boundary::Mirror,
        Boundary::Wrap,
    ];

    /// The scipy.ndimage name (`constant` for [`Boundary::Zero`]).
    pub fn name(self) -> &'static str {
        match self {
            Boundary::Zero => "constant",
            Boundary::Nearest => "nearest",
            Boundary::Reflect => "reflect",
            Boundary::Mirror => "mirror",
            Boundary::Wrap => "wrap",
        }
    }

    /// The element of a signal of `n ≥ 1` elements that position `p` reads, or `None` for a
    /// zero ghost element. Positions inside the signal read themselves.
    ///
    /// ```
    /// use gpu_conv1d::Boundary;
    /// let at = |b: Boundary, p| b.index(p, 4);
    /// assert_eq!([-2, -1, 4, 5].map(|p| at(Boundary::Reflect, p)), [Some(1), Some(0), Some(3), Some(2)]);
    /// assert_eq!([-2, -1, 4, 5].map(|p| at(Boundary::Mirror, p)), [Some(2), Some(1), Some(2), Some(1)]);
    /// assert_eq!([-2, 4].map(|p| at(Boundary::Zero, p)), [None, None]);
    /// ```
    pub fn index(self, p: i64, n: usize) -> Option<usize> {
        let n = n as i64;
        if (0..n).contains(&p) {
            return Some(p as usize);
        }
        if n == 0 {
            return None;
        }
        let q = match self {
            Boundary::Zero => return None,
            Boundary::Nearest => p.clamp(0, n - 1),
            Boundary::Reflect => {
                let m = p.rem_euclid(2 * n);
                if m < n {
                    m
                } else {
                    2 * n - 1 - m
                }
            }
            Boundary::Mirror => {
                if n == 1 {
                    0
                } else {
                    let m = p.rem_euclid(2 * n - 2);
                    if m < n {
                        m
                    } else {
                        2 * n - 2 - m
                    }
                }
            }
            Boundary::Wrap => p.rem_euclid(n),
        };
        Some(q as usize)
    }

    /// The code the kernels take (`gpu_prims/conv1d_boundary.cuh`).
    pub fn code(self) -> i32 {
        match self {
            Boundary::Zero => 0,
            Boundary::Nearest => 1,
            Boundary::Reflect => 2,
            Boundary::Mirror => 3,
            Boundary::Wrap => 4,
        }
    }
}

/// Which kernel computes the convolution. All give the same results up to rounding: the direct
/// ones sum `j` in increasing order with fused multiply-adds, tensor cores in another order, the
/// FFT path through transforms.
///
/// | strategy | mask | inputs | kernel |
/// | --- | --- | --- | --- |
/// | [`Basic`](Strategy::Basic) | global memory | global memory, one thread per output | `conv1d_basic_T` |
/// | [`ConstantMask`](Strategy::ConstantMask) | `__constant__` | global memory, one thread per output | `conv1d_constant_T` |
/// | [`TiledHalo`](Strategy::TiledHalo) | `__constant__` | tile + both halos staged in shared memory | `conv1d_tiled_halo_T` |
/// | [`TiledCached`](Strategy::TiledCached) | `__constant__` | tile in shared memory, halo through L1/L2 | `conv1d_tiled_cached_T` |
/// | [`Auto`](Strategy::Auto), width in [`AUTO_FIXED_WIDTHS`] | kernel parameter (uniform registers) | register tiling compiled for the width: 16 (f32, f16, bf16) / 8 (f64) outputs per thread | `conv1d_auto_w<W>_T` |
/// | [`Auto`](Strategy::Auto), f32, width in [`WIDE_TILE_WIDTHS`], rows of at least the `conv1d.wide_tile_from` tuning key | as above | the same kernel with 24 outputs per thread (the same bits) | `conv1d_auto_wide_w<W>_f32` |
/// | [`Auto`](Strategy::Auto) on FMAs, f16 / bf16, width in [`WIDE_TILE_WIDTHS_16`], rows of at least the `conv1d.half_wide_tile_from` tuning key | as above | the same kernel with 32 outputs per thread (the same bits) | `conv1d_auto_wide_w<W>_f16`, `_bf16` |
/// | [`Auto`](Strategy::Auto), other widths | shared memory (broadcast) | register tiling: 16 (f32, f16, bf16) / 8 (f64) outputs per thread | `conv1d_auto_T` |
/// | [`RegisterTiled`](Strategy::RegisterTiled) | as `Auto` | `Auto`'s FMA kernels for every row length and width | `conv1d_auto_w<W>_T`, `conv1d_auto_wide_w<W>_T`, `conv1d_auto_T` |
/// | [`TensorCore`](Strategy::TensorCore) (f16, bf16, f32 as 3×TF32; compute capability 8.0+) | Toeplitz fragments in registers (through L1) | tile staged in shared memory, `mma.sync` products | `conv1d_tensor_T` |
/// | [`Warpgroup`](Strategy::Warpgroup) (f16, bf16; compute capability 9.0) | reversed Toeplitz rows in shared memory | tile staged in shared memory, `wgmma` products of 64 × 64 outputs | `conv1d_wgmma_T` |
/// | [`Fft`](Strategy::Fft) (masks up to [`fft_max_width`]) | its spectrum, computed once per size (through L1/L2) | two tiles of `N − w + 1` outputs per block, one complex FFT of `N` points forward and one back in shared memory and registers (overlap-save) | `conv1d_fft<N>_T` |
/// | [`Fft`](Strategy::Fft), longer masks (cuFFT, [`cufft_size`]) | its spectrum, made by cuFFT once per segment size | segments of `N − w + 1` outputs gathered into a batch, batched cuFFT transforms forward and back around the product (overlap-save, five passes over the batch) | `conv1d_cufft_{gather,scatter}_T`, `conv1d_cufft_multiply_A` |
///
/// The tiled strategies take their `tile` (outputs per block = threads per block, a power of
/// two in 32..=1024; [`DEFAULT_TILE`] = 256). The three `__constant__` strategies accept masks
/// of at most [`constant_capacity`] elements (16384 f32, f16 or bf16 / 8192 f64) and are serialised per
/// device (see the crate docs). `Auto` takes any mask length: widths up to 32, 63 and 127 run a
/// kernel compiled for that width ([`auto_fixed_tile`] outputs per block), the others the
/// runtime-width kernel ([`auto_tile`]); rows shorter than a quarter of [`auto_tile`] run the
/// basic kernel instead (see [`Path`]). On GPUs of compute capability 8.0 or later, `Auto` runs
/// f16 and bf16 masks of [`tensor_min_width`] (11 in rows of 2^24 outputs or more, else 25) to
/// [`TENSOR_MAX_WIDTH`] elements on tensor cores
/// ([`Strategy::TensorCore`]; for f32 only on request, being slower there), and on GPUs of
/// compute capability 9.0 those of [`warpgroup_min_width`] (5 in rows of 2^28 outputs or more,
/// 48 from 2^26, 80 from 2^25, 176 from 2^24, else 256) up to [`warpgroup_fft_min_width`] (f16
/// 1080, bf16 1260) through warpgroup products ([`Strategy::Warpgroup`]; the FFT path from
/// there). Masks of
/// [`fft_min_width`] to [`fft_max_width`] elements go through FFTs ([`Strategy::Fft`]), whose
/// rounding differs from the direct sums' (see there); longer masks through cuFFT where
/// libcufft loads (`cufft_available`, feature `cuda`), else through the direct kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// The chapter's first kernel: mask in global memory.
    Basic,
    /// The mask in `__constant__` memory (the chapter's `cudaMemcpyToSymbol` version).
    ConstantMask,
    /// Tiling strategy 1: the tile and its left and right halo in shared memory.
    TiledHalo {
        /// Outputs (and threads) per block.
        tile: u32,
    },
    /// Tiling strategy 2: only the tile in shared memory, the halo read through the caches.
    TiledCached {
        /// Outputs (and threads) per block.
        tile: u32,
    },
    /// The fastest path for the shape: register tiling (compiled for the mask width when it is
    /// one of [`AUTO_FIXED_WIDTHS`]), vector loads, segmented long masks; tensor cores for long
    /// f16 and bf16 masks; the FFT path ([`Strategy::Fft`]) from [`fft_min_width`] to
    /// [`fft_max_width`] (from 33 elements for f32, 64 for f64); f32 masks of 21385 to 126336
    /// and f64 masks of 10144 to 39074 with the mask in parts ([`Strategy::FftParts`]), and
    /// those past them (f16 and bf16 from 28650) through cuFFT where libcufft loads (where it
    /// does not: the parts as far as they take the mask, the one-span block FFT for f16 and
    /// bf16, then the direct kernels). Those crossovers are the built-in
    /// values of GPUs of ordinary memory bandwidth per SM (the H100); each device takes its own
    /// from `gpu_core::tuning`'s `conv1d.*` keys (the H200: FFT from 33 for f32, 64 for f64).
    #[default]
    Auto,
    /// The register-tiled FMA kernels of [`Strategy::Auto`] (compiled for the width when it is
    /// one of [`AUTO_FIXED_WIDTHS`]) for every row length and width, never tensor cores: every
    /// output sums `j` upwards with fused multiply-adds, bit for bit as the other strategies
    /// except [`Strategy::TensorCore`].
    RegisterTiled,
    /// The sliding dot product as matrix products on tensor cores (`mma.sync`, f32
    /// accumulation): f16 and bf16 signals, and f32 through error-compensated TF32 (each value
    /// split into a TF32 high and low part, three products), masks of at most
    /// [`TENSOR_MAX_WIDTH`] elements (for f32, finite and below 2^127 in magnitude), GPUs of
    /// compute capability 8.0 or later. The sums run in another order than the other
    /// strategies' (`j` upwards), so results differ from theirs in the last bits of f32 (for the
    /// 16-bit types, before the rounding to 16 bits). Measured against f64 on the H100
    /// (docs/conv1d.md): the 16-bit results are as accurate as the FMA kernels'; the f32 ones
    /// are 2–7× less accurate than f32 FMAs (1.4e-6 of `Σ|x·m|` at w = 1023) and slower on the
    /// H100, so [`Strategy::Auto`] uses tensor cores for f16 and bf16 only.
    TensorCore,
    /// The same products as [`Strategy::TensorCore`] through warpgroup instructions (`wgmma`,
    /// compute capability 9.0 only: the H100 and H200): one 128-thread warpgroup multiplies
    /// 64 × 64 outputs per chunk of 16 taps, both operands read from shared memory, f32
    /// accumulation. f16 and bf16 signals, masks of at most [`WARPGROUP_MAX_WIDTH`] elements.
    /// In rows of 2^28 outputs on the H100 faster than the `mma.sync` kernel from about w = 15
    /// (0.86× a copy at w = 127 against 0.74×), 1.4× at 255 and 2× at 1023; in shorter rows from
    /// wider masks, and slower below them (docs/conv1d.md, "Warpgroup products");
    /// [`Strategy::Auto`] takes it from [`warpgroup_min_width`] where the GPU has it. The 16-bit results are those of
    /// [`Strategy::TensorCore`] in accuracy (sums in f32, one rounding), not bit for bit (the
    /// tensor cores group the taps of an output differently).
    Warpgroup,
    /// Overlap-save through FFTs in one pass over the signal: each block reads the spans of two
    /// tiles of `size − w + 1` outputs once, transforms them together (one in the real and one
    /// in the imaginary part of a complex FFT of `size` points, in shared memory and
    /// registers), multiplies by the mask's spectrum (computed in f64 once per size and kept on
    /// the device), transforms back and writes the outputs. Past [`fft_pair_max`] (16384
    /// points; 8192 for f64), and from the device's `conv1d.fft_even_odd_from` on, a block
    /// takes one tile at a time instead, its even points in the real and its odd points in the
    /// imaginary part of a transform of `size / 2` points ([`Path::FftEvenOdd`]). Work per
    /// output grows with `log2(size)`, not with the mask: the path for long masks. `size` is a
    /// power of two from 512 to [`fft_max_size`] (32768; 16384 for f64), or 0
    /// ([`Strategy::FFT`]) for [`fft_size`]`(w)`, or the 16384-point spans from the device's
    /// `conv1d.fft_span_from` (f64: `conv1d.fft_span_from_f64`) on, where the table gives smaller
    /// ones (751 and 1500 on GPUs of ordinary memory such as the H100, whose slower memory makes
    /// the shorter spans' halo reads cost more; the table's 1151 and 2048 on the H200); masks up
    /// to [`fft_max_width`] elements with the automatic size.
    ///
    /// Longer masks, up to the signal's own length (the full correlation of two long signals),
    /// run through cuFFT (cudarc's `cufft` module, libcufft loaded at run time): segments of
    /// [`cufft_size`] points (0), or of `size` points for a power of two from
    /// [`CUFFT_MIN_SIZE`] (32768) past [`fft_max_size`], `N − w + 1` outputs each, gathered through the boundary
    /// rule into batches that cuFFT transforms in place, multiplies and transforms back. Without
    /// libcufft, `Conv1d::new` refuses such a request with an error naming what to install. The
    /// cuFFT path waits for its stream before returning (its plans and scratch, kept per
    /// segment size and shared by clones, serve one run at a time), and non-finite inputs
    /// spread through their segment (no direct-sum fallback there).
    ///
    /// Accuracy: the error of an output grows with `ε·log2(size)` times the size of the values
    /// in its tile's span and of the mask, not with the mask width, so it is of the order of the
    /// direct sums' for long masks (docs/conv1d.md has the measured table); outputs near zero
    /// beside large values carry the large values' absolute error (a relative error far above
    /// the direct sums'). Non-finite values: a block whose span holds a NaN or an infinity, or
    /// whose transform overflows, computes its outputs with the direct sums instead (the
    /// [`Strategy::Basic`] arithmetic), so NaN and infinities land exactly where the direct
    /// paths put them.
    Fft {
        /// Points per transform (0: chosen for the mask and the device, [`fft_size`]). Each transform gives
        /// `size − w + 1` outputs, so a size barely above the mask spends nearly all its work on
        /// the overlap: on an H200, 2^26 values, 1024 points for a 1023-wide mask took 94 ms
        /// against 0.4 ms with [`fft_size`]'s 4096.
        size: u32,
    },
    /// The block FFT past one span: the mask cut into `parts` parts of [`fft_part_width`] taps
    /// (0: [`fft_parts`]'s count), for masks longer than [`fft_max_width`], on spans of
    /// [`fft_max_size`] points (32768; 16384 for f64) packed as [`Path::FftEvenOdd`] packs them.
    /// An output is the sum over the parts of each part's correlation with the signal from its
    /// own offset, so each block transforms its tile's span for every part, adds the products
    /// with the parts' spectra and transforms the sum back once: `parts + 1` transforms a tile
    /// of [`fft_tile`]`(size, part width)` outputs, in one pass over the signal (cuFFT's
    /// segments take five). f32 and f64 signals. Accuracy and non-finite values as
    /// [`Strategy::Fft`] (a NaN spreads through its tile's transforms; such tiles take the
    /// direct sums). [`Strategy::Auto`] takes it between the device's `conv1d.fft_parts_from`
    /// and `conv1d.fft_parts_to` keys (f32 21385 to 126336, f64 10144 to 39074 on the H100).
    ///
    /// ```no_run
    /// # #[cfg(feature = "cuda")]
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_conv1d::{Conv1d, Options, Path, Strategy};
    /// let gpu = gpu_core::Gpu::default_device()?;
    /// let mask = vec![1.0f64 / 16383.0; 16383];
    /// let parts = Options::new().strategy(Strategy::FftParts { parts: 0 });
    /// let conv = Conv1d::correlation(&gpu, &mask, parts)?;
    /// assert_eq!(conv.path(1 << 20)?, Path::FftEvenOddParts { size: 16384, parts: 2 });
    /// let y = conv.run(&vec![1.0f64; 1 << 20])?;
    /// assert_eq!(y.len(), 1 << 20);
    /// # Ok(()) }
    /// # #[cfg(not(feature = "cuda"))] fn main() {}
    /// ```
    FftParts {
        /// Parts of the mask (0: [`fft_parts`]; at most [`FFT_MAX_PARTS`]).
        parts: u32,
    },
}

impl Strategy {
    /// [`Strategy::TiledHalo`] with [`DEFAULT_TILE`].
    pub const TILED_HALO: Strategy = Strategy::TiledHalo { tile: DEFAULT_TILE };
    /// [`Strategy::TiledCached`] with [`DEFAULT_TILE`].
    pub const TILED_CACHED: Strategy = Strategy::TiledCached { tile: DEFAULT_TILE };
    /// [`Strategy::Fft`] with the transform size chosen for the mask and the device ([`fft_size`]).
    pub const FFT: Strategy = Strategy::Fft { size: 0 };
    /// Every strategy that takes every element type, tiled ones with the default tile (for tests
    /// and benchmarks); [`Strategy::TensorCore`] takes 16-bit signals only.
    pub const ALL: [Strategy; 6] = [
        Strategy::Basic,
        Strategy::ConstantMask,
        Strategy::TILED_HALO,
        Strategy::TILED_CACHED,
        Strategy::Auto,
        Strategy::RegisterTiled,
    ];

    /// Short name: `basic`, `constant`, `tiled_halo`, `tiled_cached`, `auto`, `register_tiled`,
    /// `tensor_core`, `warpgroup`, `fft`, `fft_parts`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Basic => "basic",
            Strategy::ConstantMask => "constant",
            Strategy::TiledHalo { .. } => "tiled_halo",
            Strategy::TiledCached { .. } => "tiled_cached",
            Strategy::Auto => "auto",
            Strategy::RegisterTiled => "register_tiled",
            Strategy::TensorCore => "tensor_core",
            Strategy::Warpgroup => "warpgroup",
            Strategy::Fft { .. } => "fft",
            Strategy::FftParts { .. } => "fft_parts",
        }
    }

    /// Whether the strategy reads the mask from the `__constant__` buffer.
    pub fn uses_constant_memory(self) -> bool {
        matches!(
            self,
            Strategy::ConstantMask | Strategy::TiledHalo { .. } | Strategy::TiledCached { .. }
        )
    }

    /// Checks the strategy's own limits for a mask of `mask_len` elements of `T` (tile size,
    /// constant-memory capacity). Device limits (shared memory) are checked at launch.
    pub fn validate<T: Real>(self, mask_len: usize) -> gpu_core::Result<()> {
        plan::validate_strategy::<T>(self, mask_len)
    }

    /// The kernel this strategy runs for rows of `n_out` outputs and a mask of `mask_len`
    /// elements on a GPU of compute capability 8.x, the mask assumed to suit the tensor cores
    /// (older GPUs, and f32 masks with infinities, never run [`Path::TensorCore`]; compute
    /// capability 9.0 adds [`Path::Warpgroup`]; see `Conv1d::path` for the device and mask at
    /// hand).
    pub fn path<T: Real>(self, n_out: usize, mask_len: usize) -> Path {
        plan::resolve::<T>(
            self,
            n_out,
            mask_len,
            true,
            false,
            true,
            &plan::Crossovers::default(),
        )
    }
}

/// How a convolution runs: output mode, boundary mode, strategy and host pipelining.
///
/// ```
/// use gpu_conv1d::{Boundary, Mode, Options, Strategy};
/// let o = Options::new().mode(Mode::Valid).strategy(Strategy::TiledHalo { tile: 128 });
/// assert_eq!(o.boundary, Boundary::Zero);
/// assert_eq!(o.pipelining, gpu_core::Pipelining::Auto);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Options {
    /// Output mode (default `same`).
    pub mode: Mode,
    /// Boundary mode (default zero).
    pub boundary: Boundary,
    /// Kernel (default [`Strategy::Auto`]).
    pub strategy: Strategy,
    /// Whether a host signal with a host result goes through the device's host pipeline
    /// (`gpu_core::Gpu::host_pipeline_between`: chunks uploaded, convolved and downloaded
    /// at once, the same results bit for bit); from 32 MiB of signal on by default
    /// ([`gpu_core::Pipelining::Auto`]).
    pub pipelining: gpu_core::Pipelining,
}

impl Options {
    /// `same`, zero boundary, [`Strategy::Auto`].
    pub fn new() -> Self {
        Self::default()
    }

    /// With output mode `mode`.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// With boundary mode `boundary`.
    pub fn boundary(mut self, boundary: Boundary) -> Self {
        self.boundary = boundary;
        self
    }

    /// With strategy `strategy`.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// With host pipelining `pipelining`.
    pub fn pipelining(mut self, pipelining: gpu_core::Pipelining) -> Self {
        self.pipelining = pipelining;
        self
    }
}
