//! Direct convolution of many lanes at once, for lanes too short to pay for their own set-up
//! (lanes of a few values: a window gathered through the boundary rule per lane cost more
//! than the sums). A box of lanes is laid out a row of the axis at a time, lanes side by side,
//! and each output row is summed for [`GROUP`] lanes together over the whole mask: the
//! boundary rule is resolved once per output row for every lane of the box, and the sums run
//! across lanes as [`block`](super::block) runs them along one.
//!
//! Every output is still `Σ_j X(o + off + j)·m[j]` summed over `j = 0, 1, …` from zero, with
//! the same products (a tap outside a zero boundary adds `0·m[j]`, as the 1-D blocks' zero
//! padding does), so each lane's result is bit for bit [`apply`](super::apply)'s.

use ndarray::{Array, ArrayView, Axis, Dimension, Slice};

use gpu_core::lane_boxes;

use crate::{Boundary, Real};

/// Lanes of at most this many values (the longer of a lane and its result) go side by side
/// when there are at least [`GROUP`] of them. (Longer lanes that are runs of memory ran slower
/// side by side from 512 values on: lanes of 1024 in Fortran order along axis 0, 0.63 against
/// 1.06 GB/s; docs/conv1d.md, *The CPU versions*.)
pub(super) const LONGEST: usize = 256;

/// Lanes summed together in registers (a 64-byte line of f32 across lanes).
const GROUP: usize = 16;

/// Values of a box (its lanes times the longer of a lane and its result): 2^14, so that a
/// box's rows stay in cache while they are gathered, summed and scattered.
const BOX_VALUES: usize = 1 << 14;

/// Whether [`convolve_lanes`] takes `lanes` lanes of `n` inputs and `n_out` outputs.
pub(super) fn takes(lanes: usize, n: usize, n_out: usize) -> bool {
    lanes >= GROUP && n.max(n_out) <= LONGEST
}

/// Writes into `out` (`x`'s shape with `axis` `n_out` long, non-empty) every lane of `x`
/// along `axis` convolved with the effective mask `m` (`y[o] = Σ_j X(o + off + j)·m[j]`), the
/// boxes of lanes serial or on rayon's pool.
pub(super) fn convolve_lanes<T: Real, D: Dimension>(
    x: ArrayView<'_, T, D>,
    out: &mut Array<T, D>,
    axis: Axis,
    m: &[T::Wide],
    off: i64,
    boundary: Boundary,
    parallel: bool,
) {
    let (n, n_out) = (x.len_of(axis), out.len_of(axis));
    // Lanes that are runs of memory are moved a lane at a time, strided ones a row at a time.
    let (x_runs, out_runs) = (x.stride_of(axis) == 1, out.stride_of(axis) == 1);
    let per_box = (BOX_VALUES / n.max(n_out)).max(GROUP);
    lane_boxes(
        x,
        out.view_mut(),
        axis,
        true,
        per_box,
        parallel,
        &|xb, mut ob| {
            let lanes = ob.len() / n_out;
            let p = super::pitch(lanes);
            // Row r of the box at src[r p ..], output row o at dst[o p ..].
            let mut src = vec![<T::Wide as Real>::ZERO; n * p];
            let mut dst = vec![T::ZERO; n_out * p];
            if x_runs {
                for (k, lane) in xb.lanes(axis).into_iter().enumerate() {
                    for (r, &v) in lane.iter().enumerate() {
                        src[r * p + k] = v.widen();
                    }
                }
            } else {
                for (r, s) in src.chunks_exact_mut(p).enumerate() {
                    let row = xb.slice_axis(axis, Slice::from(r..r + 1));
                    for (s, &v) in s.iter_mut().zip(row.iter()) {
                        *s = v.widen();
                    }
                }
            }
            rows(&src, lanes, p, n, m, off, boundary, &mut dst);
            if out_runs {
                for (k, mut lane) in ob.lanes_mut(axis).into_iter().enumerate() {
                    for (r, o) in lane.iter_mut().enumerate() {
                        *o = dst[r * p + k];
                    }
                }
            } else {
                for (r, d) in dst.chunks_exact(p).enumerate() {
                    let mut row = ob.slice_axis_mut(axis, Slice::from(r..r + 1));
                    for (o, &v) in row.iter_mut().zip(d) {
                        *o = v;
                    }
                }
            }
        },
    );
}

/// Output rows `dst[o p .. o p + lanes]` from input rows `src[r p ..]` (`n` rows, pitch `p`).
#[allow(clippy::too_many_arguments)]
fn rows<T: Real>(
    src: &[T::Wide],
    lanes: usize,
    p: usize,
    n: usize,
    m: &[T::Wide],
    off: i64,
    boundary: Boundary,
    dst: &mut [T],
) {
    // The input row under each tap of the current output row (None: outside a zero boundary).
    let mut taps: Vec<Option<usize>> = Vec::with_capacity(m.len());
    for (o, out) in dst.chunks_exact_mut(p).enumerate() {
        taps.clear();
        taps.extend((0..m.len()).map(|j| boundary.index(o as i64 + off + j as i64, n)));
        let mut k = 0;
        while k + GROUP <= lanes {
            let acc = sums::<T, GROUP>(src, p, k, m, &taps);
            for (y, &a) in out[k..k + GROUP].iter_mut().zip(&acc) {
                *y = T::narrow(a);
            }
            k += GROUP;
        }
        // The last lanes: the same sums over fewer lanes.
        let rest = lanes - k;
        if rest > 0 {
            let mut acc = [<T::Wide as Real>::ZERO; GROUP];
            for (&mj, tap) in m.iter().zip(&taps) {
                match tap {
                    Some(i) => {
                        let xs = &src[i * p + k..i * p + lanes];
                        for (a, &xv) in acc.iter_mut().zip(xs) {
                            *a = *a + xv * mj;
                        }
                    }
                    None => {
                        let z = <T::Wide as Real>::ZERO * mj;
                        for a in &mut acc[..rest] {
                            *a = *a + z;
                        }
                    }
                }
            }
            for (y, &a) in out[k..lanes].iter_mut().zip(&acc) {
                *y = T::narrow(a);
            }
        }
    }
}

/// The sums of one output row for lanes `k .. k + G` (rows `p` apart), `j` in order from 0.
#[inline(always)]
fn sums<T: Real, const G: usize>(
    src: &[T::Wide],
    p: usize,
    k: usize,
    m: &[T::Wide],
    taps: &[Option<usize>],
) -> [T::Wide; G] {
    let mut acc = [<T::Wide as Real>::ZERO; G];
    for (&mj, tap) in m.iter().zip(taps) {
        match tap {
            Some(i) => {
                let xs: &[T::Wide; G] = src[i * p + k..i * p + k + G].try_into().expect("G values");
                for g in 0..G {
                    acc[g] = acc[g] + xs[g] * mj;
                }
            }
            None => {
                let z = <T::Wide as Real>::ZERO * mj;
                for a in &mut acc {
                    *a = *a + z;
                }
            }
        }
    }
    acc
}
