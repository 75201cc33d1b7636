//! Scans along an axis in column order: the lanes side by side are scanned together, one row
//! of the axis at a time, so a strided axis is read and written in memory order (a lane at a
//! time took one element per cache line: docs/shapes.md, *The CPU references*). Each lane's
//! results are still, bit for bit, the 1-D scan of that lane (`run_in_place`'s order, in the
//! accumulator type for f16 and bf16, each result rounded once).

use gpu_core::{lane_boxes, Element, Op};
use ndarray::{Array, ArrayView, ArrayViewMut, Axis, Dimension, Slice, Zip};

use crate::ScanKind;

/// Lanes per box: a box's running values, and the cache lines of its results where those run
/// along the axis, stay in cache while the rows of its lanes stream past.
const BOX: usize = 512;

/// Row `r` of `axis`, kept as a slice one long (no `RemoveAxis` bound: every dimension type).
fn row(r: usize) -> Slice {
    Slice::from(r..r + 1)
}

/// One box: each lane of `x` along `axis` scanned into the same lane of `out`, in `A` (the
/// first row taken as it is, each later row combined onto the running value).
fn scan_box<T, A, D>(
    x: ArrayView<'_, T, D>,
    mut out: ArrayViewMut<'_, T, D>,
    axis: Axis,
    kind: ScanKind,
    id: A,
    combine: impl Fn(A, A) -> A,
) where
    T: Element<Accumulator = A>,
    A: Element,
    D: Dimension,
{
    if x.len_of(axis) == 0 {
        return;
    }
    let mut acc = x.slice_axis(axis, row(0)).mapv(T::to_accumulator);
    Zip::from(out.slice_axis_mut(axis, row(0)))
        .and(&acc)
        .for_each(|o, &a| {
            *o = T::from_accumulator(match kind {
                ScanKind::Inclusive => a,
                ScanKind::Exclusive => id,
            })
        });
    for r in 1..x.len_of(axis) {
        Zip::from(&mut acc)
            .and(out.slice_axis_mut(axis, row(r)))
            .and(&x.slice_axis(axis, row(r)))
            .for_each(|a, o, &v| {
                let next = combine(*a, v.to_accumulator());
                *o = T::from_accumulator(match kind {
                    ScanKind::Inclusive => next,
                    ScanKind::Exclusive => *a,
                });
                *a = next;
            });
    }
}

/// The scan with `op` (checked) of every lane of `x` along `axis` into an array of `x`'s shape
/// (standard layout), serial or the boxes on rayon's pool.
pub(super) fn scan_axis<T, D>(
    x: ArrayView<'_, T, D>,
    axis: Axis,
    op: Op,
    kind: ScanKind,
    parallel: bool,
) -> Array<T, D>
where
    T: Element,
    D: Dimension,
{
    let id = op
        .identity::<T::Accumulator>()
        .expect("operator checked by the caller");
    let mut out = Array::from_elem(x.raw_dim(), T::from_accumulator(id));
    // One monomorphic loop per operator.
    macro_rules! run {
        ($op:expr) => {
            lane_boxes(x, out.view_mut(), axis, true, BOX, parallel, &|xb, ob| {
                scan_box(xb, ob, axis, kind, id, |a, b| {
                    T::Accumulator::combine($op, a, b)
                })
            })
        };
    }
    gpu_core::with_const_op!(op, run);
    out
}
