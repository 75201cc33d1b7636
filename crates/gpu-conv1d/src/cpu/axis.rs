//! CPU references for convolution along any axis of an N-D array (any layout and strides):
//! every lane along the axis is convolved exactly as [`apply`](super::apply) convolves a
//! slice, so the result is, lane for lane, the 1-D result.

use ndarray::{Array, ArrayView, ArrayView1, ArrayViewMut1, Axis, Dimension};

use gpu_core::{check_axis, lane_boxes, Result};

use super::side_by_side;
use crate::plan::{offset, output_len};
use crate::{Boundary, Mode, Operation, Real};

/// `operation` with `mask` along `axis` of `x`: an array of `x`'s shape with that axis's
/// length replaced by the mode's output length (standard layout), serial or on rayon's pool.
///
/// ```
/// use gpu_conv1d::{cpu, Boundary, Mode, Operation};
/// use ndarray::{array, Axis};
/// let x = array![[1.0f32, 2.0, 3.0], [10.0, 20.0, 30.0]];
/// // Along axis 0 (down the columns), mask [1, 1], numpy's `valid`: one row of sums.
/// let y = cpu::apply_axis(Operation::Correlation, x.view(), Axis(0), &[1.0, 1.0],
///                         Mode::Valid, Boundary::Zero, false).unwrap();
/// assert_eq!(y, array![[11.0f32, 22.0, 33.0]]);
/// ```
pub fn apply_axis<T: Real, D: Dimension>(
    operation: Operation,
    x: ArrayView<'_, T, D>,
    axis: Axis,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Array<T, D>> {
    let m = super::wide_mask(operation, mask)?;
    let off = offset(mode, m.len());
    check_axis(axis.0, x.ndim())?;
    let n = x.len_of(axis);
    let n_out = output_len(n, m.len(), mode)?;
    let lanes = x.len().checked_div(n).unwrap_or(0);
    if side_by_side::takes(lanes, n, n_out) {
        let mut out = result_for(&x, axis, n_out);
        side_by_side::convolve_lanes(x, &mut out, axis, &m, off, boundary, parallel);
        return Ok(out);
    }
    lanes_with(x, axis, m.len(), mode, parallel, |lane, y| {
        super::row_into(lane, &m, off, boundary, y, false)
    })
}

/// An array of `x`'s shape with `axis` `n_out` long whose lanes along it are `one(lane of x,
/// output lane)` (output lanes of at least one element), the lanes serial or on rayon's pool.
/// The lanes go in boxes (`gpu_core::lane_boxes`, up to [`BOX_VALUES`] values a box, on
/// rayon's pool when `parallel`): each box's lanes are gathered into one buffer, convolved
/// there and scattered back, while the box stays in cache. (A vector per lane, every result
/// collected before any was written, took 0.10-1.5 GB/s for a 7-wide mask on a 2-core host,
/// 0.24-4.9 in boxes: docs/conv1d.md, *The CPU versions*.)
pub(super) fn lanes_with<T: Real, D: Dimension>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    w: usize,
    mode: Mode,
    parallel: bool,
    one: impl Fn(&[T], &mut [T]) + Sync,
) -> Result<Array<T, D>> {
    check_axis(axis.0, x.ndim())?;
    let n = x.len_of(axis);
    let n_out = output_len(n, w, mode)?;
    let mut out = result_for(&x, axis, n_out);
    if out.is_empty() {
        return Ok(out);
    }
    // Long lanes (ROWS_FROM values or more) strided in `x` or in the result are gathered or
    // scattered a row of the axis at a time in boxes of 16 lanes or more (a cache line across
    // 16 lanes of f32), where that fits in WIDE_BOX_VALUES, through a view of each lane into
    // buffer lanes a pitch apart (2048x2048 f32 along axis 0: a slice of the box per row into
    // lanes 8 KiB apart 0.54-0.55 GB/s, both changes 0.82; docs/conv1d.md, *The CPU
    // versions*); a lane at a time otherwise.
    let (x_runs, out_runs) = (x.stride_of(axis) == 1, axis.index() + 1 == x.ndim());
    let longest = n.max(n_out);
    let min_lanes = if (x_runs && out_runs) || longest * 16 > WIDE_BOX_VALUES {
        1
    } else {
        16
    };
    let per_box = (BOX_VALUES / longest).max(min_lanes);
    lane_boxes(
        x,
        out.view_mut(),
        axis,
        true,
        per_box,
        parallel,
        &|xb, mut ob| {
            let lanes = ob.len() / n_out;
            let by_rows = lanes >= 16 && longest >= ROWS_FROM;
            // Lane k of the box at src[k np ..] and dst[k op ..].
            let (np, op) = (super::pitch(n), super::pitch(n_out));
            let mut src = vec![T::ZERO; lanes * np];
            let mut dst = vec![T::ZERO; lanes * op];
            if x_runs || !by_rows {
                for (s, lane) in src.chunks_exact_mut(np).zip(xb.lanes(axis)) {
                    ArrayViewMut1::from(&mut s[..n]).assign(&lane);
                }
            } else {
                // A row across the lanes at a time: each read lands beside the last.
                let xl: Vec<_> = xb.lanes(axis).into_iter().collect();
                for r in 0..n {
                    for (k, l) in xl.iter().enumerate() {
                        src[k * np + r] = l[r];
                    }
                }
            }
            for (s, d) in src.chunks(np).zip(dst.chunks_mut(op)) {
                one(&s[..n], &mut d[..n_out]);
            }
            if out_runs || !by_rows {
                for (d, mut o) in dst.chunks_exact(op).zip(ob.lanes_mut(axis)) {
                    o.assign(&ArrayView1::from(&d[..n_out]));
                }
            } else {
                let mut ol: Vec<_> = ob.lanes_mut(axis).into_iter().collect();
                for r in 0..n_out {
                    for (k, l) in ol.iter_mut().enumerate() {
                        l[r] = dst[k * op + r];
                    }
                }
            }
        },
    );
    Ok(out)
}

/// Zeros of `x`'s shape with `axis` `n_out` long, in standard layout.
fn result_for<T: Real, D: Dimension>(
    x: &ArrayView<'_, T, D>,
    axis: Axis,
    n_out: usize,
) -> Array<T, D> {
    let mut shape = x.raw_dim();
    shape[axis.0] = n_out;
    Array::from_elem(shape, T::ZERO)
}

/// Values of a lane box (the longer of a lane and its result, times the lanes): 2^16, so that a
/// box's input and result buffers stay in cache while gathered and scattered.
const BOX_VALUES: usize = 1 << 16;

/// The most values a box of 16 long strided lanes may take (2^22: 16 MiB of f32 each way).
const WIDE_BOX_VALUES: usize = 1 << 22;

/// Lane length from which strided lanes are gathered and scattered a row at a time (shorter
/// lanes, a lane at a time: 65536x64 f32 in Fortran order along axis 1, 0.87 against 0.69
/// GB/s by rows).
const ROWS_FROM: usize = 256;

/// Cross-correlation along `axis` ([`apply_axis`]), serial.
pub fn correlate_axis<T: Real, D: Dimension>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Array<T, D>> {
    apply_axis(Operation::Correlation, x, axis, mask, mode, boundary, false)
}

/// Convolution along `axis` ([`apply_axis`]), serial.
pub fn convolve_axis<T: Real, D: Dimension>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Array<T, D>> {
    apply_axis(Operation::Convolution, x, axis, mask, mode, boundary, false)
}

/// [`correlate_axis`] with the lanes on rayon's pool (same results).
pub fn par_correlate_axis<T: Real, D: Dimension>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Array<T, D>> {
    apply_axis(Operation::Correlation, x, axis, mask, mode, boundary, true)
}

/// [`convolve_axis`] with the lanes on rayon's pool (same results).
pub fn par_convolve_axis<T: Real, D: Dimension>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Array<T, D>> {
    apply_axis(Operation::Convolution, x, axis, mask, mode, boundary, true)
}
