//! Scans along an axis whose lanes are runs of memory on one side only (in `x` or in the
//! result): a few lanes at a time, a tile of their rows at a time through a buffer. Each tile
//! is read the way `x` runs (a lane's stretch at a time, or a row across the lanes), scanned
//! lane by lane in the buffer, and written the way the result runs, so both sides move whole
//! cache lines. Each lane's results are bit for bit
//! [`serial_in_place`](super::serial_in_place)'s on that lane ([`Step`]).

use gpu_core::{lane_boxes, Element};
use ndarray::{s, ArrayView, ArrayView1, ArrayViewMut, ArrayViewMut1, Axis, Dimension};

use super::step::{Step, Walk};

/// Lanes of a tile (a 64-byte line of f32 across them where they lie side by side).
pub(super) const LANES: usize = 16;

/// Rows of a tile.
const ROWS: usize = 256;

/// [`LANES`] lanes at a time in tiles of [`ROWS`] rows ([`Walk`]): for long lanes strided in `x`
/// that are runs in the result, or the other way round.
pub(super) struct Tiles;

impl Walk for Tiles {
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
        let (x_runs, out_runs) = (x.stride_of(axis) == 1, out.stride_of(axis) == 1);
        lane_boxes(x, out, axis, true, LANES, parallel, &|xb, mut ob| {
            let xl: Vec<_> = xb.lanes(axis).into_iter().collect();
            let mut ol: Vec<_> = ob.lanes_mut(axis).into_iter().collect();
            scan_box(&xl, &mut ol, x_runs, out_runs, step);
        });
    }
}

/// One box of at most [`LANES`] lanes: each lane of `xl` scanned into the same lane of `ol`,
/// [`ROWS`] rows at a time.
fn scan_box<T: Element>(
    xl: &[ArrayView1<'_, T>],
    ol: &mut [ArrayViewMut1<'_, T>],
    x_runs: bool,
    out_runs: bool,
    step: &Step<T::Accumulator, impl Fn(T::Accumulator, T::Accumulator) -> T::Accumulator>,
) {
    let (g, n) = (xl.len(), xl.first().map_or(0, |l| l.len()));
    // Lane k of the tile at buf[k ROWS ..]: its inputs, then (in place) its results. (Boxes
    // are never empty; the first value only fills slots written before they are read.)
    let mut buf = vec![xl[0][0]; g * ROWS];
    let mut acc = vec![xl[0][0].to_accumulator(); g];
    for c in (0..n).step_by(ROWS) {
        let len = ROWS.min(n - c);
        if x_runs {
            for (b, l) in buf.chunks_exact_mut(ROWS).zip(xl) {
                for (b, &v) in b.iter_mut().zip(l.slice(s![c..c + len])) {
                    *b = v;
                }
            }
        } else {
            // A row across the lanes at a time: each read lands beside the last.
            for r in 0..len {
                for (k, l) in xl.iter().enumerate() {
                    buf[k * ROWS + r] = l[c + r];
                }
            }
        }
        for (b, a) in buf.chunks_exact_mut(ROWS).zip(&mut acc) {
            let mut from = 0;
            if c == 0 {
                let (y, next) = step.first(b[0].to_accumulator());
                b[0] = T::from_accumulator(y);
                *a = next;
                from = 1;
            }
            for v in &mut b[from..len] {
                let (y, next) = step.next(*a, v.to_accumulator());
                *v = T::from_accumulator(y);
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
