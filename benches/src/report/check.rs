//! Comparing results with the CPU reference.
//!
//! The generated data are small integers (see [`crate::data`]), so every result is exactly
//! representable whatever order an algorithm combines in: integers must match exactly, floats
//! within a relative `1e-5` (slack for fused multiply-adds; an exact match is expected).

use gpu_core::Element;
use rayon::prelude::*;

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Matches the reference.
    Correct,
    /// Differs; the text says where and how.
    Wrong(String),
    /// Not checked; the text says why.
    Unchecked(String),
}

impl Verdict {
    /// `Correct` when `ok`, else `Wrong(why())`.
    pub fn from_bool(ok: bool, why: impl FnOnce() -> String) -> Verdict {
        if ok {
            Verdict::Correct
        } else {
            Verdict::Wrong(why())
        }
    }

    /// A failed download or launch during the check.
    pub fn error(e: &gpu_core::Error) -> Verdict {
        Verdict::Wrong(format!("error: {e}"))
    }
}

/// Relative tolerance for floats.
pub const FLOAT_RTOL: f64 = 1e-5;

/// Whether `got` matches `want` (exact for integers, within [`FLOAT_RTOL`] for floats; NaN
/// matches NaN).
pub fn close<T: Element>(got: T, want: T) -> bool {
    close_within(got, want, 0.0)
}

/// [`close`] with an absolute slack of `abs` for floats on top of [`FLOAT_RTOL`].
fn close_within<T: Element>(got: T, want: T, abs: f64) -> bool {
    if T::IS_FLOAT {
        let (g, w) = (got.to_f64(), want.to_f64());
        (g.is_nan() && w.is_nan()) || (g - w).abs() <= abs + FLOAT_RTOL * w.abs().max(1.0)
    } else {
        got == want
    }
}

/// One value against the reference.
pub fn scalar<T: Element>(got: T, want: T) -> Verdict {
    Verdict::from_bool(close(got, want), || {
        format!("got {got:?}, expected {want:?}")
    })
}

/// A slice against the reference, in parallel; reports the first mismatch and how many.
pub fn slices<T: Element>(got: &[T], want: &[T]) -> Verdict {
    slices_within(got, want, 0.0)
}

/// [`slices`] with an absolute slack of `abs` for floats on top of [`FLOAT_RTOL`]: for FFT
/// results, whose rounding follows the transform rather than the order of a sum, so even
/// small-integer data come back a few units of `2^-24` times the window's norm off.
pub fn slices_within<T: Element>(got: &[T], want: &[T], abs: f64) -> Verdict {
    if got.len() != want.len() {
        return Verdict::Wrong(format!(
            "length {} differs from the reference's {}",
            got.len(),
            want.len()
        ));
    }
    let near = |(&g, &w): (&T, &T)| close_within(g, w, abs);
    let bad = got
        .par_iter()
        .zip(want.par_iter())
        .filter(|p| !near(*p))
        .count();
    if bad == 0 {
        return Verdict::Correct;
    }
    let first = got
        .par_iter()
        .zip(want.par_iter())
        .position_first(|p| !near(p))
        .unwrap_or(0);
    Verdict::Wrong(format!(
        "{bad} of {} elements differ; first at {first}: got {:?}, expected {:?}",
        got.len(),
        got[first],
        want[first]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks() {
        assert_eq!(scalar(3i32, 3), Verdict::Correct);
        assert!(matches!(scalar(3i32, 4), Verdict::Wrong(_)));
        assert_eq!(scalar(1.0f32 + 1e-7, 1.0), Verdict::Correct);
        assert_eq!(scalar(f32::NAN, f32::NAN), Verdict::Correct);
        assert_eq!(slices(&[1, 2, 3], &[1, 2, 3]), Verdict::Correct);
        let Verdict::Wrong(w) = slices(&[1, 9, 3, 8], &[1, 2, 3, 4]) else {
            panic!()
        };
        assert!(w.starts_with("2 of 4") && w.contains("first at 1"), "{w}");
        assert!(matches!(slices(&[1], &[1, 2]), Verdict::Wrong(_)));
    }
}
