//! Scans along an axis whose lanes are runs of memory on one side only (in `x` or in the
//! result): a few lanes at a time, a tile of their rows at a time through a buffer. Each tile
//! is read the way `x` runs (a lane's stretch at a time, or a row across the lanes), scanned
//! lane by lane in the buffer, and written the way the result runs, so both sides move whole
//! cache lines. Each lane's results are bit for bit
//! [`serial_in_place`](super::serial_in_place)'s on that lane (its order, in the
//! accumulator type for f16 and bf16, each result rounded once).

use gpu_core::{lane_boxes, Element, Op};
use ndarray::{s, Array, ArrayView, ArrayView1, ArrayViewMut1, Axis, Dimension};

use crate::ScanKind;

/// Lanes of a tile (a 64-byte line of f32 across them where they lie side by side).
pub(super) const LANES: usize = 16;

/// Rows of a tile.
const ROWS: usize = 256;

/// One box of at most [`LANES`] lanes: each lane of `x` along `axis` scanned into the same
/// lane of `out`, [`ROWS`] rows at a time.
#[allow(clippy::too_many_arguments)]
fn scan_box<T, A>(
    xl: &[ArrayView1<'_, T>],
    ol: &mut [ArrayViewMut1<'_, T>],
    x_runs: bool,
    out_runs: bool,
    kind: ScanKind,
    id: A,
    combine: impl Fn(A, A) -> A,
) where
    T: Element<Accumulator = A>,
    A: Element,
{
    let (g, n) = (xl.len(), xl.first().map_or(0, |l| l.len()));
    // Lane k of the tile at buf[k ROWS ..]: its inputs, then (in place) its results.
    let mut buf = vec![T::from_accumulator(id); g * ROWS];
    let mut acc = vec![id; g];
    for c in (0..n).step_by(ROWS) {
        let len = ROWS.min(n - c);
        if x_runs {
            for (b, l) in buf.chunks_exact_mut(ROWS).zip(xl) {
                for (b, &v) in b.iter_mut().zip(l.slice(s![c..c + len])) {
                    *b = v;
                }
            }
        } else {
            for r in 0..len {
                for (k, l) in xl.iter().enumerate() {
                    buf[k * ROWS + r] = l[c + r];
                }
            }
        }
        for (b, a) in buf.chunks_exact_mut(ROWS).zip(&mut acc) {
            let mut from = 0;
            if c == 0 {
                // The first value taken as it is.
                *a = b[0].to_accumulator();
                b[0] = T::from_accumulator(match kind {
                    ScanKind::Inclusive => *a,
                    ScanKind::Exclusive => id,
                });
                from = 1;
            }
            for v in &mut b[from..len] {
                let next = combine(*a, v.to_accumulator());
                *v = T::from_accumulator(match kind {
                    ScanKind::Inclusive => next,
                    ScanKind::Exclusive => *a,
                });
                *a = next;
            }
        }
        if out_runs {
            for (b, l) in buf.chunks_exact(ROWS).zip(ol.iter_mut()) {
                for (o, &v) in l.slice_mut(s![c..c + len]).iter_mut().zip(b) {
                    *o = v;
                }
            }
        } else {
            for r in 0..len {
                for (k, l) in ol.iter_mut().enumerate() {
                    l[c + r] = buf[k * ROWS + r];
                }
            }
        }
    }
}

/// The scan with `op` (checked) of every lane of `x` along `axis` into an array of `x`'s shape
/// (standard layout), [`LANES`] lanes at a time in tiles, the boxes of lanes serial or on
/// rayon's pool.
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
    let (x_runs, out_runs) = (x.stride_of(axis) == 1, out.stride_of(axis) == 1);
    // One monomorphic loop per operator.
    macro_rules! run {
        ($op:expr) => {
            lane_boxes(
                x,
                out.view_mut(),
                axis,
                true,
                LANES,
                parallel,
                &|xb, mut ob| {
                    let xl: Vec<_> = xb.lanes(axis).into_iter().collect();
                    let mut ol: Vec<_> = ob.lanes_mut(axis).into_iter().collect();
                    scan_box(&xl, &mut ol, x_runs, out_runs, kind, id, |a, b| {
                        T::Accumulator::combine($op, a, b)
                    })
                },
            )
        };
    }
    gpu_core::with_const_op!(op, run);
    out
}
