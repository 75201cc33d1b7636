//! Launch planning, kept apart from the launches: which kernel family an algorithm uses, block
//! sizes, shared memory, grids, and the passes of the unrolled reduction. Pure functions of the
//! sizes and of what the device reports, so they are tested without a GPU.

use gpu_core::{check_block_size, grid_for, Error, Op, Result};

use crate::algorithm::{Algorithm, Operation};
use crate::value::Extreme;

/// The unroll factor of [`Algorithm::Unrolled`] unless set: the source's 7.
pub const DEFAULT_UNROLL: u32 = 7;
/// Largest accepted unroll factor.
pub const MAX_UNROLL: u32 = 1024;
/// Smallest and largest accepted block sizes (threads); block sizes must be powers of two.
pub const BLOCK_RANGE: (u32, u32) = (32, 1024);
/// Independent 16-byte loads per thread per iteration of the default kernel (a warp reads
/// `32 × AUTO_UNROLL` consecutive vectors per step).
pub const AUTO_UNROLL: u64 = 4;
/// Default block size of the default kernel ([`Family::Auto`]): with its ~30 registers four
/// such blocks fill an SM; measured faster than 256-thread blocks (docs/perf-notes.md).
pub const AUTO_BLOCK: u32 = 512;
/// Consecutive elements per thread per tile of the order-preserving warp kernels.
pub const ORDERED_ITEMS: u64 = 4;
/// Dynamic shared memory a kernel gets without opting in.
pub const DEFAULT_SHARED_LIMIT: usize = 48 * 1024;

/// A kernel family of `kernels/reduce.cu`: entry points are `reduce_<family>_<kind>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Grid-stride accumulation + shared-memory halving tree.
    Tree,
    /// Order-preserving pairwise reduction, a chunk per block.
    Pairwise,
    /// Grid-stride accumulation + block reduction from shared-memory warp reductions.
    WarpSmem,
    /// Order-preserving tiles, ordered shared-memory warp reductions.
    WarpSmemOrdered,
    /// Order-preserving tiles, padded shared-memory warp reductions.
    WarpSmemPadded,
    /// Order-preserving tiles, shuffle warp reductions.
    WarpShuffle,
    /// One pass of the unrolled reduction.
    Unrolled,
    /// The default kernel (vector loads, registers, shuffles, last-block merge).
    Auto,
}

impl Family {
    /// The family for an algorithm and operation.
    pub fn of(algorithm: Algorithm, operation: Operation) -> Family {
        match algorithm {
            Algorithm::Auto if !operation.is_commutative() => Family::WarpShuffle,
            Algorithm::Auto => Family::Auto,
            Algorithm::SingleBlock | Algorithm::TwoPass | Algorithm::LastBlock => Family::Tree,
            Algorithm::SingleBlockNonCommutative | Algorithm::MultiBlockNonCommutative => {
                Family::Pairwise
            }
            Algorithm::WarpSmem => Family::WarpSmem,
            Algorithm::WarpSmemNonCommutative => Family::WarpSmemOrdered,
            Algorithm::WarpSmemPadded => Family::WarpSmemPadded,
            Algorithm::WarpShuffle => Family::WarpShuffle,
            Algorithm::Unrolled => Family::Unrolled,
        }
    }

    /// The `<family>` part of the entry point names.
    pub const fn prefix(self) -> &'static str {
        match self {
            Family::Tree => "tree",
            Family::Pairwise => "pairwise",
            Family::WarpSmem => "warp_smem",
            Family::WarpSmemOrdered => "warp_smem_noncommutative",
            Family::WarpSmemPadded => "warp_smem_padded",
            Family::WarpShuffle => "warp_shuffle",
            Family::Unrolled => "unrolled",
            Family::Auto => "auto",
        }
    }

    /// The entry point for accumulator kind `kind` (e.g. `sum_f32`).
    pub fn kernel_name(self, kind: &str) -> String {
        format!("reduce_{}_{kind}", self.prefix())
    }

    /// Dynamic shared memory of one block of `block` threads, for values of `value_size` bytes.
    pub const fn shared_bytes(self, block: u32, value_size: usize) -> usize {
        let b = block as usize;
        let warps_plus_one = b / 32 + 1;
        value_size
            * match self {
                Family::Tree => b,
                Family::Pairwise => 2 * b,
                Family::WarpSmem | Family::WarpSmemOrdered => warps_plus_one * 32,
                Family::WarpSmemPadded => warps_plus_one * 48,
                Family::WarpShuffle => 32,
                Family::Unrolled | Family::Auto => 0,
            }
    }

    /// Elements one block takes per step: what the grid is sized from (a block per step's worth
    /// of input, up to the resident grid).
    pub const fn items_per_block(self, block: u32, input_size: usize) -> u64 {
        let b = block as u64;
        match self {
            Family::Auto => b * vector_width(input_size) * AUTO_UNROLL,
            Family::WarpSmemOrdered | Family::WarpSmemPadded | Family::WarpShuffle => {
                b * ORDERED_ITEMS
            }
            Family::Tree | Family::Pairwise | Family::WarpSmem | Family::Unrolled => b,
        }
    }
}

/// Elements of `size` bytes in one 16-byte vector (1 for 16 bytes or more).
pub const fn vector_width(size: usize) -> u64 {
    if size == 0 || size >= 16 {
        1
    } else {
        (16 / size) as u64
    }
}

/// The block size an algorithm uses unless told otherwise: 1024 for the single-block ones (the
/// whole input goes through that block), 256 for the others ([`AUTO_BLOCK`] when the kernel is
/// the default one, see [`fit_default_block`]).
pub const fn default_block(algorithm: Algorithm) -> u32 {
    match algorithm {
        Algorithm::SingleBlock | Algorithm::SingleBlockNonCommutative => 1024,
        _ => 256,
    }
}

/// The default block ([`AUTO_BLOCK`] for the default kernel, else [`default_block`]), lowered
/// (by halving) until the kernel can run it and its shared memory fits without opting in.
pub fn fit_default_block(
    algorithm: Algorithm,
    family: Family,
    value_size: usize,
    kernel_max_threads: u32,
) -> u32 {
    let block = if family == Family::Auto {
        AUTO_BLOCK
    } else {
        default_block(algorithm)
    };
    fit_block(block, family, value_size, kernel_max_threads)
}

/// `block` lowered (by halving) until the kernel can run it and `family`'s shared memory fits
/// without opting in: how a default or tuned block (`reduce.block`, gpu_core::tuning) is fitted.
pub fn fit_block(
    mut block: u32,
    family: Family,
    value_size: usize,
    kernel_max_threads: u32,
) -> u32 {
    while block > BLOCK_RANGE.0
        && (block > kernel_max_threads
            || family.shared_bytes(block, value_size) > DEFAULT_SHARED_LIMIT)
    {
        block /= 2;
    }
    block
}

/// Checks a block size chosen by the caller: a power of two in [`BLOCK_RANGE`].
pub fn check_block(block: u32) -> Result<()> {
    check_block_size("block_size", block, BLOCK_RANGE.0, BLOCK_RANGE.1)
}

/// Checks an unroll factor: 2 ..= [`MAX_UNROLL`] (1 would never shrink the input).
pub fn check_unroll(uf: u32) -> Result<()> {
    if !(2..=MAX_UNROLL).contains(&uf) {
        return Err(Error::invalid(
            "unroll",
            format!("unroll factor {uf}: must be between 2 and {MAX_UNROLL}"),
        ));
    }
    Ok(())
}

/// Blocks for a multi-block launch over `n` elements: enough for the input, at most
/// `resident` (the blocks the device holds at once).
pub fn grid(n: u64, family: Family, block: u32, input_size: usize, resident: u32) -> u32 {
    grid_for(n, family.items_per_block(block, input_size), resident)
}

/// One launch of the unrolled reduction: `n` elements in, `uf` the factor used (at most `n`),
/// `threads = n / uf` elements out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnrolledPass {
    /// Elements this pass reads.
    pub n: u64,
    /// Unroll factor of this pass (`min(UF, n)`, so the last pass folds everything left).
    pub uf: u32,
    /// Threads, and elements written: `n / uf`.
    pub threads: u64,
}

/// The passes of the unrolled reduction of `n ≥ 1` elements: `n`, `n/UF`, `n/UF²`, … until
/// one element is left (the last pass has `threads == 1`).
pub fn unrolled_passes(n: u64, uf: u32) -> Vec<UnrolledPass> {
    let mut passes = Vec::new();
    let mut n = n;
    while n >= 1 {
        let uf = (uf as u64).min(n).max(1) as u32;
        let threads = n / uf as u64;
        passes.push(UnrolledPass { n, uf, threads });
        if threads <= 1 {
            break;
        }
        n = threads;
    }
    passes
}

/// The `<kind>` parts of the entry point names of one reduction: the first pass (reading the
/// input) and the passes over partials (the second launch of [`Algorithm::TwoPass`], the
/// unrolled passes after the first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kinds {
    /// First pass, e.g. `sum_f32`, `argmin_i64`, `sum_i32_to_i64`, `mat2_u32`.
    pub first: String,
    /// Passes over partials, e.g. `sum_f32`, `argmin_i64_partials`, `sum_i64`, `mat2_u32`.
    pub partials: String,
}

impl Kinds {
    /// `op` on the type named `t` (`Element::NAME`).
    pub fn op(op: Op, t: &str) -> Kinds {
        let k = format!("{}_{t}", op.name());
        Kinds {
            partials: k.clone(),
            first: k,
        }
    }

    /// argmin / argmax on the type named `t`.
    pub fn arg(which: Extreme, t: &str) -> Kinds {
        Kinds::arg_in(which, t, t)
    }

    /// argmin / argmax on `t` computed in `acc` (f16 and bf16 in f32): `argmin_f16`, then
    /// partials `argmin_f32_partials`.
    pub fn arg_in(which: Extreme, t: &str, acc: &str) -> Kinds {
        let op = which.kernel_op();
        Kinds {
            first: format!("{op}_{t}"),
            partials: format!("{op}_{acc}_partials"),
        }
    }

    /// `op` on `t` accumulated in `wide`.
    pub fn wide(op: Op, t: &str, wide: &str) -> Kinds {
        Kinds {
            first: format!("{}_{t}_to_{wide}", op.name()),
            partials: format!("{}_{wide}", op.name()),
        }
    }

    /// A monoid named `name` (`Monoid::NAME`).
    pub fn monoid(name: &str) -> Kinds {
        Kinds {
            first: name.to_string(),
            partials: name.to_string(),
        }
    }
}

/// Every entry point a reduction with `algorithm` may launch for `operation`: the families'
/// kernels for the first pass and the partials, and the default kernel that writes the
/// identity of an empty input.
pub fn kernel_names(algorithm: Algorithm, operation: Operation, kinds: &Kinds) -> Vec<String> {
    let family = Family::of(algorithm, operation);
    let mut names = vec![
        family.kernel_name(&kinds.first),
        Family::of(Algorithm::Auto, operation).kernel_name(&kinds.first),
    ];
    if matches!(algorithm, Algorithm::TwoPass | Algorithm::Unrolled) {
        names.push(family.kernel_name(&kinds.partials));
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unrolled_passes_shrink_to_one() {
        assert_eq!(
            unrolled_passes(1, 7),
            vec![UnrolledPass {
                n: 1,
                uf: 1,
                threads: 1
            }]
        );
        let p = unrolled_passes(100, 7);
        assert_eq!(
            p[0],
            UnrolledPass {
                n: 100,
                uf: 7,
                threads: 14
            }
        );
        assert_eq!(
            p[1],
            UnrolledPass {
                n: 14,
                uf: 7,
                threads: 2
            }
        );
        assert_eq!(
            p[2],
            UnrolledPass {
                n: 2,
                uf: 2,
                threads: 1
            }
        );
        assert_eq!(p.len(), 3);
        let p = unrolled_passes(1 << 28, 7);
        assert_eq!(p.last().unwrap().threads, 1);
        assert!(p.len() <= 11, "{}", p.len());
        for n in 1..2000u64 {
            for uf in [2, 3, 7, 64] {
                let p = unrolled_passes(n, uf);
                assert_eq!(p.last().unwrap().threads, 1);
                for w in p.windows(2) {
                    assert_eq!(w[1].n, w[0].threads);
                }
            }
        }
    }

    #[test]
    fn checks() {
        assert!(check_unroll(1).is_err());
        assert!(check_unroll(0).is_err());
        assert!(check_unroll(7).is_ok());
        assert!(check_unroll(MAX_UNROLL + 1).is_err());
        assert!(check_block(256).is_ok());
        assert!(check_block(100).is_err());
        assert!(check_block(16).is_err());
        assert!(check_block(2048).is_err());
    }

    #[test]
    fn default_blocks_fit_shared_memory() {
        // Mat2<f64>: 32 bytes; 2 × 1024 × 32 = 64 KiB would need opting in.
        let b = fit_default_block(
            Algorithm::SingleBlockNonCommutative,
            Family::Pairwise,
            32,
            1024,
        );
        assert_eq!(b, 512);
        assert_eq!(
            fit_default_block(Algorithm::SingleBlock, Family::Tree, 4, 1024),
            1024
        );
        assert_eq!(
            fit_default_block(Algorithm::SingleBlock, Family::Tree, 4, 640),
            512
        );
        assert_eq!(
            fit_default_block(Algorithm::Auto, Family::Auto, 4, 1024),
            512
        );
        assert_eq!(
            fit_default_block(Algorithm::Auto, Family::Auto, 4, 256),
            256
        );
        assert_eq!(
            fit_default_block(Algorithm::Auto, Family::WarpShuffle, 32, 1024),
            256
        );
    }

    /// Every kernel the Rust side can ask for exists in the committed PTX.
    #[test]
    fn every_requested_entry_point_exists() {
        let entries: std::collections::HashSet<&str> =
            gpu_core::Ptx::archive("gpu-reduce/reduce", include_bytes!("ptx/reduce.ptx.kpack"))
                .kernel_names()
                .into_iter()
                .collect();
        assert!(entries.len() > 400, "{}", entries.len());
        let types = ["i32", "u32", "i64", "u64", "f32", "f64"];
        let mut cases: Vec<(Operation, Kinds)> = Vec::new();
        for t in types {
            for op in Op::ALL {
                if op.is_bitwise() && t.starts_with('f') {
                    continue;
                }
                cases.push((Operation::Op(op), Kinds::op(op, t)));
            }
            cases.push((Operation::ArgMin, Kinds::arg(Extreme::Min, t)));
            cases.push((Operation::ArgMax, Kinds::arg(Extreme::Max, t)));
            cases.push((Operation::Monoid, Kinds::monoid(&format!("mat2_{t}"))));
            cases.push((Operation::Monoid, Kinds::monoid(&format!("affine_{t}"))));
        }
        for (t, w) in [("i32", "i64"), ("u32", "u64"), ("f32", "f64")] {
            for op in [Op::Sum, Op::Product] {
                cases.push((Operation::Widened(op), Kinds::wide(op, t, w)));
            }
        }
        // The 16-bit floats: every operator through f32, in every family.
        for h in ["f16", "bf16"] {
            for op in [Op::Sum, Op::Product, Op::Min, Op::Max] {
                cases.push((Operation::Op(op), Kinds::wide(op, h, "f32")));
            }
            cases.push((Operation::ArgMin, Kinds::arg_in(Extreme::Min, h, "f32")));
            cases.push((Operation::ArgMax, Kinds::arg_in(Extreme::Max, h, "f32")));
        }
        let mut checked = 0;
        for (operation, kinds) in &cases {
            for a in Algorithm::ALL {
                if a.check(*operation).is_err() {
                    continue;
                }
                for name in kernel_names(a, *operation, kinds) {
                    assert!(
                        entries.contains(name.as_str()),
                        "{a} {operation}: `{name}` missing from reduce.ptx"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    /// The shaped (axis, packed rows, columns, segments) kernels exist for f16 and bf16 as
    /// for f32, except the short-columns one (values read as stored: f32 and wider).
    #[test]
    fn lane_entry_points_exist_for_the_16_bit_floats() {
        let entries: std::collections::HashSet<&str> =
            gpu_core::Ptx::archive("gpu-reduce/reduce", include_bytes!("ptx/reduce.ptx.kpack"))
                .kernel_names()
                .into_iter()
                .collect();
        let shapes = [
            "axis",
            "axis_in_warp",
            "packed",
            "columns",
            "segments",
            "segments_in_warp",
            "segment_tiles",
        ];
        for h in ["f16", "bf16"] {
            let mut kinds: Vec<String> = ["sum", "prod", "min", "max"]
                .iter()
                .map(|op| format!("{op}_{h}_to_f32"))
                .collect();
            kinds.extend([format!("argmin_{h}"), format!("argmax_{h}")]);
            for kind in &kinds {
                for shape in shapes {
                    let name = format!("reduce_{shape}_{kind}");
                    assert!(entries.contains(name.as_str()), "`{name}` missing");
                    let f32_name = name.replace(&format!("_{h}_to_f32"), "_f32");
                    let f32_name = f32_name.replace(&format!("_{h}"), "_f32");
                    assert!(entries.contains(f32_name.as_str()), "`{f32_name}` missing");
                }
            }
        }
    }

    #[test]
    fn grids() {
        // 2^28 i32 on the default kernel: capped at the resident grid (132 SMs × 4 blocks).
        assert_eq!(grid(1 << 28, Family::Auto, 512, 4, 528), 528);
        // 2^20 i32: 128 blocks of 8192 elements.
        assert_eq!(grid(1 << 20, Family::Auto, 512, 4, 528), 128);
        assert_eq!(grid(1 << 20, Family::Auto, 256, 4, 1056), 256);
        assert_eq!(grid(0, Family::Tree, 256, 4, 1056), 1);
        assert_eq!(Family::Auto.items_per_block(256, 8), 256 * 2 * 4);
        assert_eq!(Family::Pairwise.shared_bytes(1024, 4), 8192);
        assert_eq!(Family::WarpSmemPadded.shared_bytes(256, 4), 9 * 48 * 4);
        assert_eq!(
            Family::of(Algorithm::Auto, Operation::Monoid),
            Family::WarpShuffle
        );
        assert_eq!(Family::Auto.kernel_name("sum_f32"), "reduce_auto_sum_f32");
    }
}
