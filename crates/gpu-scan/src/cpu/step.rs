//! What every path of the scans along an axis shares: the step taken per value (the 1-D scan's
//! order: the first value taken as it is, each later one combined onto the running value, in
//! the accumulator type, each result rounded once to the element type) and the driver that
//! makes one monomorphic step per operator and hands it to a path.

use gpu_core::{Element, Op};
use ndarray::{Array, ArrayView, ArrayViewMut, Axis, Dimension};

use crate::ScanKind;

/// The scan's step in the accumulator type `A`, with the operator's `combine` as a constant.
pub(super) struct Step<A, F> {
    kind: ScanKind,
    id: A,
    combine: F,
}

impl<A: Copy, F: Fn(A, A) -> A> Step<A, F> {
    /// The result for a lane's first value `v`, and the running value after it.
    #[inline(always)]
    pub(super) fn first(&self, v: A) -> (A, A) {
        match self.kind {
            ScanKind::Inclusive => (v, v),
            ScanKind::Exclusive => (self.id, v),
        }
    }

    /// The result for a later value `v` with running value `acc`, and the running value after.
    #[inline(always)]
    pub(super) fn next(&self, acc: A, v: A) -> (A, A) {
        let next = (self.combine)(acc, v);
        match self.kind {
            ScanKind::Inclusive => (next, next),
            ScanKind::Exclusive => (acc, next),
        }
    }

    /// `src` scanned into `dst` (one lane, in order), each value converted to `A` and each
    /// result rounded to `T` once.
    #[inline(always)]
    pub(super) fn lane<'a, T>(
        &self,
        src: impl IntoIterator<Item = &'a T>,
        dst: impl IntoIterator<Item = &'a mut T>,
    ) where
        T: Element<Accumulator = A> + 'a,
    {
        let mut pairs = dst.into_iter().zip(src);
        let Some((o, &v)) = pairs.next() else {
            return;
        };
        let (y, mut acc) = self.first(v.to_accumulator());
        *o = T::from_accumulator(y);
        // The kind and the operator read once, not through `self` per value (a strided lane's
        // stores kept them from leaving the loop: four lanes of 2^22 f32 on rayon, 10-15 %).
        let combine = &self.combine;
        match self.kind {
            ScanKind::Inclusive => {
                for (o, &v) in pairs {
                    acc = combine(acc, v.to_accumulator());
                    *o = T::from_accumulator(acc);
                }
            }
            ScanKind::Exclusive => {
                for (o, &v) in pairs {
                    *o = T::from_accumulator(acc);
                    acc = combine(acc, v.to_accumulator());
                }
            }
        }
    }
}

/// A way of walking the lanes of an axis scan: writes into `out` (`x`'s shape) every lane of
/// `x` along `axis` scanned with `step`.
pub(super) trait Walk {
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
        D: Dimension;
}

/// The scan with `op` (checked by the caller) of every lane of `x` along `axis` by `walk`,
/// into an array of `x`'s shape in standard layout: one monomorphic step per operator.
pub(super) fn scan_axis<T, D>(
    walk: impl Walk,
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
    let mut out = gpu_core::host_output_array(x.raw_dim(), T::from_accumulator(id), parallel);
    if out.is_empty() {
        return out;
    }
    macro_rules! run {
        ($op:expr) => {
            walk.walk(
                x,
                out.view_mut(),
                axis,
                parallel,
                &Step {
                    kind,
                    id,
                    combine: |a, b| T::Accumulator::combine($op, a, b),
                },
            )
        };
    }
    gpu_core::with_const_op!(op, run);
    out
}
