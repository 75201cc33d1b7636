//! Helpers shared by the test files: data, the f64 reference and the tolerance.
#![allow(dead_code)]

use gpu_conv1d::{cpu, Boundary, Mode, Operation, Real};
use gpu_core::Element;

/// Reproducible values in [-1, 1).
pub fn data<T: Real>(n: usize, seed: u64) -> Vec<T> {
    gpu_core::data::typical::<T>(n, seed)
}

/// Allowed |got − reference| for one output of a `w`-term sum whose terms have absolute values
/// summing to `mag`: (w + 2)·ε·mag, twice the worst-case bound of a recursive (or fused
/// multiply-add) sum in the accumulator type (ε of `T::Wide`), plus, for the 16-bit types, the
/// final rounding to T (at most ε_T/2·|y| ≤ ε_T/2·mag, allowed twice, or half the subnormal
/// spacing below T's smallest normal), plus an absolute floor for sums of exactly nothing. A sum
/// kept in 16 bits would exceed it for long masks.
pub fn tolerance<T: Real>(w: usize, mag: f64) -> f64 {
    let wide = <T::Wide as Real>::EPSILON.to_f64();
    let rounding = if T::computes_wider() {
        T::EPSILON.to_f64() * mag + subnormal_spacing::<T>()
    } else {
        0.0
    };
    (w as f64 + 2.0) * wide * mag + rounding + 1e-30
}

/// The gap between T's subnormal numbers (the absolute rounding error bound near 0).
fn subnormal_spacing<T: Real>() -> f64 {
    match T::NAME {
        "f16" => 2f64.powi(-24),
        "bf16" => 2f64.powi(-133),
        _ => 0.0,
    }
}

/// Which outputs to check: all of them up to `limit`, else both ends and a stride through the
/// middle (the caller also scans every output for the NaN poison).
pub fn sample(n_out: usize, limit: usize) -> Vec<usize> {
    if n_out <= limit {
        return (0..n_out).collect();
    }
    let edge = limit / 4;
    let stride = (n_out / (limit / 2)).max(1) | 1;
    let mut v: Vec<usize> = (0..edge).chain(n_out - edge..n_out).collect();
    v.extend((edge..n_out - edge).step_by(stride));
    v
}

/// Compares `got` (outputs of `operation` of `x` with `mask`) with the f64 reference at the
/// sampled outputs; every output must be finite (the tests poison outputs with NaN first).
pub fn check<T: Real>(
    got: &[T],
    operation: Operation,
    x: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    limit: usize,
) -> Result<(), String> {
    let m = operation.effective_mask(mask).map_err(|e| e.to_string())?;
    let n_out = gpu_conv1d::output_len(x.len(), m.len(), mode).map_err(|e| e.to_string())?;
    if got.len() != n_out {
        return Err(format!("{} outputs, expected {n_out}", got.len()));
    }
    if let Some(i) = got.iter().position(|v| !v.to_f64().is_finite()) {
        return Err(format!(
            "output {i} of {n_out} is {:?} (never written?)",
            got[i]
        ));
    }
    let off = mode.offset(m.len());
    for o in sample(n_out, limit) {
        let (r, mag) = cpu::reference_at(x, &m, o as i64 + off, boundary);
        let g = got[o].to_f64();
        let tol = tolerance::<T>(m.len(), mag);
        if (g - r).abs() > tol {
            return Err(format!(
                "output {o} of {n_out}: got {g:e}, reference {r:e} (|diff| {:e} > tol {tol:e})",
                (g - r).abs()
            ));
        }
    }
    Ok(())
}
