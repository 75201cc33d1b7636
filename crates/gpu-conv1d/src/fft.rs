//! Planning for the FFT path ([`Strategy::Fft`](crate::Strategy::Fft)): transform sizes, tiles,
//! and the tables a transform size needs on the device (the mask's spectrum and the twiddles),
//! computed in f64 on the host with `rustfft`.
//!
//! The kernel (`kernels/include/gpu_prims/conv1d_fft.cuh`) cuts each row's outputs into tiles of
//! `L = N − w + 1` and computes two tiles per block with one complex transform of `N` points
//! forward and one back (overlap-save).

use gpu_core::{Element, Error, Result};
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

use crate::Real;

/// Transform sizes with a kernel (`conv1d_fft<N>_<type>` in `kernels/conv1d.cu`); f64 stops at
/// 8192 ([`fft_max_size`]).
pub const FFT_SIZES: [usize; 6] = [512, 1024, 2048, 4096, 8192, 16384];

/// Points each thread of an `N`-point transform of `T` holds between passes
/// (`Conv1dFftPolicy<A, N>::E` in `gpu_prims/conv1d_fft.cuh`; the block has `N / E` threads):
/// 32 for 4-byte accumulators (f32, f16, bf16) from 4096 points on, 16 otherwise.
pub(crate) fn fft_points_per_thread<T: Real>(size: usize) -> usize {
    if std::mem::size_of::<T::Wide>() == 4 && size >= 4096 {
        32
    } else {
        16
    }
}

/// The shortest tile of the automatic size choice (at the largest size, for the longest masks).
const FFT_MIN_TILE: usize = 1024;

/// The largest transform for `T`: 16384 points for f32, f16 and bf16 (8-byte complex points,
/// 136 KiB of shared memory), 8192 for f64 (16-byte points).
pub fn fft_max_size<T: Real>() -> usize {
    if std::mem::size_of::<T::Wide>() == 8 {
        8192
    } else {
        16384
    }
}

/// Outputs per tile for a transform of `size` points and a mask of `w` (`size − w + 1`; 0
/// where the mask does not fit).
pub fn fft_tile(size: usize, w: usize) -> usize {
    (size + 1).saturating_sub(w)
}

/// The longest mask the FFT path takes for `T` with an automatic size: 15361 for f32, f16 and
/// bf16, 7169 for f64 (a tile of at least 1024 outputs in the largest transform).
pub fn fft_max_width<T: Real>() -> usize {
    fft_max_size::<T>() + 1 - FFT_MIN_TILE
}

/// The automatic size by mask width: `(w_max, size)`, the size for masks of up to `w_max`
/// elements, for 4-byte accumulators (f32, f16, bf16) and for f64. Measured on the H100 (docs/conv1d.md,
/// the FFT width sweep of run G: each size at widths 3 … 15361, 2^26 outputs; between measured
/// widths, where the per-size costs at w = 3 scaled by `N / (N − w + 1)` cross); the f32 sizes
/// from 2048 on again on an H200 after the 4096-16384-point blocks took 32 points a thread
/// (fifteenth session: each size at widths 511 … 15361, the crossings where the measured costs,
/// interpolated between widths, meet). The kernels are bound by arithmetic, not memory, so
/// their crossings do not depend on the memory the GPU has.
const SIZE_BY_WIDTH_F32: [(usize, usize); 6] = [
    (95, 512),
    (319, 1024),
    (545, 2048),
    (1433, 4096),
    (3426, 8192),
    (usize::MAX, 16384),
];
const SIZE_BY_WIDTH_F64: [(usize, usize); 3] = [(111, 1024), (1164, 2048), (usize::MAX, 8192)];

/// The transform size for a mask of `w` elements of `T`: the fastest measured for that width
/// (a table per accumulator type), `None` past [`fft_max_width`].
///
/// ```
/// use gpu_conv1d::fft_size;
/// assert!(fft_size::<f32>(1023).is_some());
/// assert_eq!(fft_size::<f32>(15361), Some(16384));
/// assert_eq!(fft_size::<f32>(15362), None);
/// assert_eq!(fft_size::<f64>(7169), Some(8192));
/// ```
pub fn fft_size<T: Real>(w: usize) -> Option<usize> {
    if w == 0 || w > fft_max_width::<T>() {
        return None;
    }
    let table: &[(usize, usize)] = if std::mem::size_of::<T::Wide>() == 8 {
        &SIZE_BY_WIDTH_F64
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

pub(crate) fn resolve_size<T: Real>(size: u32, w: usize) -> Option<usize> {
    if size == 0 {
        fft_size::<T>(w)
    } else {
        Some(size as usize)
    }
}

/// The device tables of a transform of `n` points for the effective `mask` (already in the
/// order the kernels apply it): `4n` values, the spectrum `conj(DFT(mask)) / n` then the
/// twiddles `e^(−2πi·t/n)`, each as (re, im) pairs, computed in f64 and rounded once to `W`.
pub(crate) fn tables<W: Element>(mask: &[f64], n: usize) -> Vec<W> {
    debug_assert!(mask.len() < n && n.is_power_of_two());
    let mut buf: Vec<Complex<f64>> = (0..n)
        .map(|j| Complex::new(mask.get(j).copied().unwrap_or(0.0), 0.0))
        .collect();
    FftPlanner::<f64>::new()
        .plan_fft_forward(n)
        .process(&mut buf);
    let scale = 1.0 / n as f64;
    let mut out = Vec::with_capacity(4 * n);
    for z in &buf {
        out.push(W::from_f64(z.re * scale));
        out.push(W::from_f64(-z.im * scale));
    }
    for t in 0..n {
        // The angle reduced to the first octant's symmetries by the library's sin/cos in f64:
        // every twiddle within an ulp of f64, far below W's rounding.
        let a = -2.0 * std::f64::consts::PI * t as f64 / n as f64;
        out.push(W::from_f64(a.cos()));
        out.push(W::from_f64(a.sin()));
    }
    out
}

/// Shared memory of a block transforming `n` points of `T` (`FftSlots` complex values of
/// `T::Wide`: one pad slot per 16 points).
pub(crate) fn shared_bytes<T: Real>(n: usize) -> usize {
    (n + n / 16) * 2 * std::mem::size_of::<T::Wide>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_work_per_output() {
        assert_eq!(fft_size::<f32>(8193), Some(16384));
        assert_eq!(fft_size::<f32>(0), None);
        assert_eq!(fft_size::<f64>(4096), Some(8192));
        assert_eq!(fft_size::<f64>(7170), None);
        assert_eq!(fft_size::<gpu_core::f16>(15361), Some(16384));
        for w in 1..=fft_max_width::<f32>() {
            let n = fft_size::<f32>(w).unwrap();
            assert!(fft_tile(n, w) >= 1024.min(n / 4), "w {w}: size {n}");
        }
        for w in 1..=fft_max_width::<f64>() {
            let n = fft_size::<f64>(w).unwrap();
            assert!(
                n <= 8192 && fft_tile(n, w) >= 1024.min(n / 4),
                "w {w}: size {n}"
            );
        }
        assert_eq!(fft_tile(512, 600), 0);
    }

    #[test]
    fn explicit_sizes_are_checked() {
        assert!(validate::<f32>(0, 100).is_ok());
        assert!(validate::<f32>(4096, 4095).is_ok());
        let e = validate::<f32>(4096, 4096).unwrap_err().to_string();
        assert!(e.contains("4096"), "{e}");
        let e = validate::<f64>(16384, 3).unwrap_err().to_string();
        assert!(e.contains("8192"), "{e}");
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
        assert_eq!(t.len(), 4 * n);
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
        let tw = &t[2 * n..];
        assert_eq!((tw[0], tw[1]), (1.0, -0.0));
        assert!((tw[2 * 128] - 0.0).abs() < 1e-16 && (tw[2 * 128 + 1] + 1.0).abs() < 1e-16);
        assert_eq!(shared_bytes::<f32>(4096), 4352 * 8);
        assert_eq!(shared_bytes::<gpu_core::bf16>(16384), 17408 * 8);
        assert_eq!(shared_bytes::<f64>(8192), 8704 * 16);
        assert_eq!(fft_points_per_thread::<f32>(2048), 16);
        assert_eq!(fft_points_per_thread::<gpu_core::f16>(4096), 32);
        assert_eq!(fft_points_per_thread::<f32>(16384), 32);
        assert_eq!(fft_points_per_thread::<f64>(8192), 16);
    }
}
