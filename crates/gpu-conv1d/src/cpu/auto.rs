//! The CPU method choice, as scipy's `correlate(method='auto')`: the direct sums or the FFT
//! path, whichever a cost model fitted on measured times says is faster for the output length,
//! the mask width and the threads; the direct sums whenever the signal or the mask holds a NaN
//! or an infinity (the FFT path would spread it through its block).

use rayon::prelude::*;

use gpu_core::Result;

use super::fft::transform_len;
use crate::plan::{check_mask, output_len};
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
/// assert!(!cpu::auto_uses_fft::<f32>(100, 1023, false)); // one whole block for 100 outputs
/// ```
pub fn auto_uses_fft<T: Real>(n_out: usize, w: usize, parallel: bool) -> bool {
    if n_out == 0 || w < 2 {
        return false;
    }
    let threads = if parallel {
        rayon::current_num_threads().max(1)
    } else {
        1
    };
    let n = transform_len(w);
    let pairs = n_out.div_ceil(2 * (n - w + 1));
    let direct_tasks = n_out.div_ceil(DIRECT_BLOCK);
    let direct =
        direct_ns_per_tap::<T>() * n_out as f64 * w as f64 / threads.min(direct_tasks) as f64;
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
    check_mask(mask.len())?;
    let n_out = output_len(signal.len(), mask.len(), mode)?;
    // In chunks without an early exit inside them, which vectorises.
    let chunk_finite = |c: &[T]| c.iter().fold(true, |all, x| all & x.is_finite());
    let finite = |v: &[T]| match parallel {
        true => v.par_chunks(1 << 14).all(chunk_finite),
        false => v.chunks(1 << 14).all(chunk_finite),
    };
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
