//! Scans along an axis a lane at a time, each lane read from `x` and written into the result
//! where they lie (no copy of the array into the result's layout, no vector per lane), and
//! lanes that are runs of memory in both, taken as slices in one pass. Each lane's results are
//! bit for bit [`serial_in_place`](super::serial_in_place)'s on that lane ([`Step`]).

use gpu_core::Element;
use ndarray::{ArrayView, ArrayView1, ArrayViewMut, ArrayViewMut1, Axis, Dimension};
use rayon::prelude::*;

use super::step::{Step, Walk};

/// Lanes a rayon task takes at least, where the lanes are slices of one run of memory.
const LANES_PER_TASK: usize = 64;

/// A lane at a time ([`Walk`]).
pub(super) struct Lanes;

impl Walk for Lanes {
    fn walk<T, D>(
        &self,
        x: ArrayView<'_, T, D>,
        mut out: ArrayViewMut<'_, T, D>,
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
        let n = x.len_of(axis);
        // Lanes that follow one another in one run of memory, in `x` as in the result.
        let runs = match (x.as_slice(), axis.index() + 1 == x.ndim()) {
            (Some(src), true) => Some(src),
            _ => None,
        };
        let slices = |s: &[T], d: &mut [T]| {
            for (s, d) in s.chunks_exact(n).zip(d.chunks_exact_mut(n)) {
                step.lane(s, d);
            }
        };
        match (runs, out.as_slice_mut()) {
            (Some(src), Some(dst)) if parallel => {
                let task = n * LANES_PER_TASK;
                src.par_chunks(task)
                    .zip(dst.par_chunks_mut(task))
                    .for_each(|(s, d)| slices(s, d));
            }
            (Some(src), Some(dst)) => slices(src, dst),
            _ => {
                let pairs = x.lanes(axis).into_iter().zip(out.lanes_mut(axis));
                let lane = |(s, mut d): (ArrayView1<'_, T>, ArrayViewMut1<'_, T>)| {
                    step.lane(s.iter(), d.iter_mut())
                };
                if parallel {
                    pairs.collect::<Vec<_>>().into_par_iter().for_each(lane);
                } else {
                    pairs.for_each(lane);
                }
            }
        }
    }
}
