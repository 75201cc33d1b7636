//! The reduction algorithms, and which operations each one accepts.

use std::fmt;
use std::str::FromStr;

use gpu_core::{Error, Op, Result};

/// How a reduction runs on the GPU: every technique of the source documents, plus the default.
///
/// All of them give run-to-run identical results, floats included: none uses atomics to
/// accumulate, and every combine happens in an order fixed by the input length, the launch
/// configuration and the device (see [`Algorithm::is_device_independent`] for the ones whose
/// float results do not depend on the device either).
///
/// ```
/// use gpu_reduce::Algorithm;
/// assert_eq!(Algorithm::default(), Algorithm::Auto);
/// assert_eq!("two_pass".parse::<Algorithm>().unwrap(), Algorithm::TwoPass);
/// let order_keeping: Vec<_> = Algorithm::ALL.iter().filter(|a| a.keeps_order()).collect();
/// assert_eq!(order_keeping.len(), 6);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// The default and the fastest: one launch on a grid of SMs × resident blocks, 16-byte
    /// vector loads (four in flight per thread), registers, then warp shuffles, then the block;
    /// the last block merges the per-block partials in block order. Non-commutative monoids
    /// take the order-preserving [`WarpShuffle`](Algorithm::WarpShuffle) kernel.
    #[default]
    Auto,
    /// One block: block-stride accumulation, then a shared-memory halving tree. Commutative
    /// operators only. Good for a few thousand elements inside a larger program.
    SingleBlock,
    /// One block, order-preserving: a shared array of 2 × block values, neighbours paired
    /// round by round, then a tree of growing strides.
    SingleBlockNonCommutative,
    /// Two launches: a grid of blocks writes one partial each (grid-stride accumulation and a
    /// shared-memory tree), then one block reduces the partials. Commutative operators only.
    TwoPass,
    /// One launch, the same blocks as [`TwoPass`](Algorithm::TwoPass), and the last block to
    /// finish (the last-block guard of gpu-sync) reduces the partials. Commutative only.
    LastBlock,
    /// One launch, order-preserving: a contiguous chunk per block reduced as in
    /// [`SingleBlockNonCommutative`](Algorithm::SingleBlockNonCommutative), then the last block
    /// merges the partials in block order.
    MultiBlockNonCommutative,
    /// Grid-stride accumulation, then a block reduction built from warp reductions through
    /// shared memory (halving offsets, commutative operators only); last block merges.
    WarpSmem,
    /// Order-preserving warp reductions through shared memory (growing offsets, a lane test
    /// per step): contiguous chunk per block, tiles of the block reduced in thread order;
    /// last block merges in order.
    WarpSmemNonCommutative,
    /// As [`WarpSmemNonCommutative`](Algorithm::WarpSmemNonCommutative) with the padded warp
    /// reduction: 48 slots per warp, the last 16 holding the identity, no lane tests.
    WarpSmemPadded,
    /// Order-preserving, through registers: contiguous chunk per block, tiles reduced with
    /// `__shfl_down_sync` warp reductions and a block reduction built from them.
    WarpShuffle,
    /// The in-place unrolled reduction: each pass, thread i folds the `UF` elements
    /// `i + k·n/UF` into element i (thread 0 also the `n mod UF` orphans), and the next pass
    /// runs on the first `n/UF` elements, until one is left. UF is
    /// [`Reduce::unroll`](crate::Reduce::unroll) (default 7). Commutative only. Works on a
    /// scratch buffer unless asked to run in place.
    Unrolled,
}

/// What is being reduced, as far as the choice of algorithm is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// An operator applied to the element type itself.
    Op(Op),
    /// Index of the first minimum (first NaN if any).
    ArgMin,
    /// Index of the first maximum (first NaN if any).
    ArgMax,
    /// An operator (sum or product) accumulated in the wider type (see [`Widen`](crate::Widen)).
    Widened(Op),
    /// A non-commutative monoid ([`gpu_core::Mat2`], [`gpu_core::Affine`]): order matters.
    Monoid,
}

impl Operation {
    /// Whether any combination order gives the same result (argmin/argmax are defined as a
    /// total order, so they are commutative too).
    pub const fn is_commutative(self) -> bool {
        !matches!(self, Operation::Monoid)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operation::Op(op) => write!(f, "`{op}`"),
            Operation::ArgMin => f.write_str("`argmin`"),
            Operation::ArgMax => f.write_str("`argmax`"),
            Operation::Widened(op) => write!(f, "widened `{op}`"),
            Operation::Monoid => f.write_str("a non-commutative monoid"),
        }
    }
}

impl Algorithm {
    /// Every algorithm, the default first.
    pub const ALL: [Algorithm; 11] = [
        Algorithm::Auto,
        Algorithm::SingleBlock,
        Algorithm::SingleBlockNonCommutative,
        Algorithm::TwoPass,
        Algorithm::LastBlock,
        Algorithm::MultiBlockNonCommutative,
        Algorithm::WarpSmem,
        Algorithm::WarpSmemNonCommutative,
        Algorithm::WarpSmemPadded,
        Algorithm::WarpShuffle,
        Algorithm::Unrolled,
    ];

    /// A short snake_case name, e.g. `two_pass` (also accepted by `str::parse`).
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::SingleBlock => "single_block",
            Algorithm::SingleBlockNonCommutative => "single_block_noncommutative",
            Algorithm::TwoPass => "two_pass",
            Algorithm::LastBlock => "last_block",
            Algorithm::MultiBlockNonCommutative => "multi_block_noncommutative",
            Algorithm::WarpSmem => "warp_smem",
            Algorithm::WarpSmemNonCommutative => "warp_smem_noncommutative",
            Algorithm::WarpSmemPadded => "warp_smem_padded",
            Algorithm::WarpShuffle => "warp_shuffle",
            Algorithm::Unrolled => "unrolled",
        }
    }

    /// Whether the algorithm combines elements in sequence order only, and so accepts
    /// non-commutative operators ([`Operation::Monoid`]).
    pub const fn keeps_order(self) -> bool {
        matches!(
            self,
            Algorithm::Auto
                | Algorithm::SingleBlockNonCommutative
                | Algorithm::MultiBlockNonCommutative
                | Algorithm::WarpSmemNonCommutative
                | Algorithm::WarpSmemPadded
                | Algorithm::WarpShuffle
        )
    }

    /// Whether results are run-to-run identical (bit for bit, floats included) for the same
    /// input on the same device: true for every algorithm of this crate.
    pub const fn is_deterministic(self) -> bool {
        true
    }

    /// Whether float results are also the same on every device (for a given block size and
    /// unroll factor): the algorithms whose grid does not depend on the SM count or occupancy.
    pub const fn is_device_independent(self) -> bool {
        matches!(
            self,
            Algorithm::SingleBlock | Algorithm::SingleBlockNonCommutative | Algorithm::Unrolled
        )
    }

    /// Kernel launches per reduction: 1, except [`TwoPass`](Algorithm::TwoPass) (2 when the
    /// grid has more than one block) and [`Unrolled`](Algorithm::Unrolled) (one per pass,
    /// about log_UF(n)).
    pub const fn is_single_launch(self) -> bool {
        !matches!(self, Algorithm::TwoPass | Algorithm::Unrolled)
    }

    /// `Ok` when this algorithm can run `operation`, otherwise a clear
    /// [`Error::InvalidArgument`] naming the algorithms that can.
    pub fn check(self, operation: Operation) -> Result<()> {
        if let Operation::Widened(op) = operation {
            if !matches!(op, Op::Sum | Op::Product) {
                return Err(Error::invalid(
                    "op",
                    format!(
                        "widening applies to `sum` and `prod` only, not `{op}` (its result \
                         always fits the element type)"
                    ),
                ));
            }
        }
        if !operation.is_commutative() && !self.keeps_order() {
            return Err(Error::invalid(
                "algorithm",
                format!(
                    "`{}` reorders elements, so it needs a commutative operator, and {operation} \
                     is not; use one of: {}",
                    self.name(),
                    names(|a| a.keeps_order())
                ),
            ));
        }
        if !self.instantiated_for(operation) {
            return Err(Error::invalid(
                "algorithm",
                format!(
                    "`{}` is not built for {operation} (only the order-preserving families \
                     need it, and they are left out to keep the PTX small); use one of: {}",
                    self.name(),
                    names(|a| a.instantiated_for(operation))
                ),
            ));
        }
        Ok(())
    }

    /// Whether kernels exist for this algorithm and operation (see kernels/reduce.cu).
    const fn instantiated_for(self, operation: Operation) -> bool {
        match operation {
            Operation::Op(_) => true,
            Operation::ArgMin | Operation::ArgMax | Operation::Widened(_) => !matches!(
                self,
                Algorithm::WarpSmemNonCommutative
                    | Algorithm::WarpSmemPadded
                    | Algorithm::WarpShuffle
            ),
            Operation::Monoid => self.keeps_order(),
        }
    }
}

fn names(keep: impl Fn(Algorithm) -> bool) -> String {
    Algorithm::ALL
        .iter()
        .filter(|a| keep(**a))
        .map(|a| a.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Algorithm::ALL
            .iter()
            .copied()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                Error::invalid(
                    "algorithm",
                    format!("unknown algorithm `{s}`; known: {}", names(|_| true)),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for a in Algorithm::ALL {
            assert_eq!(a.name().parse::<Algorithm>().unwrap(), a);
            assert_eq!(a.to_string(), a.name());
        }
        let mut names: Vec<_> = Algorithm::ALL.iter().map(|a| a.name()).collect();
        names.dedup();
        assert_eq!(names.len(), Algorithm::ALL.len());
        assert!("fastest".parse::<Algorithm>().is_err());
    }

    #[test]
    fn support_matrix() {
        for a in Algorithm::ALL {
            assert!(a.check(Operation::Op(Op::Sum)).is_ok());
            assert_eq!(a.check(Operation::Monoid).is_ok(), a.keeps_order(), "{a}");
        }
        let e = Algorithm::TwoPass.check(Operation::Monoid).unwrap_err();
        assert!(e.to_string().contains("commutative"), "{e}");
        assert!(e.to_string().contains("warp_shuffle"), "{e}");
        let e = Algorithm::WarpShuffle.check(Operation::ArgMin).unwrap_err();
        assert!(e.to_string().contains("not built"), "{e}");
        assert!(Algorithm::Unrolled.check(Operation::ArgMax).is_ok());
        assert!(Algorithm::Auto.check(Operation::Widened(Op::Sum)).is_ok());
        let e = Algorithm::Auto
            .check(Operation::Widened(Op::Max))
            .unwrap_err();
        assert!(e.to_string().contains("widening"), "{e}");
    }
}
