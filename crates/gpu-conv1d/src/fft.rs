//! Planning for the FFT path ([`Strategy::Fft`](crate::Strategy::Fft)): transform sizes, tiles,
//! and the tables a transform size needs on the device (the mask's spectrum and the twiddles),
//! computed in f64 on the host with `rustfft`.
//!
//! The kernel (`kernels/include/gpu_prims/conv1d_fft.cuh`) cuts each row's outputs into tiles of
//! `L = N − w + 1` for a size of `N` points (overlap-save). A block computes two tiles with one
//! complex transform of `N` points forward and one back (`conv1d_fft<N>_T`, up to
//! [`fft_pair_max`]), or one tile with a transform of `N / 2` points holding its even and odd
//! points (`conv1d_fft_eo<N>_T`: the size twice `fft_pair_max`, and from the device's
//! `conv1d.fft_even_odd_from` on).

use gpu_core::{Element, Error, Result};
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

use crate::Real;

/// Sizes (points of a tile's span) with a kernel (`conv1d_fft<N>_<type>` in
/// `kernels/conv1d.cu`); f64 stops at 16384 ([`fft_max_size`]).
pub const FFT_SIZES: [usize; 7] = [512, 1024, 2048, 4096, 8192, 16384, 32768];

/// The largest complex transform one block holds for `T`: 16384 points for f32, f16 and bf16
/// (8-byte complex points, 136 KiB of shared memory), 8192 for f64 (16-byte points). Sizes up
/// to it pair two tiles in a transform; the size twice it ([`fft_max_size`]) packs one tile's
/// even and odd points.
pub fn fft_pair_max<T: Real>() -> usize {
    if std::mem::size_of::<T::Wide>() == 8 {
        8192
    } else {
        16384
    }
}

/// The smallest size with an even-and-odd kernel (`conv1d_fft_eo<N>_T`).
pub const FFT_EVEN_ODD_MIN: usize = 16384;

/// Whether a size of `size` points for `T` packs one tile's even and odd points into a
/// transform of `size / 2` points (rather than two tiles into one of `size`): past
/// [`fft_pair_max`] always, and from `even_odd_from` (the device's `conv1d.fft_even_odd_from`)
/// where that kernel exists.
pub(crate) fn fft_even_odd<T: Real>(size: usize, even_odd_from: usize) -> bool {
    size > fft_pair_max::<T>() || (size >= FFT_EVEN_ODD_MIN && size >= even_odd_from)
}

/// The widest mask the pairs kernel of the even-and-odd spans runs ([`even_odd_kernel_name`]):
/// it gained 3.5 % at w = 3071, 3 % at 4095 and 1 % at 6143, was level at 6599 and lost 2 % at
/// 7167, and 1 % at 8191 before; with even tiles, even masks 6.5 % at 4096, 3.4 % at 5000 and
/// 1 % at 6142 (H200, 2^26 f32 `same`, docs/conv1d.md "Pair I/O for odd masks and for f16" and
/// "Even tiles").
pub(crate) const EVEN_ODD_PAIRS_MAX_WIDTH: usize = 6143;

/// The entry point of the even-and-odd spans of `size` points for `T` and a mask of `w`:
/// `conv1d_fft_eo16384_pairs_f32` for f32 spans of 16384 points up to
/// [`EVEN_ODD_PAIRS_MAX_WIDTH`], `conv1d_fft_eo<size>_T` otherwise. The pairs kernel moves each
/// point's two values with one 8-byte load or store where aligned; the tiles' even length
/// ([`fft_tile`]) aligns every tile of a row alike. Mirrors the `*_PAIRS_ENTRY` in
/// `kernels/conv1d.cu`.
pub(crate) fn even_odd_kernel_name<T: Real>(size: usize, w: usize) -> String {
    let pairs = T::NAME == "f32" && size == FFT_EVEN_ODD_MIN && w <= EVEN_ODD_PAIRS_MAX_WIDTH;
    let variant = if pairs { "_pairs" } else { "" };
    format!("conv1d_fft_eo{size}{variant}_{}", T::NAME)
}

/// The most parts [`Strategy::FftParts`](crate::Strategy::FftParts) cuts a mask into.
pub const FFT_MAX_PARTS: usize = 64;

/// Taps of each part of a mask of `w` cut into `parts` ([`Strategy::FftParts`](crate::Strategy::FftParts);
/// the last part may be shorter): `⌈w / parts⌉`, rounded up to even so that every part's span
/// starts with the same alignment (the pair loads).
///
/// ```
/// assert_eq!(gpu_conv1d::fft_part_width(16383, 2), 8192);
/// assert_eq!(gpu_conv1d::fft_part_width(7, 3), 4);
/// ```
pub fn fft_part_width(w: usize, parts: usize) -> usize {
    w.div_ceil(parts.max(1)).next_multiple_of(2)
}

/// The parts [`Strategy::FftParts`](crate::Strategy::FftParts) cuts a mask of `w` into with
/// `parts: 0` for `T` (spans of [`fft_max_size`] points): of 2 to [`FFT_MAX_PARTS`], the count
/// whose `parts + 1` transforms a tile cost least per output (the first of equals); `None` for a
/// mask too long for even that many.
///
/// ```
/// // f64 spans of 16384 points: a 16383-wide mask in two parts of 8192, tiles of 8192 outputs.
/// assert_eq!(gpu_conv1d::fft_parts::<f64>(16383), Some(2));
/// assert_eq!(gpu_conv1d::fft_parts::<f32>(65535), Some(4));
/// ```
pub fn fft_parts<T: Real>(w: usize) -> Option<usize> {
    let size = fft_max_size::<T>();
    (2..=FFT_MAX_PARTS)
        .filter_map(|parts| {
            let part_w = fft_part_width(w, parts);
            // Room for the pad (fft_pad) and at least one output.
            (part_w + 1 < size).then(|| {
                (
                    parts,
                    (parts + 1) as f64 / fft_tile(size, part_w + 1) as f64,
                )
            })
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(parts, _)| parts)
}

/// Checks [`Strategy::FftParts`](crate::Strategy::FftParts)`{ parts }` for a mask of `w` of `T`.
pub(crate) fn validate_parts<T: Real>(parts: u32, w: usize) -> Result<()> {
    if std::mem::size_of::<T>() < 4 {
        return Err(Error::invalid(
            "strategy",
            format!(
                "Strategy::FftParts takes f32 and f64 signals, not {}; use Strategy::Auto",
                T::NAME
            ),
        ));
    }
    let size = fft_max_size::<T>();
    let parts = match parts {
        0 => fft_parts::<T>(w).ok_or_else(|| {
            Error::invalid(
                "mask",
                format!(
                    "{w} elements need more than {FFT_MAX_PARTS} parts of a {size}-point span; \
                     use Strategy::Auto (cuFFT)"
                ),
            )
        })?,
        p if p as usize > FFT_MAX_PARTS => {
            return Err(Error::invalid(
                "strategy",
                format!("Strategy::FftParts {{ parts: {p} }}: at most {FFT_MAX_PARTS} parts"),
            ))
        }
        p => p as usize,
    };
    let part_w = fft_part_width(w, parts);
    if part_w + 1 >= size {
        return Err(Error::invalid(
            "mask",
            format!(
                "{w} elements in {parts} part(s) of {part_w} do not fit spans of {size} points \
                 with room for outputs; use more parts"
            ),
        ));
    }
    if (parts - 1) * part_w >= w {
        return Err(Error::invalid(
            "strategy",
            format!(
                "Strategy::FftParts {{ parts: {parts} }}: a mask of {w} fills fewer parts of \
                 {part_w}; use fewer parts"
            ),
        ));
    }
    Ok(())
}

/// The device tables of [`Path::FftEvenOddParts`](crate::Path::FftEvenOddParts): each part's
/// [`even_odd_tables`] pairs (part `q`: taps `q·part_w ..` of the effective `mask`, behind `pad`
/// zeros), one part after another, then the `size / 2`-point transform's twiddle rows.
pub(crate) fn parts_tables<W: Element>(
    mask: &[f64],
    size: usize,
    parts: usize,
    pad: usize,
) -> Vec<W> {
    with_twiddles(parts_pairs(mask, size, parts, pad).into_iter(), size / 2)
}

/// The pairs of [`parts_tables`], in f64.
fn parts_pairs(mask: &[f64], size: usize, parts: usize, pad: usize) -> Vec<Complex<f64>> {
    let part_w = fft_part_width(mask.len(), parts);
    (0..parts)
        .flat_map(|q| {
            let taps = &mask[(q * part_w).min(mask.len())..((q + 1) * part_w).min(mask.len())];
            let part: Vec<f64> = std::iter::repeat(0.0)
                .take(pad)
                .chain(taps.iter().copied())
                .collect();
            even_odd_pairs(&part, size)
        })
        .collect()
}

/// Complex points of the transform behind a size of `size` span points (`even_odd`: see
/// [`fft_even_odd`]).
pub(crate) fn fft_points(size: usize, even_odd: bool) -> usize {
    if even_odd {
        size / 2
    } else {
        size
    }
}

/// Points each thread of a transform of `points` points of `T` holds between passes
/// (`Conv1dFftPolicy<A, N>::E` in `gpu_prims/conv1d_fft.cuh`; the block has `N / E` threads): 32
/// for 4-byte accumulators (f32, f16, bf16) from 4096 points on, 16 otherwise.
pub(crate) fn fft_points_per_thread<T: Real>(points: usize) -> usize {
    points_per_thread(std::mem::size_of::<T::Wide>(), points)
}

/// [`fft_points_per_thread`] for accumulators of `wide_bytes` bytes.
fn points_per_thread(wide_bytes: usize, points: usize) -> usize {
    if wide_bytes == 4 && points >= 4096 {
        32
    } else {
        16
    }
}

/// The shortest tile of the automatic size choice (at the largest size, for the longest masks).
const FFT_MIN_TILE: usize = 1024;

/// The largest size for `T`: 32768 points for f32, f16 and bf16, 16384 for f64 (twice
/// [`fft_pair_max`]: a tile's even and odd points in the largest transform a block holds).
pub fn fft_max_size<T: Real>() -> usize {
    2 * fft_pair_max::<T>()
}

/// Outputs per tile for a transform of `size` points and a mask of `w`: `size − w + 1`, one
/// less where that is odd and `size` is at least [`FFT_EVEN_ODD_MIN`] (so the tiles of a row
/// all start with the same alignment, which the pair loads and stores of those sizes need); 0
/// where the mask does not fit. The FFT path's tiles are `fft_tile(size, w + pad)` with the
/// mask's [`fft_pad`]. Mirrors `L` in `conv1d_fft` (`gpu_prims/conv1d_fft.cuh`).
pub fn fft_tile(size: usize, w: usize) -> usize {
    let tile = (size + 1).saturating_sub(w);
    if size >= FFT_EVEN_ODD_MIN && tile > 1 {
        tile & !1
    } else {
        tile
    }
}

/// Zeros the FFT path puts in front of a mask of `w` whose windows start at offset `off`
/// ([`Mode::offset`](crate::Mode::offset)) for transforms of `size` points: 1 from
/// [`FFT_EVEN_ODD_MIN`] where `off` is odd (and the mask has room), 0 otherwise. The spans then
/// start one position before the windows, with the same correlation, so that they share the
/// outputs' alignment and the pair loads and stores hold on both sides: in `same` mode masks
/// of `w ≡ 2, 3 (mod 4)` (the offset `−⌊w/2⌋` is odd), which then ran 3 % faster (H200,
/// docs/conv1d.md "Spans aligned with their outputs"). The tiles are
/// [`fft_tile`]`(size, w + fft_pad(size, w, off))` outputs long.
pub fn fft_pad(size: usize, w: usize, off: i64) -> usize {
    usize::from(size >= FFT_EVEN_ODD_MIN && off % 2 != 0 && w + 1 < size)
}

/// The longest mask the FFT path takes for `T` with an automatic size: 31745 for f32, f16 and
/// bf16, 15361 for f64 (a tile of at least 1024 outputs at the largest size).
pub fn fft_max_width<T: Real>() -> usize {
    fft_max_size::<T>() + 1 - FFT_MIN_TILE
}

/// The automatic size by mask width: `(w_max, size)`, the size for masks of up to `w_max`
/// elements, for f32 (f16 and bf16 below: [`SIZE_BY_WIDTH_F16`], [`SIZE_BY_WIDTH_BF16`]) and
/// for f64. Measured on the H100 first (docs/conv1d.md, the FFT width sweep of run G), then on
/// an H200 each time the blocks changed, at 2^26 outputs, where the sizes measured side by side
/// cross: 32 points a thread from 4096 points (fifteenth session), the even-and-odd packing
/// (sixteenth), the twiddle rows and lean checks (seventeenth), the radix-32 transforms
/// (eighteenth), the even tiles and f64's pair I/O (twenty-second), the lean index arithmetic
/// (twenty-fourth), and last the decimation-in-time DFTs and the even-and-odd spans' lean
/// checks and stores (twenty-seventh session, docs/conv1d.md "Register DFTs in decimation in
/// time"): f32 512 to 80, 1024 to 100, 2048 to 750, 4096 to 1150 (1100 level, 1200 the
/// 16384-point spans 2.5 % ahead), 16384 to 6100 (6000: 370.6 µs against 376.4-379.9; 6100
/// level). The 8192-point pairs are no longer the fastest at any width (1300-2450: the
/// 16384-point spans 4-12 % ahead). f64 4096 to 1450; f64's 1024 (to 111) is the H100's run G
/// figure. The kernels are bound by arithmetic, not memory, so their crossings do not depend on
/// the memory the GPU has.
const SIZE_BY_WIDTH_F32: [(usize, usize); 6] = [
    (80, 512),
    (100, 1024),
    (750, 2048),
    (1150, 4096),
    (6100, 16384),
    (usize::MAX, 32768),
];
/// f16: the 16384-point spans from 1050 (1000 level with the 4096-point pairs, 1100 2 % ahead)
/// to 5400 (5300 and 5450 level with the 32768-point spans, 5600 2 % behind; twenty-seventh
/// session, H200). `Auto` sends f16 masks below [`crate::warpgroup_fft_min_width`] to the warp-group
/// kernel on compute capability 9.0, so the smaller sizes serve explicit FFT requests and other
/// GPUs; they are f32's, not measured apart.
const SIZE_BY_WIDTH_F16: [(usize, usize); 6] = [
    (80, 512),
    (100, 1024),
    (750, 2048),
    (1050, 4096),
    (5400, 16384),
    (usize::MAX, 32768),
];
/// bf16: f32's crossings before the twenty-seventh session (its spans, whose loads widen a
/// pack, gained less from that session's changes than f32's and f16's), but for the 16384-point
/// spans, 3 % faster since their results round without the NaN test (twenty-eighth session,
/// H200): the 8192-point pairs to 1600 (1500: 276.5-279.9 µs against 289.6-291.0; 1700: the
/// spans 1.4 % ahead, 286.3-288.3 against 290.4-292.9), and 16384 to 4800 (both sizes gained
/// alike; 4400 the 32768-point spans 1 % ahead, 4800 1.5 % behind, 5200 2.5 % ahead: level
/// within the noise; twenty-fourth session: 4700 407.0-411.5 against 414.7-417.1, 4900
/// 414.3-415.3 against 410.8-413.6).
const SIZE_BY_WIDTH_BF16: [(usize, usize); 7] = [
    (80, 512),
    (100, 1024),
    (750, 2048),
    (1250, 4096),
    (1600, 8192),
    (4800, 16384),
    (usize::MAX, 32768),
];
const SIZE_BY_WIDTH_F64: [(usize, usize); 5] = [
    (111, 1024),
    (1220, 2048),
    (1450, 4096),
    (2047, 8192),
    (usize::MAX, 16384),
];

/// The transform size for a mask of `w` elements of `T`: the fastest measured for that width
/// (a table per accumulator type), `None` past [`fft_max_width`].
///
/// ```
/// use gpu_conv1d::fft_size;
/// assert!(fft_size::<f32>(1023).is_some());
/// assert_eq!(fft_size::<f32>(31745), Some(32768));
/// assert_eq!(fft_size::<f32>(31746), None);
/// assert_eq!(fft_size::<f64>(15361), Some(16384));
/// ```
pub fn fft_size<T: Real>(w: usize) -> Option<usize> {
    if w == 0 || w > fft_max_width::<T>() {
        return None;
    }
    let table: &[(usize, usize)] = if std::mem::size_of::<T::Wide>() == 8 {
        &SIZE_BY_WIDTH_F64
    } else if T::NAME == "f16" {
        &SIZE_BY_WIDTH_F16
    } else if T::NAME == "bf16" {
        &SIZE_BY_WIDTH_BF16
    } else {
        &SIZE_BY_WIDTH_F32
    };
    table
        .iter()
        .find(|&&(w_max, size)| w <= w_max && w < size)
        .map(|&(_, size)| size)
}

/// Checks an explicit transform size (`Strategy::Fft { size }`, 0 for the automatic one) against
/// a mask of `w` elements of `T`.
pub(crate) fn validate<T: Real>(size: u32, w: usize) -> Result<()> {
    if size == 0 {
        // Past one block's transform, cuFFT takes the mask (checked for at `Conv1d::new`).
        return Ok(());
    }
    let size = size as usize;
    let max = fft_max_size::<T>();
    if FFT_SIZES.contains(&size) && size <= max {
        if w >= size {
            return Err(Error::invalid(
                "mask",
                format!(
                    "{w} elements do not fit a transform of {size} points with room for outputs"
                ),
            ));
        }
        return Ok(());
    }
    if size.is_power_of_two() && size >= CUFFT_MIN_SIZE {
        if w > size {
            return Err(Error::invalid(
                "mask",
                format!("{w} elements do not fit cuFFT segments of {size} points"),
            ));
        }
        return Ok(());
    }
    Err(Error::invalid(
        "strategy",
        format!(
            "Strategy::Fft {{ size: {size} }}: the sizes for {} are the powers of two from {} to \
             {max} (one block's transform), powers of two from {CUFFT_MIN_SIZE} on (cuFFT \
             segments), or 0 (chosen for the mask and the signal)",
            T::NAME,
            FFT_SIZES[0]
        ),
    ))
}

/// The smallest cuFFT segment (points) an explicit [`Strategy::Fft`](crate::Strategy::Fft)
/// size may name; the automatic choice ([`cufft_size`]) starts at 2^20 unless the whole row
/// fits a smaller one.
pub const CUFFT_MIN_SIZE: usize = 1 << 15;

/// The cuFFT segment size (points, a power of two) for a mask of `w` elements over rows of
/// `n_out` outputs: at least twice the mask and 2^20 (so that the `w − 1` points each segment
/// repeats cost under half, and a segment's transform keeps the GPU busy), but no more than
/// the smallest power of two holding a row's whole span (`n_out + w − 1` points: then one
/// segment per row).
///
/// ```
/// use gpu_conv1d::cufft_size;
/// assert_eq!(cufft_size(20_000, 1 << 26), 1 << 20);
/// assert_eq!(cufft_size(1 << 20, 1 << 26), 1 << 21);
/// // Full correlation of two signals of 2^24: 2^25 − 1 outputs, two segments of 2^25 points.
/// assert_eq!(cufft_size(1 << 24, (1 << 25) - 1), 1 << 25);
/// ```
pub fn cufft_size(w: usize, n_out: usize) -> usize {
    let span = (n_out + w).saturating_sub(1).max(1);
    let long = (2 * w).next_power_of_two().max(1 << 20);
    long.min(span.next_power_of_two())
        .max(w.next_power_of_two())
}

/// The spectrum `conj(DFT_n(mask))` of the effective `mask` (already in the order the kernels
/// apply it) zero-padded to `n` points, in f64.
fn mask_spectrum(mask: &[f64], n: usize) -> Vec<Complex<f64>> {
    let mut buf: Vec<Complex<f64>> = (0..n)
        .map(|j| Complex::new(mask.get(j).copied().unwrap_or(0.0), 0.0))
        .collect();
    FftPlanner::<f64>::new()
        .plan_fft_forward(n)
        .process(&mut buf);
    buf.iter().map(|z| z.conj()).collect()
}

/// The radices of an `n`-point transform's passes with `per_thread` points a thread, first,
/// middle ones (0: none), the last equal to the first (`FftRadices` in
/// `kernels/include/gpu_prims/fft.cuh`).
fn fft_radices(n: usize, per_thread: usize) -> [usize; 3] {
    match (n, per_thread) {
        (8192, 32) => [32, 8, 0],
        (16384, 32) => [32, 16, 0],
        _ => fft_radices_of_16(n),
    }
}

/// [`fft_radices`] with 16 points a thread (and where 32 keep them: 4096 points).
fn fft_radices_of_16(n: usize) -> [usize; 3] {
    match n {
        512 => [8, 8, 0],
        1024 => [8, 16, 0],
        2048 => [16, 8, 0],
        4096 => [16, 16, 0],
        8192 => [8, 16, 8],
        16384 => [16, 8, 8],
        _ => unreachable!("no block transform of {n} points"),
    }
}

/// The twiddled passes of an `n`-point transform, in order, as `(ns, radix)`: every pass but the
/// first, over sub-transforms of `ns` points.
fn twiddle_passes(n: usize, per_thread: usize) -> Vec<(usize, usize)> {
    let [first, mid1, mid2] = fft_radices(n, per_thread);
    let mut passes = vec![(first, mid1)];
    if mid2 != 0 {
        passes.push((first * mid1, mid2));
    }
    passes.push((n / first, first));
    passes
}

/// The powers `w^e` a twiddle row holds (`FftTwiddleRows` in `gpu_prims/fft.cuh`), for
/// transforms whose radices are at most 16.
const TWIDDLE_ROW: [usize; 6] = [1, 2, 3, 4, 8, 12];

/// The powers of a row in transforms with radix-32 passes.
const TWIDDLE_ROW_32: [usize; 7] = [1, 2, 3, 4, 8, 12, 16];

/// The row of an `n`-point transform with `per_thread` points a thread: its powers, and its
/// width in complex values (`FftTwiddleRows::WIDTH`: the powers padded with a zero to an even
/// count, for 16-byte loads).
fn twiddle_row(n: usize, per_thread: usize) -> (&'static [usize], usize) {
    let powers: &'static [usize] = if fft_radices(n, per_thread)[0] == 32 {
        &TWIDDLE_ROW_32
    } else {
        &TWIDDLE_ROW
    };
    (powers, powers.len().next_multiple_of(2))
}

/// The twiddle rows of an `n`-point transform with `per_thread` points a thread
/// (`FftTwiddleRows` in `gpu_prims/fft.cuh`): a pass of radix `R` over sub-transforms of `ns`
/// points has rows `ns + m`, `m < ns`, holding `w^e` (`e` in [`twiddle_row`]) for
/// `w = e^(−2πi·m/(ns·R))`; rows no pass reads, and pad slots, are zero.
fn twiddle_rows(n: usize, per_thread: usize) -> Vec<Complex<f64>> {
    let passes = twiddle_passes(n, per_thread);
    let (powers, width) = twiddle_row(n, per_thread);
    // The last pass has the largest ns: its rows end the table.
    let last_ns = passes[passes.len() - 1].0;
    let mut rows = vec![Complex::new(0.0, 0.0); 2 * last_ns * width];
    for (ns, radix) in passes {
        for m in 0..ns {
            let step = m * (n / (ns * radix));
            for (i, e) in powers.iter().enumerate() {
                // The exponent reduced exactly, the angle rounded once: every twiddle within an
                // ulp of f64, far below the device type's rounding.
                let t = (e * step) % n;
                let a = -2.0 * std::f64::consts::PI * t as f64 / n as f64;
                rows[(ns + m) * width + i] = Complex::new(a.cos(), a.sin());
            }
        }
    }
    rows
}

/// `values` then the twiddle rows of an `n`-point transform of `W` values ([`twiddle_rows`]), as
/// (re, im) pairs rounded once to `W`.
fn with_twiddles<W: Element>(values: impl Iterator<Item = Complex<f64>>, n: usize) -> Vec<W> {
    let per_thread = points_per_thread(std::mem::size_of::<W>(), n);
    values
        .chain(twiddle_rows(n, per_thread))
        .flat_map(|z| [W::from_f64(z.re), W::from_f64(z.im)])
        .collect()
}

/// The device tables of a transform of `n` points pairing two tiles, for the effective `mask`:
/// the spectrum `conj(DFT(mask)) / n` (`2n` values) then the twiddle rows, computed in f64 and
/// rounded once to `W`.
pub(crate) fn tables<W: Element>(mask: &[f64], n: usize) -> Vec<W> {
    debug_assert!(mask.len() < n && n.is_power_of_two());
    let scale = 1.0 / n as f64;
    with_twiddles(mask_spectrum(mask, n).into_iter().map(|z| z * scale), n)
}

/// The device tables of a size of `size` points packing one tile's even and odd points into a
/// transform of `n = size / 2` points (`conv1d_fft_even_odd_product`): the pairs
/// `(a[k], b[k])`, `k < n` (`4n` values), then the transform's twiddle rows.
///
/// With `z[j] = s[2j] + i·s[2j + 1]` and `Z = DFT_n(z)`, the span's spectrum is
/// `X[k] = α·Z[k] + β·conj(Z[n − k])` and `X[k + n] = β·Z[k] + α·conj(Z[n − k])`
/// (`α = (1 − i·w)/2`, `β = (1 + i·w)/2`, `w = e^(−πi·k/n)`). The correlation's spectrum is `Y = X·G` (`G` the mask's
/// `conj(DFT_size)`), and the transform whose inverse holds the outputs' even and odd points
/// again is `Z'[k] = (Ye + i·Yo)/n` with `Ye = (Y[k] + Y[k + n])/2`, `Yo = (Y[k] − Y[k + n])/(2w)`
/// (`1/n` for the inverse): linear in `Z[k]` and `conj(Z[n − k])`, with the coefficients `a[k]`
/// and `b[k]`.
pub(crate) fn even_odd_tables<W: Element>(mask: &[f64], size: usize) -> Vec<W> {
    with_twiddles(even_odd_pairs(mask, size).into_iter(), size / 2)
}

/// The pairs `(a[k], b[k])` of [`even_odd_tables`], in f64.
fn even_odd_pairs(mask: &[f64], size: usize) -> Vec<Complex<f64>> {
    debug_assert!(mask.len() < size && size.is_power_of_two() && size >= 4);
    let n = size / 2;
    let g = mask_spectrum(mask, size);
    let i = Complex::new(0.0, 1.0);
    let mut ab = Vec::with_capacity(2 * n);
    for k in 0..n {
        let w = Complex::from_polar(1.0, -std::f64::consts::PI * k as f64 / n as f64);
        let (alpha, beta) = ((1.0 - i * w) / 2.0, (1.0 + i * w) / 2.0);
        let (g0, g1) = (g[k], g[k + n]);
        let a =
            ((g0 * alpha + g1 * beta) / 2.0 + i * (g0 * alpha - g1 * beta) / (2.0 * w)) / n as f64;
        let b =
            ((g0 * beta + g1 * alpha) / 2.0 + i * (g0 * beta - g1 * alpha) / (2.0 * w)) / n as f64;
        ab.push(a);
        ab.push(b);
    }
    ab
}

/// Shared memory of a block transforming `points` complex points of `T` (`FftSlots` complex
/// values of `T::Wide`: one pad slot per 16 points).
pub(crate) fn shared_bytes<T: Real>(points: usize) -> usize {
    (points + points / 16) * 2 * std::mem::size_of::<T::Wide>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every even-and-odd kernel the host can name exists in the committed PTX, and only the
    /// f32 spans of 16384 points up to w = 6143 take the pairs entry.
    #[test]
    fn even_odd_kernels_exist() {
        let names =
            gpu_core::Ptx::archive("gpu-conv1d/conv1d", include_bytes!("ptx/conv1d.ptx.kpack"))
                .kernel_names();
        fn case<T: Real>(names: &[&str]) {
            for size in [FFT_EVEN_ODD_MIN, 2 * FFT_EVEN_ODD_MIN] {
                if size > fft_max_size::<T>() {
                    continue;
                }
                for w in [1, 2, 3, 4095, 4096, 6143, 6145, size - 1] {
                    let name = even_odd_kernel_name::<T>(size, w);
                    assert!(
                        names.contains(&&*name),
                        "{name} missing from conv1d.ptx.kpack"
                    );
                    let pairs = T::NAME == "f32" && size == 16384 && w <= 6143;
                    assert_eq!(name.contains("_pairs_"), pairs, "{name} for w {w}");
                }
            }
        }
        case::<f32>(&names);
        case::<f64>(&names);
        case::<gpu_core::f16>(&names);
        case::<gpu_core::bf16>(&names);
        assert_eq!(
            even_odd_kernel_name::<f32>(16384, 4095),
            "conv1d_fft_eo16384_pairs_f32"
        );
        assert_eq!(
            even_odd_kernel_name::<f32>(32768, 4095),
            "conv1d_fft_eo32768_f32"
        );
    }

    #[test]
    fn sizes_follow_the_work_per_output() {
        assert_eq!(fft_size::<f32>(80), Some(512));
        assert_eq!(fft_size::<f32>(81), Some(1024));
        assert_eq!(fft_size::<f32>(101), Some(2048));
        assert_eq!(fft_size::<f32>(750), Some(2048));
        assert_eq!(fft_size::<f32>(751), Some(4096));
        assert_eq!(fft_size::<f32>(1150), Some(4096));
        assert_eq!(fft_size::<f32>(1151), Some(16384));
        assert_eq!(fft_size::<f32>(6100), Some(16384));
        assert_eq!(fft_size::<f32>(6101), Some(32768));
        assert_eq!(fft_size::<f32>(0), None);
        assert_eq!(fft_size::<f64>(1450), Some(4096));
        assert_eq!(fft_size::<f64>(1451), Some(8192));
        assert_eq!(fft_size::<f64>(2047), Some(8192));
        assert_eq!(fft_size::<f64>(2048), Some(16384));
        assert_eq!(fft_size::<f64>(4096), Some(16384));
        assert_eq!(fft_size::<f64>(15362), None);
        assert_eq!(fft_size::<gpu_core::f16>(31745), Some(32768));
        assert_eq!(fft_size::<gpu_core::f16>(1050), Some(4096));
        assert_eq!(fft_size::<gpu_core::f16>(1051), Some(16384));
        assert_eq!(fft_size::<gpu_core::f16>(5400), Some(16384));
        assert_eq!(fft_size::<gpu_core::f16>(5401), Some(32768));
        assert_eq!(fft_size::<gpu_core::bf16>(1600), Some(8192));
        assert_eq!(fft_size::<gpu_core::bf16>(1601), Some(16384));
        assert_eq!(fft_size::<gpu_core::bf16>(4800), Some(16384));
        assert_eq!(fft_size::<gpu_core::bf16>(4801), Some(32768));
        assert_eq!(fft_size::<gpu_core::bf16>(1250), Some(4096));
        for w in 1..=fft_max_width::<f32>() {
            let n = fft_size::<f32>(w).unwrap();
            assert!(fft_tile(n, w) >= 1024.min(n / 4), "w {w}: size {n}");
        }
        for w in 1..=fft_max_width::<f64>() {
            let n = fft_size::<f64>(w).unwrap();
            assert!(
                n <= 16384 && fft_tile(n, w) >= 1024.min(n / 4),
                "w {w}: size {n}"
            );
        }
        assert_eq!(fft_tile(512, 600), 0);
    }

    /// The leading zero goes where the offset is odd, from the even-and-odd sizes on, and only
    /// where the padded mask still leaves an output a tile.
    #[test]
    fn pads_follow_the_offset() {
        use crate::Mode;
        assert_eq!(fft_pad(16384, 4095, Mode::Same.offset(4095)), 1);
        assert_eq!(fft_pad(16384, 4094, Mode::Same.offset(4094)), 1);
        assert_eq!(fft_pad(16384, 4096, Mode::Same.offset(4096)), 0);
        assert_eq!(fft_pad(16384, 4093, Mode::Same.offset(4093)), 0);
        assert_eq!(fft_pad(32768, 16383, Mode::Same.offset(16383)), 1);
        assert_eq!(fft_pad(16384, 4095, Mode::Valid.offset(4095)), 0);
        assert_eq!(fft_pad(16384, 4096, Mode::Full.offset(4096)), 1);
        assert_eq!(fft_pad(16384, 4095, Mode::Full.offset(4095)), 0);
        assert_eq!(fft_pad(8192, 4095, Mode::Same.offset(4095)), 0);
        assert_eq!(fft_pad(16384, 16382, -8191), 1);
        assert_eq!(fft_pad(16384, 16383, -8191), 0);
        // w ≡ 3 (mod 4) in `same` mode: a tile two outputs shorter; w ≡ 2: the same tile
        assert_eq!(fft_tile(16384, 4095 + 1), 12288);
        assert_eq!(fft_tile(16384, 4094 + 1), fft_tile(16384, 4094));
    }

    /// Tiles of the sizes with pair I/O have an even length, the smaller sizes keep every
    /// output of their transforms.
    #[test]
    fn tiles_are_even_from_the_even_and_odd_sizes() {
        for size in FFT_SIZES {
            for w in [1, 2, 3, 94, 95, 1024, 4095, 4096, size - 1, size] {
                if w > size {
                    continue;
                }
                let tile = fft_tile(size, w);
                if size >= FFT_EVEN_ODD_MIN && w < size {
                    assert_eq!(tile, (size + 1 - w) & !1, "size {size}, w {w}");
                    assert_eq!(tile % 2, 0, "size {size}, w {w}");
                } else {
                    assert_eq!(tile, size + 1 - w, "size {size}, w {w}");
                }
            }
        }
        assert_eq!(fft_tile(16384, 4096), 12288);
        assert_eq!(fft_tile(16384, 4095), 12290);
        assert_eq!(fft_tile(16384, 16384), 1);
        assert_eq!(fft_tile(8192, 4096), 4097);
    }

    #[test]
    fn explicit_sizes_are_checked() {
        assert!(validate::<f32>(0, 100).is_ok());
        assert!(validate::<f32>(4096, 4095).is_ok());
        let e = validate::<f32>(4096, 4096).unwrap_err().to_string();
        assert!(e.contains("4096"), "{e}");
        assert!(validate::<f64>(16384, 3).is_ok());
        assert!(validate::<f32>(32768, 30000).is_ok());
        assert!(validate::<f32>(3000, 3).is_err());
        // Past one block's transform: cuFFT segments, automatic or named.
        assert!(validate::<f32>(0, 20000).is_ok());
        assert!(validate::<f32>(1 << 16, 20000).is_ok());
        assert!(validate::<f64>(CUFFT_MIN_SIZE as u32, 3).is_ok());
        let e = validate::<f32>(1 << 16, 70000).unwrap_err().to_string();
        assert!(e.contains("segments of 65536"), "{e}");
        let e = validate::<f32>((1 << 16) + 1, 3).unwrap_err().to_string();
        assert!(e.contains("cuFFT"), "{e}");
    }

    #[test]
    fn cufft_sizes() {
        // Twice the mask and at least 2^20, no more than a row's whole span.
        assert_eq!(cufft_size(15_362, 1 << 26), 1 << 20);
        assert_eq!(cufft_size(600_000, 1 << 26), 1 << 21);
        assert_eq!(cufft_size(20_000, 1000), 32_768);
        assert_eq!(cufft_size(20_000, 0), 32_768);
        assert_eq!(cufft_size(1 << 24, (1 << 25) - 1), 1 << 25);
        for (w, n_out) in [(15_362, 1), (70_000, 5), (1 << 20, 1 << 30)] {
            let n = cufft_size(w, n_out);
            assert!(n.is_power_of_two() && n >= w, "{w} {n_out}: {n}");
        }
    }

    /// The tables against a direct DFT in f64: the spectrum of the mask (conjugated, scaled) and
    /// the twiddles.
    #[test]
    fn tables_match_a_direct_dft() {
        let mask = [0.5, -1.25, 2.0, 0.125, 3.0];
        let n = 512;
        let t = tables::<f64>(&mask, n);
        assert_eq!(t.len(), 2 * n + 2 * twiddle_rows(n, 16).len());
        for k in [0, 1, 7, 255, 256, 511] {
            let (mut re, mut im) = (0.0f64, 0.0f64);
            for (j, &m) in mask.iter().enumerate() {
                let a = -2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
                re += m * a.cos();
                im += m * a.sin();
            }
            assert!((t[2 * k] - re / n as f64).abs() < 1e-15, "re {k}");
            assert!((t[2 * k + 1] + im / n as f64).abs() < 1e-15, "im {k}");
        }
        // 512 points: passes of radix 8 over ns = 8 and 64; row 8 + 2 holds w = W_64^2.
        let tw = &t[2 * n..];
        let w = Complex::from_polar(1.0, -2.0 * std::f64::consts::PI * 2.0 / 64.0);
        let row = 2 * (8 + 2) * TWIDDLE_ROW.len();
        assert!((tw[row] - w.re).abs() < 1e-16 && (tw[row + 1] - w.im).abs() < 1e-16);
        assert_eq!(shared_bytes::<f32>(4096), 4352 * 8);
        assert_eq!(shared_bytes::<gpu_core::bf16>(16384), 17408 * 8);
        assert_eq!(shared_bytes::<f64>(8192), 8704 * 16);
        assert_eq!(fft_points_per_thread::<f32>(2048), 16);
        assert_eq!(fft_points_per_thread::<gpu_core::f16>(4096), 32);
        assert_eq!(fft_points_per_thread::<f32>(16384), 32);
        assert_eq!(fft_points_per_thread::<f64>(8192), 16);
    }

    #[test]
    fn packings() {
        let never = usize::MAX;
        assert!(!fft_even_odd::<f32>(16384, never) && fft_even_odd::<f32>(32768, never));
        assert!(!fft_even_odd::<f64>(8192, never) && fft_even_odd::<f64>(16384, never));
        assert!(fft_even_odd::<f32>(16384, 16384) && !fft_even_odd::<f32>(8192, 8192));
        assert!(!fft_even_odd::<gpu_core::f16>(16384, 32768));
        assert_eq!(fft_points(32768, true), 16384);
        assert_eq!(fft_points(16384, false), 16384);
    }

    /// Every twiddle a pass applies, formed from its row as the kernel forms it (`w^r` loaded,
    /// or `w^(r mod 16 − lo)·w^lo`, times `w^16` from 16 on), against `e^(−2πi·r·m/(ns·R))` in
    /// f64; and the rows no pass reads, and the pads, left zero.
    #[test]
    fn twiddle_rows_hold_every_pass_power() {
        for (n, per_thread) in [512, 1024, 2048, 4096, 8192, 16384]
            .into_iter()
            .flat_map(|n| [(n, 16), (n, 32)])
            .filter(|&(n, e)| e == 16 || n >= 4096)
        {
            let rows = twiddle_rows(n, per_thread);
            let (powers, width) = twiddle_row(n, per_thread);
            assert_eq!(width % 2, 0, "16-byte loads");
            let mut read = vec![false; rows.len() / width];
            for (ns, radix) in twiddle_passes(n, per_thread) {
                for m in 0..ns {
                    let row = &rows[(ns + m) * width..][..width];
                    read[ns + m] = true;
                    assert!(row[powers.len()..].iter().all(|z| z.norm() == 0.0));
                    let at = |e: usize| row[powers.iter().position(|&x| x == e).unwrap()];
                    for r in 1..radix {
                        let (r16, lo) = (r & 15, r & 3);
                        let low = match (r16 & !3, lo) {
                            (0, 0) => Complex::new(1.0, 0.0),
                            (0, lo) => at(lo),
                            (hi, 0) => at(hi),
                            (hi, lo) => at(hi) * at(lo),
                        };
                        let got = if r >= 16 { low * at(16) } else { low };
                        let want = Complex::from_polar(
                            1.0,
                            -2.0 * std::f64::consts::PI * (r * m) as f64 / (ns * radix) as f64,
                        );
                        assert!(
                            (got - want).norm() < 1e-15,
                            "n {n} per thread {per_thread} ns {ns} m {m} r {r}"
                        );
                    }
                }
            }
            for (i, used) in read.iter().enumerate() {
                if !used {
                    assert!(rows[i * width..][..width].iter().all(|z| z.norm() == 0.0));
                }
            }
        }
    }

    /// A naive DFT of `z` (f64): the tests' reference transform.
    fn dft(z: &[Complex<f64>]) -> Vec<Complex<f64>> {
        let n = z.len();
        (0..n)
            .map(|k| {
                z.iter()
                    .enumerate()
                    .map(|(j, v)| {
                        v * Complex::from_polar(
                            1.0,
                            -2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64,
                        )
                    })
                    .sum()
            })
            .collect()
    }

    /// The even-and-odd kernel's arithmetic on the host, in f64: the span packed as `z[j] =
    /// s[2j] + i·s[2j + 1]`, transformed, turned into `conj(a·Z[k] + b·conj(Z[n − k]))`,
    /// transformed again and conjugated, gives the correlation's first `size − w + 1` outputs,
    /// even in the real parts and odd in the imaginary parts.
    #[test]
    fn even_odd_tables_give_the_correlation() {
        let size = 64;
        let n = size / 2;
        for w in [1, 2, 5, 17, 63] {
            let mask: Vec<f64> = (0..w).map(|j| ((j * 7 + 3) % 11) as f64 - 4.5).collect();
            let span: Vec<f64> = (0..size)
                .map(|j| ((j * 13 + 5) % 17) as f64 * 0.25 - 2.0)
                .collect();
            let ab = even_odd_pairs(&mask, size);
            assert_eq!(ab.len(), 2 * n);
            let c = |i: usize| ab[i];
            let z: Vec<Complex<f64>> = (0..n)
                .map(|j| Complex::new(span[2 * j], span[2 * j + 1]))
                .collect();
            let zf = dft(&z);
            let v: Vec<Complex<f64>> = (0..n)
                .map(|k| (c(2 * k) * zf[k] + c(2 * k + 1) * zf[(n - k) % n].conj()).conj())
                .collect();
            let out: Vec<Complex<f64>> = dft(&v).iter().map(|z| z.conj()).collect();
            for o in 0..fft_tile(size, w) {
                let want: f64 = (0..w).map(|j| span[o + j] * mask[j]).sum();
                let got = if o % 2 == 0 {
                    out[o / 2].re
                } else {
                    out[o / 2].im
                };
                assert!(
                    (got - want).abs() < 1e-9,
                    "w {w} output {o}: {got} against {want}"
                );
            }
            // The device table: the pairs, then the n-point transform's twiddle rows.
            let t = even_odd_tables::<f64>(&mask, 1024);
            assert_eq!(t.len(), 4 * 512 + 2 * twiddle_rows(512, 16).len());
        }
    }

    /// The kernel's arithmetic for a mask in parts (conv1d_fft_transform's PARTS) on the host:
    /// each part's span (from `pad` before the window, one part width apart) through the
    /// forward transform and its part's pairs, the products added, one inverse: the tile's
    /// outputs are the whole mask's correlation.
    #[test]
    fn parts_tables_give_the_correlation() {
        let size = 64;
        let n = size / 2;
        let signal: Vec<f64> = (0..400)
            .map(|j| ((j * 13 + 5) % 17) as f64 * 0.25 - 2.0)
            .collect();
        for (w, parts, pad) in [
            (5, 1, 0),
            (60, 2, 0),
            (61, 2, 1),
            (100, 3, 0),
            (95, 4, 1),
            (7, 3, 1),
        ] {
            let mask: Vec<f64> = (0..w).map(|j| ((j * 7 + 3) % 11) as f64 - 4.5).collect();
            let part_w = fft_part_width(w, parts);
            assert!(part_w + pad < size);
            let pairs = parts_pairs(&mask, size, parts, pad);
            assert_eq!(pairs.len(), parts * 2 * n);
            // The device table: the pairs, then the 512-point transform's twiddle rows.
            let t = parts_tables::<f64>(&mask, 1024, parts, pad);
            assert_eq!(t.len(), parts * 4 * 512 + 2 * twiddle_rows(512, 16).len());
            // A tile starting at output o0 (windows from o0): part q's span from o0 − pad + q·part_w.
            let o0 = 50;
            let mut sum = vec![Complex::new(0.0, 0.0); n];
            for q in 0..parts {
                let start = o0 - pad + q * part_w;
                let z: Vec<Complex<f64>> = (0..n)
                    .map(|j| Complex::new(signal[start + 2 * j], signal[start + 2 * j + 1]))
                    .collect();
                let zf = dft(&z);
                let ab = &pairs[q * 2 * n..(q + 1) * 2 * n];
                for k in 0..n {
                    sum[k] += (ab[2 * k] * zf[k] + ab[2 * k + 1] * zf[(n - k) % n].conj()).conj();
                }
            }
            let out: Vec<Complex<f64>> = dft(&sum).iter().map(|z| z.conj()).collect();
            for o in 0..fft_tile(size, part_w + pad) {
                let want: f64 = (0..w).map(|j| signal[o0 + o + j] * mask[j]).sum();
                let got = if o % 2 == 0 {
                    out[o / 2].re
                } else {
                    out[o / 2].im
                };
                assert!(
                    (got - want).abs() < 1e-9,
                    "w {w} parts {parts} pad {pad} output {o}: {got} against {want}"
                );
            }
        }
    }

    /// The parts kernels of f32 and f64 (their largest spans) are in the committed PTX.
    #[test]
    fn parts_kernels_exist() {
        let names =
            gpu_core::Ptx::archive("gpu-conv1d/conv1d", include_bytes!("ptx/conv1d.ptx.kpack"))
                .kernel_names();
        let path = |size| crate::Path::FftEvenOddParts { size, parts: 2 };
        for name in [
            path(32768).kernel_name::<f32>(),
            path(16384).kernel_name::<f64>(),
        ] {
            assert!(
                names.contains(&&*name),
                "{name} missing from conv1d.ptx.kpack"
            );
        }
        assert_eq!(
            path(16384).kernel_name::<f64>(),
            "conv1d_fft_eo16384_parts_f64"
        );
    }

    #[test]
    fn parts_counts() {
        assert_eq!(fft_part_width(16383, 2), 8192);
        assert_eq!(fft_part_width(1, 1), 2);
        assert_eq!(fft_parts::<f64>(16383), Some(2));
        assert_eq!(fft_parts::<f64>(15362), Some(2));
        assert_eq!(fft_parts::<f32>(31746), Some(2));
        assert_eq!(fft_parts::<f32>(65535), Some(4));
        // The widest: 64 parts of 16382 (f64) with room for the pad and an output.
        assert!(fft_parts::<f64>(64 * 16382).is_some());
        assert_eq!(fft_parts::<f64>(64 * 16382 + 1), None);
        assert!(validate_parts::<f64>(0, 16383).is_ok());
        assert!(validate_parts::<f64>(2, 16383).is_ok());
        assert!(validate_parts::<f64>(1, 16383).is_err());
        assert!(validate_parts::<f32>(65, 100).is_err());
        assert!(validate_parts::<f32>(50, 100).is_ok()); // 2-tap parts: 50 fill it, 51 do not
        assert!(validate_parts::<f32>(51, 100).is_err());
        assert!(validate_parts::<gpu_core::f16>(2, 100).is_err());
        // 7 taps in 3 parts: parts of 4 (ceil(7 / 3) made even) fill two; the error says so in
        // one line (the GPU test asked for it once, the H100 answered this message).
        assert!(validate_parts::<f32>(2, 7).is_ok());
        let e = validate_parts::<f32>(3, 7).unwrap_err().to_string();
        assert!(e.contains("fills fewer parts of 4; use fewer parts"), "{e}");
        for e in [
            validate_parts::<f64>(0, 64 * 16382 + 1),
            validate_parts::<f64>(1, 16383),
        ] {
            let e = e.unwrap_err().to_string();
            assert!(!e.contains("  "), "one line, single spaces: {e}");
        }
    }
}
