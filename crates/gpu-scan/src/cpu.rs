//! CPU scans: the serial reference and a blocked rayon scan, with the GPU scans' semantics.
//!
//! * Inclusive: `out[i] = x[0] ∘ … ∘ x[i]`; exclusive: `out[i] = x[0] ∘ … ∘ x[i−1]`, with the
//!   operator's identity at `out[0]`.
//! * The serial scan is a left fold: `out[i] = out[i−1] ∘ x[i]`; the first element is taken as
//!   is (never combined with the identity).
//! * The rayon scan cuts the input into chunks of [`PAR_CHUNK`] elements (a constant, so results
//!   do not depend on the thread count), reduces the chunks in parallel, scans the chunk totals
//!   serially, and rescans each chunk seeded with its carry. For floats its grouping differs from
//!   the serial scan's, so the last bits may too.
//! * An output longer than the input is fine (only the first `input.len()` elements are
//!   written); a shorter one is an [`Error::InvalidArgument`].
//!
//! ```
//! use gpu_core::{Mat2, Op};
//! use gpu_scan::{cpu, ScanKind};
//!
//! let mut x = vec![1i64, -2, 3, -4];
//! cpu::parallel_in_place(&mut x, Op::Sum, ScanKind::Exclusive).unwrap();
//! assert_eq!(x, vec![0, 1, -1, 2]);
//!
//! // Non-commutative monoids keep order: the scan of [A, B] is [A, A·B].
//! let (a, b) = (Mat2([1u32, 1, 0, 1]), Mat2([1u32, 0, 1, 1]));
//! let s = cpu::scan_monoid(&[a, b], ScanKind::Inclusive);
//! assert_eq!(s[1], Mat2([2, 1, 1, 1]));
//! ```

use gpu_core::{Affine, Element, Error, Monoid, Op, Result};
use rayon::prelude::*;

use crate::{Algorithm, Real, ScanKind, ScanOptions};

mod columns;
mod lanes;
mod shaped;
mod step;
mod tiles;
pub use shaped::{par_scan_axis, par_segmented_scan, scan_axis, segmented_scan};

/// Elements per chunk of the rayon scan (fixed, so results do not depend on the thread count).
pub const PAR_CHUNK: usize = 1 << 16;

pub(crate) fn check_output(input: usize, output: usize) -> Result<()> {
    if output < input {
        return Err(Error::invalid(
            "output",
            format!("holds {output} elements; the scan of {input} elements needs at least {input}"),
        ));
    }
    Ok(())
}

/// Scans `src` into `dst` (same length), continuing from `carry` (everything before `src`).
fn run<V: Copy>(
    src: &[V],
    dst: &mut [V],
    carry: Option<V>,
    kind: ScanKind,
    identity: V,
    f: &impl Fn(V, V) -> V,
) {
    let mut acc = carry;
    for (d, &x) in dst.iter_mut().zip(src) {
        let next = match acc {
            Some(a) => f(a, x),
            None => x,
        };
        *d = match kind {
            ScanKind::Inclusive => next,
            ScanKind::Exclusive => acc.unwrap_or(identity),
        };
        acc = Some(next);
    }
}

fn run_in_place<V: Copy>(
    data: &mut [V],
    carry: Option<V>,
    kind: ScanKind,
    identity: V,
    f: &impl Fn(V, V) -> V,
) {
    let mut acc = carry;
    for d in data.iter_mut() {
        let x = *d;
        let next = match acc {
            Some(a) => f(a, x),
            None => x,
        };
        *d = match kind {
            ScanKind::Inclusive => next,
            ScanKind::Exclusive => acc.unwrap_or(identity),
        };
        acc = Some(next);
    }
}

fn fold<V: Copy>(xs: &[V], f: &impl Fn(V, V) -> V) -> Option<V> {
    let (&first, rest) = xs.split_first()?;
    Some(rest.iter().fold(first, |a, &x| f(a, x)))
}

/// Carry of each chunk: the combination of all chunks before it (`None` for the first).
fn carries<V: Copy>(totals: &[Option<V>], f: &impl Fn(V, V) -> V) -> Vec<Option<V>> {
    let mut out = Vec::with_capacity(totals.len());
    let mut acc: Option<V> = None;
    for t in totals {
        out.push(acc);
        acc = match (acc, *t) {
            (Some(a), Some(t)) => Some(f(a, t)),
            (None, t) => t,
            (a, None) => a,
        };
    }
    out
}

fn serial_core<V: Copy>(
    src: &[V],
    dst: &mut [V],
    kind: ScanKind,
    identity: V,
    f: impl Fn(V, V) -> V,
) -> Result<()> {
    check_output(src.len(), dst.len())?;
    run(src, &mut dst[..src.len()], None, kind, identity, &f);
    Ok(())
}

fn parallel_core<V: Copy + Send + Sync>(
    src: &[V],
    dst: &mut [V],
    kind: ScanKind,
    identity: V,
    f: impl Fn(V, V) -> V + Sync,
) -> Result<()> {
    check_output(src.len(), dst.len())?;
    let dst = &mut dst[..src.len()];
    if src.len() <= PAR_CHUNK {
        run(src, dst, None, kind, identity, &f);
        return Ok(());
    }
    let totals: Vec<Option<V>> = src.par_chunks(PAR_CHUNK).map(|c| fold(c, &f)).collect();
    let carry = carries(&totals, &f);
    dst.par_chunks_mut(PAR_CHUNK)
        .zip(src.par_chunks(PAR_CHUNK))
        .zip(carry.par_iter())
        .for_each(|((d, s), &c)| run(s, d, c, kind, identity, &f));
    Ok(())
}

fn parallel_in_place_core<V: Copy + Send + Sync>(
    data: &mut [V],
    kind: ScanKind,
    identity: V,
    f: impl Fn(V, V) -> V + Sync,
) {
    if data.len() <= PAR_CHUNK {
        run_in_place(data, None, kind, identity, &f);
        return;
    }
    let totals: Vec<Option<V>> = data.par_chunks(PAR_CHUNK).map(|c| fold(c, &f)).collect();
    let carry = carries(&totals, &f);
    data.par_chunks_mut(PAR_CHUNK)
        .zip(carry.par_iter())
        .for_each(|(d, &c)| run_in_place(d, c, kind, identity, &f));
}

/// f16 and bf16: the serial or rayon (`parallel`) scan of the accumulator values, each result rounded
/// once to `T` (the GPU's rule).
fn via_accumulator<T: Element>(
    input: &[T],
    output: &mut [T],
    op: Op,
    kind: ScanKind,
    parallel: bool,
) -> Result<()> {
    check_output(input.len(), output.len())?;
    let y = if parallel {
        par_scan_accumulated(input, op, kind)?
    } else {
        scan_accumulated(input, op, kind)?
    };
    for (o, v) in output.iter_mut().zip(y) {
        *o = T::from_accumulator(v);
    }
    Ok(())
}

/// Serial scan of `input` into `output` (at least as long). f16 and bf16 are scanned in f32,
/// each result rounded once ([`scan_accumulated`] keeps the f32 values).
pub fn serial<T: Element>(input: &[T], output: &mut [T], op: Op, kind: ScanKind) -> Result<()> {
    crate::check_op::<T>(op)?;
    if T::computes_wider() {
        return via_accumulator(input, output, op, kind, false);
    }
    let identity = op.identity::<T>()?;
    serial_core(input, output, kind, identity, |a, b| T::combine(op, a, b))
}

/// Serial scan in place.
pub fn serial_in_place<T: Element>(data: &mut [T], op: Op, kind: ScanKind) -> Result<()> {
    crate::check_op::<T>(op)?;
    if T::computes_wider() {
        let input = data.to_vec();
        return via_accumulator(&input, data, op, kind, false);
    }
    let identity = op.identity::<T>()?;
    run_in_place(data, None, kind, identity, &|a, b| T::combine(op, a, b));
    Ok(())
}

/// Blocked rayon scan of `input` into `output` (at least as long).
pub fn parallel<T: Element>(input: &[T], output: &mut [T], op: Op, kind: ScanKind) -> Result<()> {
    crate::check_op::<T>(op)?;
    if T::computes_wider() {
        return via_accumulator(input, output, op, kind, true);
    }
    let identity = op.identity::<T>()?;
    parallel_core(input, output, kind, identity, |a, b| T::combine(op, a, b))
}

/// Blocked rayon scan in place.
pub fn parallel_in_place<T: Element>(data: &mut [T], op: Op, kind: ScanKind) -> Result<()> {
    crate::check_op::<T>(op)?;
    if T::computes_wider() {
        let input = data.to_vec();
        return via_accumulator(&input, data, op, kind, true);
    }
    let identity = op.identity::<T>()?;
    parallel_in_place_core(data, kind, identity, |a, b| T::combine(op, a, b));
    Ok(())
}

/// Serial scan into a new vector.
pub fn scan<T: Element>(input: &[T], op: Op, kind: ScanKind) -> Result<Vec<T>> {
    let mut out = input.to_vec();
    serial_in_place(&mut out, op, kind)?;
    Ok(out)
}

/// Rayon scan into a new vector.
pub fn par_scan<T: Element>(input: &[T], op: Op, kind: ScanKind) -> Result<Vec<T>> {
    let mut out = input.to_vec();
    parallel_in_place(&mut out, op, kind)?;
    Ok(out)
}

/// The serial scan in the accumulator type: every element converted exactly to
/// `T::Accumulator` (f32 for f16 and bf16; `T` itself otherwise) and scanned there, the results
/// kept in it (PyTorch's `cumsum(x, dtype=torch.float32)`).
///
/// ```
/// use gpu_core::{f16, Op};
/// use gpu_scan::{cpu, ScanKind};
/// let x = vec![f16::from_f32(0.1); 3];
/// let y = cpu::scan_accumulated(&x, Op::Sum, ScanKind::Inclusive).unwrap();
/// assert_eq!(y[2], 3.0 * f16::from_f32(0.1).to_f32());
/// let z = cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap(); // rounded once to f16
/// assert_eq!(z[2], f16::from_f32(y[2]));
/// ```
pub fn scan_accumulated<T: Element>(
    input: &[T],
    op: Op,
    kind: ScanKind,
) -> Result<Vec<T::Accumulator>> {
    crate::check_op::<T>(op)?;
    let mut acc: Vec<T::Accumulator> = input.iter().map(|v| v.to_accumulator()).collect();
    serial_in_place(&mut acc, op, kind)?;
    Ok(acc)
}

/// [`scan_accumulated`] with the blocked rayon scan.
pub fn par_scan_accumulated<T: Element>(
    input: &[T],
    op: Op,
    kind: ScanKind,
) -> Result<Vec<T::Accumulator>> {
    crate::check_op::<T>(op)?;
    let mut acc: Vec<T::Accumulator> = input.par_iter().map(|v| v.to_accumulator()).collect();
    parallel_in_place(&mut acc, op, kind)?;
    Ok(acc)
}

/// [`scan_accumulated`] with the CPU algorithm of `options` (as [`scan_with`]).
pub fn scan_accumulated_with<T: Element>(
    input: &[T],
    op: Op,
    options: &ScanOptions,
) -> Result<Vec<T::Accumulator>> {
    match options.algorithm {
        Algorithm::Serial => scan_accumulated(input, op, options.kind),
        Algorithm::Rayon => par_scan_accumulated(input, op, options.kind),
        gpu => Err(gpu_algorithm_on_cpu(gpu)),
    }
}

/// Scan with a CPU algorithm ([`Algorithm::Serial`] or [`Algorithm::Rayon`]) chosen by `options`
/// (the block size is ignored); GPU algorithms are an error here.
pub fn scan_with<T: Element>(input: &[T], op: Op, options: &ScanOptions) -> Result<Vec<T>> {
    match options.algorithm {
        Algorithm::Serial => scan(input, op, options.kind),
        Algorithm::Rayon => par_scan(input, op, options.kind),
        gpu => Err(gpu_algorithm_on_cpu(gpu)),
    }
}

pub(crate) fn gpu_algorithm_on_cpu(a: Algorithm) -> Error {
    Error::invalid(
        "algorithm",
        format!("{a:?} runs on the GPU; the CPU scans are Serial and Rayon"),
    )
}

/// Serial scan of any monoid, in sequence order.
pub fn serial_monoid<M: Monoid>(input: &[M], output: &mut [M], kind: ScanKind) -> Result<()> {
    serial_core(input, output, kind, M::identity(), M::combine)
}

/// Serial monoid scan in place.
pub fn serial_monoid_in_place<M: Monoid>(data: &mut [M], kind: ScanKind) {
    run_in_place(data, None, kind, M::identity(), &M::combine);
}

/// Blocked rayon scan of any monoid, in sequence order.
pub fn parallel_monoid<M: Monoid>(input: &[M], output: &mut [M], kind: ScanKind) -> Result<()> {
    parallel_core(input, output, kind, M::identity(), M::combine)
}

/// Blocked rayon monoid scan in place.
pub fn parallel_monoid_in_place<M: Monoid>(data: &mut [M], kind: ScanKind) {
    parallel_in_place_core(data, kind, M::identity(), M::combine);
}

/// Serial monoid scan into a new vector.
pub fn scan_monoid<M: Monoid>(input: &[M], kind: ScanKind) -> Vec<M> {
    let mut out = input.to_vec();
    serial_monoid_in_place(&mut out, kind);
    out
}

/// Rayon monoid scan into a new vector.
pub fn par_scan_monoid<M: Monoid>(input: &[M], kind: ScanKind) -> Vec<M> {
    let mut out = input.to_vec();
    parallel_monoid_in_place(&mut out, kind);
    out
}

pub(crate) fn check_recurrence(a: usize, b: usize) -> Result<()> {
    if a != b {
        return Err(Error::invalid(
            "b",
            format!("{b} offsets for {a} multipliers: the recurrence needs one of each per step"),
        ));
    }
    Ok(())
}

/// The linear recurrence `x[t] = a[t]·x[t−1] + b[t]` with `x[−1] = x_init`, by the sequential
/// loop (the reference).
///
/// ```
/// // An exponential moving average: x[t] = 0.5·x[t−1] + 0.5·u[t].
/// let u = [2.0f64, 4.0, 8.0];
/// let x = gpu_scan::cpu::linear_recurrence(&[0.5; 3], &u.map(|v| 0.5 * v), 0.0).unwrap();
/// assert_eq!(x, vec![1.0, 2.5, 5.25]);
/// ```
pub fn linear_recurrence<T: Real>(a: &[T], b: &[T], x_init: T) -> Result<Vec<T>> {
    check_recurrence(a.len(), b.len())?;
    let mut x = x_init;
    Ok(a.iter()
        .zip(b)
        .map(|(&a, &b)| {
            x = Affine { a, b }.apply(x);
            x
        })
        .collect())
}

/// The same recurrence through a (rayon) scan of affine maps: `x[t] = F_t(x_init)` with
/// `F_t = f_0 then … then f_t`, `f_t(x) = a[t]·x + b[t]`. What the GPU does, on the CPU.
pub fn linear_recurrence_scan<T: Real>(a: &[T], b: &[T], x_init: T) -> Result<Vec<T>>
where
    Affine<T>: Monoid,
{
    check_recurrence(a.len(), b.len())?;
    let mut maps: Vec<Affine<T>> = a.iter().zip(b).map(|(&a, &b)| Affine { a, b }).collect();
    parallel_monoid_in_place(&mut maps, ScanKind::Inclusive);
    Ok(maps.into_par_iter().map(|f| f.apply(x_init)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_core::Mat2;

    #[test]
    fn forms_and_wrapping() {
        let x = [5i32, -3, 7];
        assert_eq!(scan(&x, Op::Sum, ScanKind::Inclusive).unwrap(), [5, 2, 9]);
        assert_eq!(scan(&x, Op::Sum, ScanKind::Exclusive).unwrap(), [0, 5, 2]);
        assert_eq!(
            scan(&x, Op::Min, ScanKind::Exclusive).unwrap(),
            [i32::MAX, 5, -3]
        );
        assert_eq!(
            scan(&[u32::MAX, 2], Op::Sum, ScanKind::Inclusive).unwrap(),
            [u32::MAX, 1]
        );
        assert!(scan::<i32>(&[], Op::Sum, ScanKind::Exclusive)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn rayon_matches_serial_across_chunks() {
        let n = 3 * PAR_CHUNK + 17;
        let x: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        for op in Op::ALL {
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                assert_eq!(par_scan(&x, op, kind).unwrap(), scan(&x, op, kind).unwrap());
            }
        }
        let m: Vec<Mat2<u32>> = (0..n as u32).map(|i| Mat2([i, 1, i ^ 7, 3])).collect();
        assert_eq!(
            par_scan_monoid(&m, ScanKind::Exclusive),
            scan_monoid(&m, ScanKind::Exclusive)
        );
    }

    #[test]
    fn bad_inputs() {
        let mut short = [0i32; 2];
        let e = serial(&[1, 2, 3], &mut short, Op::Sum, ScanKind::Inclusive).unwrap_err();
        assert!(e.to_string().contains("output"), "{e}");
        assert!(parallel(&[1.0f32], &mut [0.0; 1], Op::BitAnd, ScanKind::Inclusive).is_err());
        let mut long = [9u32; 4];
        serial(&[1, 2], &mut long, Op::Sum, ScanKind::Inclusive).unwrap();
        assert_eq!(long, [1, 3, 9, 9]);
        assert!(linear_recurrence(&[1.0f32], &[], 0.0).is_err());
        assert!(scan_with(&[1i32], Op::Sum, &ScanOptions::default()).is_err());
    }
}
