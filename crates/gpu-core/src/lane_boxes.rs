//! The lanes along an axis of an N-D array, side by side in boxes: how the CPU references walk
//! a strided axis in memory order (a row of the axis at a time across a box of lanes, instead
//! of one lane at a time, one element per cache line).

use ndarray::{ArrayView, ArrayViewMut, Axis, Dimension};

/// Cuts `x` and `out` alike into boxes of at most `max_lanes` lanes along `axis` and calls
/// `each(x's box, out's box)` for each, on rayon's pool when `parallel`. `out` holds a result
/// per lane (`x`'s shape without `axis`: `keeps_axis` false) or a result per element (`x`'s
/// shape: `keeps_axis` true). The axis of `x`'s largest stride is halved first, so a box's rows
/// stay runs of memory. A box holds whole lanes, so results computed lane by lane within each
/// box do not depend on the cut or on the threads.
///
/// ```
/// use gpu_core::lane_boxes;
/// use ndarray::{array, Array1, Axis};
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let x = array![[1, 2, 3], [4, 5, 6]];
/// let mut sums = Array1::<i32>::zeros(3);
/// let boxes = AtomicUsize::new(0);
/// lane_boxes(x.view(), sums.view_mut(), Axis(0), false, 2, false, &|xb, mut ob| {
///     boxes.fetch_add(1, Ordering::Relaxed);
///     ob.assign(&xb.sum_axis(Axis(0)));
/// });
/// assert_eq!(sums, array![5, 7, 9]);
/// assert_eq!(boxes.into_inner(), 2); // lanes 0 and 1-2
/// ```
pub fn lane_boxes<T, R, D, E, F>(
    x: ArrayView<'_, T, D>,
    out: ArrayViewMut<'_, R, E>,
    axis: Axis,
    keeps_axis: bool,
    max_lanes: usize,
    parallel: bool,
    each: &F,
) where
    T: Sync,
    R: Send,
    D: Dimension,
    E: Dimension,
    F: Fn(ArrayView<'_, T, D>, ArrayViewMut<'_, R, E>) + Sync,
{
    // Lanes in this box: the product of x's other extents.
    let lanes: usize = (0..x.ndim())
        .filter(|&k| k != axis.index())
        .map(|k| x.len_of(Axis(k)))
        .product();
    if lanes <= max_lanes.max(1) {
        each(x, out);
        return;
    }
    // More lanes than a box holds: some other axis is at least 2 long.
    let k = (0..x.ndim())
        .filter(|&k| k != axis.index() && x.len_of(Axis(k)) > 1)
        .max_by_key(|&k| x.stride_of(Axis(k)).unsigned_abs())
        .expect("an axis beside `axis` longer than 1");
    let ko = if keeps_axis || k < axis.index() {
        k
    } else {
        k - 1
    };
    let mid = x.len_of(Axis(k)) / 2;
    let (x1, x2) = x.split_at(Axis(k), mid);
    let (o1, o2) = out.split_at(Axis(ko), mid);
    let go = |x: ArrayView<'_, T, D>, o: ArrayViewMut<'_, R, E>| {
        lane_boxes(x, o, axis, keeps_axis, max_lanes, parallel, each)
    };
    if parallel {
        rayon::join(|| go(x1, o1), || go(x2, o2));
    } else {
        go(x1, o1);
        go(x2, o2);
    }
}
