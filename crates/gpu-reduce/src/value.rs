//! Value kinds beyond plain operators: widening accumulation, argmin/argmax pairs,
//! non-commutative monoids.

use gpu_core::{Affine, Element, Mat2, Monoid, Op};

mod sealed {
    pub trait Sealed {}
    pub trait SealedMonoid {}
}

/// Element types with a wider accumulator: `i32 → i64`, `u32 → u64`, `f32 → f64`.
///
/// A widened sum converts every element exactly to the wide type and adds there, so an `i32`
/// sum does not wrap until it leaves the `i64` range, and an `f32` sum carries `f64` rounding.
///
/// ```
/// use gpu_reduce::{cpu, Widen};
/// let x = [i32::MAX, 1];
/// assert_eq!(cpu::sum(&x), i32::MIN);               // wraps in i32
/// assert_eq!(cpu::sum_wide(&x), i32::MAX as i64 + 1); // not in i64
/// assert_eq!(7i32.widen(), 7i64);
/// ```
pub trait Widen: Element + sealed::Sealed {
    /// The accumulator type.
    type Wide: Element;
    /// Exact conversion to the accumulator type.
    fn widen(self) -> Self::Wide;
}

macro_rules! widen {
    ($t:ty => $w:ty) => {
        impl sealed::Sealed for $t {}
        impl Widen for $t {
            type Wide = $w;
            fn widen(self) -> $w {
                self as $w
            }
        }
    };
}
widen!(i32 => i64);
widen!(u32 => u64);
widen!(f32 => f64);

/// The monoids the GPU kernels are built for: [`Mat2`] and [`Affine`] of every element type.
pub trait DeviceMonoid: Monoid + sealed::SealedMonoid {}

impl<T: Element> sealed::SealedMonoid for Mat2<T> where Mat2<T>: Monoid {}
impl<T: Element> DeviceMonoid for Mat2<T> where Mat2<T>: Monoid {}
impl<T: Element> sealed::SealedMonoid for Affine<T> where Affine<T>: Monoid {}
impl<T: Element> DeviceMonoid for Affine<T> where Affine<T>: Monoid {}

/// Which extreme argmin/argmax look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extreme {
    /// The smallest value.
    Min,
    /// The largest value.
    Max,
}

impl Extreme {
    /// The operator part of the kernel names: `argmin` / `argmax`.
    pub const fn kernel_op(self) -> &'static str {
        match self {
            Extreme::Min => "argmin",
            Extreme::Max => "argmax",
        }
    }

    /// The plain operator with the same extreme.
    pub const fn op(self) -> Op {
        match self {
            Extreme::Min => Op::Min,
            Extreme::Max => Op::Max,
        }
    }
}

/// Combines two `(value, index)` candidates of argmin/argmax, the same rule as the kernels'
/// `gp::ArgMin`/`gp::ArgMax`: a NaN beats any number; otherwise the more extreme value wins;
/// ties (two NaNs, equal values) go to the smaller index. A total order, so the result does
/// not depend on the grouping or order of the combines.
#[inline]
pub fn arg_combine<T: Element>(which: Extreme, a: (T, u64), b: (T, u64)) -> (T, u64) {
    let (an, bn) = (a.0.is_nan(), b.0.is_nan());
    if an != bn {
        return if an { a } else { b };
    }
    if !an {
        let b_better = match which {
            Extreme::Min => b.0 < a.0,
            Extreme::Max => b.0 > a.0,
        };
        let a_better = match which {
            Extreme::Min => a.0 < b.0,
            Extreme::Max => a.0 > b.0,
        };
        if b_better {
            return b;
        }
        if a_better {
            return a;
        }
    }
    if b.1 < a.1 {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arg_combine_is_a_total_order() {
        let xs = [
            (1.0f32, 4u64),
            (1.0, 2),
            (f32::NAN, 9),
            (f32::NAN, 3),
            (-0.0, 5),
            (0.0, 1),
            (f32::NEG_INFINITY, 7),
        ];
        for which in [Extreme::Min, Extreme::Max] {
            for &a in &xs {
                for &b in &xs {
                    let ab = arg_combine(which, a, b);
                    let ba = arg_combine(which, b, a);
                    assert_eq!(ab.1, ba.1, "{which:?} {a:?} {b:?}");
                    for &c in &xs {
                        let l = arg_combine(which, arg_combine(which, a, b), c);
                        let r = arg_combine(which, a, arg_combine(which, b, c));
                        assert_eq!(l.1, r.1);
                    }
                }
            }
        }
        // The first NaN wins over everything.
        assert_eq!(arg_combine(Extreme::Min, (f32::NAN, 3), (-1e30, 0)).1, 3);
        // -0.0 == 0.0: the smaller index.
        assert_eq!(arg_combine(Extreme::Max, (-0.0f64, 5), (0.0, 1)).1, 1);
    }
}
