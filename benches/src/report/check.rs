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
/// For f16 and bf16 with a slack (FFT results), one unit in the last place of the element
/// type more: an error far inside the slack before the final rounding still flips that
/// rounding where the exact value lies next to a rounding boundary.
fn close_within<T: Element>(got: T, want: T, abs: f64) -> bool {
    if T::IS_FLOAT {
        let (g, w) = (got.to_f64(), want.to_f64());
        let last_place = if abs > 0.0 && T::computes_wider() {
            element_spacing::<T>(w)
        } else {
            0.0
        };
        (g.is_nan() && w.is_nan())
            || (g - w).abs() <= abs + last_place + FLOAT_RTOL * w.abs().max(1.0)
    } else {
        got == want
    }
}

/// The gap between neighbouring values of the 16-bit float `T` at magnitude `|w|` (the
/// subnormals' gap below the smallest normal).
fn element_spacing<T: Element>(w: f64) -> f64 {
    let (mantissa_bits, min_exp) = if T::NAME == "bf16" {
        (7, -126)
    } else {
        (10, -14)
    };
    let exp = if w == 0.0 || !w.is_finite() {
        min_exp
    } else {
        (w.abs().log2().floor() as i32).max(min_exp)
    };
    2f64.powi(exp - mantissa_bits)
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

    /// FFT results in 16-bit floats: one unit in the last place passes with a slack, not
    /// two, and nothing without one.
    #[test]
    fn one_last_place_for_16_bit_ffts() {
        use gpu_core::{bf16, f16};
        let w = bf16::from_f32(300.0); // bf16 spacing at 256..512: 2
        let one = bf16::from_f32(302.0);
        let two = bf16::from_f32(304.0);
        assert_eq!(slices_within(&[one], &[w], 1e-3), Verdict::Correct);
        assert!(matches!(
            slices_within(&[two], &[w], 1e-3),
            Verdict::Wrong(_)
        ));
        assert!(matches!(slices(&[one], &[w]), Verdict::Wrong(_)));
        let h = f16::from_f32(3.0); // f16 spacing at 2..4: 2^-9
        let next = f16::from_f32(3.0 + 1.0 / 512.0);
        assert_eq!(slices_within(&[next], &[h], 1e-6), Verdict::Correct);
        assert_eq!(element_spacing::<bf16>(0.0), 2f64.powi(-133));
        assert_eq!(element_spacing::<f16>(1e-9), 2f64.powi(-24));
    }
}
