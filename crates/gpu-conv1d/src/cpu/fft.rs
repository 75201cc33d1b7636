//! The CPU FFT path: overlap-save through `rustfft` in f64, serial or on rayon's pool, for long
//! masks, where the direct sums' cost (`w` multiply-adds per output) dominates.
//!
//! Same outputs as the direct functions up to rounding: the sums run in f64 through transforms
//! (error of the order of `ε_f64·log2(N)` times the span's values and the mask), and each output
//! is rounded to `T` once. f32 results are the exact sums rounded once, up to that error (closer
//! than the direct f32 sums, which round at every multiply-add); f16 and bf16 results are the
//! direct ones' (which sum in f32) or one rounding away; f64 results carry the transform's error.
//! Non-finite inputs spread through their block (every output of a block whose span holds a NaN
//! or an infinity is NaN): use the direct functions for such data, or
//! [`apply_auto`](super::apply_auto), which does.

use std::sync::Arc;

use ndarray::{Array, Array2, ArrayView, ArrayView2, Axis, Dimension};
use rayon::prelude::*;
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use gpu_core::{check_axis, Element, Result};

use crate::plan::{check_mask, offset, output_len};
use crate::{Boundary, Mode, Operation, Real};

/// Transform points for rows of `n_out` outputs and a mask of `w`: `N = max(4096, 4·w)` rounded
/// up to a power of two keeps the halo (`w − 1` points) at most a quarter of each transform; a
/// row that fits a smaller power of two whole (`n_out + w − 1` points, one tile) takes that
/// instead: lanes of 64 values paid for 4096-point transforms, 30-60 times the direct sums.
pub(super) fn transform_len(w: usize, n_out: usize) -> usize {
    let block = (4 * w).max(4096).next_power_of_two();
    // n_out ≥ 1 keeps N ≥ w (a tile of at least one output).
    let whole = n_out.max(1).saturating_add(w.saturating_sub(1));
    whole
        .checked_next_power_of_two()
        .map_or(block, |n| n.min(block))
}

/// `operation` of `signal` with `mask` in `mode` through FFTs, serial or (`parallel`) with the
/// blocks on rayon's pool. Same errors as [`apply`](super::apply).
///
/// ```
/// use gpu_conv1d::{cpu, Boundary, Mode, Operation};
/// let x: Vec<f32> = (0..10_000).map(|i| ((i % 7) as f32) - 3.0).collect();
/// let m: Vec<f32> = (0..301).map(|j| 1.0 / (1.0 + j as f32)).collect();
/// let fft = cpu::apply_fft(Operation::Correlation, &x, &m, Mode::Same, Boundary::Reflect, true)?;
/// let direct = cpu::correlate(&x, &m, Mode::Same, Boundary::Reflect)?;
/// assert!(fft.iter().zip(&direct).all(|(a, b)| (a - b).abs() <= 1e-5 * (1.0 + b.abs())));
/// # Ok::<(), gpu_core::Error>(())
/// ```
pub fn apply_fft<T: Real>(
    operation: Operation,
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Vec<T>> {
    let n_out = output_len(signal.len(), mask.len(), mode)?;
    let mut out = vec![T::ZERO; n_out];
    if n_out > 0 {
        OverlapSave::new(operation, mask, mode, n_out)?
            .row_into(signal, boundary, &mut out, parallel);
    }
    Ok(out)
}

/// [`apply_rows`](super::apply_rows) through FFTs: every row of `signals` (any layout) with one
/// mask, whose spectrum is computed once. Same errors and accuracy as [`apply_fft`].
///
/// ```
/// use gpu_conv1d::{cpu, Boundary, Mode, Operation};
/// use ndarray::Array2;
/// let x = Array2::from_shape_fn((3, 5000), |(r, i)| ((r * 7 + i) % 11) as f64 - 5.0);
/// let m: Vec<f64> = (0..700).map(|j| 1.0 / (1.0 + j as f64)).collect();
/// let op = Operation::Convolution;
/// let fft = cpu::apply_rows_fft(op, x.view(), &m, Mode::Full, Boundary::Zero, true)?;
/// let direct = cpu::apply_rows(op, x.view(), &m, Mode::Full, Boundary::Zero, true)?;
/// assert!(fft.iter().zip(&direct).all(|(a, b)| (a - b).abs() <= 1e-9));
/// # Ok::<(), gpu_core::Error>(())
/// ```
pub fn apply_rows_fft<T: Real>(
    operation: Operation,
    signals: ArrayView2<'_, T>,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Array2<T>> {
    let n_out = output_len(signals.ncols(), mask.len(), mode)?;
    let conv = OverlapSave::new(operation, mask, mode, n_out)?;
    super::rows_with(signals, mask.len(), mode, parallel, |x, y| {
        conv.row_into(x, boundary, y, parallel)
    })
}

/// [`apply_axis`](super::apply_axis) through FFTs: every lane along `axis` of `x` (any layout)
/// with one mask, whose spectrum is computed once. Same errors and accuracy as [`apply_fft`].
pub fn apply_axis_fft<T: Real, D: Dimension>(
    operation: Operation,
    x: ArrayView<'_, T, D>,
    axis: Axis,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Array<T, D>> {
    check_axis(axis.0, x.ndim())?;
    let n_out = output_len(x.len_of(axis), mask.len(), mode)?;
    let conv = OverlapSave::new(operation, mask, mode, n_out)?;
    super::axis::lanes_with(x, axis, mask.len(), mode, parallel, |lane, y| {
        conv.row_into(lane, boundary, y, parallel)
    })
}

/// One mask's overlap-save, prepared once for any number of rows of one length: the
/// transforms' plans and the mask's spectrum.
pub(super) struct OverlapSave {
    /// Transform points.
    n: usize,
    /// Outputs per tile (`n − w + 1`).
    tile: usize,
    w: usize,
    /// The mode's offset of output 0 in the signal.
    off: i64,
    forward: Arc<dyn Fft<f64>>,
    inverse: Arc<dyn Fft<f64>>,
    /// conj(DFT(mask)) / n: the correlation's spectrum, the inverse transform's scale folded in.
    h: Vec<Complex<f64>>,
}

impl OverlapSave {
    /// For rows of `n_out` outputs ([`transform_len`]).
    pub(super) fn new<T: Real>(
        operation: Operation,
        mask: &[T],
        mode: Mode,
        n_out: usize,
    ) -> Result<Self> {
        check_mask(mask.len())?;
        let w = mask.len();
        let m = operation.effective_mask(mask)?;
        let n = transform_len(w, n_out);
        let mut planner = FftPlanner::<f64>::new();
        let forward = planner.plan_fft_forward(n);
        let inverse = planner.plan_fft_inverse(n);
        let mut h: Vec<Complex<f64>> = (0..n)
            .map(|j| Complex::new(m.get(j).map_or(0.0, |v| v.to_f64()), 0.0))
            .collect();
        forward.process(&mut h);
        let scale = 1.0 / n as f64;
        for z in &mut h {
            *z = z.conj() * scale;
        }
        Ok(OverlapSave {
            n,
            tile: n - w + 1,
            w,
            off: offset(mode, w),
            forward,
            inverse,
            h,
        })
    }

    /// The outputs of one row (`out.len()` of them, at least one), its tile pairs serial or on
    /// rayon's pool.
    pub(super) fn row_into<T: Real>(
        &self,
        signal: &[T],
        boundary: Boundary,
        out: &mut [T],
        parallel: bool,
    ) {
        let (n, tile, w) = (self.n, self.tile, self.w);
        // Two tiles a transform: the mask is real, so the correlation of `a + i·b` is `a`'s in
        // the real parts and `b`'s in the imaginary parts — half the transforms of one tile each.
        let pair = |bufs: &mut (Vec<Complex<f64>>, Vec<Complex<f64>>),
                    (t, y): (usize, &mut [T])| {
            let (buf, scratch) = bufs;
            let p0 = (2 * t * tile) as i64 + self.off;
            let (ya, yb) = y.split_at_mut(tile.min(y.len()));
            let need_a = ya.len() + w - 1;
            let need_b = if yb.is_empty() { 0 } else { yb.len() + w - 1 };
            buf.fill(Complex::default());
            gather(
                signal,
                boundary,
                p0,
                need_a,
                buf.iter_mut().map(|z| &mut z.re),
            );
            let p1 = p0 + tile as i64;
            gather(
                signal,
                boundary,
                p1,
                need_b,
                buf.iter_mut().map(|z| &mut z.im),
            );
            self.forward.process_with_scratch(buf, scratch);
            for (z, hz) in buf.iter_mut().zip(&self.h) {
                *z *= hz;
            }
            self.inverse.process_with_scratch(buf, scratch);
            for (o, z) in ya.iter_mut().zip(buf.iter()) {
                *o = T::narrow(<T::Wide as Element>::from_f64(z.re));
            }
            for (o, z) in yb.iter_mut().zip(buf.iter()) {
                *o = T::narrow(<T::Wide as Element>::from_f64(z.im));
            }
        };
        let scratch_len = self
            .forward
            .get_inplace_scratch_len()
            .max(self.inverse.get_inplace_scratch_len());
        let buffers = || {
            (
                vec![Complex::default(); n],
                vec![Complex::default(); scratch_len],
            )
        };
        if parallel {
            out.par_chunks_mut(2 * tile)
                .enumerate()
                .for_each_init(buffers, pair);
        } else {
            let mut bufs = buffers();
            out.chunks_mut(2 * tile)
                .enumerate()
                .for_each(|job| pair(&mut bufs, job));
        }
    }
}

/// Writes the `need` points of the span from signal position `p` on (through the boundary rule)
/// into `out`, in place where the span lies inside the signal.
fn gather<'a, T: Real>(
    signal: &[T],
    boundary: Boundary,
    p: i64,
    need: usize,
    out: impl Iterator<Item = &'a mut f64>,
) {
    let inside = usize::try_from(p)
        .ok()
        .and_then(|p| signal.get(p..p.checked_add(need)?));
    match inside {
        Some(span) => out.zip(span).for_each(|(o, v)| *o = v.widen().to_f64()),
        None => out.take(need).enumerate().for_each(|(k, o)| {
            *o = boundary
                .index(p + k as i64, signal.len())
                .map_or(0.0, |i| signal[i].widen().to_f64())
        }),
    }
}

/// [`correlate`](super::correlate) through FFTs (serial).
pub fn correlate_fft<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply_fft(Operation::Correlation, signal, mask, mode, boundary, false)
}

/// [`convolve`](super::convolve) through FFTs (serial).
pub fn convolve_fft<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply_fft(Operation::Convolution, signal, mask, mode, boundary, false)
}

/// [`par_correlate`](super::par_correlate) through FFTs (blocks on rayon's pool).
pub fn par_correlate_fft<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply_fft(Operation::Correlation, signal, mask, mode, boundary, true)
}

/// [`par_convolve`](super::par_convolve) through FFTs (blocks on rayon's pool).
pub fn par_convolve_fft<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply_fft(Operation::Convolution, signal, mask, mode, boundary, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of `max(4096, 4·w)` points, or one transform holding a shorter row whole.
    #[test]
    fn transforms_fit_short_rows() {
        assert_eq!(transform_len(31, 1 << 20), 4096);
        assert_eq!(transform_len(1500, 1 << 20), 8192);
        assert_eq!(transform_len(31, 64), 128);
        assert_eq!(transform_len(31, 98), 128);
        assert_eq!(transform_len(31, 99), 256);
        assert_eq!(transform_len(1500, 3000), 8192);
        assert_eq!(transform_len(5, 0), 8);
        assert_eq!(transform_len(1, 0), 1);
        assert_eq!(transform_len(31, usize::MAX), 4096);
        for (w, n_out) in [(1, 1), (2, 1), (7, 3), (4096, 1), (4097, 5000)] {
            let n = transform_len(w, n_out);
            assert!(n.is_power_of_two() && n >= w, "w {w} n_out {n_out}: {n}");
        }
    }

    /// Against the direct f64 reference for every mode and boundary, masks longer than the
    /// signal and than a transform's tile, signal lengths around the tile.
    #[test]
    fn matches_the_direct_sums() {
        for w in [1, 2, 5, 300, 1500] {
            let mask: Vec<f64> = (0..w).map(|j| ((j * 37 % 11) as f64 - 5.0) / 7.0).collect();
            let tile = transform_len(w, usize::MAX) - w + 1;
            for n in [0, 1, 7, w, tile - 1, tile + 1, 2 * tile + 5, 3 * tile + 17] {
                let x: Vec<f64> = (0..n).map(|i| ((i * 13 % 17) as f64 - 8.0) / 3.0).collect();
                for mode in Mode::ALL {
                    for boundary in Boundary::ALL {
                        for op in [Operation::Correlation, Operation::Convolution] {
                            let direct = super::super::apply(op, &x, &mask, mode, boundary, false);
                            let fft = apply_fft(op, &x, &mask, mode, boundary, n % 2 == 0);
                            match (direct, fft) {
                                (Ok(d), Ok(f)) => {
                                    assert_eq!(d.len(), f.len());
                                    for (o, (a, b)) in d.iter().zip(&f).enumerate() {
                                        assert!(
                                            (a - b).abs() <= 1e-12 * (1.0 + a.abs()),
                                            "w {w} n {n} {mode:?} {boundary:?} {op:?} o {o}: \
                                             {a} vs {b}"
                                        );
                                    }
                                }
                                (Err(_), Err(_)) => {}
                                (d, f) => panic!("w {w} n {n} {mode:?}: {d:?} vs {f:?}"),
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn halves_round_once() {
        use gpu_core::f16;
        let x: Vec<f16> = (0..5000)
            .map(|i| f16::from_f32((i % 9) as f32 / 8.0))
            .collect();
        let m: Vec<f16> = (0..200)
            .map(|j| f16::from_f32(1.0 / (1 + j) as f32))
            .collect();
        let d = super::super::correlate(&x, &m, Mode::Same, Boundary::Nearest).unwrap();
        let f = par_correlate_fft(&x, &m, Mode::Same, Boundary::Nearest).unwrap();
        let ulps = d
            .iter()
            .zip(&f)
            .map(|(a, b)| (a.to_bits() as i32 - b.to_bits() as i32).abs())
            .max()
            .unwrap();
        assert!(ulps <= 1, "{ulps} ulps");
        assert!(correlate_fft::<f32>(&[1.0], &[], Mode::Same, Boundary::Zero).is_err());
    }
}
