//! The CPU method choice, as scipy's `correlate(method='auto')`: the direct sums or the FFT
//! path, whichever a cost model fitted on measured times says is faster for the output length,
//! the mask width and the threads; the direct sums whenever the signal or the mask holds a NaN
//! or an infinity (the FFT path would spread it through its block).

use ndarray::{Array, Array2, ArrayView, ArrayView2, Axis, Dimension};
use rayon::prelude::*;

use gpu_core::{check_axis, Result};

use super::fft::transform_len;
use crate::plan::output_len;
use crate::{Boundary, Mode, Operation, Real};

/// Nanoseconds per multiply-add of the direct sums on one thread, by element type (f32's 4-wide
/// vectors; f64 2-wide; f16 and bf16 widened to f32 by blocks, f16's conversions the slower).
/// Fitted with the `cpu-conv1d` bench binary on a 2-core x86-64 host (docs/conv1d.md, "The CPU
/// versions").
fn direct_ns_per_tap<T: Real>() -> f64 {
    match T::NAME {
        "f64" => 0.23,
        "f16" => 0.15,
        _ => 0.13,
    }
}

/// The FFT path's costs in nanoseconds per `N·log2 N` of its transforms (`N` points): once per
/// call (the plans and the mask's spectrum), and per pair of tiles on one thread (a forward
/// and an inverse transform, the product, the gather through the boundary rule, the rounding).
const FFT_SETUP_NS: f64 = 3.2;
const FFT_PAIR_NS: f64 = 1.15;

/// Outputs per task of the direct sums on rayon's pool (their blocks).
const DIRECT_BLOCK: usize = 256;

/// Whether [`apply_auto`] takes the FFT path for `n_out` outputs of a `w`-wide mask of finite
/// values, serial or on rayon's pool (the pool's size counts): the estimated times of `n_out·w`
/// multiply-adds and of the FFT path (its set-up, and a forward and an inverse transform of
/// `N` points per two tiles of `N − w + 1` outputs) compared.
///
/// ```
/// use gpu_conv1d::cpu;
/// assert!(!cpu::auto_uses_fft::<f32>(1 << 20, 31, false));
/// assert!(cpu::auto_uses_fft::<f32>(1 << 20, 1023, false));
/// assert!(!cpu::auto_uses_fft::<f32>(100, 1023, false)); // a 2048-point pair for 100 outputs
/// ```
pub fn auto_uses_fft<T: Real>(n_out: usize, w: usize, parallel: bool) -> bool {
    auto_uses_fft_rows::<T>(1, n_out, w, parallel)
}

/// [`auto_uses_fft`] for `rows` rows (or lanes) of `n_out` outputs each, as
/// [`apply_rows_auto`] and [`apply_axis_auto`] decide: one set-up for all of them.
///
/// ```
/// use gpu_conv1d::cpu;
/// assert!(!cpu::auto_uses_fft_rows::<f32>(1, 2000, 700, false));
/// assert!(cpu::auto_uses_fft_rows::<f32>(64, 2000, 700, false)); // the set-up shared
/// ```
pub fn auto_uses_fft_rows<T: Real>(rows: usize, n_out: usize, w: usize, parallel: bool) -> bool {
    if rows == 0 || n_out == 0 || w < 2 {
        return false;
    }
    let threads = if parallel {
        rayon::current_num_threads().max(1)
    } else {
        1
    };
    let n = transform_len(w, n_out);
    let pairs = rows.saturating_mul(n_out.div_ceil(2 * (n - w + 1)));
    let direct_tasks = rows.saturating_mul(n_out.div_ceil(DIRECT_BLOCK));
    let taps = rows as f64 * n_out as f64 * w as f64;
    let direct = direct_ns_per_tap::<T>() * taps / threads.min(direct_tasks) as f64;
    let rounds = pairs.div_ceil(threads) as f64;
    let fft = (FFT_SETUP_NS + FFT_PAIR_NS * rounds) * n as f64 * n.trailing_zeros() as f64;
    fft < direct
}

/// `operation` of `signal` with `mask` in `mode` by the faster method for the sizes
/// ([`auto_uses_fft`]): [`apply_fft`](super::apply_fft) or the direct
/// [`apply`](super::apply), which also takes any signal or mask holding a NaN or an infinity.
/// Same errors as [`apply`](super::apply). Results are the direct ones' up to rounding (the FFT
/// path's accuracy: [`apply_fft`](super::apply_fft)); the direct ones exactly where it takes
/// them.
///
/// ```
/// use gpu_conv1d::{cpu, Boundary, Mode, Operation};
/// let x: Vec<f32> = (0..100_000).map(|i| ((i % 13) as f32) - 6.0).collect();
/// let m: Vec<f32> = (0..2001).map(|j| 1.0 / (1.0 + j as f32)).collect();
/// let auto = cpu::par_correlate_auto(&x, &m, Mode::Same, Boundary::Nearest)?;
/// let direct = cpu::par_correlate(&x, &m, Mode::Same, Boundary::Nearest)?;
/// assert!(auto.iter().zip(&direct).all(|(a, b)| (a - b).abs() <= 1e-5 * (1.0 + b.abs())));
/// # Ok::<(), gpu_core::Error>(())
/// ```
pub fn apply_auto<T: Real>(
    operation: Operation,
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Vec<T>> {
    let n_out = output_len(signal.len(), mask.len(), mode)?;
    let finite = |v: &[T]| all_finite(v, parallel);
    if auto_uses_fft::<T>(n_out, mask.len(), parallel) && finite(mask) && finite(signal) {
        super::apply_fft(operation, signal, mask, mode, boundary, parallel)
    } else {
        super::apply(operation, signal, mask, mode, boundary, parallel)
    }
}

/// [`correlate`](super::correlate) by the faster method ([`apply_auto`]), serial.
pub fn correlate_auto<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply_auto(Operation::Correlation, signal, mask, mode, boundary, false)
}

/// [`convolve`](super::convolve) by the faster method ([`apply_auto`]), serial.
pub fn convolve_auto<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply_auto(Operation::Convolution, signal, mask, mode, boundary, false)
}

/// [`correlate_auto`] on rayon's pool.
pub fn par_correlate_auto<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply_auto(Operation::Correlation, signal, mask, mode, boundary, true)
}

/// [`convolve_auto`] on rayon's pool.
pub fn par_convolve_auto<T: Real>(
    signal: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
) -> Result<Vec<T>> {
    apply_auto(Operation::Convolution, signal, mask, mode, boundary, true)
}

/// [`apply_rows`](super::apply_rows) by the faster method for the sizes
/// ([`auto_uses_fft_rows`]): [`apply_rows_fft`](super::apply_rows_fft) or the direct sums, which
/// also take any signals or mask holding a NaN or an infinity. Same errors as
/// [`apply_rows`](super::apply_rows).
pub fn apply_rows_auto<T: Real>(
    operation: Operation,
    signals: ArrayView2<'_, T>,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Array2<T>> {
    let (rows, n) = signals.dim();
    let n_out = output_len(n, mask.len(), mode)?;
    if auto_uses_fft_rows::<T>(rows, n_out, mask.len(), parallel)
        && all_finite(mask, parallel)
        && view_finite(signals.view(), parallel)
    {
        super::apply_rows_fft(operation, signals, mask, mode, boundary, parallel)
    } else {
        super::apply_rows(operation, signals, mask, mode, boundary, parallel)
    }
}

/// [`apply_axis`](super::apply_axis) by the faster method for the sizes
/// ([`auto_uses_fft_rows`], a row per lane): [`apply_axis_fft`](super::apply_axis_fft) or the
/// direct sums, which also take any array or mask holding a NaN or an infinity. Same errors as
/// [`apply_axis`](super::apply_axis).
///
/// ```
/// use gpu_conv1d::{cpu, Boundary, Mode, Operation};
/// use ndarray::{Array3, Axis};
/// let x = Array3::from_shape_fn((4, 3000, 2), |(a, i, b)| ((a + 3 * i + b) % 17) as f32 - 8.0);
/// let m: Vec<f32> = (0..900).map(|j| 1.0 / (1.0 + j as f32)).collect();
/// let op = Operation::Correlation;
/// let auto = cpu::apply_axis_auto(op, x.view(), Axis(1), &m, Mode::Same, Boundary::Wrap, true)?;
/// let direct = cpu::apply_axis(op, x.view(), Axis(1), &m, Mode::Same, Boundary::Wrap, true)?;
/// assert_eq!(auto.shape(), &[4, 3000, 2]);
/// assert!(auto.iter().zip(&direct).all(|(a, b)| (a - b).abs() <= 1e-4 * (1.0 + b.abs())));
/// # Ok::<(), gpu_core::Error>(())
/// ```
pub fn apply_axis_auto<T: Real, D: Dimension>(
    operation: Operation,
    x: ArrayView<'_, T, D>,
    axis: Axis,
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    parallel: bool,
) -> Result<Array<T, D>> {
    check_axis(axis.0, x.ndim())?;
    let n = x.len_of(axis);
    let n_out = output_len(n, mask.len(), mode)?;
    let lanes = x.len().checked_div(n).unwrap_or(0);
    if auto_uses_fft_rows::<T>(lanes, n_out, mask.len(), parallel)
        && all_finite(mask, parallel)
        && view_finite(x.view(), parallel)
    {
        super::apply_axis_fft(operation, x, axis, mask, mode, boundary, parallel)
    } else {
        super::apply_axis(operation, x, axis, mask, mode, boundary, parallel)
    }
}

/// Whether every value is finite: in chunks without an early exit inside them (which
/// vectorises), on rayon's pool where `parallel`.
fn all_finite<T: Real>(values: &[T], parallel: bool) -> bool {
    let chunk = |c: &[T]| c.iter().fold(true, |all, x| all & x.is_finite());
    match parallel {
        true => values.par_chunks(1 << 14).all(chunk),
        false => values.chunks(1 << 14).all(chunk),
    }
}

/// [`all_finite`] of an array of any layout: in place where its elements are contiguous.
fn view_finite<T: Real, D: Dimension>(x: ArrayView<'_, T, D>, parallel: bool) -> bool {
    match x.as_slice_memory_order() {
        Some(values) => all_finite(values, parallel),
        None => x.iter().all(|v| v.is_finite()),
    }
}
