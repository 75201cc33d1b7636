//! Scans along an axis in column order: the lanes side by side are scanned together, one row
//! of the axis at a time, so a strided axis is read and written in memory order (a lane at a
//! time took one element per cache line: docs/shapes.md, *The CPU references*). Each lane's
//! results are still, bit for bit, the 1-D scan of that lane (`run_in_place`'s order, in the
//! accumulator type for f16 and bf16, each result rounded once).

use gpu_core::{lane_boxes, Element};
use ndarray::{ArrayView, ArrayViewMut, Axis, Dimension, Slice, Zip};

use super::step::{Step, Walk};

/// Lanes per box: a box's running values, and the cache lines of its results where those run
/// along the axis, stay in cache while the rows of its lanes stream past.
const BOX: usize = 512;

/// Row `r` of `axis`, kept as a slice one long (no `RemoveAxis` bound: every dimension type).
fn row(r: usize) -> Slice {
    Slice::from(r..r + 1)
}

/// Boxes of lanes side by side, a row of the axis at a time ([`Walk`]).
pub(super) struct Columns;

impl Walk for Columns {
    fn walk<T, D>(
        &self,
        x: ArrayView<'_, T, D>,
        out: ArrayViewMut<'_, T, D>,
        axis: Axis,
        parallel: bool,
        step: &Step<
            T::Accumulator,
            impl Fn(T::Accumulator, T::Accumulator) -> T::Accumulator + Sync,
        >,
    ) where
        T: Element,
        D: Dimension,
    {
        lane_boxes(x, out, axis, true, BOX, parallel, &|xb, ob| {
            scan_box(xb, ob, axis, step)
        });
    }
}

/// One box: each lane of `x` along `axis` scanned into the same lane of `out` (the box's
/// running values in the accumulator type, a row of the axis at a time).
fn scan_box<T: Element, D: Dimension>(
    x: ArrayView<'_, T, D>,
    mut out: ArrayViewMut<'_, T, D>,
    axis: Axis,
    step: &Step<T::Accumulator, impl Fn(T::Accumulator, T::Accumulator) -> T::Accumulator>,
) {
    let mut acc = x.slice_axis(axis, row(0)).mapv(T::to_accumulator);
    Zip::from(out.slice_axis_mut(axis, row(0)))
        .and(&mut acc)
        .for_each(|o, a| {
            let (y, next) = step.first(*a);
            *o = T::from_accumulator(y);
            *a = next;
        });
    for r in 1..x.len_of(axis) {
        Zip::from(&mut acc)
            .and(out.slice_axis_mut(axis, row(r)))
            .and(&x.slice_axis(axis, row(r)))
            .for_each(|a, o, &v| {
                let (y, next) = step.next(*a, v.to_accumulator());
                *o = T::from_accumulator(y);
                *a = next;
            });
    }
}
