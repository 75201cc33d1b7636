//! CPU references for shaped data: scans along an axis of an N-D array (any layout and
//! strides; every lane scanned independently) and within segments given by offsets. Each lane
//! or segment is scanned exactly as [`serial_in_place`](super::serial_in_place) scans a slice.

use gpu_core::{check_axis, check_offsets, Element, Op, Result};
use ndarray::{Array, ArrayView, Axis, Dimension};
use rayon::prelude::*;

use super::{columns, serial_in_place};
use crate::ScanKind;

/// The scan with `op` of every lane of `x` along `axis`: an array of `x`'s shape (in standard
/// layout). Any layout and strides, negative ones included.
///
/// ```
/// use gpu_core::Op;
/// use gpu_scan::{cpu, ScanKind};
/// use ndarray::{array, Axis};
/// let x = array![[1, 2, 3], [4, 5, 6]];
/// let rows = cpu::scan_axis(x.view(), Axis(1), Op::Sum, ScanKind::Inclusive).unwrap();
/// assert_eq!(rows, array![[1, 3, 6], [4, 9, 15]]);
/// let cols = cpu::scan_axis(x.view(), Axis(0), Op::Sum, ScanKind::Exclusive).unwrap();
/// assert_eq!(cols, array![[0, 0, 0], [1, 2, 3]]);
/// ```
pub fn scan_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    op: Op,
    kind: ScanKind,
) -> Result<Array<T, D>>
where
    T: Element,
    D: Dimension,
{
    scan_lanes(x, axis, op, kind, false)
}

/// [`scan_axis`] with the lanes spread over the rayon pool (same results).
pub fn par_scan_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    op: Op,
    kind: ScanKind,
) -> Result<Array<T, D>>
where
    T: Element,
    D: Dimension,
{
    scan_lanes(x, axis, op, kind, true)
}

/// Whether the lanes along `axis` are best scanned one at a time: runs of memory long enough to
/// stream in the (standard layout) result, or long lanes too few for rows across them (or,
/// `parallel`, to give each thread two: the columns of one box run on one thread). Otherwise the lanes side by
/// side are scanned together, a row of the axis at a time ([`columns`]).
fn lane_by_lane<T, D: Dimension>(x: &ArrayView<'_, T, D>, axis: Axis, parallel: bool) -> bool {
    let long = x.len_of(axis) >= LANE_BY_LANE_FROM;
    let lanes = x.len() / x.len_of(axis).max(1);
    // Runs in the result; in `x` too, or serial over more lanes than a box (there ndarray's copy
    // into the result's layout, then a lane at a time, beat the boxes: 2^24 f32 in Fortran
    // order along axis 1, 1.04-1.12 against 0.79-0.86 GB/s; in one box the boxes win).
    let transposing = !parallel && lanes > columns::BOX;
    let runs = axis.index() + 1 == x.ndim() && (x.stride_of(axis) == 1 || transposing);
    let few = lanes <= FEW_LANES || parallel && lanes <= 2 * rayon::current_num_threads();
    long && (runs || few)
}

/// Lanes so few that a row across them is too short to pay for its step (four long lanes of
/// f32 scanned at 0.34 GB/s in columns, 0.66 one at a time on this repository's host).
const FEW_LANES: usize = 8;

/// Lane length from which contiguous lanes are scanned one at a time (shorter ones, read as
/// columns, stay in cache across the rows of a box).
const LANE_BY_LANE_FROM: usize = 64;

fn scan_lanes<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    op: Op,
    kind: ScanKind,
    parallel: bool,
) -> Result<Array<T, D>>
where
    T: Element,
    D: Dimension,
{
    check_axis(axis.index(), x.ndim())?;
    crate::check_op::<T>(op)?;
    if !lane_by_lane(&x, axis, parallel) {
        return Ok(columns::scan_axis(x, axis, op, kind, parallel));
    }
    let mut out = x.as_standard_layout().into_owned();
    let scan_lane = |mut lane: ndarray::ArrayViewMut1<'_, T>| {
        let mut v = lane.to_vec();
        serial_in_place(&mut v, op, kind).expect("operator checked above");
        lane.iter_mut().zip(v).for_each(|(d, s)| *d = s);
    };
    if parallel {
        let lanes: Vec<_> = out.lanes_mut(axis).into_iter().collect();
        lanes.into_par_iter().for_each(scan_lane);
    } else {
        out.lanes_mut(axis).into_iter().for_each(scan_lane);
    }
    Ok(out)
}

/// The scan with `op` within each segment of `values` (`offsets[i]..offsets[i + 1]` is segment
/// `i`, CSR style, checked by [`gpu_core::check_offsets`]): every segment starts afresh.
///
/// ```
/// use gpu_core::Op;
/// use gpu_scan::{cpu, ScanKind};
/// let v = [1u32, 2, 3, 4, 5];
/// let inc = cpu::segmented_scan(&v, &[0, 2, 2, 5], Op::Sum, ScanKind::Inclusive).unwrap();
/// assert_eq!(inc, vec![1, 3, 3, 7, 12]);
/// ```
pub fn segmented_scan<T: Element>(
    values: &[T],
    offsets: &[u64],
    op: Op,
    kind: ScanKind,
) -> Result<Vec<T>> {
    check_offsets(offsets, values.len())?;
    crate::check_op::<T>(op)?;
    let mut out = values.to_vec();
    for w in offsets.windows(2) {
        serial_in_place(&mut out[w[0] as usize..w[1] as usize], op, kind)?;
    }
    Ok(out)
}

/// [`segmented_scan`] with the segments spread over the rayon pool (same results).
pub fn par_segmented_scan<T: Element>(
    values: &[T],
    offsets: &[u64],
    op: Op,
    kind: ScanKind,
) -> Result<Vec<T>> {
    check_offsets(offsets, values.len())?;
    crate::check_op::<T>(op)?;
    let mut out = values.to_vec();
    let mut parts: Vec<&mut [T]> = Vec::with_capacity(offsets.len().saturating_sub(1));
    let mut rest: &mut [T] = &mut out;
    for w in offsets.windows(2) {
        let (segment, tail) = std::mem::take(&mut rest).split_at_mut((w[1] - w[0]) as usize);
        parts.push(segment);
        rest = tail;
    }
    parts
        .into_par_iter()
        .try_for_each(|s| serial_in_place(s, op, kind))?;
    Ok(out)
}
