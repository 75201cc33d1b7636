//! The rayon forms' names before they followed the workspace's `par_*` rule (docs/api.md, rule
//! 6: `gpu_reduce::cpu::par_sum`, `gpu_scan::cpu::par_scan`): kept one release, each calling its
//! new name.

use ndarray::{Array, Array2, ArrayView, ArrayView2, Axis, Dimension};

use gpu_core::Result;

use crate::{Boundary, Mode, Real};

macro_rules! renamed {
    ($old:ident => $new:ident ($($arg:ident: $ty:ty),*) -> $out:ty $(, <$d:ident>)?) => {
        #[doc = concat!("Renamed [`", stringify!($new), "`](super::", stringify!($new), ").")]
        #[deprecated(since = "0.2.0", note = "renamed with a `par_` prefix, `x_par` to `par_x` (docs/api.md, rule 6)")]
        pub fn $old<T: Real $(, $d: Dimension)?>($($arg: $ty),*) -> Result<$out> {
            super::$new($($arg),*)
        }
    };
}

renamed!(correlate_par => par_correlate (signal: &[T], mask: &[T], mode: Mode, boundary: Boundary) -> Vec<T>);
renamed!(convolve_par => par_convolve (signal: &[T], mask: &[T], mode: Mode, boundary: Boundary) -> Vec<T>);
renamed!(correlate_fft_par => par_correlate_fft (signal: &[T], mask: &[T], mode: Mode, boundary: Boundary) -> Vec<T>);
renamed!(convolve_fft_par => par_convolve_fft (signal: &[T], mask: &[T], mode: Mode, boundary: Boundary) -> Vec<T>);
renamed!(correlate_rows_par => par_correlate_rows (signals: ArrayView2<'_, T>, mask: &[T], mode: Mode, boundary: Boundary) -> Array2<T>);
renamed!(convolve_rows_par => par_convolve_rows (signals: ArrayView2<'_, T>, mask: &[T], mode: Mode, boundary: Boundary) -> Array2<T>);
renamed!(correlate_axis_par => par_correlate_axis (x: ArrayView<'_, T, D>, axis: Axis, mask: &[T], mode: Mode, boundary: Boundary) -> Array<T, D>, <D>);
renamed!(convolve_axis_par => par_convolve_axis (x: ArrayView<'_, T, D>, axis: Axis, mask: &[T], mode: Mode, boundary: Boundary) -> Array<T, D>, <D>);
