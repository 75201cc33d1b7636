//! Launch planning, kept apart from the launches: output lengths and offsets, the shapes the
//! kernels are compiled for, strategy limits and which kernel runs.

use gpu_core::{check_block_size, Error, Result};

use crate::tensor::{TENSOR_MAX_WIDTH, WARPGROUP_MAX_WIDTH};
use crate::{Mode, Real, Strategy};

/// Default tile (outputs and threads per block) of the tiled strategies.
pub const DEFAULT_TILE: u32 = 256;

/// Size of the `__constant__` mask buffer (`conv1d_mask` in `kernels/conv1d.cu`): 64 KiB, the
/// most constant data one module may declare, shared by the f32 and f64 kernels.
pub const CONSTANT_MASK_BYTES: usize = 64 * 1024;

/// Threads per block of the register-tiled kernel.
pub const AUTO_BLOCK: u32 = 256;

/// A register-tiled kernel's shape for `T`, mirroring `AutoShape<T>` (runtime width) or
/// `Conv1dFixedShape<T, W, K, 128>` (fixed widths) in the kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AutoShape {
    /// Elements per 16-byte vector.
    pub v: usize,
    /// Outputs per thread.
    pub k: usize,
    /// Outputs per block.
    pub tile: usize,
    /// Mask elements per segment (0 for the fixed-width kernels, which take the whole mask).
    #[allow(dead_code)]
    pub seg: usize,
}

/// Outputs per thread and mask elements per segment follow the accumulator ([`Real::Wide`]: 16
/// and 1024 for f32, f16 and bf16), vectors the element type (4 f32, 8 f16).
pub(crate) fn auto_shape<T: Real>() -> AutoShape {
    let wide = std::mem::size_of::<T::Wide>();
    let k = 64 / wide;
    AutoShape {
        v: 16 / std::mem::size_of::<T>(),
        k,
        tile: AUTO_BLOCK as usize * k,
        seg: 4096 / wide,
    }
}

/// Outputs per block of [`Strategy::Auto`]'s register-tiled kernel for a runtime mask width
/// (`conv1d_auto_T`): 4096 for f32, f16 and bf16, 2048 for f64 (256 threads × 16 or 8
/// consecutive outputs each).
pub fn auto_tile<T: Real>() -> usize {
    auto_shape::<T>().tile
}

/// Mask widths for which [`Strategy::Auto`] runs a kernel compiled for that width
/// (`conv1d_auto_w<W>_T`, [`Path::RegisterTiledFixed`]): every width up to 32, 63 and 127.
/// Mirrors the `CONV1D_FIXED(W)` list in `kernels/conv1d.cu`.
pub const AUTO_FIXED_WIDTHS: [usize; 34] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
    27, 28, 29, 30, 31, 32, 63, 127,
];

/// Threads per block of the fixed-width register-tiled kernels.
pub const AUTO_FIXED_BLOCK: u32 = 128;

/// The fixed-width kernels' shape for `T`, mirroring `Conv1dFixedShape<T, W, K, 128>` as
/// instantiated in `kernels/conv1d.cu`: 16 (f32, f16, bf16) / 8 (f64) outputs per thread.
pub(crate) fn auto_fixed_shape<T: Real>() -> AutoShape {
    let k = 64 / std::mem::size_of::<T::Wide>();
    AutoShape {
        v: 16 / std::mem::size_of::<T>(),
        k,
        tile: AUTO_FIXED_BLOCK as usize * k,
        seg: 0,
    }
}

/// Outputs per block of [`Strategy::Auto`]'s fixed-width kernels ([`AUTO_FIXED_WIDTHS`]): 2048
/// for f32, f16 and bf16, 1024 for f64 (128 threads × 16 or 8 consecutive outputs each).
pub fn auto_fixed_tile<T: Real>() -> usize {
    auto_fixed_shape::<T>().tile
}

/// Mask widths with a wide-tile f32 kernel (`conv1d_auto_wide_w<W>_f32`,
/// [`Path::RegisterTiledFixedWide`]). Mirrors `GP_CONV1D_FIXED_WIDE_WIDTHS` in
/// `kernels/include/gpu_prims/conv1d_fixed.cuh`.
pub const WIDE_TILE_WIDTHS: std::ops::RangeInclusive<usize> = 5..=32;

/// Outputs per thread of the wide-tile kernels (f32): 24, so 3072 per block of 128 threads.
pub const WIDE_TILE_OUTPUTS_PER_THREAD: usize = 24;

/// Mask widths with a 16-bit wide-tile kernel (`conv1d_auto_wide_w<W>_f16`, `_bf16`). Mirrors
/// `GP_CONV1D_FIXED_WIDE_HALF_WIDTHS` in `kernels/include/gpu_prims/conv1d_fixed.cuh`.
pub const WIDE_TILE_WIDTHS_16: std::ops::RangeInclusive<usize> = 1..=32;

/// Outputs per thread of the 16-bit wide-tile kernels: 32, so 4096 per block of 128 threads.
pub const WIDE_TILE_OUTPUTS_PER_THREAD_16: usize = 32;

/// The widths with a wide-tile kernel for `T`: [`WIDE_TILE_WIDTHS`] for f32,
/// [`WIDE_TILE_WIDTHS_16`] for f16 and bf16, none for f64.
pub fn wide_tile_widths<T: Real>() -> Option<std::ops::RangeInclusive<usize>> {
    match (T::NAME, std::mem::size_of::<T>()) {
        ("f32", _) => Some(WIDE_TILE_WIDTHS),
        (_, 2) => Some(WIDE_TILE_WIDTHS_16),
        _ => None,
    }
}

/// The wide-tile kernels' shape, mirroring `Conv1dFixedShape<T, W, K, 128>` as instantiated:
/// K = 24 for f32, 32 for f16 and bf16.
pub(crate) fn auto_fixed_wide_shape<T: Real>() -> AutoShape {
    let k = if std::mem::size_of::<T>() == 2 {
        WIDE_TILE_OUTPUTS_PER_THREAD_16
    } else {
        WIDE_TILE_OUTPUTS_PER_THREAD
    };
    AutoShape {
        v: 16 / std::mem::size_of::<T>(),
        k,
        tile: AUTO_FIXED_BLOCK as usize * k,
        seg: 0,
    }
}

/// Mask elements of `T` the `__constant__` buffer holds: 16384 f32 (also f16 and bf16, whose
/// masks it holds widened to f32) or 8192 f64. The
/// [`Strategy::ConstantMask`], [`Strategy::TiledHalo`] and [`Strategy::TiledCached`] kernels
/// refuse longer masks.
pub fn constant_capacity<T: Real>() -> usize {
    CONSTANT_MASK_BYTES / std::mem::size_of::<T::Wide>()
}

pub(crate) fn check_mask(w: usize) -> Result<()> {
    if w == 0 {
        return Err(Error::invalid("mask", "the mask is empty"));
    }
    Ok(())
}

/// Input position under mask element 0 for output 0.
pub(crate) fn offset(mode: Mode, w: usize) -> i64 {
    match mode {
        Mode::Full => -(w.saturating_sub(1) as i64),
        Mode::Same => -((w / 2) as i64),
        Mode::Valid => 0,
    }
}

/// Number of outputs for a signal of `n` elements and a mask of `w`: `n + w − 1` (full), `n`
/// (same), `n − w + 1` (valid); 0 for an empty signal in every mode.
///
/// Fails on an empty mask, and in `valid` mode on a non-empty signal shorter than the mask.
///
/// ```
/// use gpu_conv1d::{output_len, Mode};
/// assert_eq!(output_len(10, 3, Mode::Full).unwrap(), 12);
/// assert_eq!(output_len(10, 3, Mode::Same).unwrap(), 10);
/// assert_eq!(output_len(10, 3, Mode::Valid).unwrap(), 8);
/// assert_eq!(output_len(0, 3, Mode::Valid).unwrap(), 0);
/// assert!(output_len(2, 3, Mode::Valid).is_err());
/// assert!(output_len(5, 0, Mode::Same).is_err());
/// ```
pub fn output_len(n: usize, w: usize, mode: Mode) -> Result<usize> {
    check_mask(w)?;
    if n == 0 {
        return Ok(0);
    }
    match mode {
        Mode::Full => n
            .checked_add(w - 1)
            .ok_or_else(|| Error::invalid("mask", "full output length overflows usize")),
        Mode::Same => Ok(n),
        Mode::Valid => {
            if n < w {
                Err(Error::invalid(
                    "signal",
                    format!(
                        "valid mode needs a signal at least as long as the mask: {n} elements < {w}"
                    ),
                ))
            } else {
                Ok(n - w + 1)
            }
        }
    }
}

pub(crate) fn validate_strategy<T: Real>(strategy: Strategy, w: usize) -> Result<()> {
    check_mask(w)?;
    if strategy == Strategy::TensorCore {
        if !crate::tensor::takes::<T>() {
            return Err(Error::invalid(
                "strategy",
                format!(
                    "Strategy::TensorCore takes f16, bf16 and f32 signals, not {}; use \
                     Strategy::Auto",
                    T::NAME
                ),
            ));
        }
        if w > TENSOR_MAX_WIDTH {
            return Err(Error::invalid(
                "mask",
                format!(
                    "{w} elements exceed the {TENSOR_MAX_WIDTH} of Strategy::TensorCore; use \
                     Strategy::Auto for longer masks"
                ),
            ));
        }
    }
    if strategy == Strategy::Warpgroup {
        if !T::computes_wider() {
            return Err(Error::invalid(
                "strategy",
                format!(
                    "Strategy::Warpgroup takes f16 and bf16 signals, not {}; use Strategy::Auto",
                    T::NAME
                ),
            ));
        }
        if w > WARPGROUP_MAX_WIDTH {
            return Err(Error::invalid(
                "mask",
                format!(
                    "{w} elements exceed the {WARPGROUP_MAX_WIDTH} of Strategy::Warpgroup; use \
                     Strategy::Auto for longer masks"
                ),
            ));
        }
    }
    if let Strategy::Fft { size } = strategy {
        crate::fft::validate::<T>(size, w)?;
    }
    if let Strategy::FftParts { parts } = strategy {
        crate::fft::validate_parts::<T>(parts, w)?;
    }
    if let Strategy::TiledHalo { tile } | Strategy::TiledCached { tile } = strategy {
        check_block_size("tile", tile, 32, 1024)?;
    }
    if strategy.uses_constant_memory() {
        let cap = constant_capacity::<T>();
        if w > cap {
            return Err(Error::invalid(
                "mask",
                format!(
                    "{w} elements exceed the constant-memory mask capacity of {cap} {} elements \
                     (a {} KiB __constant__ buffer) of strategy `{}`; use Strategy::Auto or \
                     Strategy::Basic for longer masks",
                    T::NAME,
                    CONSTANT_MASK_BYTES / 1024,
                    strategy.name()
                ),
            ));
        }
    }
    Ok(())
}

/// The kernel that runs (what [`Strategy::Auto`] resolves to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Path {
    /// `conv1d_basic_T`: one thread per output, mask in global memory.
    Basic,
    /// `conv1d_constant_T`: one thread per output, mask in constant memory.
    Constant,
    /// `conv1d_tiled_halo_T` with `tile` threads per block.
    TiledHalo {
        /// Outputs per block.
        tile: u32,
    },
    /// `conv1d_tiled_cached_T` with `tile` threads per block.
    TiledCached {
        /// Outputs per block.
        tile: u32,
    },
    /// `conv1d_auto_T`: register tiling, any mask width.
    RegisterTiled,
    /// `conv1d_auto_w<width>_T`: register tiling compiled for this mask width (one of
    /// [`AUTO_FIXED_WIDTHS`]), the mask passed as a kernel parameter.
    RegisterTiledFixed {
        /// Mask width the kernel is compiled for.
        width: u32,
    },
    /// `conv1d_auto_wide_w<width>_T`: the fixed-width kernel with wider tiles, 24 outputs per
    /// thread instead of 16 for f32 (widths in [`WIDE_TILE_WIDTHS`]), 32 for f16 and bf16
    /// ([`WIDE_TILE_WIDTHS_16`]), for rows of at least `conv1d.wide_tile_from` (f32) or
    /// `conv1d.half_wide_tile_from` (16-bit) outputs (gpu_core::tuning: GPUs of fast memory per
    /// SM). Same sums in the same order, so the same bits as [`Path::RegisterTiledFixed`].
    RegisterTiledFixedWide {
        /// Mask width the kernel is compiled for.
        width: u32,
    },
    /// `conv1d_tensor_T` (f16, bf16, f32 through 3xTF32): matrix products on tensor cores
    /// ([`Strategy::TensorCore`]).
    TensorCore,
    /// `conv1d_wgmma_T` (f16, bf16; compute capability 9.0): warpgroup matrix products on
    /// tensor cores ([`Strategy::Warpgroup`]).
    Warpgroup,
    /// `conv1d_fft<size>_T`: overlap-save through FFTs of `size` points, two tiles a transform
    /// ([`Strategy::Fft`]).
    Fft {
        /// Points per transform.
        size: u32,
    },
    /// `conv1d_fft_eo<size>_T`: overlap-save on spans of `size` points, each tile's even and odd
    /// points in one transform of `size / 2` points ([`Strategy::Fft`] past
    /// [`fft_pair_max`](crate::fft_pair_max), and from the device's `conv1d.fft_even_odd_from`
    /// on). f32 spans of 16384 points with an odd mask up to 6143 wide run
    /// `conv1d_fft_eo16384_pairs_f32`, the same transform with 8-byte loads and stores.
    FftEvenOdd {
        /// Points per span (twice the transform's).
        size: u32,
    },
    /// `conv1d_fft_eo<size>_parts_T`: [`Path::FftEvenOdd`]'s spans with the mask in `parts`
    /// parts ([`Strategy::FftParts`]).
    FftEvenOddParts {
        /// Points per span (twice the transform's).
        size: u32,
        /// Parts of the mask.
        parts: u32,
    },
    /// Overlap-save through cuFFT on segments of `size` points (masks longer than
    /// [`fft_max_width`](crate::fft_max_width)): `conv1d_cufft_gather_T`, batched real-to-complex
    /// transforms, `conv1d_cufft_multiply_A`, the transforms back, `conv1d_cufft_scatter_T`.
    CuFft {
        /// Points per segment (a power of two, [`cufft_size`](crate::cufft_size)).
        size: u64,
    },
}

impl Path {
    /// Whether a GPU of compute capability 8.0+ runs this path's kernel for `T` from
    /// `kernels/conv1d_sm80.cu` rather than `kernels/conv1d.cu`: the tensor-core kernels (only
    /// there), and the bf16 fixed-width kernels and block-FFT pairs up to 8192 points (built
    /// there again, where rounding to bf16 is one instruction: `cvt.rn.bf16.f32`; the larger
    /// transforms ran slower from there, docs/conv1d.md). Mirrors the bf16 entries at the end
    /// of `conv1d_sm80.cu`.
    pub fn prefers_sm80<T: Real>(self) -> bool {
        match self {
            Path::TensorCore => true,
            Path::RegisterTiledFixed { .. } | Path::RegisterTiledFixedWide { .. } => {
                T::NAME == "bf16"
            }
            Path::Fft { size } => T::NAME == "bf16" && size <= 8192,
            _ => false,
        }
    }

    /// Whether this path's kernel comes from `kernels/conv1d_sm90a.cu` (compute capability 9.0
    /// only): the warpgroup kernels.
    pub fn needs_sm90a(self) -> bool {
        self == Path::Warpgroup
    }

    /// The kernel's entry point for `T`, e.g. `conv1d_auto_f32` or `conv1d_auto_w31_f32`
    /// (for [`Path::FftEvenOdd`] the default one: the mask's width can pick its pairs variant).
    pub fn kernel_name<T: Real>(self) -> String {
        let algo = match self {
            Path::Basic => "basic".to_string(),
            Path::Constant => "constant".to_string(),
            Path::TiledHalo { .. } => "tiled_halo".to_string(),
            Path::TiledCached { .. } => "tiled_cached".to_string(),
            Path::RegisterTiled => "auto".to_string(),
            Path::RegisterTiledFixed { width } => format!("auto_w{width}"),
            Path::RegisterTiledFixedWide { width } => format!("auto_wide_w{width}"),
            Path::TensorCore => "tensor".to_string(),
            Path::Warpgroup => "wgmma".to_string(),
            Path::Fft { size } => format!("fft{size}"),
            Path::FftEvenOdd { size } => format!("fft_eo{size}"),
            Path::FftEvenOddParts { size, .. } => format!("fft_eo{size}_parts"),
            Path::CuFft { .. } => "cufft_gather".to_string(),
        };
        format!("conv1d_{algo}_{}", T::NAME)
    }
}

/// Rows with fewer outputs than `auto_tile / AUTO_SHORT_ROW_DIVISOR` would leave most of a
/// register tile idle; `Auto` runs the per-output kernel for them.
const AUTO_SHORT_ROW_DIVISOR: usize = 4;

/// Rows of at least this many outputs take tensor cores from the shorter
/// [`TENSOR_MIN_WIDTH_LONG_ROWS`].
pub const TENSOR_LONG_ROW: usize = 1 << 24;

/// The shortest 16-bit mask [`Strategy::Auto`] runs on tensor cores for rows of at least
/// [`TENSOR_LONG_ROW`] outputs.
pub const TENSOR_MIN_WIDTH_LONG_ROWS: usize = 11;

/// The shortest mask [`Strategy::Auto`] runs on tensor cores (where those exist) for `T` in rows
/// of `n_out` outputs, or `None` where `Auto` never does. Measured on the H100 with the kernel
/// of docs/conv1d.md's run 10 (the tensor-core kernel against the fixed-width FMA kernels, f16
/// and bf16, w = 3-23): from 2^24 outputs tensor cores win from w = 11 (2^24: by 4-5 % at 11,
/// 9-18 % at 15-23; 2^28: by 1-2 % already at 7, by 18-21 % at 23) and lose at 7 (2^24, by
/// 12-14 %), so [`TENSOR_MIN_WIDTH_LONG_ROWS`]; at 2^20 they lose at every width to 23 (by
/// 0.2-2 µs), so shorter rows keep run 9's 25. f32 never: its three TF32 products per pair ran
/// slower than the FMA kernels at every width (w = 127: 0.24× against 0.50× a copy), so f32
/// reaches tensor cores only through [`Strategy::TensorCore`]; f64 has none.
pub fn tensor_min_width<T: Real>(n_out: usize) -> Option<usize> {
    if !T::computes_wider() {
        None
    } else if n_out >= TENSOR_LONG_ROW {
        Some(TENSOR_MIN_WIDTH_LONG_ROWS)
    } else {
        Some(25)
    }
}

/// Rows of at least this many outputs take the warpgroup kernel from the shorter
/// [`WARPGROUP_MIN_WIDTH_LONG_ROWS`].
pub const WARPGROUP_LONG_ROW: usize = 1 << 26;

/// The shortest 16-bit mask [`Strategy::Auto`] runs on the warpgroup kernel
/// ([`Path::Warpgroup`]) in rows of [`WARPGROUP_LONG_ROW`] outputs up to 2^28 (from 2^28 on:
/// 5).
pub const WARPGROUP_MIN_WIDTH_LONG_ROWS: usize = 48;

/// The shortest mask [`Strategy::Auto`] runs on the warpgroup kernel (compute capability 9.0)
/// rather than the `mma.sync` one, for `T` in rows of `n_out` outputs (`None`: never, f32 and
/// f64), and rather than the fixed-width FMA kernels where this is below
/// [`tensor_min_width`]. Measured on the H100 with the kernel's span in the 128-byte swizzle
/// (forty-third session, `docs/results/h100-session43/s43c-cross`: the report, f16 and bf16,
/// `warpgroup` against `tensor_core`, µs): at 2^28 `wgmma` wins from w = 15 (f16 398.5 against
/// 402.5, bf16 400.0 against 400.2; w = 23 397.9 / 398.2 against 406.4 / 408.7); against the
/// FMA kernels (forty-fourth session, `docs/results/h100-session44/s44a/small-28`) it ties at
/// w = 3 (f16 398.8 against 397.2, bf16 399.6 against 399.1) and wins from 5 (f16 398.6 against
/// 402.3; w = 7 398.9 / 398.5 against 407.2 / 411.5; w = 9 398.9 / 398.7 against 414.9 /
/// 421.1), so 5 there. At 2^27 it loses to both at w = 3-15 (`s44c`: 209.4-210.9 against
/// 201.7-208.5), at 2^26 and 2^24 too (`s44b`), so 2^27 takes the 2^26 rule. At 2^26 it
/// loses at 15 (114.0 against 109.8) and 31 (112.2-112.5 against 111.4-111.7) and wins from 63
/// (115.5 against 117.8-118.1), so [`WARPGROUP_MIN_WIDTH_LONG_ROWS`]; at 2^25 it loses at 63
/// (66.1-66.6 against 64.2-64.8) and wins from 95 (68.0-68.1 against 68.7), so 80; at 2^24 it
/// loses or ties at 127 (43.2-43.6 against 42.5-43.1) and wins at 191 (45.7-46.0 against
/// 49.5-49.7), so 176 stays (the H200's crossing with the kernel before, seventh session);
/// below, 256 (the H100's harness at 2^24 before the chain was unserialized: it lost at 127 and
/// won by 1.7× at 1023). Before the swizzle the kernel took 2^28 from w = 96 and 2^25 from 127.
pub fn warpgroup_min_width<T: Real>(n_out: usize) -> Option<usize> {
    if !T::computes_wider() {
        None
    } else if n_out >= 1 << 28 {
        Some(5)
    } else if n_out >= WARPGROUP_LONG_ROW {
        Some(WARPGROUP_MIN_WIDTH_LONG_ROWS)
    } else if n_out >= 1 << 25 {
        Some(80)
    } else if n_out >= 1 << 24 {
        Some(176)
    } else {
        Some(256)
    }
}

/// The shortest mask [`Strategy::Auto`] runs through FFTs for `T` (`tensor_cores`: with the
/// tensor-core kernel available). f32 from 33, where the direct kernels leave the fixed-width
/// ones below 32, and f64 from 64: the H100's tuning tool at 2^24 outputs (docs/tuning.md: f32
/// w = 33 … 62 direct 0.535-0.617× a copy, FFT 0.643-0.677×; w = 63, a fixed-width kernel,
/// 0.677 against 0.653; f64 w = 64 … 96 direct 0.539-0.692, FFT 0.716-0.741), and the
/// thirty-seventh session's sweep at 2^26 (docs/conv1d.md: f32 w = 63 direct 0.762, FFT 0.829;
/// w = 31 0.942 against 0.838). Run G (2^26, before the FFT kernels' later gains) had put them at
/// 64 and 80 (w = 63: 0.77 both). f16 and bf16 with tensor cores from 384 (run F:
/// w = 511 tensor cores 0.274×, FFT 0.290×; run B, before the last FFT speed-up, w = 255 0.42× and
/// 0.28×; 384 lies between).
pub fn fft_min_width<T: Real>(tensor_cores: bool) -> usize {
    match (
        T::computes_wider() && tensor_cores,
        std::mem::size_of::<T::Wide>(),
    ) {
        (true, _) => 384,
        (false, 8) => 64,
        (false, _) => 33,
    }
}

/// The shortest 16-bit mask [`Strategy::Auto`] runs through FFTs where the warpgroup kernel runs
/// the direct sums (compute capability 9.0): f16 from 1080, bf16 from 1260.
/// Measured on the H100 first (docs/conv1d.md, "Warpgroup products": the warpgroup kernel ran
/// 2^26 f16 outputs of a 511-wide mask at 0.51× a copy, where the block FFT gave 0.29×, run F),
/// then on an H200 as the FFT blocks changed (2^26 outputs): with the radix-32 transforms 1730
/// and 1840 (eighteenth and twentieth sessions); with the lean index arithmetic (twenty-fourth
/// session) f16 w = 1100 warpgroup 261.7-263.5 µs against the 4096-point FFT's 279.2-281.6,
/// 1279 290.9-292.2 against 283.5-284.2; bf16 1100 255.5-256.1 / 278.0-278.8, 1279
/// 283.6-286.3 / 280.8-283.4 (the differences cross near 1230 and 1260); with the even-and-odd
/// spans' decimation-in-time DFTs and lean checks (twenty-seventh session) f16 takes the
/// 16384-point spans from 1051: w = 1000 warpgroup 251.6-253.4 µs against 255.6-257.9, 1100
/// 266.5-267.1 against 264.1-264.5, 1200 280.4-282.0 against 261.9-264.9 (crossing near 1080;
/// bf16's spans did not gain as much, and its crossing stays). Both kernels are bound by
/// arithmetic, so the crossing should hold on the H100 (not measured there).
pub fn warpgroup_fft_min_width<T: Real>() -> usize {
    if T::NAME == "f16" {
        1080
    } else {
        1260
    }
}

/// The shortest mask [`Strategy::Auto`] runs through cuFFT for `T` where libcufft loads.
/// Measured on an H200 at 2^26 outputs with the block FFT's spans of 32768 points (f32, f16,
/// bf16) and 16384 (f64) and its twiddle rows (docs/conv1d.md, "Twiddle rows and lean checks"):
/// the block's time grows as `N/(N − w + 1)`, cuFFT's segments of 2^20 stay flat, and they cross
/// near w = 27000 for f32 (w = 26000: block 1802 µs, cuFFT 2095; 28671: 2898 against 2084; with
/// the radix-32 transforms of the eighteenth session near 27300: w = 27000 1984 against 2105,
/// 28671 2741 against 2084, "Radix-32 transforms" there) and
/// 12900 for f64 (12700: 3260 against 3474; 15361: 11091 against 3440); with the lean index
/// arithmetic (twenty-fourth session) near 27950 for f32 (w = 27700: block 1986.0-1986.6 µs,
/// cuFFT 2089.2-2091.5; 28100: 2149.9-2151.3 against 2093.0-2093.6) and 13080 for f64 (12900:
/// 3299.5-3302.8 against 3490.7-3490.8; 13100: 3495.5-3500.7 against 3472.8-3475.4); with the
/// twenty-seventh session's even-and-odd spans (decimation-in-time DFTs, lean checks and stores)
/// near 28650 for f32 (w = 28300: block 1888.6-1890.0 µs, cuFFT 2059.5-2062.5; 28700:
/// 2088.7-2090.7 against 2055.5-2068.0; f16 and bf16 take the same value, not measured apart;
/// f64's spans kept their kernels). The H100 takes the
/// same values: its block FFT, bound by arithmetic, runs about as fast, and its cuFFT, bound by
/// memory, slower, so its crossing lies no lower (before these kernels run J measured 13000
/// there, against 13600 on the H200). f16 and bf16 run f32's transforms.
pub fn cufft_min_width<T: Real>() -> usize {
    if std::mem::size_of::<T::Wide>() == 8 {
        13_080
    } else {
        28_650
    }
}

/// The smallest FFT size that packs each tile's even and odd points into one transform
/// (`conv1d.fft_even_odd_from`; the sizes past [`fft_pair_max`](crate::fft_pair_max) always
/// do). Measured on an H200 (docs/conv1d.md, "Even and odd points in one transform"): at 16384
/// points f32 masks of 3071 to 8191 ran 3-5 % faster packed (w = 4095: 524.6 µs against 549.5
/// µs for the pairs, 2^26 outputs); at 8192 the pairs were as fast or faster (f32 w = 2047:
/// 435.5 against 426.9 µs; f64 w = 4095: 1486.7 against 1358.9), so no 8192-point kernel packs.
/// The kernels are bound by arithmetic: the H100 takes the same value.
pub const FFT_EVEN_ODD_FROM: usize = 16384;

/// The block FFT's spans that `conv1d.fft_span_from` and `conv1d.fft_span_from_f64` move masks to.
const LONG_SPAN: usize = 16384;

/// `conv1d.fft_span_from` on GPUs of ordinary memory bandwidth per SM: the H100 (thirty-eighth
/// session, 2^26 outputs, two rounds, docs/tuning.md "The H100 once more") ran f32 masks
/// of 767 on the 2048-point pairs in 272.7 µs and the 16384-point spans in 274.0-276.8, the
/// table's 4096 in 281.9-282.4; 1023: 273.9-278.2 against the 4096-point pairs' 286.0-292.7.
/// The spans read `N / (N − w + 1)` of the signal, which costs more where memory is slower, so
/// they take over from the 2048-point pairs' last width (750) where the H200 keeps the table's
/// 1151.
pub const FFT_SPAN_FROM: usize = 751;

/// `conv1d.fft_span_from_f64` on GPUs of ordinary memory bandwidth per SM: f64 masks of 1700 and
/// 2047 ran 859.3-859.6 and 868.7-872.5 µs on the 16384-point spans against 891.8-897.1 and
/// 918.1-919.3 on the table's 8192-point pairs; at 1450 the 4096-point pairs kept a 1.5 % lead
/// (H100, thirty-eighth session). The H200 keeps the table's 2048.
pub const FFT_SPAN_FROM_F64: usize = 1500;

/// `conv1d.wide_tile_from` on GPUs of ordinary memory bandwidth per SM: never (the H100's
/// 16-output tiles already run w ≤ 31 at 0.97-0.99× a copy; the wide tiles were measured on the
/// H200 only, docs/tuning.md).
pub const WIDE_TILE_FROM_ORDINARY: usize = 1 << 40;

/// `conv1d.fft_parts_from`: the shortest f32 mask [`Strategy::Auto`] runs with the mask in parts
/// ([`Path::FftEvenOddParts`]) instead of one span: the tuning tool's crossing on the H100
/// (forty-first session; 2^26 `same`: w = 20479 one span 0.254× a copy, two parts 0.244; 24575
/// one span 0.176, two parts 0.233). Both are block FFTs bound by arithmetic, so the crossing
/// holds on the H200 too.
pub const FFT_PARTS_FROM: usize = 21_385;

/// `conv1d.fft_parts_to` on GPUs of ordinary memory bandwidth per SM: the widest f32 mask `Auto`
/// runs in parts where libcufft loads, the tuning tool's crossing with cuFFT on the H100
/// (forty-first session; 2^26: w = 98303 six parts 0.078× a copy, cuFFT 0.065; 131071 eight
/// parts 0.059, cuFFT 0.062). The H200 takes 80000, an estimate: its cuFFT, bound by memory,
/// keeps its fraction of the copy while the parts, bound by arithmetic, lose 30 % of theirs
/// (506 / 718 µs): w = 81919 five parts 0.090 × 0.705 ≈ 0.063 against cuFFT's 0.064.
pub const FFT_PARTS_TO: usize = 126_336;

/// `conv1d.fft_parts_from_f64`: the same crossing for f64 (H100, forty-first session; 2^26:
/// w = 10239 one span 0.203, two parts 0.205; 11263 0.170 against 0.199).
pub const FFT_PARTS_FROM_F64: usize = 10_144;

/// `conv1d.fft_parts_to_f64` on GPUs of ordinary memory bandwidth per SM: the tuning tool's f64
/// crossing with cuFFT on the H100 (forty-first session; 2^26: w = 30000 four parts 0.096× a
/// copy, cuFFT 0.077; 40000 five parts 0.075, cuFFT 0.077). The H200 takes 24000, an estimate
/// by the same rule as [`FFT_PARTS_TO`] (w = 24575 three parts 0.113 × 0.705 ≈ 0.080 against
/// 0.078; 28671 four parts 0.100 × 0.705 ≈ 0.071).
pub const FFT_PARTS_TO_F64: usize = 39_074;

/// Where [`Strategy::Auto`] changes path on one device: gpu_core::tuning's `conv1d.*` keys.
/// [`Default`] holds the built-in values of a GPU of ordinary memory bandwidth (the H100's,
/// as [`fft_min_width`] and [`cufft_min_width`] give them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crossovers {
    /// Shortest f32 mask through the block FFT (`conv1d.fft_min_width`).
    pub fft_min_width: usize,
    /// Shortest f64 mask through the block FFT (`conv1d.fft_min_width_f64`).
    pub fft_min_width_f64: usize,
    /// Shortest f32 mask through the block FFT's 16384-point spans where the width table gives
    /// smaller ones (`conv1d.fft_span_from`).
    pub fft_span_from: usize,
    /// The same for f64 (`conv1d.fft_span_from_f64`).
    pub fft_span_from_f64: usize,
    /// Shortest f32, f16 or bf16 mask through cuFFT (`conv1d.cufft_min_width`), but for f32
    /// masks that `fft_parts_from ..= fft_parts_to` send to the parts.
    pub cufft_min_width: usize,
    /// Shortest f32 mask through the block FFT with the mask in parts (`conv1d.fft_parts_from`).
    pub fft_parts_from: usize,
    /// Widest f32 mask through the parts where libcufft loads (`conv1d.fft_parts_to`).
    pub fft_parts_to: usize,
    /// The same two for f64 (`conv1d.fft_parts_from_f64`, `conv1d.fft_parts_to_f64`).
    pub fft_parts_from_f64: usize,
    /// See `fft_parts_from_f64`.
    pub fft_parts_to_f64: usize,
    /// Smallest FFT size that packs a tile's even and odd points into one transform rather
    /// than two tiles (`conv1d.fft_even_odd_from`).
    pub fft_even_odd_from: usize,
    /// Outputs per row from which f32 masks of [`WIDE_TILE_WIDTHS`] take the wide-tile kernel
    /// (`conv1d.wide_tile_from`).
    pub wide_tile_from: usize,
    /// Outputs per row from which f16 and bf16 masks of [`WIDE_TILE_WIDTHS_16`] that `Auto`
    /// runs on FMAs take the 16-bit wide-tile kernel (`conv1d.half_wide_tile_from`).
    pub half_wide_tile_from: usize,
}

impl Default for Crossovers {
    fn default() -> Self {
        Crossovers {
            fft_min_width: fft_min_width::<f32>(false),
            fft_min_width_f64: fft_min_width::<f64>(false),
            fft_span_from: FFT_SPAN_FROM,
            fft_span_from_f64: FFT_SPAN_FROM_F64,
            cufft_min_width: cufft_min_width::<f32>(),
            fft_parts_from: FFT_PARTS_FROM,
            fft_parts_to: FFT_PARTS_TO,
            fft_parts_from_f64: FFT_PARTS_FROM_F64,
            fft_parts_to_f64: FFT_PARTS_TO_F64,
            fft_even_odd_from: FFT_EVEN_ODD_FROM,
            wide_tile_from: WIDE_TILE_FROM_ORDINARY,
            half_wide_tile_from: WIDE_TILE_FROM_ORDINARY,
        }
    }
}

impl Crossovers {
    /// The crossovers from a lookup of gpu_core::tuning keys (`|k| gpu.tuned(k)`).
    #[cfg_attr(not(any(test, feature = "cuda")), allow(dead_code))]
    pub fn from_keys(value: impl Fn(&str) -> u64) -> Self {
        let count = |k: &str| usize::try_from(value(k)).unwrap_or(usize::MAX);
        Crossovers {
            fft_min_width: count("conv1d.fft_min_width"),
            fft_min_width_f64: count("conv1d.fft_min_width_f64"),
            fft_span_from: count("conv1d.fft_span_from"),
            fft_span_from_f64: count("conv1d.fft_span_from_f64"),
            cufft_min_width: count("conv1d.cufft_min_width"),
            fft_parts_from: count("conv1d.fft_parts_from"),
            fft_parts_to: count("conv1d.fft_parts_to"),
            fft_parts_from_f64: count("conv1d.fft_parts_from_f64"),
            fft_parts_to_f64: count("conv1d.fft_parts_to_f64"),
            fft_even_odd_from: count("conv1d.fft_even_odd_from"),
            wide_tile_from: count("conv1d.wide_tile_from"),
            half_wide_tile_from: count("conv1d.half_wide_tile_from"),
        }
    }

    /// The shortest mask of `T` through the block FFT (16-bit types with tensor cores keep
    /// [`fft_min_width`]'s 384: the tensor-core kernel is their direct path).
    fn fft_min<T: Real>(&self, tensor_cores: bool, warpgroup: bool) -> usize {
        match (
            T::computes_wider() && tensor_cores,
            std::mem::size_of::<T::Wide>(),
        ) {
            (true, _) if warpgroup => warpgroup_fft_min_width::<T>(),
            (true, _) => fft_min_width::<T>(true),
            (false, 8) => self.fft_min_width_f64,
            (false, _) => self.fft_min_width,
        }
    }

    /// The shortest f32 or f64 mask that takes the 16384-point spans where the width table
    /// ([`crate::fft_size`]) gives smaller ones; f16 and bf16 keep their tables.
    fn span_from<T: Real>(&self) -> usize {
        match (T::NAME, std::mem::size_of::<T::Wide>()) {
            (_, 8) => self.fft_span_from_f64,
            ("f32", _) => self.fft_span_from,
            _ => usize::MAX,
        }
    }

    /// The widths of `T` that `Auto` runs with the mask in parts where libcufft loads (f32 and
    /// f64; none for f16 and bf16, which have no parts kernels).
    fn parts_range<T: Real>(&self) -> Option<(usize, usize)> {
        match (T::NAME, std::mem::size_of::<T::Wide>()) {
            ("f64", 8) => Some((self.fft_parts_from_f64, self.fft_parts_to_f64)),
            ("f32", _) => Some((self.fft_parts_from, self.fft_parts_to)),
            _ => None,
        }
    }

    /// The shortest mask of `T` through cuFFT (f64: past the block FFT's widest mask).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn cufft_min<T: Real>(&self) -> usize {
        if std::mem::size_of::<T::Wide>() == 8 {
            cufft_min_width::<T>()
        } else {
            self.cufft_min_width
        }
    }
}

/// The block FFT's path for a size of `size` points: the even-and-odd packing where it applies
/// (see [`crate::fft::fft_even_odd`]), else two tiles a transform.
fn fft_path<T: Real>(size: usize, at: &Crossovers) -> Path {
    if crate::fft::fft_even_odd::<T>(size, at.fft_even_odd_from) {
        Path::FftEvenOdd { size: size as u32 }
    } else {
        Path::Fft { size: size as u32 }
    }
}

/// The FFT size [`Strategy::Auto`] takes for a mask of `w`, if it takes the FFT path.
fn auto_fft_size<T: Real>(
    w: usize,
    tensor_cores: bool,
    warpgroup: bool,
    at: &Crossovers,
) -> Option<usize> {
    if w < at.fft_min::<T>(tensor_cores, warpgroup) {
        return None;
    }
    device_fft_size::<T>(w, at)
}

/// The block FFT's size for a mask of `w` on this device (`Auto`, and `Strategy::Fft` with
/// size 0): the width table's ([`crate::fft_size`]), or the 16384-point spans from the device's
/// `conv1d.fft_span_from` on; `None` past [`crate::fft_max_width`].
fn device_fft_size<T: Real>(w: usize, at: &Crossovers) -> Option<usize> {
    let size = crate::fft::fft_size::<T>(w)?;
    // A device's own crossing to the long spans: they read less halo per output, which counts
    // for more where memory is slower (`conv1d.fft_span_from`).
    Some(if size < LONG_SPAN && w >= at.span_from::<T>() {
        LONG_SPAN
    } else {
        size
    })
}

/// The parts [`Strategy::Auto`] splits a mask of `w` into, if it takes that path: from the
/// device's `conv1d.fft_parts_from*` on, up to its `conv1d.fft_parts_to*` where libcufft loads
/// (cuFFT past it) and as far as the parts take the mask where it does not (they beat the
/// direct sums there by far: f64 w = 16383 two parts 2.3 ms, the direct sums 85.8 ms, 2^26).
fn auto_parts<T: Real>(w: usize, cufft: bool, at: &Crossovers) -> Option<usize> {
    let (from, to) = at.parts_range::<T>()?;
    if w < from || (cufft && w > to) {
        return None;
    }
    crate::fft_parts::<T>(w)
}

/// `tensor_cores`: whether the tensor-core kernel can run this mask here (compute capability
/// 8.0 or later, and for f32 a mask the TF32 split takes); `warpgroup`: whether the warpgroup
/// kernel can (compute capability 9.0); `cufft`: whether libcufft loads; `at`: the device's
/// crossovers.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve<T: Real>(
    strategy: Strategy,
    n_out: usize,
    w: usize,
    tensor_cores: bool,
    warpgroup: bool,
    cufft: bool,
    at: &Crossovers,
) -> Path {
    match strategy {
        // Past one block's transform (or a cuFFT segment named), cuFFT; `Conv1d::new` has
        // refused it where libcufft is missing.
        Strategy::Fft { size } if size as usize > crate::fft_max_size::<T>() => {
            Path::CuFft { size: size as u64 }
        }
        Strategy::Fft { size: 0 } if w > crate::fft_max_width::<T>() => Path::CuFft {
            size: crate::cufft_size(w, n_out) as u64,
        },
        Strategy::Basic => Path::Basic,
        Strategy::ConstantMask => Path::Constant,
        Strategy::TiledHalo { tile } => Path::TiledHalo { tile },
        Strategy::TiledCached { tile } => Path::TiledCached { tile },
        Strategy::TensorCore => Path::TensorCore,
        Strategy::Warpgroup => Path::Warpgroup,
        // validate() has checked that a size exists (0 if not: the launch refuses it)
        Strategy::Fft { size } => {
            let size = match size {
                0 => device_fft_size::<T>(w, at).unwrap_or(0),
                s => s as usize,
            };
            fft_path::<T>(size, at)
        }
        Strategy::RegisterTiled => fma_path::<T>(n_out, w, at),
        // validate() has checked that the parts fit (0 if not: the launch refuses it)
        Strategy::FftParts { parts } => Path::FftEvenOddParts {
            size: crate::fft_max_size::<T>() as u32,
            parts: match parts {
                0 => crate::fft_parts::<T>(w).unwrap_or(0) as u32,
                p => p,
            },
        },
        Strategy::Auto => {
            if n_out < auto_tile::<T>() / AUTO_SHORT_ROW_DIVISOR {
                Path::Basic
            } else if let Some(parts) = auto_parts::<T>(w, cufft, at) {
                Path::FftEvenOddParts {
                    size: crate::fft_max_size::<T>() as u32,
                    parts: parts as u32,
                }
            } else if cufft && w >= at.cufft_min::<T>() {
                Path::CuFft {
                    size: crate::cufft_size(w, n_out) as u64,
                }
            } else if let Some(size) = auto_fft_size::<T>(w, tensor_cores, warpgroup, at) {
                fft_path::<T>(size, at)
            } else if tensor_cores
                && warpgroup
                && warpgroup_min_width::<T>(n_out)
                    .is_some_and(|min| (min..=WARPGROUP_MAX_WIDTH).contains(&w))
            {
                Path::Warpgroup
            } else if tensor_cores
                && tensor_min_width::<T>(n_out)
                    .is_some_and(|min| (min..=TENSOR_MAX_WIDTH).contains(&w))
            {
                Path::TensorCore
            } else {
                fma_path::<T>(n_out, w, at)
            }
        }
    }
}

/// `Auto`'s FMA kernel for a mask of `w` in rows of `n_out` outputs: compiled for the width where
/// one is (with wide tiles for long rows: f32 from `at.wide_tile_from`, f16 and bf16 from
/// `at.half_wide_tile_from`), else the runtime-width kernel.
fn fma_path<T: Real>(n_out: usize, w: usize, at: &Crossovers) -> Path {
    let wide_from = if std::mem::size_of::<T>() == 2 {
        at.half_wide_tile_from
    } else {
        at.wide_tile_from
    };
    if wide_tile_widths::<T>().is_some_and(|r| r.contains(&w)) && n_out >= wide_from {
        Path::RegisterTiledFixedWide { width: w as u32 }
    } else if AUTO_FIXED_WIDTHS.contains(&w) {
        Path::RegisterTiledFixed { width: w as u32 }
    } else {
        Path::RegisterTiled
    }
}

/// Register tiles of shape `s` per row: tile `t` covers outputs `[t·TILE − d, (t+1)·TILE − d)`
/// with the alignment shift `d < V`, so `n_out + V − 1` outputs are always covered.
fn tiles_per_row(s: AutoShape, n_out: usize) -> u64 {
    ((n_out + s.v - 1) as u64).div_ceil(s.tile as u64)
}

/// Tiles per row of the runtime-width kernel.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn auto_tiles_per_row<T: Real>(n_out: usize) -> u64 {
    tiles_per_row(auto_shape::<T>(), n_out)
}

/// Tiles per row of the fixed-width kernels.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn auto_fixed_tiles_per_row<T: Real>(n_out: usize) -> u64 {
    tiles_per_row(auto_fixed_shape::<T>(), n_out)
}

/// Tiles per row of the wide-tile kernels.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn auto_fixed_wide_tiles_per_row<T: Real>(n_out: usize) -> u64 {
    tiles_per_row(auto_fixed_wide_shape::<T>(), n_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_match_numpy_alignment() {
        assert_eq!(offset(Mode::Full, 1), 0);
        assert_eq!(offset(Mode::Full, 4), -3);
        assert_eq!(offset(Mode::Same, 3), -1);
        assert_eq!(offset(Mode::Same, 4), -2);
        assert_eq!(offset(Mode::Same, 1), 0);
        assert_eq!(offset(Mode::Valid, 9), 0);
    }

    #[test]
    fn shapes_mirror_the_kernel() {
        assert_eq!(
            auto_shape::<f32>(),
            AutoShape {
                v: 4,
                k: 16,
                tile: 4096,
                seg: 1024
            }
        );
        assert_eq!(
            auto_shape::<f64>(),
            AutoShape {
                v: 2,
                k: 8,
                tile: 2048,
                seg: 512
            }
        );
        assert_eq!(
            auto_shape::<gpu_core::f16>(),
            AutoShape {
                v: 8,
                k: 16,
                tile: 4096,
                seg: 1024
            }
        );
        assert_eq!(auto_fixed_tile::<gpu_core::bf16>(), 2048);
        assert_eq!(auto_fixed_tiles_per_row::<gpu_core::bf16>(2041), 1);
        assert_eq!(auto_fixed_tiles_per_row::<gpu_core::bf16>(2042), 2);
        assert_eq!(constant_capacity::<gpu_core::bf16>(), 16384);
        assert_eq!(constant_capacity::<f32>(), 16384);
        assert_eq!(constant_capacity::<f64>(), 8192);
        assert_eq!(auto_tiles_per_row::<f32>(4096), 2);
        assert_eq!(auto_tiles_per_row::<f32>(4093), 1);
        assert_eq!(auto_tiles_per_row::<f32>(1), 1);
        assert_eq!(auto_fixed_tile::<f32>(), 2048);
        assert_eq!(auto_fixed_tile::<f64>(), 1024);
        assert_eq!(auto_fixed_tiles_per_row::<f32>(2048), 2);
        assert_eq!(auto_fixed_tiles_per_row::<f32>(2045), 1);
        assert_eq!(auto_fixed_tiles_per_row::<f64>(1023), 1);
        assert_eq!(auto_fixed_tiles_per_row::<f64>(1024), 2);
    }

    /// The width lists here and the `CONV1D_FIXED(W)` / `CONV1D_FIXED_WIDE(W)` instantiations in
    /// kernels/conv1d.cu (and so the entry points in the committed PTX) agree.
    #[test]
    fn fixed_widths_match_the_ptx() {
        let names =
            gpu_core::Ptx::archive("gpu-conv1d/conv1d", include_bytes!("ptx/conv1d.ptx.kpack"))
                .kernel_names();
        for w in AUTO_FIXED_WIDTHS {
            for t in ["f32", "f64", "f16", "bf16"] {
                let entry = format!("conv1d_auto_w{w}_{t}");
                assert!(
                    names.contains(&&*entry),
                    "{entry} missing from conv1d.ptx.kpack"
                );
            }
        }
        let count = |prefix: &str| {
            names
                .iter()
                .filter(|n| {
                    n.strip_prefix(prefix)
                        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
                })
                .count()
        };
        assert_eq!(
            count("conv1d_auto_w"),
            4 * AUTO_FIXED_WIDTHS.len(),
            "extra fixed-width entries in the PTX"
        );
        assert!(AUTO_FIXED_WIDTHS.windows(2).all(|p| p[0] < p[1]));
        // The wide-tile kernels: f32 for WIDE_TILE_WIDTHS, f16 and bf16 for WIDE_TILE_WIDTHS_16.
        for (t, widths) in [
            ("f32", WIDE_TILE_WIDTHS),
            ("f16", WIDE_TILE_WIDTHS_16),
            ("bf16", WIDE_TILE_WIDTHS_16),
        ] {
            for w in widths {
                let entry = format!("conv1d_auto_wide_w{w}_{t}");
                assert!(
                    names.contains(&&*entry),
                    "{entry} missing from conv1d.ptx.kpack"
                );
            }
        }
        assert_eq!(
            count("conv1d_auto_wide_w"),
            WIDE_TILE_WIDTHS.count() + 2 * WIDE_TILE_WIDTHS_16.count(),
            "extra wide-tile entries in the PTX"
        );
    }

    #[test]
    fn strategy_limits() {
        assert!(validate_strategy::<f32>(Strategy::ConstantMask, 16384).is_ok());
        let e = validate_strategy::<f32>(Strategy::ConstantMask, 16385).unwrap_err();
        assert!(e.to_string().contains("16384 f32"), "{e}");
        assert!(validate_strategy::<f64>(Strategy::TILED_HALO, 8193).is_err());
        assert!(validate_strategy::<f64>(Strategy::Auto, 1 << 20).is_ok());
        assert!(validate_strategy::<f64>(Strategy::Basic, 1 << 20).is_ok());
        let e = validate_strategy::<f32>(Strategy::TiledCached { tile: 100 }, 3).unwrap_err();
        assert!(e.to_string().contains("power of two"), "{e}");
        assert!(validate_strategy::<f32>(Strategy::TiledHalo { tile: 2048 }, 3).is_err());
        assert!(validate_strategy::<f32>(Strategy::Auto, 0).is_err());
    }

    #[test]
    fn long_spans_follow_the_tuning() {
        let h100 = gpu_core::DeviceProfile::new("H100", (9, 0), 132, 3.35e12);
        let mut t = gpu_core::Tuning::new();
        t.set("conv1d.fft_span_from", 700).unwrap();
        t.set("conv1d.fft_span_from_f64", 1500).unwrap();
        let at = Crossovers::from_keys(|k| t.value(k, &h100));
        let n = 1 << 24;
        let long = Path::FftEvenOdd { size: 16384 };
        for s in [Strategy::Auto, Strategy::Fft { size: 0 }] {
            // The table's 2048 below the key, the long spans from it on; an explicit size stays.
            assert_eq!(
                resolve::<f32>(s, n, 699, false, false, false, &at),
                Path::Fft { size: 2048 }
            );
            assert_eq!(resolve::<f32>(s, n, 700, false, false, false, &at), long);
            assert_eq!(
                resolve::<f64>(s, n, 1499, false, false, false, &at),
                Path::Fft { size: 8192 }
            );
            assert_eq!(resolve::<f64>(s, n, 1500, false, false, false, &at), long);
            // Past the long spans the table's 32768 stays.
            assert_eq!(
                resolve::<f32>(s, n, 7000, false, false, false, &at),
                Path::FftEvenOdd { size: 32768 }
            );
        }
        assert_eq!(
            resolve::<f32>(
                Strategy::Fft { size: 4096 },
                n,
                900,
                false,
                false,
                false,
                &at
            ),
            Path::Fft { size: 4096 }
        );
        // f16 keeps its own table (the key is f32's).
        assert_eq!(
            resolve::<gpu_core::f16>(Strategy::Fft { size: 0 }, n, 800, false, false, false, &at),
            Path::Fft { size: 4096 }
        );
        // The H100's built-in values (ordinary memory) move the spans down; the H200's are the
        // tables' own crossings.
        let built_in = Crossovers::default();
        let h200 = gpu_core::DeviceProfile::new("H200", (9, 0), 132, 4.8e12);
        let t = gpu_core::Tuning::new();
        let fast = Crossovers::from_keys(|k| t.value(k, &h200));
        assert_eq!(built_in, Crossovers::from_keys(|k| t.value(k, &h100)));
        let auto = |w: usize, at: &Crossovers| {
            resolve::<f32>(Strategy::Auto, n, w, false, false, false, at)
        };
        let auto64 = |w: usize, at: &Crossovers| {
            resolve::<f64>(Strategy::Auto, n, w, false, false, false, at)
        };
        assert_eq!(auto(750, &built_in), Path::Fft { size: 2048 });
        assert_eq!(auto(751, &built_in), long);
        assert_eq!(auto(1150, &fast), Path::Fft { size: 4096 });
        assert_eq!(auto(1151, &fast), long);
        assert_eq!(auto64(1499, &built_in), Path::Fft { size: 8192 });
        assert_eq!(auto64(1500, &built_in), long);
        assert_eq!(auto64(2047, &fast), Path::Fft { size: 8192 });
        assert_eq!(auto64(2048, &fast), long);
    }

    #[test]
    fn crossovers_follow_the_tuning() {
        // The built-in values of an ordinary GPU are the documented H100 crossovers.
        let h100 = gpu_core::DeviceProfile::new("H100", (9, 0), 132, 3.35e12);
        let t = gpu_core::Tuning::new();
        let built_in = Crossovers::from_keys(|k| t.value(k, &h100));
        assert_eq!(built_in, Crossovers::default());
        let mut t = gpu_core::Tuning::new();
        t.set("conv1d.fft_min_width", 48).unwrap();
        t.set("conv1d.cufft_min_width", 9000).unwrap();
        let at = Crossovers::from_keys(|k| t.value(k, &h100));
        let n = 1 << 24;
        assert!(matches!(
            resolve::<f32>(Strategy::Auto, n, 49, false, false, false, &at),
            Path::Fft { .. }
        ));
        assert!(!matches!(
            resolve::<f32>(Strategy::Auto, n, 40, false, false, false, &at),
            Path::Fft { .. }
        ));
        // The built-in f32 crossing is 33: 32 keeps its fixed-width kernel, 40 takes the FFT.
        assert!(matches!(
            resolve::<f32>(Strategy::Auto, n, 40, false, false, false, &built_in),
            Path::Fft { .. }
        ));
        assert!(!matches!(
            resolve::<f32>(Strategy::Auto, n, 32, false, false, false, &built_in),
            Path::Fft { .. }
        ));
        assert!(matches!(
            resolve::<f32>(Strategy::Auto, n, 9000, false, false, true, &at),
            Path::CuFft { .. }
        ));
        // The parts from conv1d.fft_parts_from (f32) and _f64, and cuFFT past _to.
        let mut t = gpu_core::Tuning::new();
        t.set("conv1d.fft_parts_from", 2000).unwrap();
        t.set("conv1d.fft_parts_to", 3000).unwrap();
        t.set("conv1d.fft_parts_from_f64", 5000).unwrap();
        let parts = Crossovers::from_keys(|k| t.value(k, &h100));
        let auto = |w| resolve::<f32>(Strategy::Auto, n, w, false, false, true, &parts);
        assert!(
            matches!(auto(1999), Path::FftEvenOdd { .. }),
            "{:?}",
            auto(1999)
        );
        assert!(matches!(auto(2000), Path::FftEvenOddParts { .. }));
        assert!(matches!(auto(3000), Path::FftEvenOddParts { .. }));
        assert!(
            matches!(auto(3001), Path::FftEvenOdd { .. }),
            "below cufft_min_width"
        );
        assert!(matches!(
            resolve::<f64>(Strategy::Auto, n, 5000, false, false, true, &parts),
            Path::FftEvenOddParts { .. }
        ));
        // f64 keeps its own key (64 built in).
        assert!(!matches!(
            resolve::<f64>(Strategy::Auto, n, 49, false, false, false, &at),
            Path::Fft { .. }
        ));
        assert!(matches!(
            resolve::<f64>(Strategy::Auto, n, 64, false, false, false, &at),
            Path::Fft { .. }
        ));
    }

    #[test]
    fn wide_tiles_for_long_f32_rows_on_fast_memory() {
        let h100 = gpu_core::DeviceProfile::new("H100", (9, 0), 132, 3.35e12);
        let h200 = gpu_core::DeviceProfile::new("H200", (9, 0), 132, 4.8e12);
        let t = gpu_core::Tuning::new();
        let ordinary = Crossovers::from_keys(|k| t.value(k, &h100));
        let fast = Crossovers::from_keys(|k| t.value(k, &h200));
        assert_eq!(ordinary.wide_tile_from, WIDE_TILE_FROM_ORDINARY);
        assert_eq!(fast.wide_tile_from, 1 << 24);
        let auto = |n_out, w, at: &Crossovers| {
            resolve::<f32>(Strategy::Auto, n_out, w, true, true, false, at)
        };
        let long = 1 << 28;
        // The H100 launches exactly as before at every size.
        for w in 1..=32 {
            assert_eq!(
                auto(long, w, &ordinary),
                Path::RegisterTiledFixed { width: w as u32 }
            );
        }
        // The H200: widths 5-32 from 2^24 outputs per row, 16-output tiles otherwise.
        for w in 1..=32u32 {
            let wide = WIDE_TILE_WIDTHS.contains(&(w as usize));
            assert_eq!(
                auto(1 << 24, w as usize, &fast),
                if wide {
                    Path::RegisterTiledFixedWide { width: w }
                } else {
                    Path::RegisterTiledFixed { width: w }
                }
            );
            assert_eq!(
                auto((1 << 24) - 1, w as usize, &fast),
                Path::RegisterTiledFixed { width: w }
            );
        }
        // f64 keeps its 8-output tiles; f16 and bf16 have wide tiles of their own (32 outputs
        // per thread, conv1d.half_wide_tile_from) for the widths Auto runs on FMAs.
        assert_eq!(
            resolve::<f64>(Strategy::Auto, long, 7, true, true, false, &fast),
            Path::RegisterTiledFixed { width: 7 }
        );
        assert_eq!(fast.half_wide_tile_from, 1 << 25);
        assert_eq!(ordinary.half_wide_tile_from, WIDE_TILE_FROM_ORDINARY);
        for w in 1..=32u32 {
            assert_eq!(
                resolve::<gpu_core::f16>(
                    Strategy::Auto,
                    long,
                    w as usize,
                    false,
                    false,
                    false,
                    &fast
                ),
                Path::RegisterTiledFixedWide { width: w }
            );
            assert_eq!(
                resolve::<gpu_core::bf16>(
                    Strategy::Auto,
                    (1 << 25) - 1,
                    w as usize,
                    false,
                    false,
                    false,
                    &fast
                ),
                Path::RegisterTiledFixed { width: w }
            );
            assert_eq!(
                resolve::<gpu_core::f16>(
                    Strategy::Auto,
                    long,
                    w as usize,
                    false,
                    false,
                    false,
                    &ordinary
                ),
                Path::RegisterTiledFixed { width: w }
            );
        }
        // With tensor cores the long 16-bit rows keep them from their crossover on.
        assert_eq!(
            resolve::<gpu_core::bf16>(Strategy::Auto, long, 7, true, false, false, &fast),
            Path::RegisterTiledFixedWide { width: 7 }
        );
        assert_eq!(
            resolve::<gpu_core::bf16>(Strategy::Auto, long, 31, true, false, false, &fast),
            Path::TensorCore
        );
        assert!(Path::RegisterTiledFixedWide { width: 7 }.prefers_sm80::<gpu_core::bf16>());
        assert!(!Path::RegisterTiledFixedWide { width: 7 }.prefers_sm80::<gpu_core::f16>());
        assert!(Path::Fft { size: 4096 }.prefers_sm80::<gpu_core::bf16>());
        assert!(Path::Fft { size: 8192 }.prefers_sm80::<gpu_core::bf16>());
        assert!(!Path::Fft { size: 16384 }.prefers_sm80::<gpu_core::bf16>());
        assert!(!Path::FftEvenOdd { size: 16384 }.prefers_sm80::<gpu_core::bf16>());
        assert!(!Path::Fft { size: 4096 }.prefers_sm80::<gpu_core::f16>());
        assert!(!Path::CuFft { size: 1 << 16 }.prefers_sm80::<gpu_core::bf16>());
        assert_eq!(auto_fixed_wide_shape::<gpu_core::f16>().tile, 4096);
        assert_eq!(auto_fixed_wide_tiles_per_row::<gpu_core::bf16>(4096 - 7), 1);
        assert_eq!(auto_fixed_wide_tiles_per_row::<gpu_core::bf16>(4096 - 6), 2);
        assert_eq!(wide_tile_widths::<f64>(), None);
        // Past 32 the FFT or the runtime-width kernel, as before; RegisterTiled follows Auto.
        assert!(matches!(auto(long, 33, &fast), Path::Fft { .. }));
        assert_eq!(
            resolve::<f32>(Strategy::RegisterTiled, long, 31, true, true, false, &fast),
            Path::RegisterTiledFixedWide { width: 31 }
        );
        assert_eq!(
            Path::RegisterTiledFixedWide { width: 7 }.kernel_name::<f32>(),
            "conv1d_auto_wide_w7_f32"
        );
        assert_eq!(auto_fixed_wide_shape::<f32>().tile, 3072);
        assert_eq!(auto_fixed_wide_tiles_per_row::<f32>(3072 - 3), 1);
        assert_eq!(auto_fixed_wide_tiles_per_row::<f32>(3072 - 2), 2);
    }

    /// The path with the built-in crossovers of an ordinary GPU (the H100's), without the
    /// warpgroup kernel (as on compute capability 8.x).
    fn resolve_h100<T: Real>(
        strategy: Strategy,
        n_out: usize,
        w: usize,
        tensor_cores: bool,
        cufft: bool,
    ) -> Path {
        resolve::<T>(
            strategy,
            n_out,
            w,
            tensor_cores,
            false,
            cufft,
            &Crossovers::default(),
        )
    }

    #[test]
    fn auto_takes_the_warpgroup_kernel_for_wide_16_bit_masks_on_compute_capability_9() {
        use gpu_core::{bf16, f16};
        let on_h100 = |n: usize, w: usize| {
            resolve::<bf16>(
                Strategy::Auto,
                n,
                w,
                true,
                true,
                false,
                &Crossovers::default(),
            )
        };
        let long = WARPGROUP_LONG_ROW;
        assert_eq!(
            on_h100(long, WARPGROUP_MIN_WIDTH_LONG_ROWS - 1),
            Path::TensorCore
        );
        assert_eq!(
            on_h100(long, WARPGROUP_MIN_WIDTH_LONG_ROWS),
            Path::Warpgroup
        );
        assert_eq!(on_h100(long * 2, 47), Path::TensorCore);
        assert_eq!(on_h100(long * 4, 3), Path::RegisterTiledFixed { width: 3 });
        assert_eq!(on_h100(long * 4, 5), Path::Warpgroup);
        assert_eq!(on_h100(long * 4, 15), Path::Warpgroup);
        assert_eq!(on_h100(long * 2, 9), Path::RegisterTiledFixed { width: 9 });
        assert_eq!(on_h100(long / 4, 127), Path::TensorCore);
        assert_eq!(on_h100(long / 4, 160), Path::TensorCore);
        assert_eq!(on_h100(long / 4, 192), Path::Warpgroup);
        assert_eq!(on_h100(long / 2, 79), Path::TensorCore);
        assert_eq!(on_h100(long / 2, 80), Path::Warpgroup);
        assert_eq!(on_h100(long / 8, 255), Path::TensorCore);
        assert_eq!(on_h100(long / 4, 256), Path::Warpgroup);
        assert_eq!(on_h100(long, 1259), Path::Warpgroup);
        assert!(matches!(on_h100(long, 1260), Path::Fft { .. }));
        assert!(matches!(
            on_h100(long, WARPGROUP_MAX_WIDTH + 1),
            Path::FftEvenOdd { .. }
        ));
        // f16 leaves the warpgroup kernel for the FFT a little earlier than bf16.
        let f16_on_h100 = |w: usize| {
            resolve::<f16>(
                Strategy::Auto,
                long,
                w,
                true,
                true,
                false,
                &Crossovers::default(),
            )
        };
        assert_eq!(f16_on_h100(1079), Path::Warpgroup);
        assert!(matches!(
            f16_on_h100(1080),
            Path::FftEvenOdd { size: 16384 }
        ));
        assert_eq!(warpgroup_fft_min_width::<bf16>(), 1260);
        // Without tensor cores, or for f32, never.
        let f32_path = resolve::<f32>(
            Strategy::Auto,
            long,
            200,
            true,
            true,
            false,
            &Crossovers::default(),
        );
        assert_ne!(f32_path, Path::Warpgroup);
        for w in [50, 200] {
            let p = resolve::<f16>(
                Strategy::Auto,
                long,
                w,
                false,
                true,
                false,
                &Crossovers::default(),
            );
            assert!(
                !matches!(p, Path::Warpgroup | Path::TensorCore),
                "{w}: {p:?}"
            );
        }
        // Asked for, it is the path whatever the width.
        assert_eq!(
            resolve::<f16>(
                Strategy::Warpgroup,
                10,
                3,
                true,
                true,
                false,
                &Crossovers::default()
            ),
            Path::Warpgroup
        );
        assert_eq!(Path::Warpgroup.kernel_name::<f16>(), "conv1d_wgmma_f16");
        assert!(Path::Warpgroup.needs_sm90a() && !Path::Warpgroup.prefers_sm80::<f16>());
        assert!(validate_strategy::<bf16>(Strategy::Warpgroup, WARPGROUP_MAX_WIDTH).is_ok());
        assert!(validate_strategy::<bf16>(Strategy::Warpgroup, WARPGROUP_MAX_WIDTH + 1).is_err());
        let e = validate_strategy::<f32>(Strategy::Warpgroup, 64).unwrap_err();
        assert!(e.to_string().contains("f16 and bf16"), "{e}");
    }

    /// The path without tensor cores (older GPUs, f64).
    fn resolve_fma<T: Real>(strategy: Strategy, n_out: usize, w: usize) -> Path {
        resolve_h100::<T>(strategy, n_out, w, false, false)
    }

    #[test]
    fn auto_takes_tensor_cores_for_long_16_bit_masks() {
        use gpu_core::{bf16, f16};
        let n = 1 << 20;
        assert_eq!(
            resolve_h100::<f16>(Strategy::Auto, n, 25, true, false),
            Path::TensorCore
        );
        assert_eq!(
            resolve_h100::<f16>(Strategy::Auto, n, 24, true, false),
            Path::RegisterTiledFixed { width: 24 }
        );
        assert_eq!(
            resolve_h100::<bf16>(Strategy::Auto, n, 24, true, false),
            Path::RegisterTiledFixed { width: 24 }
        );
        // The widest tensor-core mask: the block FFT's 32768-point spans are faster there.
        assert_eq!(
            resolve_h100::<bf16>(Strategy::Auto, n, TENSOR_MAX_WIDTH, true, false),
            Path::FftEvenOdd { size: 32768 }
        );
        // Long rows: tensor cores from 11.
        let long = TENSOR_LONG_ROW;
        for (w, path) in [
            (10, Path::RegisterTiledFixed { width: 10 }),
            (11, Path::TensorCore),
            (24, Path::TensorCore),
        ] {
            assert_eq!(
                resolve_h100::<f16>(Strategy::Auto, long, w, true, false),
                path
            );
            assert_eq!(
                resolve_h100::<bf16>(Strategy::Auto, long, w, true, false),
                path
            );
        }
        assert_eq!(
            resolve_h100::<f16>(Strategy::Auto, long - 1, 11, true, false),
            Path::RegisterTiledFixed { width: 11 }
        );
        assert_eq!(
            resolve_h100::<f16>(Strategy::Auto, long, 11, false, false),
            Path::RegisterTiledFixed { width: 11 }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, long, 11, true, false),
            Path::RegisterTiledFixed { width: 11 }
        );
        assert_eq!(
            resolve_h100::<bf16>(Strategy::Auto, n, TENSOR_MAX_WIDTH + 1, true, false),
            Path::FftEvenOdd { size: 32768 }
        );
        assert_eq!(
            resolve_h100::<bf16>(Strategy::Auto, n, 40_000, true, false),
            Path::RegisterTiled
        );
        assert_eq!(
            resolve_h100::<f16>(Strategy::Auto, n, 127, false, false),
            Path::Fft { size: 2048 }
        );
        assert_eq!(
            resolve_h100::<f16>(Strategy::Auto, n, 383, true, false),
            Path::TensorCore
        );
        assert_eq!(
            resolve_h100::<f16>(Strategy::Auto, n, 1024, true, false),
            Path::Fft { size: 4096 }
        );
        assert_eq!(
            resolve_h100::<bf16>(Strategy::Auto, n, 31, true, false),
            Path::TensorCore
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 200, true, false),
            Path::Fft { size: 2048 }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::TensorCore, n, 200, true, false),
            Path::TensorCore
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 200, false, false),
            Path::Fft { size: 2048 }
        );
        // Past one block's transform: the mask in parts (three of 13334 for 40000), with
        // libcufft or without; an explicit FFT request goes to cuFFT.
        let parts = |w: usize| Path::FftEvenOddParts {
            size: 32768,
            parts: crate::fft_parts::<f32>(w).unwrap() as u32,
        };
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 40_000, false, false),
            parts(40_000)
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 40_000, false, true),
            parts(40_000)
        );
        let segment = crate::cufft_size(40_000, n) as u64;
        assert_eq!(
            resolve_h100::<f32>(Strategy::FFT, n, 40_000, false, false),
            Path::CuFft { size: segment }
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Fft { size: 1 << 16 }, n, 200, false, true),
            Path::CuFft { size: 1 << 16 }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 21_384, false, true),
            Path::FftEvenOdd { size: 32768 }
        );
        // From the parts' crossing with the one span the parts, up to conv1d.fft_parts_to where
        // libcufft loads (cuFFT past it), and on as far as they take the mask where it does not.
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 21_385, false, true),
            parts(21_385)
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 126_336, false, true),
            parts(126_336)
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 126_337, false, true),
            Path::CuFft {
                size: crate::cufft_size(126_337, n) as u64
            }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 126_337, false, false),
            parts(126_337)
        );
        let f64_parts = |w: usize| Path::FftEvenOddParts {
            size: 16384,
            parts: crate::fft_parts::<f64>(w).unwrap() as u32,
        };
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, 10_143, false, true),
            Path::FftEvenOdd { size: 16384 }
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, 10_144, false, true),
            f64_parts(10_144)
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, 16_383, false, true),
            f64_parts(16_383)
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, 39_074, false, true),
            f64_parts(39_074)
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, 39_075, false, true),
            Path::CuFft {
                size: crate::cufft_size(39_075, n) as u64
            }
        );
        // Past what 64 parts take: cuFFT, or the direct sums without libcufft.
        let widest = (1..=64 * 16384)
            .rev()
            .step_by(997)
            .find(|&w| crate::fft_parts::<f64>(w).is_some())
            .unwrap();
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, widest, false, false),
            f64_parts(widest)
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, 64 * 16384, false, false),
            Path::RegisterTiled
        );
        // f16 and bf16 have no parts kernels: cuFFT from conv1d.cufft_min_width.
        assert!(matches!(
            resolve_h100::<gpu_core::f16>(Strategy::Auto, n, 28_650, false, true),
            Path::CuFft { .. }
        ));
        // The even-and-odd packing: from 16384 points on, past the pairs always.
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 15_361, false, false),
            Path::FftEvenOdd { size: 32768 }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::FFT, n, 4095, false, true),
            Path::FftEvenOdd { size: 16384 }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::FFT, n, 2047, false, true),
            Path::FftEvenOdd { size: 16384 }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Fft { size: 8192 }, n, 2047, false, true),
            Path::Fft { size: 8192 }
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Fft { size: 8192 }, n, 4095, false, false),
            Path::Fft { size: 8192 }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::FFT, n, 200, false, false),
            Path::Fft { size: 2048 }
        );
        assert_eq!(
            resolve_h100::<f32>(Strategy::Fft { size: 4096 }, n, 200, false, false),
            Path::Fft { size: 4096 }
        );
        assert_eq!(
            Path::Fft { size: 4096 }.kernel_name::<f64>(),
            "conv1d_fft4096_f64"
        );
        // f32 masks from 33 take the FFT (w = 63: 0.829× a copy against the fixed-width
        // kernel's 0.762 at 2^26 on the H100).
        assert_eq!(
            resolve_h100::<f32>(Strategy::Auto, n, 63, true, false),
            Path::Fft { size: 512 }
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, 200, true, false),
            Path::Fft { size: 2048 }
        );
        assert_eq!(
            resolve_h100::<f64>(Strategy::Auto, n, 63, true, false),
            Path::RegisterTiledFixed { width: 63 }
        );
        assert!(matches!(
            resolve_h100::<f64>(Strategy::Auto, n, 64, true, false),
            Path::Fft { .. }
        ));
        assert_eq!(
            resolve_h100::<f16>(Strategy::Auto, 100, 200, true, false),
            Path::Basic
        );
        assert_eq!(Path::TensorCore.kernel_name::<bf16>(), "conv1d_tensor_bf16");
        assert!(validate_strategy::<f16>(Strategy::TensorCore, 1).is_ok());
        assert!(validate_strategy::<f32>(Strategy::TensorCore, 64).is_ok());
        let e = validate_strategy::<f64>(Strategy::TensorCore, 64).unwrap_err();
        assert!(e.to_string().contains("f16, bf16 and f32"), "{e}");
        assert!(validate_strategy::<f16>(Strategy::TensorCore, TENSOR_MAX_WIDTH + 1).is_err());
    }

    #[test]
    fn auto_resolves_short_rows_to_basic() {
        assert!(matches!(
            resolve_fma::<f32>(Strategy::Auto, 1 << 20, 33),
            Path::Fft { .. }
        ));
        assert_eq!(
            resolve_fma::<f32>(Strategy::Auto, 1 << 20, 32),
            Path::RegisterTiledFixed { width: 32 }
        );
        assert_eq!(
            resolve_fma::<f32>(Strategy::Auto, 1024, 200),
            Path::Fft { size: 2048 }
        );
        assert_eq!(
            resolve_fma::<f32>(Strategy::Auto, 1024, 63),
            Path::Fft { size: 512 }
        );
        assert_eq!(
            resolve_fma::<f32>(Strategy::RegisterTiled, 1024, 63),
            Path::RegisterTiledFixed { width: 63 }
        );
        assert_eq!(resolve_fma::<f32>(Strategy::Auto, 1023, 33), Path::Basic);
        assert_eq!(resolve_fma::<f32>(Strategy::Auto, 1023, 3), Path::Basic);
        assert_eq!(
            resolve_fma::<f64>(Strategy::Auto, 512, 64),
            Path::Fft { size: 1024 }
        );
        assert_eq!(
            resolve_fma::<f64>(Strategy::RegisterTiled, 512, 64),
            Path::RegisterTiled
        );
        assert_eq!(
            resolve_fma::<f64>(Strategy::Auto, 512, 31),
            Path::RegisterTiledFixed { width: 31 }
        );
        assert_eq!(
            resolve_fma::<f32>(Strategy::Auto, 1 << 28, 127),
            Path::Fft { size: 2048 }
        );
        assert_eq!(
            resolve_fma::<f32>(Strategy::RegisterTiled, 1 << 28, 127),
            Path::RegisterTiledFixed { width: 127 }
        );
        assert_eq!(resolve_fma::<f32>(Strategy::Basic, 1 << 20, 3), Path::Basic);
        assert_eq!(
            resolve_h100::<gpu_core::f16>(Strategy::RegisterTiled, 10, 200, true, false),
            Path::RegisterTiled
        );
        assert_eq!(
            resolve_h100::<gpu_core::f16>(Strategy::RegisterTiled, 1 << 20, 31, true, false),
            Path::RegisterTiledFixed { width: 31 }
        );
        assert_eq!(Path::RegisterTiled.kernel_name::<f64>(), "conv1d_auto_f64");
        assert_eq!(
            Path::RegisterTiledFixed { width: 7 }.kernel_name::<f32>(),
            "conv1d_auto_w7_f32"
        );
        assert_eq!(
            Path::TiledHalo { tile: 64 }.kernel_name::<f32>(),
            "conv1d_tiled_halo_f32"
        );
    }

    #[test]
    fn fft_parts_resolve_to_the_largest_spans() {
        let at = Crossovers::default();
        let n = 1 << 20;
        let parts = |p: u32, w: usize| {
            resolve::<f64>(
                Strategy::FftParts { parts: p },
                n,
                w,
                false,
                false,
                true,
                &at,
            )
        };
        assert_eq!(
            parts(0, 16383),
            Path::FftEvenOddParts {
                size: 16384,
                parts: 2
            }
        );
        assert_eq!(
            parts(3, 16383),
            Path::FftEvenOddParts {
                size: 16384,
                parts: 3
            }
        );
        assert_eq!(
            resolve::<f32>(
                Strategy::FftParts { parts: 0 },
                n,
                65535,
                false,
                false,
                true,
                &at
            ),
            Path::FftEvenOddParts {
                size: 32768,
                parts: 4
            }
        );
        assert_eq!(
            Path::FftEvenOddParts {
                size: 32768,
                parts: 4
            }
            .kernel_name::<f32>(),
            "conv1d_fft_eo32768_parts_f32"
        );
        assert!(validate_strategy::<f64>(Strategy::FftParts { parts: 0 }, 16383).is_ok());
        assert!(validate_strategy::<gpu_core::bf16>(Strategy::FftParts { parts: 0 }, 99).is_err());
        assert_eq!(Strategy::FftParts { parts: 0 }.name(), "fft_parts");
    }
}
