//! CPU convolution, serial and rayon: the test oracles and the benchmark baselines.
//!
//! Same semantics as the GPU kernels (see the crate docs): `y[o] = Σ_j X(o + off + j)·m[j]`
//! with `j` summed in increasing order from 0 in [`Real::Wide`] (`T` itself; `f32` for `f16` and
//! `bf16`, rounded to `T` once per output). The serial and rayon versions compute every output
//! the same way, so they agree bit for bit.
//!
//! Outputs are computed in blocks of 256: a block whose window lies inside the signal reads it
//! in place, a block near an end first gathers its window through the boundary mode; groups of
//! 16 outputs then accumulate in registers over the whole mask, which vectorises. Many short
//! rows or lanes (16 or more, of up to 256 values) are summed side by side instead, 16 lanes at
//! a time, with the same sums in the same order.
//!
//! Rayon forms carry a `par_` prefix (`par_correlate`, as `gpu_reduce::cpu::par_sum`). For long
//! masks, [`correlate_fft`] and its kin (rows: [`apply_rows_fft`]; axes: [`apply_axis_fft`]) run
//! through FFTs, and [`correlate_auto`] and its kin ([`apply_rows_auto`], [`apply_axis_auto`])
//! pick the direct sums or the FFT path by the sizes ([`auto_uses_fft`]), as scipy's
//! `method='auto'`.
//!
//! ```
//! use gpu_conv1d::{cpu, Boundary, Mode};
//! let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
//! let serial = cpu::convolve(&x, &[1.0, 2.0, 1.0], Mode::Full, Boundary::Zero)?;
//! let parallel = cpu::par_convolve(&x, &[1.0, 2.0, 1.0], Mode::Full, Boundary::Zero)?;
//! assert_eq!(serial, parallel);
//! assert_eq!(serial.len(), 1002);
//! # Ok::<(), gpu_core::Error>(())
//! ```

mod auto;
mod axis;
mod fft;
mod renamed;
mod side_by_side;

pub use auto::{
    apply_auto, apply_axis_auto, apply_rows_auto, auto_uses_fft, auto_uses_fft_rows, convolve_auto,
    correlate_auto, par_convolve_auto, par_correlate_auto,
};
pub use axis::{apply_axis, convolve_axis, correlate_axis, par_convolve_axis, par_correlate_axis};
pub use fft::{
    apply_axis_fft, apply_fft, apply_rows_fft, convolve_fft, correlate_fft, par_convolve_fft,
    par_correlate_fft,
};
#[allow(deprecated)]
pub use renamed::{
    convolve_axis_par, convolve_fft_par, convolve_par, convolve_rows_par, correlate_axis_par,
    correlate_fft_par, correlate_par, correlate_rows_par,
};

use ndarray::{Array2, ArrayView2, Axis};
use rayon::prelude::*;

use gpu_core::Result;

use crate::plan::{offset, output_len};
use crate::{Boundary, Mode, Operation, Real};

/// Outputs per block of the CPU kernels.
const BLOCK: usize = 256;

/// The general form: `operation` of `signal` with `mask` in `mode`, serial or on rayon's pool.
pub fn apply<T: Real>(
    operation: Operation,
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Vec<T>> {
    let m = wide_mask(operation, mask)?;
    let n_out = output_len(signal.len(), m.len(), mode)?;
    let mut out = vec![T::ZERO; n_out];
    if n_out > 0 {
        row_into(
            signal,
            &m,
            offset(mode, m.len()),
            boundary,
            &mut out,
            parallel,
        );
    }
    Ok(out)
}

/// Cross-correlation (`numpy.correlate`, `scipy.signal.correlate`), serial.
pub fn correlate<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply(Operation::Correlation, signal, mask, mode, boundary, false)
}

/// Convolution (`numpy.convolve`, `scipy.signal.convolve`: the mask reversed), serial.
pub fn convolve<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply(Operation::Convolution, signal, mask, mode, boundary, false)
}

/// [`correlate`] on rayon's thread pool.
pub fn par_correlate<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply(Operation::Correlation, signal, mask, mode, boundary, true)
}

/// [`convolve`] on rayon's thread pool.
pub fn par_convolve<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply(Operation::Convolution, signal, mask, mode, boundary, true)
}

/// Every row of `signals` (any memory layout) with one mask: a `rows × n_out` array.
pub fn apply_rows<T: Real>(
    operation: Operation,
    signals: ArrayView2<'_, T>,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Array2<T>> {
    let m = wide_mask(operation, mask)?;
    let off = offset(mode, m.len());
    let (rows, n) = signals.dim();
    let n_out = output_len(n, m.len(), mode)?;
    if side_by_side::takes(rows, n, n_out) {
        let mut out = Array2::from_elem((rows, n_out), T::ZERO);
        side_by_side::convolve_lanes(signals, &mut out, Axis(1), &m, off, boundary, parallel);
        return Ok(out);
    }
    rows_with(signals, m.len(), mode, parallel, |x, y| {
        row_into(x, &m, off, boundary, y, parallel)
    })
}

/// A `rows × n_out` array whose row `r` is `one(row r of signals, output row r)` (output rows
/// of at least one element), the rows serial or on rayon's pool.
fn rows_with<T: Real>(
    signals: ArrayView2<'_, T>,
    w: usize,
    mode: Mode,
    parallel: bool,
    one: impl Fn(&[T], &mut [T]) + Sync,
) -> Result<Array2<T>> {
    let (rows, n) = signals.dim();
    let n_out = output_len(n, w, mode)?;
    let mut out = Array2::from_elem((rows, n_out), T::ZERO);
    if n_out == 0 || rows == 0 {
        return Ok(out);
    }
    let flat = out
        .as_slice_mut()
        .expect("a freshly allocated array is contiguous");
    let one_row = |r: usize, y: &mut [T]| {
        let row = signals.row(r);
        match row.as_slice() {
            Some(x) => one(x, y),
            None => one(&row.to_vec(), y),
        }
    };
    if parallel {
        flat.par_chunks_mut(n_out)
            .enumerate()
            .for_each(|(r, y)| one_row(r, y));
    } else {
        flat.chunks_mut(n_out)
            .enumerate()
            .for_each(|(r, y)| one_row(r, y));
    }
    Ok(out)
}

/// [`correlate`] of every row of `signals`, serial.
pub fn correlate_rows<T: Real>(
    signals: ArrayView2<'_, T>,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Array2<T>> {
    apply_rows(Operation::Correlation, signals, mask, mode, boundary, false)
}

/// [`convolve`] of every row of `signals`, serial.
pub fn convolve_rows<T: Real>(
    signals: ArrayView2<'_, T>,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Array2<T>> {
    apply_rows(Operation::Convolution, signals, mask, mode, boundary, false)
}

/// [`correlate_rows`] on rayon's thread pool.
pub fn par_correlate_rows<T: Real>(
    signals: ArrayView2<'_, T>,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Array2<T>> {
    apply_rows(Operation::Correlation, signals, mask, mode, boundary, true)
}

/// [`convolve_rows`] on rayon's thread pool.
pub fn par_convolve_rows<T: Real>(
    signals: ArrayView2<'_, T>,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Array2<T>> {
    apply_rows(Operation::Convolution, signals, mask, mode, boundary, true)
}

/// The mask as the sums apply it (reversed for a convolution), in the type they run in.
fn wide_mask<T: Real>(operation: Operation, mask: &[T]) -> Result<Vec<T::Wide>> {
    Ok(operation
        .effective_mask(mask)?
        .into_iter()
        .map(Real::widen)
        .collect())
}

/// `out[o] = Σ_j X(o + off + j)·m[j]` for one row `x` (non-empty).
fn row_into<T: Real>(
    x: &[T],
    m: &[T::Wide],
    off: i64,
    boundary: Boundary,
    out: &mut [T],
    par: bool,
) {
    // Each task reuses one buffer for its blocks' widened windows.
    if par {
        out.par_chunks_mut(BLOCK)
            .enumerate()
            .for_each_init(Vec::new, |buf, (b, y)| {
                block(x, m, off, boundary, b * BLOCK, y, buf)
            });
    } else {
        let mut buf = Vec::new();
        for (b, y) in out.chunks_mut(BLOCK).enumerate() {
            block(x, m, off, boundary, b * BLOCK, y, &mut buf);
        }
    }
}

/// Outputs `o0 .. o0 + out.len()`; `buf` holds the widened window where it is not `x` itself.
fn block<T: Real>(
    x: &[T],
    m: &[T::Wide],
    off: i64,
    boundary: Boundary,
    o0: usize,
    out: &mut [T],
    buf: &mut Vec<T::Wide>,
) {
    let len = out.len();
    let span = len + m.len() - 1;
    let start = o0 as i64 + off;
    let src: &[T::Wide] = if start >= 0 && start as usize + span <= x.len() {
        let window = &x[start as usize..start as usize + span];
        match T::as_wide(window) {
            Some(w) => w,
            None => {
                buf.clear();
                T::widen_into(window, buf);
                buf
            }
        }
    } else {
        buf.clear();
        buf.extend((0..span).map(|q| {
            boundary
                .index(start + q as i64, x.len())
                .map_or(<T::Wide as Real>::ZERO, |i| x[i].widen())
        }));
        buf
    };
    // Groups of OUTPUTS_PER_GROUP outputs accumulate in registers over the whole mask (one
    // load per multiply-add); each output still sums j = 0, 1, … in order from 0.
    let mut o = 0;
    while o + OUTPUTS_PER_GROUP <= len {
        let mut acc = [<T::Wide as Real>::ZERO; OUTPUTS_PER_GROUP];
        for (j, &mj) in m.iter().enumerate() {
            let xs = &src[o + j..o + j + OUTPUTS_PER_GROUP];
            for k in 0..OUTPUTS_PER_GROUP {
                acc[k] = acc[k] + xs[k] * mj;
            }
        }
        // One value at a time: handing `acc` to a slice conversion keeps it out of registers.
        for (y, &a) in out[o..o + OUTPUTS_PER_GROUP].iter_mut().zip(&acc) {
            *y = T::narrow(a);
        }
        o += OUTPUTS_PER_GROUP;
    }
    let rest = len - o;
    let mut tail = [<T::Wide as Real>::ZERO; OUTPUTS_PER_GROUP];
    for (j, &mj) in m.iter().enumerate() {
        for (y, &xv) in tail[..rest].iter_mut().zip(&src[o + j..o + j + rest]) {
            *y = *y + xv * mj;
        }
    }
    for (y, &a) in out[o..].iter_mut().zip(&tail[..rest]) {
        *y = T::narrow(a);
    }
}

/// Values from one row (or lane) of a box's buffer to the next for `len` values: whole 16-value
/// groups, an odd number of them, so that rows a power of two apart do not share cache sets
/// (lanes of 16 side by side in rows 4 KiB apart ran at 0.76 GB/s, 1.15 padded; long strided
/// lanes gathered into lanes 8 KiB apart: docs/conv1d.md, *The CPU versions*).
fn pitch(len: usize) -> usize {
    (len.div_ceil(16) | 1) * 16
}

/// Outputs of [`block`] accumulated together in registers.
const OUTPUTS_PER_GROUP: usize = 16;

/// One output computed in `f64` from `T` inputs, with `Σ_j |X(p + j)|·|m[j]|` (the scale of its
/// rounding error): the reference the tests compare every type against.
///
/// `m` is the effective mask (reversed already for a convolution); `start` is the input position
/// under `m[0]` (`o + off`).
pub fn reference_at<T: Real>(x: &[T], m: &[T], start: i64, boundary: Boundary) -> (f64, f64) {
    let (mut sum, mut mag) = (0.0f64, 0.0f64);
    for (j, &mj) in m.iter().enumerate() {
        if let Some(i) = boundary.index(start + j as i64, x.len()) {
            let p = x[i].to_f64() * mj.to_f64();
            sum += p;
            mag += p.abs();
        }
    }
    (sum, mag)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bulk widening the blocks use gives what `widen` gives one value at a time, for every
    /// 16-bit pattern (infinities, NaN and subnormals included).
    #[test]
    fn bulk_widening_matches_one_at_a_time() {
        fn case<T: Real<Wide = f32>>(from_bits: fn(u16) -> T) {
            let all: Vec<T> = (0..=u16::MAX).map(from_bits).collect();
            let mut bulk = Vec::new();
            T::widen_into(&all, &mut bulk);
            assert_eq!(bulk.len(), all.len());
            for (b, v) in bulk.iter().zip(&all) {
                let one = v.widen();
                assert!(
                    b.to_bits() == one.to_bits() || (b.is_nan() && one.is_nan()),
                    "{} {v:?}",
                    T::NAME
                );
            }
        }
        case(gpu_core::f16::from_bits);
        case(gpu_core::bf16::from_bits);
    }

    #[test]
    fn blocks_at_the_edges_match_a_direct_sum() {
        let x: Vec<f64> = (0..700).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
        let m = [1.0, -2.0, 3.0, 0.5, 7.0];
        for mode in Mode::ALL {
            for b in Boundary::ALL {
                let y = correlate(&x, &m, mode, b).unwrap();
                let off = offset(mode, m.len());
                for (o, &v) in y.iter().enumerate() {
                    let (r, _) = reference_at(&x, &m, o as i64 + off, b);
                    assert_eq!(v, r, "{mode:?} {b:?} o={o}");
                }
            }
        }
    }
}
