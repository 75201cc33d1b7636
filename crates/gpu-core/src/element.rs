//! Element types the device arrays and kernels handle.

use std::fmt::Debug;

use crate::op::Op;

/// Plain old data: values that can be copied to and from the device byte for byte.
///
/// # Safety
/// Implementors must be `#[repr(C)]` or primitive, contain no padding and no pointers, and
/// accept every bit pattern (device memory may hold any bytes).
pub unsafe trait Pod: Copy + Send + Sync + 'static {}

macro_rules! pod {
    ($($t:ty),*) => { $(
        // SAFETY: primitive numeric types have no padding and every bit pattern is a value.
        unsafe impl Pod for $t {}
    )* };
}
pod!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);
// SAFETY: half's f16 and bf16 are #[repr(transparent)] wrappers of a u16: no padding, and every
// bit pattern is a value (NaNs included).
unsafe impl Pod for half::f16 {}
// SAFETY: as above.
unsafe impl Pod for half::bf16 {}

mod sealed {
    pub trait Sealed {}
}

/// The numeric element types of the workspace: i32, u32, i64, u64, f32, f64, and the 16-bit
/// floats [`f16`](half::f16) and [`bf16`](half::bf16) (the `half` crate's, re-exported as
/// `gpu_core::f16` and `gpu_core::bf16`).
///
/// [`Element::NAME`] is the suffix of every kernel entry point for that type, so Rust derives a
/// kernel's name from (algorithm, operator, type) instead of keeping a table.
///
/// The 16-bit floats are storage types: kernels compute in their [`Accumulator`](Element::Accumulator),
/// f32 (every f16 and bf16 value is exact in f32), as PyTorch does. Sums and products come
/// back as f32; min, max, argmin and argmax are exact in the element type.
///
/// ```
/// use gpu_core::{bf16, f16, Element, Op};
/// let x = f16::from_f32(1.5);
/// assert_eq!(x.to_accumulator(), 1.5f32);
/// assert_eq!(f16::from_accumulator(65520.0), f16::INFINITY); // rounds to nearest even
/// assert_eq!(bf16::identity(Op::Max), Some(bf16::NEG_INFINITY));
/// assert!(bf16::combine(Op::Min, bf16::NAN, bf16::ONE).is_nan()); // NaN propagates
/// assert_eq!(bf16::identity(Op::BitAnd), None);
/// ```
pub trait Element: Pod + PartialEq + PartialOrd + Debug + Default + sealed::Sealed {
    /// Short type name used in kernel entry points: `i32`, `u32`, `i64`, `u64`, `f32`, `f64`,
    /// `f16`, `bf16`.
    const NAME: &'static str;
    /// The type kernels compute in and sums and products are returned as: `Self`, except f32
    /// for [`f16`](half::f16) and [`bf16`](half::bf16).
    type Accumulator: Element;
    /// Exact conversion to the accumulator type.
    fn to_accumulator(self) -> Self::Accumulator;
    /// Conversion from the accumulator type: the identity, or rounding to nearest even for the
    /// 16-bit floats (NaN stays NaN; past the largest finite value gives infinity).
    fn from_accumulator(a: Self::Accumulator) -> Self;
    /// Whether values are read into a wider accumulator (f16 and bf16 into f32): kernels are
    /// then named `<op>_<type>_to_<accumulator>`.
    fn computes_wider() -> bool {
        Self::NAME != Self::Accumulator::NAME
    }
    /// Whether this is a floating-point type (bitwise operators are then unsupported).
    const IS_FLOAT: bool;
    /// The identity of `op` for this type, or `None` when `op` does not apply (bitwise on floats).
    fn identity(op: Op) -> Option<Self>;
    /// `a op b`, with the workspace's semantics: integer sums and products wrap; min/max of
    /// floats propagate NaN (as PyTorch does). Bitwise operators on floats act on the bit
    /// pattern; callers reject them first through [`Op::check`].
    fn combine(op: Op, a: Self, b: Self) -> Self;
    /// Lossy conversion to f64 (for references and tolerances).
    fn to_f64(self) -> f64;
    /// Conversion from f64 (truncating/wrapping for integers), used by data generators.
    fn from_f64(v: f64) -> Self;
    /// Whether the value is NaN (always false for integers).
    fn is_nan(self) -> bool;
}

macro_rules! int_element {
    ($t:ty, $name:literal) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = $name;
            type Accumulator = Self;
            fn to_accumulator(self) -> Self {
                self
            }
            fn from_accumulator(a: Self) -> Self {
                a
            }
            const IS_FLOAT: bool = false;
            fn identity(op: Op) -> Option<Self> {
                Some(match op {
                    Op::Sum | Op::BitOr | Op::BitXor => 0,
                    Op::Product => 1,
                    Op::Min => <$t>::MAX,
                    Op::Max => <$t>::MIN,
                    Op::BitAnd => !0,
                })
            }
            #[inline]
            fn combine(op: Op, a: Self, b: Self) -> Self {
                match op {
                    Op::Sum => a.wrapping_add(b),
                    Op::Product => a.wrapping_mul(b),
                    Op::Min => a.min(b),
                    Op::Max => a.max(b),
                    Op::BitAnd => a & b,
                    Op::BitOr => a | b,
                    Op::BitXor => a ^ b,
                }
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as i128 as $t
            }
            fn is_nan(self) -> bool {
                false
            }
        }
    };
}
int_element!(i32, "i32");
int_element!(u32, "u32");
int_element!(i64, "i64");
int_element!(u64, "u64");

macro_rules! float_element {
    ($t:ty, $name:literal) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = $name;
            type Accumulator = Self;
            fn to_accumulator(self) -> Self {
                self
            }
            fn from_accumulator(a: Self) -> Self {
                a
            }
            const IS_FLOAT: bool = true;
            fn identity(op: Op) -> Option<Self> {
                match op {
                    Op::Sum => Some(0.0),
                    Op::Product => Some(1.0),
                    Op::Min => Some(<$t>::INFINITY),
                    Op::Max => Some(<$t>::NEG_INFINITY),
                    Op::BitAnd | Op::BitOr | Op::BitXor => None,
                }
            }
            #[inline]
            fn combine(op: Op, a: Self, b: Self) -> Self {
                match op {
                    Op::Sum => a + b,
                    Op::Product => a * b,
                    // NaN wins, as in PyTorch; otherwise the first of equal values is kept.
                    Op::Min => {
                        if a.is_nan() || b.is_nan() {
                            <$t>::NAN
                        } else if b < a {
                            b
                        } else {
                            a
                        }
                    }
                    Op::Max => {
                        if a.is_nan() || b.is_nan() {
                            <$t>::NAN
                        } else if b > a {
                            b
                        } else {
                            a
                        }
                    }
                    Op::BitAnd => <$t>::from_bits(a.to_bits() & b.to_bits()),
                    Op::BitOr => <$t>::from_bits(a.to_bits() | b.to_bits()),
                    Op::BitXor => <$t>::from_bits(a.to_bits() ^ b.to_bits()),
                }
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}
float_element!(f32, "f32");
float_element!(f64, "f64");

macro_rules! half_element {
    ($t:ty, $name:literal) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = $name;
            type Accumulator = f32;
            #[inline]
            fn to_accumulator(self) -> f32 {
                self.to_f32()
            }
            #[inline]
            fn from_accumulator(a: f32) -> Self {
                <$t>::from_f32(a)
            }
            const IS_FLOAT: bool = true;
            fn identity(op: Op) -> Option<Self> {
                f32::identity(op).map(<$t>::from_f32)
            }
            /// Computed in f32 and rounded once (min/max are exact, NaN propagates).
            #[inline]
            fn combine(op: Op, a: Self, b: Self) -> Self {
                if op.is_bitwise() {
                    let (a, b) = (a.to_bits(), b.to_bits());
                    return <$t>::from_bits(match op {
                        Op::BitAnd => a & b,
                        Op::BitOr => a | b,
                        _ => a ^ b,
                    });
                }
                <$t>::from_f32(f32::combine(op, a.to_f32(), b.to_f32()))
            }
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
            fn from_f64(v: f64) -> Self {
                <$t>::from_f64(v)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}
half_element!(half::f16, "f16");
half_element!(half::bf16, "bf16");

/// Calls `$m!(type)` once per element type of full precision (the six that compute in
/// themselves), for tests and benchmarks that cover every type; [`for_each_half!`](crate::for_each_half) adds the
/// 16-bit floats.
#[macro_export]
macro_rules! for_each_element {
    ($m:ident) => {
        $m!(i32);
        $m!(u32);
        $m!(i64);
        $m!(u64);
        $m!(f32);
        $m!(f64);
    };
}

/// Calls `$m!(type)` for `gpu_core::f16` and `gpu_core::bf16`.
#[macro_export]
macro_rules! for_each_half {
    ($m:ident) => {
        $m!($crate::f16);
        $m!($crate::bf16);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_neutral() {
        fn check<T: Element>(samples: &[T]) {
            for op in Op::ALL {
                let Some(id) = T::identity(op) else {
                    assert!(T::IS_FLOAT && op.is_bitwise());
                    continue;
                };
                for &x in samples {
                    assert_eq!(T::combine(op, id, x), x, "{op:?} {}", T::NAME);
                    assert_eq!(T::combine(op, x, id), x, "{op:?} {}", T::NAME);
                }
            }
        }
        check::<i32>(&[0, 1, -1, i32::MIN, i32::MAX, 12345]);
        check::<u32>(&[0, 1, u32::MAX, 777]);
        check::<i64>(&[0, -5, i64::MIN, i64::MAX]);
        check::<u64>(&[0, 9, u64::MAX]);
        check::<f32>(&[0.0, -1.5, 3.25e10, f32::MAX, f32::MIN_POSITIVE]);
        check::<f64>(&[0.0, -1.5, 1e300, f64::MIN]);
        let h = |v: f32| half::f16::from_f32(v);
        check::<half::f16>(&[
            h(0.0),
            h(-1.5),
            half::f16::MAX,
            half::f16::MIN_POSITIVE_SUBNORMAL,
        ]);
        let b = |v: f32| half::bf16::from_f32(v);
        check::<half::bf16>(&[b(0.0), b(-1.5), half::bf16::MAX, half::bf16::MIN]);
    }

    #[test]
    fn half_rounds_once_and_propagates_nan() {
        use half::{bf16, f16};
        // 2048 + 1 is not an f16: rounds to even (2048).
        let two_k = f16::from_f32(2048.0);
        assert_eq!(f16::combine(Op::Sum, two_k, f16::ONE), two_k);
        assert_eq!(f16::from_accumulator(2049.0), two_k);
        assert_eq!(f16::from_accumulator(1e6), f16::INFINITY);
        assert!(bf16::combine(Op::Max, bf16::ONE, bf16::NAN).is_nan());
        assert!(f16::from_accumulator(f32::NAN).is_nan());
        // bf16 keeps f32's range.
        let big = bf16::from_accumulator(3.0e38).to_accumulator();
        assert!(big.is_finite() && (big - 3.0e38).abs() < 3.0e38 / 256.0);
        assert_eq!(f16::MIN_POSITIVE_SUBNORMAL.to_accumulator(), 2f32.powi(-24));
    }

    #[test]
    fn integer_arithmetic_wraps() {
        assert_eq!(i32::combine(Op::Sum, i32::MAX, 1), i32::MIN);
        assert_eq!(u32::combine(Op::Product, 1 << 31, 2), 0);
        assert_eq!(i64::combine(Op::Sum, i64::MIN, -1), i64::MAX);
    }

    #[test]
    fn float_min_max_propagate_nan() {
        assert!(f32::combine(Op::Min, f32::NAN, 1.0).is_nan());
        assert!(f32::combine(Op::Min, 1.0, f32::NAN).is_nan());
        assert!(f64::combine(Op::Max, 2.0, f64::NAN).is_nan());
        assert_eq!(f64::combine(Op::Max, 2.0, 3.0), 3.0);
    }
}
