//! CPU reductions with exactly the GPU's semantics: the test oracles and the benchmark
//! baselines. Each comes serial and parallel (`par_*`, rayon).
//!
//! The serial reductions of an [`Op`] keep [`LANES`] partial results: element `i` is folded
//! into lane `i % LANES` (each lane from the identity), and the lanes are then combined
//! pairwise — lane 0 with 1, 2 with 3, …, then the results again pairwise — down to one. The
//! compiler vectorises that loop (one operator per loop, no per-element dispatch). Integer
//! operators and min/max give the same value in any order (integers simply fold left to right,
//! which the compiler vectorises itself); float sums and products are defined by this order
//! (and a float min/max of `-0.0` and `0.0` may return either zero). argmin/argmax, widening sums and the
//! monoids (order matters there) fold left to right.
//!
//! The parallel forms split the input into fixed chunks of [`PAR_CHUNK`] elements, fold each
//! chunk serially, and fold the chunk results serially in order, so they are deterministic
//! (the same float result whatever the thread count) and keep sequence order (valid for
//! non-commutative monoids).
//!
//! Semantics, shared with the GPU: integer sums and products wrap; float min/max propagate NaN
//! (as [`gpu_core::Element::combine`] does); argmin/argmax give the index of the first extreme,
//! or of the first NaN if there is one (PyTorch's rule); the empty input gives the identity for
//! [`reduce`] and `None` for [`min`], [`max`], [`argmin`], [`argmax`].
//!
//! ```
//! use gpu_core::Op;
//! use gpu_reduce::cpu;
//! let x = [3.0f32, -1.0, 7.5, -1.0];
//! assert_eq!(cpu::reduce(&x, Op::Sum).unwrap(), 8.5);
//! assert_eq!(cpu::par_reduce(&x, Op::Max).unwrap(), 7.5);
//! assert_eq!(cpu::argmin(&x), Some(1));                    // the first of the two minima
//! assert_eq!(cpu::argmax(&[1.0, f32::NAN, 9.0]), Some(1)); // NaN wins
//! assert_eq!(cpu::min::<f32>(&[]), None);
//! assert_eq!(cpu::reduce::<u32>(&[], Op::BitAnd).unwrap(), u32::MAX);
//! assert!(cpu::reduce(&x, Op::BitXor).is_err());           // bitwise on floats
//! ```

use gpu_core::{Element, Error, Monoid, Op, Result};
use rayon::prelude::*;

use crate::value::{arg_combine, Extreme, Widen};

mod columns;
mod shaped;
pub use shaped::{
    argmax_axis, argmin_axis, par_reduce_axis, par_segmented_reduce, reduce_axis, segmented_argmax,
    segmented_argmin, segmented_reduce, sum_axis,
};

/// Elements per chunk of the parallel reductions (fixed, so results do not depend on the
/// number of threads).
pub const PAR_CHUNK: usize = 1 << 16;

/// Partial results of the serial reductions (see the module docs for the order).
pub const LANES: usize = 16;

/// `x` folded from `id` in [`LANES`] interleaved lanes (`step` takes in one element), the
/// lanes then combined pairwise with `merge`.
#[inline(always)]
fn fold_lanes<T: Copy, A: Copy>(
    x: &[T],
    id: A,
    step: impl Fn(A, T) -> A + Copy,
    merge: impl Fn(A, A) -> A + Copy,
) -> A {
    let mut acc = [id; LANES];
    let mut chunks = x.chunks_exact(LANES);
    for c in &mut chunks {
        for j in 0..LANES {
            acc[j] = step(acc[j], c[j]);
        }
    }
    for (j, &v) in chunks.remainder().iter().enumerate() {
        acc[j] = step(acc[j], v);
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            acc[j] = merge(acc[2 * j], acc[2 * j + 1]);
        }
    }
    acc[0]
}

/// The reduction of `x` by `op` from `id` in the accumulator type `A` (each element taken in
/// by `conv`), one monomorphic loop per operator so the per-element `match` disappears.
/// Integers fold left to right (the compiler reassociates wrapping integer operators by
/// itself); floats in [`LANES`] lanes.
#[inline(always)]
fn fold_with<T: Copy, A: Element>(x: &[T], op: Op, id: A, conv: impl Fn(T) -> A + Copy) -> A {
    macro_rules! left_to_right {
        ($op:expr) => {
            x.iter().fold(id, |a, &b| A::combine($op, a, conv(b)))
        };
    }
    macro_rules! in_lanes {
        ($op:expr) => {
            fold_lanes(
                x,
                id,
                |a, b| A::combine($op, a, conv(b)),
                |a, b| A::combine($op, a, b),
            )
        };
    }
    if A::IS_FLOAT {
        gpu_core::with_const_op!(op, in_lanes)
    } else {
        gpu_core::with_const_op!(op, left_to_right)
    }
}

/// `x` reduced in `T`'s accumulator type (f32 for f16 and bf16, `T` otherwise).
fn fold<T: Element>(x: &[T], op: Op, id: T::Accumulator) -> T::Accumulator {
    fold_with(x, op, id, T::to_accumulator)
}

/// Accumulator values (partial results) reduced in their own type.
fn fold_same<A: Element>(x: &[A], op: Op, id: A) -> A {
    fold_with(x, op, id, |v| v)
}

/// `x[0] op x[1] op …`, from the identity (the identity for an empty `x`), in the accumulator
/// type: `T` itself, f32 for f16 and bf16 (every element converted exactly, one rounding per
/// combine in f32). Errors when `op` does not apply to `T` (bitwise on floats).
pub fn reduce<T: Element>(x: &[T], op: Op) -> Result<T::Accumulator> {
    op.check::<T>()?;
    let id = op.identity::<T::Accumulator>()?;
    Ok(fold(x, op, id))
}

/// [`reduce`] on the rayon thread pool, in fixed chunks.
pub fn par_reduce<T: Element>(x: &[T], op: Op) -> Result<T::Accumulator> {
    op.check::<T>()?;
    let id = op.identity::<T::Accumulator>()?;
    let parts: Vec<T::Accumulator> = x.par_chunks(PAR_CHUNK).map(|c| fold(c, op, id)).collect();
    Ok(fold_same(&parts, op, id))
}

/// The sum (wrapping for integers; f32 for f16 and bf16).
pub fn sum<T: Element>(x: &[T]) -> T::Accumulator {
    reduce(x, Op::Sum).expect("sum applies to every element type")
}

/// [`sum`] on the rayon thread pool.
pub fn par_sum<T: Element>(x: &[T]) -> T::Accumulator {
    par_reduce(x, Op::Sum).expect("sum applies to every element type")
}

/// The product (wrapping for integers; f32 for f16 and bf16).
pub fn product<T: Element>(x: &[T]) -> T::Accumulator {
    reduce(x, Op::Product).expect("product applies to every element type")
}

/// The smallest element (NaN if any element is NaN), `None` when empty.
pub fn min<T: Element>(x: &[T]) -> Option<T> {
    (!x.is_empty())
        .then(|| T::from_accumulator(reduce(x, Op::Min).expect("min applies to every type")))
}

/// The largest element (NaN if any element is NaN), `None` when empty.
pub fn max<T: Element>(x: &[T]) -> Option<T> {
    (!x.is_empty())
        .then(|| T::from_accumulator(reduce(x, Op::Max).expect("max applies to every type")))
}

/// [`min`] on the rayon thread pool.
pub fn par_min<T: Element>(x: &[T]) -> Option<T> {
    (!x.is_empty())
        .then(|| T::from_accumulator(par_reduce(x, Op::Min).expect("min applies to every type")))
}

/// [`max`] on the rayon thread pool.
pub fn par_max<T: Element>(x: &[T]) -> Option<T> {
    (!x.is_empty())
        .then(|| T::from_accumulator(par_reduce(x, Op::Max).expect("max applies to every type")))
}

fn arg_fold<T: Element>(which: Extreme, x: &[T], offset: usize) -> Option<(T, u64)> {
    x.iter()
        .enumerate()
        .map(|(i, &v)| (v, (offset + i) as u64))
        .reduce(|a, b| arg_combine(which, a, b))
}

fn arg_par<T: Element>(which: Extreme, x: &[T]) -> Option<usize> {
    let parts: Vec<(T, u64)> = x
        .par_chunks(PAR_CHUNK)
        .enumerate()
        .filter_map(|(c, chunk)| arg_fold(which, chunk, c * PAR_CHUNK))
        .collect();
    parts
        .into_iter()
        .reduce(|a, b| arg_combine(which, a, b))
        .map(|(_, i)| i as usize)
}

/// Index of the first smallest element, or of the first NaN if there is one; `None` when
/// empty.
pub fn argmin<T: Element>(x: &[T]) -> Option<usize> {
    arg_fold(Extreme::Min, x, 0).map(|(_, i)| i as usize)
}

/// Index of the first largest element, or of the first NaN if there is one; `None` when
/// empty.
pub fn argmax<T: Element>(x: &[T]) -> Option<usize> {
    arg_fold(Extreme::Max, x, 0).map(|(_, i)| i as usize)
}

/// [`argmin`] on the rayon thread pool.
pub fn par_argmin<T: Element>(x: &[T]) -> Option<usize> {
    arg_par(Extreme::Min, x)
}

/// [`argmax`] on the rayon thread pool.
pub fn par_argmax<T: Element>(x: &[T]) -> Option<usize> {
    arg_par(Extreme::Max, x)
}

fn check_widened(op: Op) -> Result<()> {
    if matches!(op, Op::Sum | Op::Product) {
        Ok(())
    } else {
        Err(Error::invalid(
            "op",
            format!("widening applies to `sum` and `prod` only, not `{op}`"),
        ))
    }
}

fn fold_wide<T: Widen>(x: &[T], op: Op, init: T::Wide) -> T::Wide {
    x.iter()
        .fold(init, |acc, &v| T::Wide::combine(op, acc, v.widen()))
}

/// `op` (sum or product) accumulated in the wider type: every element converted exactly,
/// combined there (wrapping only at the wide type's range).
pub fn reduce_wide<T: Widen>(x: &[T], op: Op) -> Result<T::Wide> {
    check_widened(op)?;
    let id = op.identity::<T::Wide>()?;
    Ok(fold_wide(x, op, id))
}

/// [`reduce_wide`] on the rayon thread pool.
pub fn par_reduce_wide<T: Widen>(x: &[T], op: Op) -> Result<T::Wide> {
    check_widened(op)?;
    let id = op.identity::<T::Wide>()?;
    let parts: Vec<T::Wide> = x
        .par_chunks(PAR_CHUNK)
        .map(|c| fold_wide(c, op, id))
        .collect();
    Ok(fold_same(&parts, op, id))
}

/// The sum accumulated in the wider type.
pub fn sum_wide<T: Widen>(x: &[T]) -> T::Wide {
    reduce_wide(x, Op::Sum).expect("sum can be widened")
}

/// `x[0] ∘ x[1] ∘ …` in sequence order (the identity for an empty `x`).
pub fn reduce_monoid<M: Monoid>(x: &[M]) -> M {
    x.iter().fold(M::identity(), |acc, &v| M::combine(acc, v))
}

/// [`reduce_monoid`] on the rayon thread pool: chunks in order, so order is kept.
pub fn par_reduce_monoid<M: Monoid>(x: &[M]) -> M {
    let parts: Vec<M> = x.par_chunks(PAR_CHUNK).map(reduce_monoid).collect();
    reduce_monoid(&parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_core::Mat2;

    #[test]
    fn parallel_matches_serial_on_exact_types() {
        let x: Vec<i64> = (0..300_000).map(|i| (i * 7919) % 1001 - 500).collect();
        for op in Op::ALL {
            assert_eq!(reduce(&x, op).unwrap(), par_reduce(&x, op).unwrap(), "{op}");
        }
        assert_eq!(argmin(&x), par_argmin(&x));
        assert_eq!(argmax(&x), par_argmax(&x));
        assert_eq!(argmin(&x), Some(x.iter().position(|&v| v == -500).unwrap()));
    }

    #[test]
    fn monoid_order_is_kept() {
        let x: Vec<Mat2<u32>> = (0..200_000u32)
            .map(|i| Mat2([1, i.wrapping_mul(2654435761), i | 1, 1]))
            .collect();
        assert_eq!(reduce_monoid(&x), par_reduce_monoid(&x));
        let mut y = x.clone();
        y.swap(70_000, 70_001);
        assert_ne!(reduce_monoid(&x), reduce_monoid(&y));
    }

    #[test]
    fn widening_only_for_sum_and_product() {
        assert!(reduce_wide(&[1i32], Op::Max).is_err());
        assert_eq!(
            reduce_wide(&[i32::MIN, -1], Op::Sum).unwrap(),
            i32::MIN as i64 - 1
        );
        assert_eq!(
            par_reduce_wide(&[u32::MAX; 3], Op::Sum).unwrap(),
            3 * u32::MAX as u64
        );
    }
}
