//! Helpers shared by the test files: data, the f64 reference and the tolerance.
#![allow(dead_code)]

use gpu_conv1d::{cpu, Boundary, Mode, Operation, Real};
use gpu_core::Element;

/// Reproducible values in [-1, 1).
pub fn data<T: Real>(n: usize, seed: u64) -> Vec<T> {
    gpu_core::data::typical::<T>(n, seed)
}

/// `n` values `±(1 + u)·2^e`, `e` uniform in `lo..=hi` (data over a wide dynamic range).
pub fn spread<T: Real>(n: usize, seed: u64, lo: i32, hi: i32) -> Vec<T> {
    let u = gpu_core::data::uniform::<f64>(n, seed, -1.0, 1.0);
    let e = gpu_core::data::uniform::<f64>(n, seed ^ 0x5eed, lo as f64, hi as f64 + 1.0);
    u.iter()
        .zip(&e)
        .map(|(&u, &e)| T::from_f64(u.signum() * (1.0 + u.abs()) * 2f64.powi(e.floor() as i32)))
        .collect()
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
    check_within(
        got,
        operation,
        x,
        mask,
        (mode, boundary),
        limit,
        tolerance::<T>,
    )
}

/// The allowed error of an f32 output on the tensor cores (3×TF32): each product
/// `hi·hi + hi·lo + lo·hi` misses `lo·lo` and the parts' own roundings, about 3 · 2^-22 of
/// `|x·m|` (6 ε), and the tensor cores' f32 additions round less tightly than an FMA's
/// (up to 2 ε each), so twice the direct sums' bound and 8 ε more (docs/conv1d.md measures
/// 4–12 ε of `Σ|x·m|` at widths 63–1023).
pub fn tensor_f32_tolerance(w: usize, mag: f64) -> f64 {
    (2.0 * (w as f64 + 2.0) + 8.0) * f32::EPSILON as f64 * mag + 1e-30
}

/// [`check`] with the allowed error `tol(w, Σ|x·m|)` of each output.
pub fn check_within<T: Real>(
    got: &[T],
    operation: Operation,
    x: &[T],
    mask: &[T],
    (mode, boundary): (Mode, Boundary),
    limit: usize,
    tol: impl Fn(usize, f64) -> f64,
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
        let tol = tol(m.len(), mag);
        if (g - r).abs() > tol {
            return Err(format!(
                "output {o} of {n_out}: got {g:e}, reference {r:e} (|diff| {:e} > tol {tol:e})",
                (g - r).abs()
            ));
        }
    }
    Ok(())
}

/// The allowed error of output `o` of one row on the FFT path of `size` points: the rounding of
/// the transforms, which grows with `ε·log2(size)` times the size of the values in the pair of
/// tiles' spans (`scale`, the largest |x| there) and the mask's 2-norm, plus the direct sums'
/// tolerance (which holds the final rounding of 16-bit outputs).
pub fn fft_tolerance<T: Real>(size: usize, scale: f64, m2: f64, w: usize, mag: f64) -> f64 {
    let eps = <T::Wide as Real>::EPSILON.to_f64();
    8.0 * eps * (size as f64).log2() * scale * m2 + tolerance::<T>(w, mag)
}

/// Largest |X(p)| over ranges of positions of a row read through its boundary rule: a sparse
/// table over `[first, first + len)` (levels of maxima over runs of 2^k), each range in O(1).
/// The FFT checks ask it for every sampled group's spans; scanning them (a span of up to 65536
/// positions for each of up to 3000 groups) made the largest sizes' tests minutes long.
pub struct RangeMax {
    first: i64,
    levels: Vec<Vec<f64>>,
}

impl RangeMax {
    pub fn new<T: Real>(x: &[T], first: i64, len: usize, b: Boundary) -> Self {
        let base: Vec<f64> = (0..len as i64)
            .map(|i| {
                b.index(first + i, x.len())
                    .map_or(0.0, |j| x[j].to_f64().abs())
            })
            .collect();
        let mut levels = vec![base];
        let mut run = 1;
        while 2 * run <= len {
            let prev = levels.last().unwrap();
            let next: Vec<f64> = (0..=len - 2 * run)
                .map(|i| prev[i].max(prev[i + run]))
                .collect();
            levels.push(next);
            run *= 2;
        }
        RangeMax { first, levels }
    }

    /// The largest |X(p)| for p in `[lo, hi)` (clamped to the table; 0 if empty).
    pub fn max(&self, lo: i64, hi: i64) -> f64 {
        let len = self.levels[0].len() as i64;
        let (a, b) = ((lo - self.first).max(0), (hi - self.first).min(len));
        if a >= b {
            return 0.0;
        }
        let k = (63 - ((b - a) as u64).leading_zeros()) as usize;
        let level = &self.levels[k];
        level[a as usize].max(level[(b - (1 << k)) as usize])
    }
}

/// Checks one row's outputs `got` against the f64 reference at the sampled outputs.
#[allow(clippy::too_many_arguments)]
pub fn check_fft<T: Real>(
    got: &[T],
    x: &[T],
    m: &[T],
    mode: Mode,
    boundary: Boundary,
    size: usize,
    limit: usize,
) -> Result<(), String> {
    // The scale of an output: the largest |X| over the spans of its pair of tiles (tiles of
    // `tile` outputs, each reading `size` positions from `o0 + off − pad`; the even-and-odd
    // packing's single tiles read less, so their tolerance is no tighter than this).
    let off = mode.offset(m.len());
    let pad = gpu_conv1d::fft_pad(size, m.len(), off);
    let tile = gpu_conv1d::fft_tile(size, m.len() + pad);
    let group = |o: usize| o / tile / 2;
    let n_out = got.len();
    let reach = (n_out / tile + 2) * tile + size;
    let table = RangeMax::new(x, off - pad as i64, reach, boundary);
    check_transform(got, x, m, mode, boundary, size, limit, group, |o, off| {
        let p0 = ((o / tile) & !1) as i64 * tile as i64 + off - pad as i64;
        table.max(p0, p0 + (tile + size) as i64)
    })
}

/// [`check_fft`] for the mask in `parts` parts (`Strategy::FftParts`, spans of `size` points):
/// a tile's scale is the largest |X| over its parts' spans, and the parts' products add up, so
/// the mask's norm counts √parts times (Σ‖part‖ ≤ √parts·‖mask‖).
#[allow(clippy::too_many_arguments)]
pub fn check_fft_parts<T: Real>(
    got: &[T],
    x: &[T],
    m: &[T],
    mode: Mode,
    boundary: Boundary,
    size: usize,
    parts: usize,
    limit: usize,
) -> Result<(), String> {
    let off = mode.offset(m.len());
    let part_w = gpu_conv1d::fft_part_width(m.len(), parts);
    let pad = gpu_conv1d::fft_pad(size, part_w, off);
    let tile = gpu_conv1d::fft_tile(size, part_w + pad);
    let reach = (got.len() / tile + 2) * tile + (parts - 1) * part_w + size;
    let table = RangeMax::new(x, off - pad as i64, reach, boundary);
    let spread = (parts as f64).sqrt();
    check_transform(
        got,
        x,
        m,
        mode,
        boundary,
        size,
        limit,
        |o| o / tile,
        |o, off| {
            let p0 = (o / tile * tile) as i64 + off - pad as i64;
            spread * table.max(p0, p0 + ((parts - 1) * part_w + size) as i64)
        },
    )
}

/// Checks `got` against the f64 reference at the sampled outputs with [`fft_tolerance`] for
/// transforms of `size` points: `group(o)` is the output's transform (its scale computed once
/// per group), `scale(o, off)` the largest |X| over the spans that transform read.
#[allow(clippy::too_many_arguments)]
fn check_transform<T: Real>(
    got: &[T],
    x: &[T],
    m: &[T],
    mode: Mode,
    boundary: Boundary,
    size: usize,
    limit: usize,
    group: impl Fn(usize) -> usize + Sync,
    scale: impl Fn(usize, i64) -> f64 + Sync,
) -> Result<(), String> {
    use rayon::prelude::*;
    let w = m.len();
    let n_out = gpu_conv1d::output_len(x.len(), w, mode).map_err(|e| e.to_string())?;
    if got.len() != n_out {
        return Err(format!("{} outputs, expected {n_out}", got.len()));
    }
    if let Some(i) = got.iter().position(|v| !v.to_f64().is_finite()) {
        return Err(format!("output {i} of {n_out} is {:?}", got[i]));
    }
    let off = mode.offset(w);
    let m2 = m.iter().map(|v| v.to_f64().powi(2)).sum::<f64>().sqrt();
    // Every core: a mask of 65535 takes 10^8 products per row at 1500 outputs. A group's scale
    // is the same from any of its outputs, computed once.
    let outputs = sample(n_out, limit);
    let mut firsts: Vec<(usize, usize)> = outputs.iter().map(|&o| (group(o), o)).collect();
    firsts.sort_unstable();
    firsts.dedup_by_key(|g| g.0);
    let scales: std::collections::HashMap<usize, f64> = firsts
        .par_iter()
        .map(|&(g, o)| (g, scale(o, off)))
        .collect();
    let failure = outputs.par_iter().find_map_first(|&o| {
        let (r, mag) = gpu_conv1d::cpu::reference_at(x, m, o as i64 + off, boundary);
        let tol = fft_tolerance::<T>(size, scales[&group(o)], m2, w, mag);
        let g = got[o].to_f64();
        ((g - r).abs() > tol).then(|| {
            format!(
                "output {o} of {n_out}: got {g:e}, reference {r:e} (|diff| {:e} > tol {tol:e})",
                (g - r).abs()
            )
        })
    });
    failure.map_or(Ok(()), Err)
}

/// [`check`] for the direct paths, [`check_fft`] (the transform's tolerance) where `path` is the
/// FFT path; `mask` as given (reversed here for a convolution).
#[allow(clippy::too_many_arguments)]
pub fn check_path<T: Real>(
    got: &[T],
    operation: Operation,
    x: &[T],
    mask: &[T],
    mode: Mode,
    boundary: Boundary,
    limit: usize,
    path: gpu_conv1d::Path,
) -> Result<(), String> {
    match path {
        gpu_conv1d::Path::Fft { size } | gpu_conv1d::Path::FftEvenOdd { size } => {
            let m = operation.effective_mask(mask).map_err(|e| e.to_string())?;
            check_fft(got, x, &m, mode, boundary, size as usize, limit)
        }
        gpu_conv1d::Path::CuFft { size } => {
            let m = operation.effective_mask(mask).map_err(|e| e.to_string())?;
            check_cufft(got, x, &m, mode, boundary, size as usize, limit)
        }
        gpu_conv1d::Path::FftEvenOddParts { size, parts } => {
            let m = operation.effective_mask(mask).map_err(|e| e.to_string())?;
            let (size, parts) = (size as usize, parts as usize);
            check_fft_parts(got, x, &m, mode, boundary, size, parts, limit)
        }
        gpu_conv1d::Path::TensorCore if T::NAME == "f32" => check_within(
            got,
            operation,
            x,
            mask,
            (mode, boundary),
            limit,
            tensor_f32_tolerance,
        ),
        _ => check(got, operation, x, mask, mode, boundary, limit),
    }
}

/// [`check_fft`] for the cuFFT path's segments of `size` points (`size − w + 1` outputs each,
/// one segment per transform): the same tolerance, with the largest |X| over the output's
/// segment's span.
#[allow(clippy::too_many_arguments)]
pub fn check_cufft<T: Real>(
    got: &[T],
    x: &[T],
    m: &[T],
    mode: Mode,
    boundary: Boundary,
    size: usize,
    limit: usize,
) -> Result<(), String> {
    let tile = size + 1 - m.len();
    let group = |o: usize| o / tile;
    check_transform(got, x, m, mode, boundary, size, limit, group, |o, off| {
        let p0 = (o / tile * tile) as i64 + off;
        (p0..p0 + size as i64)
            .filter_map(|p| boundary.index(p, x.len()))
            .map(|i| x[i].to_f64().abs())
            .fold(0.0, f64::max)
    })
}

/// Where cuFFT is needed: `Some` to go on, `None` after a visible skip when libcufft is
/// missing (a failure with GPU_PRIMS_REQUIRE_GPU=1, where the machine must have it).
#[cfg(feature = "cuda")]
pub fn cufft_or_skip(test: &str) -> Option<()> {
    if gpu_conv1d::cufft_available() {
        return Some(());
    }
    assert!(
        std::env::var_os("GPU_PRIMS_REQUIRE_GPU").is_none(),
        "{test}: libcufft not found with GPU_PRIMS_REQUIRE_GPU set"
    );
    eprintln!("SKIPPED {test}: libcufft not found");
    None
}

/// The block FFT's size that `Auto` and `Strategy::FFT` take for a mask of `w` on `gpu`: the
/// width table's ([`gpu_conv1d::fft_size`]), or the 16384-point spans from the device's
/// `conv1d.fft_span_from` (f32) or `conv1d.fft_span_from_f64` (f64) on, where the table gives
/// fewer points (f16 and bf16 keep their tables).
#[cfg(feature = "cuda")]
pub fn device_fft_size<T: Real>(gpu: &gpu_core::Gpu, w: usize) -> Option<usize> {
    let size = gpu_conv1d::fft_size::<T>(w)?;
    let key = match (T::NAME, std::mem::size_of::<T::Wide>()) {
        (_, 8) => "conv1d.fft_span_from_f64",
        ("f32", _) => "conv1d.fft_span_from",
        _ => return Some(size),
    };
    Some(if size < 16384 && w as u64 >= gpu.tuned(key) {
        16384
    } else {
        size
    })
}
