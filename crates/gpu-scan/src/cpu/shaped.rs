//! CPU references for shaped data: scans along an axis of an N-D array (any layout and
//! strides; every lane scanned independently) and within segments given by offsets. Each lane
//! or segment is scanned exactly as [`serial_in_place`] scans a slice.

use gpu_core::{check_axis, check_offsets, Element, Op, Result};
use ndarray::{Array, ArrayView, Axis, Dimension};
use rayon::prelude::*;

use super::{columns, lanes, serial_in_place, step, tiles};
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

/// How the lanes along an axis are scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// A lane at a time, where it lies ([`lanes`]: slices where the lanes follow one another).
    Lanes,
    /// [`tiles::LANES`] lanes at a time, a tile of rows at a time through a buffer ([`tiles`]).
    Tiles,
    /// Boxes of lanes side by side, a row of the axis at a time ([`columns`]).
    Columns,
}

/// The path for the lanes of `x` along `axis` (into a result in standard layout).
///
/// - Lanes that follow one another in one run of memory, in `x` as in the result: slices.
/// - Long lanes strided in `x` that are runs in the result, 16 or more of them: tiles, so
///   both sides move whole lines (2^24 f32, 4096x4096 in Fortran order along axis 1: 0.30-0.33
///   GB/s copied into the result's layout then a lane at a time, serial, and 0.52-0.54 in
///   columns on rayon; tiles 0.78-0.87 and 1.53-1.57; docs/shapes.md, *The CPU references*).
/// - Other long lanes that are runs in both, or long lanes too few for rows across them (or,
///   `parallel`, to give each thread two: the columns of one box run on one thread): a lane at
///   a time.
/// - Otherwise columns.
fn path<T, D: Dimension>(x: &ArrayView<'_, T, D>, axis: Axis, parallel: bool) -> Path {
    let n = x.len_of(axis);
    let long = n >= LANE_BY_LANE_FROM;
    let lanes = x.len() / n.max(1);
    let out_runs = axis.index() + 1 == x.ndim();
    let x_runs = x.stride_of(axis) == 1;
    let few = lanes <= FEW_LANES || parallel && lanes <= 2 * rayon::current_num_threads();
    if out_runs && x.is_standard_layout() {
        Path::Lanes
    } else if long && out_runs && !x_runs && lanes >= tiles::LANES && !few {
        Path::Tiles
    } else if long && (out_runs && x_runs || few) {
        Path::Lanes
    } else {
        Path::Columns
    }
}

/// Lanes so few that a row across them is too short to pay for its step (four long lanes of
/// f32 scanned at 0.34 GB/s in columns, 0.66 one at a time on this repository's host).
const FEW_LANES: usize = 8;

/// Lane length from which lanes are scanned one at a time or in tiles (shorter ones, read as
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
    Ok(match path(&x, axis, parallel) {
        Path::Lanes => step::scan_axis(lanes::Lanes, x, axis, op, kind, parallel),
        Path::Tiles => step::scan_axis(tiles::Tiles, x, axis, op, kind, parallel),
        Path::Columns => step::scan_axis(columns::Columns, x, axis, op, kind, parallel),
    })
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
