//! Non-commutative operators: 2×2 matrix product and composition of affine maps.
//!
//! Order-preserving algorithms (non-commutative reduction, scans) accept any [`Monoid`]; the two
//! here are mirrored on the device by `Mat2Product` and `AffineCompose` in
//! `kernels/include/gpu_prims/ops.cuh`.

use crate::element::{Element, Pod};
use crate::op::Op;

/// An associative operation with an identity on a value type; not necessarily commutative.
pub trait Monoid: Pod + PartialEq + std::fmt::Debug {
    /// Name used in kernel entry points, e.g. `mat2_u32`, `affine_f64`.
    const NAME: &'static str;
    /// The identity element.
    fn identity() -> Self;
    /// `a ∘ b`: `a` comes first in sequence order.
    fn combine(a: Self, b: Self) -> Self;
}

/// A row-major 2×2 matrix `[[m[0], m[1]], [m[2], m[3]]]`, combined by matrix product.
///
/// With an integer element type the product is exact (wrapping), so any reordering of a
/// reduction shows in the result.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Mat2<T>(pub [T; 4]);

// SAFETY: `[T; 4]` of a `Pod` numeric type under `repr(C)`: no padding, any bit pattern valid.
unsafe impl<T: Element> Pod for Mat2<T> {}

/// An affine map `x ↦ a·x + b`; combining `f` then `g` gives `x ↦ g(f(x))`.
///
/// A scan of affine maps solves the linear recurrence `x[t] = a[t]·x[t−1] + b[t]`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Affine<T> {
    /// Multiplier.
    pub a: T,
    /// Offset.
    pub b: T,
}

// SAFETY: two fields of one `Pod` numeric type under `repr(C)`: no padding, any bit pattern valid.
unsafe impl<T: Element> Pod for Affine<T> {}

macro_rules! monoids_for {
    ($t:ty, $mat:literal, $aff:literal) => {
        impl Monoid for Mat2<$t> {
            const NAME: &'static str = $mat;
            fn identity() -> Self {
                let (o, z) = (
                    <$t>::identity(Op::Product).unwrap(),
                    <$t>::identity(Op::Sum).unwrap(),
                );
                Mat2([o, z, z, o])
            }
            fn combine(x: Self, y: Self) -> Self {
                let (a, b) = (x.0, y.0);
                let mul = |p: $t, q: $t| <$t>::combine(Op::Product, p, q);
                let add = |p: $t, q: $t| <$t>::combine(Op::Sum, p, q);
                Mat2([
                    add(mul(a[0], b[0]), mul(a[1], b[2])),
                    add(mul(a[0], b[1]), mul(a[1], b[3])),
                    add(mul(a[2], b[0]), mul(a[3], b[2])),
                    add(mul(a[2], b[1]), mul(a[3], b[3])),
                ])
            }
        }
        impl Monoid for Affine<$t> {
            const NAME: &'static str = $aff;
            fn identity() -> Self {
                Affine {
                    a: <$t>::identity(Op::Product).unwrap(),
                    b: <$t>::identity(Op::Sum).unwrap(),
                }
            }
            fn combine(f: Self, g: Self) -> Self {
                let mul = |p: $t, q: $t| <$t>::combine(Op::Product, p, q);
                let add = |p: $t, q: $t| <$t>::combine(Op::Sum, p, q);
                Affine {
                    a: mul(g.a, f.a),
                    b: add(mul(g.a, f.b), g.b),
                }
            }
        }
    };
}
monoids_for!(i32, "mat2_i32", "affine_i32");
monoids_for!(u32, "mat2_u32", "affine_u32");
monoids_for!(i64, "mat2_i64", "affine_i64");
monoids_for!(u64, "mat2_u64", "affine_u64");
monoids_for!(f32, "mat2_f32", "affine_f32");
monoids_for!(f64, "mat2_f64", "affine_f64");

impl<T: Element> Affine<T> {
    /// Applies the map to `x`.
    pub fn apply(self, x: T) -> T {
        T::combine(Op::Sum, T::combine(Op::Product, self.a, x), self.b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_product_is_not_commutative() {
        let a = Mat2::<u32>([1, 2, 3, 4]);
        let b = Mat2::<u32>([0, 1, 1, 0]);
        assert_ne!(Mat2::combine(a, b), Mat2::combine(b, a));
        assert_eq!(Mat2::combine(Mat2::identity(), a), a);
        assert_eq!(Mat2::combine(a, Mat2::identity()), a);
    }

    #[test]
    fn affine_composition_applies_in_order() {
        let f = Affine { a: 2.0f64, b: 1.0 };
        let g = Affine { a: 3.0f64, b: -4.0 };
        let fg = Affine::combine(f, g);
        assert_eq!(fg.apply(5.0), g.apply(f.apply(5.0)));
        assert_eq!(Affine::combine(Affine::identity(), f), f);
    }
}
