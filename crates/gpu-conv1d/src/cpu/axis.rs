//! CPU references for convolution along any axis of an N-D array (any layout and strides):
//! every lane along the axis is convolved exactly as [`apply`](super::apply) convolves a
//! slice, so the result is, lane for lane, the 1-D result.

use ndarray::{Array, ArrayView, Axis, Dimension};
use rayon::prelude::*;

use gpu_core::{check_axis, Result};

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
    lanes_with(x, axis, m.len(), mode, parallel, |lane, y| {
        super::row_into(lane, &m, off, boundary, y, false)
    })
}

/// An array of `x`'s shape with `axis` `n_out` long whose lanes along it are `one(lane of x,
/// output lane)` (output lanes of at least one element), the lanes serial or on rayon's pool.
pub(super) fn lanes_with<T: Real, D: Dimension>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    w: usize,
    mode: Mode,
    parallel: bool,
    one: impl Fn(&[T], &mut [T]) + Sync,
) -> Result<Array<T, D>> {
    check_axis(axis.0, x.ndim())?;
    let n_out = output_len(x.len_of(axis), w, mode)?;
    let mut shape = x.raw_dim();
    shape[axis.0] = n_out;
    let mut out = Array::from_elem(shape, T::ZERO);
    if out.is_empty() {
        return Ok(out);
    }
    let lanes: Vec<Vec<T>> = x.lanes(axis).into_iter().map(|l| l.to_vec()).collect();
    let lane_out = |lane: &Vec<T>| {
        let mut y = vec![T::ZERO; n_out];
        one(lane, &mut y);
        y
    };
    let results: Vec<Vec<T>> = if parallel {
        lanes.par_iter().map(lane_out).collect()
    } else {
        lanes.iter().map(lane_out).collect()
    };
    for (mut o, y) in out.lanes_mut(axis).into_iter().zip(results) {
        o.iter_mut().zip(y).for_each(|(slot, v)| *slot = v);
    }
    Ok(out)
}

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
