//! CPU references for shaped data: reductions along an axis of an N-D array (any layout and
//! strides) and over segments given by offsets. Each lane or segment is folded exactly as the
//! 1-D functions fold a slice, so an axis or segmented result is, element for element, the
//! 1-D result of its lane or segment (bit for bit for floats too).

use std::borrow::Cow;

use gpu_core::{check_axis, check_offsets, Element, Error, Op, Result};
use ndarray::{Array, ArrayView, ArrayView1, Axis, Dimension, RemoveAxis};
use rayon::prelude::*;

use super::{arg_fold, columns, fold};
use crate::value::Extreme;

/// A lane's elements as a slice (borrowed when contiguous in order, gathered otherwise).
fn lane_values<'a, T: Element>(lane: &'a ArrayView1<'_, T>) -> Cow<'a, [T]> {
    match lane.as_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(lane.to_vec()),
    }
}

/// `f` on every lane of `x` along `axis`, into an array with that axis removed (serial, or on
/// the rayon pool when `parallel`).
fn map_lanes<T, R, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    parallel: bool,
    f: impl Fn(&[T]) -> R + Sync,
) -> Result<Array<R, D::Smaller>>
where
    T: Element,
    R: Send,
    D: Dimension + RemoveAxis,
{
    check_axis(axis.index(), x.ndim())?;
    let shape = x.raw_dim().remove_axis(axis);
    let lanes: Vec<ArrayView1<'_, T>> = x.lanes(axis).into_iter().collect();
    let values: Vec<R> = if parallel {
        lanes.par_iter().map(|l| f(&lane_values(l))).collect()
    } else {
        lanes.iter().map(|l| f(&lane_values(l))).collect()
    };
    Array::from_shape_vec(shape, values).map_err(|e| Error::invalid("x", e.to_string()))
}

/// Whether the lanes along `axis` are best folded one at a time: runs of memory long enough to
/// stream, or (`parallel`) long lanes too few to give each thread two (the columns of one box
/// run on one thread). Otherwise the lanes side by side are folded together, a row of the
/// axis at a time ([`columns`]).
fn lane_by_lane<T, D: Dimension>(x: &ArrayView<'_, T, D>, axis: Axis, parallel: bool) -> bool {
    let long = x.len_of(axis) >= LANE_BY_LANE_FROM;
    let lanes = x.len() / x.len_of(axis).max(1);
    long && (x.stride_of(axis) == 1 || parallel && lanes <= 2 * rayon::current_num_threads())
}

/// Lane length from which contiguous lanes are folded one at a time (shorter ones, read as
/// columns, stay in cache across the rows of a box).
const LANE_BY_LANE_FROM: usize = 64;

/// `op` along `axis` of `x` from `id` (checked), lane by lane or in columns.
fn fold_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    op: Op,
    id: T::Accumulator,
    parallel: bool,
) -> Result<Array<T::Accumulator, D::Smaller>>
where
    T: Element,
    D: Dimension + RemoveAxis,
{
    check_axis(axis.index(), x.ndim())?;
    if lane_by_lane(&x, axis, parallel) {
        return map_lanes(x, axis, parallel, |lane| fold(lane, op, id));
    }
    Ok(columns::fold_axis(x, axis, op, id, parallel))
}

/// `op` along `axis` of `x`: an array with that axis removed, each element the
/// [`reduce`](super::reduce) of its lane (the identity for a zero-length axis), in the
/// accumulator type (f32 for f16 and bf16). Any layout and strides, negative ones included.
///
/// ```
/// use gpu_core::Op;
/// use ndarray::{array, Axis};
/// let x = array![[1, 2, 3], [4, 5, 6]];
/// assert_eq!(gpu_reduce::cpu::reduce_axis(x.view(), Axis(1), Op::Sum).unwrap(), array![6, 15]);
/// // A transposed (column-major) view: the maxima of its rows, the columns of `x`.
/// assert_eq!(gpu_reduce::cpu::reduce_axis(x.t(), Axis(1), Op::Max).unwrap(), array![4, 5, 6]);
/// ```
pub fn reduce_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    op: Op,
) -> Result<Array<T::Accumulator, D::Smaller>>
where
    T: Element,
    D: Dimension + RemoveAxis,
{
    op.check::<T>()?;
    let id = op.identity::<T::Accumulator>()?;
    fold_axis(x, axis, op, id, false)
}

/// [`reduce_axis`] with the lanes spread over the rayon pool (each lane folded serially: the
/// same results).
pub fn par_reduce_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    op: Op,
) -> Result<Array<T::Accumulator, D::Smaller>>
where
    T: Element,
    D: Dimension + RemoveAxis,
{
    op.check::<T>()?;
    let id = op.identity::<T::Accumulator>()?;
    fold_axis(x, axis, op, id, true)
}

/// The sums along `axis` (wrapping for integers; f32 for f16 and bf16), as ndarray's
/// `sum_axis`.
pub fn sum_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
) -> Result<Array<T::Accumulator, D::Smaller>>
where
    T: Element,
    D: Dimension + RemoveAxis,
{
    reduce_axis(x, axis, Op::Sum)
}

fn arg_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    which: Extreme,
) -> Result<Array<usize, D::Smaller>>
where
    T: Element,
    D: Dimension + RemoveAxis,
{
    check_axis(axis.index(), x.ndim())?;
    if x.len_of(axis) == 0 && x.raw_dim().remove_axis(axis).size() > 0 {
        // numpy refuses argmin/argmax over an empty axis: there is no index to give.
        return Err(Error::invalid(
            "axis",
            format!("axis {} has length 0: no index to return", axis.index()),
        ));
    }
    if lane_by_lane(&x, axis, false) {
        return map_lanes(x, axis, false, |lane| {
            arg_fold(which, lane, 0).map_or(0, |(_, i)| i as usize)
        });
    }
    Ok(columns::arg_axis(x, axis, which, false))
}

/// The index along `axis` of the first smallest element of each lane (of the first NaN if a
/// lane has one). An empty axis is an error unless the result is empty too (numpy's rule).
pub fn argmin_axis<T, D>(x: ArrayView<'_, T, D>, axis: Axis) -> Result<Array<usize, D::Smaller>>
where
    T: Element,
    D: Dimension + RemoveAxis,
{
    arg_axis(x, axis, Extreme::Min)
}

/// [`argmin_axis`] for the largest element.
pub fn argmax_axis<T, D>(x: ArrayView<'_, T, D>, axis: Axis) -> Result<Array<usize, D::Smaller>>
where
    T: Element,
    D: Dimension + RemoveAxis,
{
    arg_axis(x, axis, Extreme::Max)
}

/// `op` over each segment of `values`: `offsets[i]..offsets[i + 1]` is segment `i` (CSR
/// style, checked by [`gpu_core::check_offsets`]); an empty segment gives the identity.
/// Results in the accumulator type (f32 for f16 and bf16).
///
/// ```
/// use gpu_core::Op;
/// let v = [1u32, 2, 3, 4, 5];
/// let sums = gpu_reduce::cpu::segmented_reduce(&v, &[0, 2, 2, 5], Op::Sum).unwrap();
/// assert_eq!(sums, vec![3, 0, 12]);
/// ```
pub fn segmented_reduce<T: Element>(
    values: &[T],
    offsets: &[u64],
    op: Op,
) -> Result<Vec<T::Accumulator>> {
    op.check::<T>()?;
    let id = op.identity::<T::Accumulator>()?;
    check_offsets(offsets, values.len())?;
    Ok(segments(values, offsets).map(|s| fold(s, op, id)).collect())
}

/// [`segmented_reduce`] with the segments spread over the rayon pool (same results).
pub fn par_segmented_reduce<T: Element>(
    values: &[T],
    offsets: &[u64],
    op: Op,
) -> Result<Vec<T::Accumulator>> {
    op.check::<T>()?;
    let id = op.identity::<T::Accumulator>()?;
    check_offsets(offsets, values.len())?;
    Ok(offsets
        .par_windows(2)
        .map(|w| fold(&values[w[0] as usize..w[1] as usize], op, id))
        .collect())
}

/// The index within each segment of its first smallest element (first NaN if any); `None` for
/// an empty segment.
pub fn segmented_argmin<T: Element>(values: &[T], offsets: &[u64]) -> Result<Vec<Option<usize>>> {
    segmented_arg(values, offsets, Extreme::Min)
}

/// [`segmented_argmin`] for the largest element.
pub fn segmented_argmax<T: Element>(values: &[T], offsets: &[u64]) -> Result<Vec<Option<usize>>> {
    segmented_arg(values, offsets, Extreme::Max)
}

fn segmented_arg<T: Element>(
    values: &[T],
    offsets: &[u64],
    which: Extreme,
) -> Result<Vec<Option<usize>>> {
    check_offsets(offsets, values.len())?;
    Ok(segments(values, offsets)
        .map(|s| arg_fold(which, s, 0).map(|(_, i)| i as usize))
        .collect())
}

/// The segments of checked offsets, as slices.
fn segments<'a, T>(values: &'a [T], offsets: &'a [u64]) -> impl Iterator<Item = &'a [T]> + 'a {
    offsets
        .windows(2)
        .map(move |w| &values[w[0] as usize..w[1] as usize])
}
