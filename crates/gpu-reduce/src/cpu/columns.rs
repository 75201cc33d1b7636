//! Reductions along an axis in column order: the lanes side by side are folded together, one
//! row of the axis at a time, so a strided axis is read in memory order instead of one element
//! per cache line (2^24 f32 on a 2-core host: 0.5-3.6 GB/s a lane at a time, 4.8-27 in boxes;
//! docs/shapes.md, *The CPU references*). Each result is still, bit for bit, the 1-D fold of
//! its lane (the order of `fold_lanes` and `arg_fold` in `cpu.rs`).

use gpu_core::{lane_boxes, Element, Op};
use ndarray::{Array, ArrayView, ArrayViewMut, Axis, RemoveAxis, Zip};

use super::LANES;
use crate::value::{arg_combine, Extreme};

/// Results per box: a box's partial results (up to [`LANES`] arrays of them) stay in cache
/// while the rows of its lanes stream past.
const BOX: usize = 4096;

/// One box: `x` folded along `axis` into `out` from `id` as `fold_with` folds a lane. Floats:
/// row i into partial i % LANES, the partials then combined pairwise (a partial no row reached
/// is the identity, combined as such); integers: the rows left to right.
fn fold_box<T, A, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    mut out: ArrayViewMut<'_, A, D::Smaller>,
    id: A,
    step: impl Fn(A, T) -> A,
    merge: impl Fn(A, A) -> A,
) where
    T: Copy,
    A: Element,
    D: RemoveAxis,
{
    let rows = x.len_of(axis);
    if !A::IS_FLOAT {
        out.fill(id);
        for r in 0..rows {
            Zip::from(&mut out)
                .and(&x.index_axis(axis, r))
                .for_each(|a, &v| *a = step(*a, v));
        }
        return;
    }
    let mut parts: Vec<Option<Array<A, D::Smaller>>> = (0..LANES).map(|_| None).collect();
    for r in 0..rows {
        let p = parts[r % LANES].get_or_insert_with(|| Array::from_elem(out.raw_dim(), id));
        Zip::from(p)
            .and(&x.index_axis(axis, r))
            .for_each(|a, &v| *a = step(*a, v));
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            parts[j] = match (parts[2 * j].take(), parts[2 * j + 1].take()) {
                (None, None) => None,
                (Some(mut a), Some(b)) => {
                    Zip::from(&mut a)
                        .and(&b)
                        .for_each(|a, &b| *a = merge(*a, b));
                    Some(a)
                }
                (Some(mut a), None) => {
                    a.mapv_inplace(|a| merge(a, id));
                    Some(a)
                }
                (None, Some(mut b)) => {
                    b.mapv_inplace(|b| merge(id, b));
                    Some(b)
                }
            };
        }
    }
    match &parts[0] {
        Some(p) => out.assign(p),
        None => out.fill(id),
    }
}

/// `op` along `axis` of `x` from `id`, in the accumulator type, each result the 1-D `fold` of
/// its lane (serial, or the boxes on rayon's pool).
pub(super) fn fold_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    op: Op,
    id: T::Accumulator,
    parallel: bool,
) -> Array<T::Accumulator, D::Smaller>
where
    T: Element,
    D: RemoveAxis,
{
    let mut out = Array::from_elem(x.raw_dim().remove_axis(axis), id);
    // One monomorphic loop per operator, as fold_with.
    macro_rules! run {
        ($op:expr) => {
            lane_boxes(x, out.view_mut(), axis, false, BOX, parallel, &|xb, ob| {
                fold_box(
                    xb,
                    axis,
                    ob,
                    id,
                    |a, v: T| T::Accumulator::combine($op, a, v.to_accumulator()),
                    |a, b| T::Accumulator::combine($op, a, b),
                )
            })
        };
    }
    gpu_core::with_const_op!(op, run);
    out
}

/// The index along `axis` of each lane's first extreme (first NaN if any), as `arg_fold` folds
/// a lane left to right (0 for an empty axis, which the caller refuses unless no lane exists).
pub(super) fn arg_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    which: Extreme,
    parallel: bool,
) -> Array<usize, D::Smaller>
where
    T: Element,
    D: RemoveAxis,
{
    let mut out = Array::from_elem(x.raw_dim().remove_axis(axis), 0usize);
    lane_boxes(
        x,
        out.view_mut(),
        axis,
        false,
        BOX,
        parallel,
        &|xb, mut ob| {
            if xb.len_of(axis) == 0 {
                return; // no result either (the caller refuses an empty axis with results)
            }
            let mut best = xb.index_axis(axis, 0).mapv(|v| (v, 0u64));
            for r in 1..xb.len_of(axis) {
                Zip::from(&mut best)
                    .and(&xb.index_axis(axis, r))
                    .for_each(|b, &v| *b = arg_combine(which, *b, (v, r as u64)));
            }
            Zip::from(&mut ob)
                .and(&best)
                .for_each(|o, b| *o = b.1 as usize);
        },
    );
    out
}
