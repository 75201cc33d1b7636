//! Operators shared by every primitive, mirrored on the device by `kernels/include/gpu_prims/ops.cuh`.

use std::fmt;

use crate::element::Element;
use crate::error::{Error, Result};

/// An associative, commutative binary operator with an identity.
///
/// [`Op::name`] is the operator's part of every kernel entry point name
/// (`reduce_auto_sum_f32`, `scan_lookback_inclusive_max_i64`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `a + b` (integers wrap).
    Sum,
    /// `a * b` (integers wrap).
    Product,
    /// The smaller value; NaN propagates for floats.
    Min,
    /// The larger value; NaN propagates for floats.
    Max,
    /// Bitwise and (integers only).
    BitAnd,
    /// Bitwise or (integers only).
    BitOr,
    /// Bitwise exclusive or (integers only).
    BitXor,
}

impl Op {
    /// Every operator, in a fixed order.
    pub const ALL: [Op; 7] = [
        Op::Sum,
        Op::Product,
        Op::Min,
        Op::Max,
        Op::BitAnd,
        Op::BitOr,
        Op::BitXor,
    ];

    /// The name used in kernel entry points: `sum`, `prod`, `min`, `max`, `and`, `or`, `xor`.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Product => "prod",
            Op::Min => "min",
            Op::Max => "max",
            Op::BitAnd => "and",
            Op::BitOr => "or",
            Op::BitXor => "xor",
        }
    }

    /// Whether the operator is one of the bitwise ones.
    pub const fn is_bitwise(self) -> bool {
        matches!(self, Op::BitAnd | Op::BitOr | Op::BitXor)
    }

    /// Whether the operator applies to `T` (bitwise operators do not apply to floats).
    pub fn supports<T: Element>(self) -> bool {
        T::identity(self).is_some()
    }

    /// `Ok` when the operator applies to `T`, otherwise a clear [`Error::InvalidArgument`].
    pub fn check<T: Element>(self) -> Result<()> {
        if self.supports::<T>() {
            Ok(())
        } else {
            Err(Error::invalid(
                "op",
                format!(
                    "operator `{}` is not defined for element type {}",
                    self.name(),
                    T::NAME
                ),
            ))
        }
    }

    /// The identity of this operator for `T`, or an error when it does not apply.
    pub fn identity<T: Element>(self) -> Result<T> {
        self.check::<T>()?;
        Ok(T::identity(self).expect("checked above"))
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `$run!(op)` with `$op`'s value spelled as a constant (`$run!(gpu_core::Op::Sum)`, …): a
/// match with one arm per operator, so code generic over the operator is compiled once per
/// operator with the operator known (the CPU folds and scans take one loop per operator this
/// way instead of a `match` per element).
///
/// ```
/// use gpu_core::{with_const_op, Element, Op};
/// fn total(x: &[u32], op: Op) -> u32 {
///     macro_rules! fold {
///         ($op:expr) => {
///             x.iter().fold(u32::identity($op).unwrap(), |a, &b| u32::combine($op, a, b))
///         };
///     }
///     with_const_op!(op, fold)
/// }
/// assert_eq!(total(&[1, 2, 3], Op::Sum), 6);
/// assert_eq!(total(&[6, 3], Op::BitAnd), 2);
/// ```
#[macro_export]
macro_rules! with_const_op {
    ($op:expr, $run:ident) => {
        match $op {
            $crate::Op::Sum => $run!($crate::Op::Sum),
            $crate::Op::Product => $run!($crate::Op::Product),
            $crate::Op::Min => $run!($crate::Op::Min),
            $crate::Op::Max => $run!($crate::Op::Max),
            $crate::Op::BitAnd => $run!($crate::Op::BitAnd),
            $crate::Op::BitOr => $run!($crate::Op::BitOr),
            $crate::Op::BitXor => $run!($crate::Op::BitXor),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitwise_rejected_for_floats_with_clear_error() {
        let err = Op::BitXor.check::<f32>().unwrap_err();
        assert!(err
            .to_string()
            .contains("`xor` is not defined for element type f32"));
        assert!(Op::BitXor.check::<u64>().is_ok());
        assert_eq!(Op::Min.identity::<i32>().unwrap(), i32::MAX);
    }
}
