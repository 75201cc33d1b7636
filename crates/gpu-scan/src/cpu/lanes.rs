//! Scans along an axis a lane at a time, each lane read from `x` and written into the result
//! where they lie (no copy of the array into the result's layout, no vector per lane), and
//! lanes that are runs of memory in both, taken as slices in one pass. Each lane's results are
//! bit for bit [`serial_in_place`](super::serial_in_place)'s on that lane (its order,
//! in the accumulator type for f16 and bf16, each result rounded once).

use gpu_core::{Element, Op};
use ndarray::{Array, ArrayView, Axis, Dimension};
use rayon::prelude::*;

use crate::ScanKind;

/// Lanes a rayon task takes at least, where the lanes are slices of one run of memory.
const LANES_PER_TASK: usize = 64;

/// One lane: `src` scanned into `dst` in `A` (the first value taken as it is, each later one
/// combined onto the running value).
#[inline(always)]
fn scan_run<'a, T, A>(
    src: impl IntoIterator<Item = &'a T>,
    dst: impl IntoIterator<Item = &'a mut T>,
    kind: ScanKind,
    id: A,
    combine: impl Fn(A, A) -> A,
) where
    T: Element<Accumulator = A> + 'a,
    A: Element,
{
    let mut pairs = dst.into_iter().zip(src);
    let Some((o, &v)) = pairs.next() else {
        return;
    };
    let mut acc = v.to_accumulator();
    *o = T::from_accumulator(match kind {
        ScanKind::Inclusive => acc,
        ScanKind::Exclusive => id,
    });
    for (o, &v) in pairs {
        let next = combine(acc, v.to_accumulator());
        *o = T::from_accumulator(match kind {
            ScanKind::Inclusive => next,
            ScanKind::Exclusive => acc,
        });
        acc = next;
    }
}

/// The scan with `op` (checked) of every lane of `x` along `axis` into an array of `x`'s shape
/// (standard layout), a lane at a time, serial or on rayon's pool.
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
    let n = x.len_of(axis);
    if out.is_empty() {
        return out;
    }
    // Lanes that follow one another in one run of memory, in `x` as in the result.
    let runs = match (x.as_slice(), axis.index() + 1 == x.ndim()) {
        (Some(src), true) => Some(src),
        _ => None,
    };
    // One monomorphic loop per operator.
    macro_rules! run {
        ($op:expr) => {{
            let combine = |a, b| T::Accumulator::combine($op, a, b);
            let each = |s: &[T], d: &mut [T]| {
                for (s, d) in s.chunks_exact(n).zip(d.chunks_exact_mut(n)) {
                    scan_run(s, d, kind, id, combine);
                }
            };
            match (runs, out.as_slice_mut()) {
                (Some(src), Some(dst)) if parallel => {
                    let task = n * LANES_PER_TASK;
                    src.par_chunks(task)
                        .zip(dst.par_chunks_mut(task))
                        .for_each(|(s, d)| each(s, d));
                }
                (Some(src), Some(dst)) => each(src, dst),
                _ => {
                    let pairs = x.lanes(axis).into_iter().zip(out.lanes_mut(axis));
                    let lane = |(s, mut d): (
                        ndarray::ArrayView1<'_, T>,
                        ndarray::ArrayViewMut1<'_, T>,
                    )| {
                        scan_run(s.iter(), d.iter_mut(), kind, id, combine)
                    };
                    if parallel {
                        pairs.collect::<Vec<_>>().into_par_iter().for_each(lane);
                    } else {
                        pairs.for_each(lane);
                    }
                }
            }
        }};
    }
    gpu_core::with_const_op!(op, run);
    out
}
