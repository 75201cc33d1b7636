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

mod sealed {
    pub trait Sealed {}
}

/// The numeric element types of the workspace: i32, u32, i64, u64, f32, f64.
///
/// [`Element::NAME`] is the suffix of every kernel entry point for that type, so Rust derives a
/// kernel's name from (algorithm, operator, type) instead of keeping a table.
pub trait Element: Pod + PartialEq + PartialOrd + Debug + Default + sealed::Sealed {
    /// Short type name used in kernel entry points: `i32`, `u32`, `i64`, `u64`, `f32`, `f64`.
    const NAME: &'static str;
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

/// Calls `$m!(type)` once per element type, for tests and benchmarks that cover every type.
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
