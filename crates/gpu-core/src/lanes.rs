//! Shaped data on the GPU: how the lanes of an axis (or the segments of an offsets array) lie
//! in memory, and how a launch maps them onto threads, warps and blocks.
//!
//! The CUDA side is `kernels/include/gpu_prims/lanes.cuh`; the structs here are its kernel
//! arguments (`#[repr(C)]`, same field order). Planning needs no GPU, so it is tested and
//! documented everywhere.
//!
//! ```
//! use gpu_core::{axis_lanes, LaneAccess, LanePlan};
//! // A 4194304 × 64 row-major matrix, lanes along axis 1: 4194304 contiguous rows of 64.
//! let l = axis_lanes(&[4194304, 64], &[64, 1], 1).unwrap();
//! assert_eq!((l.lanes.count, l.lanes.len, l.lanes.axis_stride), (4194304, 64, 1));
//! let plan = LanePlan::new(&l.lanes, 1056, 4);
//! assert_eq!(plan.access, LaneAccess::GroupPerLane(16));
//! // Along axis 0 the 64 lanes are columns, side by side in memory; they are split along the
//! // axis so that the whole GPU works on them.
//! let l = axis_lanes(&[4194304, 64], &[64, 1], 0).unwrap();
//! let plan = LanePlan::new(&l.lanes, 1056, 4);
//! assert_eq!(plan.access, LaneAccess::Columns);
//! assert!(plan.splits > 1);
//! ```

use crate::error::{Error, Result};

/// Threads per block of every lane kernel (`gp::LANES_BLOCK`).
pub const LANES_BLOCK: u32 = 256;
const LANES_WARPS: u32 = LANES_BLOCK / 32;

/// The lines of an N-D array along one axis, the other axes merged into `(outer, inner)`:
/// lane `l` is `(l / inner, l % inner)`, and its element `j` lies at
/// `(l / inner) · outer_stride + (l % inner) · inner_stride + j · axis_stride` elements from
/// the base. Kernel argument `gp::AxisLanes`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxisLanes {
    /// Number of lanes.
    pub count: u64,
    /// Lanes per outer index (≥ 1).
    pub inner: u64,
    /// Elements per lane.
    pub len: u64,
    /// Elements between consecutive outer indices.
    pub outer_stride: i64,
    /// Elements between consecutive inner indices.
    pub inner_stride: i64,
    /// Elements between consecutive elements of a lane.
    pub axis_stride: i64,
}

/// Segments of a contiguous array as lanes: lane `l` is `offsets[l] .. offsets[l + 1]` of the
/// device array at `offsets` (checked offsets: see `Segments`). Kernel argument
/// `gp::SegmentLanes`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentLanes {
    /// Device address of the `count + 1` offsets.
    pub offsets: u64,
    /// Number of segments.
    pub count: u64,
}

/// Chosen segments of a contiguous array as `[start, end)` pairs: lane `l` is
/// `pairs[2l]..pairs[2l + 1]` of the device array at `pairs` (taken from checked offsets). Kernel
/// argument `gp::SegmentPairLanes`: the long segments a short-segments run leaves to the lane
/// kernels.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentPairLanes {
    /// Device address of the `2 · count` bounds.
    pub pairs: u64,
    /// Number of segments.
    pub count: u64,
}

/// Segments read as flat tiles: the values cut into tiles of `tile` consecutive values whatever
/// the segment lengths, each tile finding its segment starts from `bounds` (see
/// [`segment_tile_bounds`]). Kernel argument `gp::SegmentTiles`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentTiles {
    /// Device address of the `count + 1` offsets.
    pub offsets: u64,
    /// Device address of the `tiles + 1` bounds.
    pub bounds: u64,
    /// Number of segments.
    pub count: u64,
    /// Number of values.
    pub len: u64,
}

/// Where each tile of `tile` values finds its offsets: entry `t` (`0 < t < tiles`) is the first
/// `j` with `offsets[j] > t · tile`; entry 0 is 1 and entry `tiles` is `count + 1`. Tile `t`
/// then owns the offsets `j` in `bounds[t] .. bounds[t + 1]`, those in `(t·tile, (t+1)·tile]`
/// (tile 0 also the leading empty segments): it marks their starts and, in a reduction, writes
/// the segments that end with them. `offsets` must be checked (first 0, non-decreasing).
///
/// ```
/// // Segments [0,3) [3,3) [3,9) [9,10) of 10 values, tiles of 4.
/// let b = gpu_core::segment_tile_bounds(&[0, 3, 3, 9, 10], 4);
/// assert_eq!(b, vec![1, 3, 3, 5]);
/// ```
pub fn segment_tile_bounds(offsets: &[u64], tile: u64) -> Vec<u64> {
    let count = offsets.len().saturating_sub(1) as u64;
    let len = offsets.last().copied().unwrap_or(0);
    let tiles = len.div_ceil(tile.max(1));
    if tiles == 0 {
        return Vec::new(); // no values: no tiles
    }
    let mut bounds = Vec::with_capacity(tiles as usize + 1);
    bounds.push(1);
    for t in 1..tiles {
        let start = t * tile;
        bounds.push(offsets.partition_point(|&o| o <= start) as u64);
    }
    bounds.push(count + 1);
    bounds
}

/// The lanes of an axis of an N-D array, in the row-major order of the array with that axis
/// removed: one [`AxisLanes`] repeated at each of `batches` base offsets (more than one only
/// when the other axes do not merge into two).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneBatches {
    /// The lanes of one batch.
    pub lanes: AxisLanes,
    /// Base offset (elements) of each batch; batch `b`'s lanes are results
    /// `b · lanes.count ..` in row-major order.
    pub batches: Vec<i64>,
}

impl LaneBatches {
    /// Total number of lanes (= elements of the result).
    pub fn total_lanes(&self) -> u64 {
        self.lanes.count * self.batches.len() as u64
    }
}

/// The lanes along `axis` of an array of `shape` with element `strides` (any signs): the other
/// axes, in row-major order, merged where their strides allow.
///
/// ```
/// // Column-major 3 × 5 (strides 1, 3), lanes along axis 0: 5 contiguous columns of 3.
/// let l = gpu_core::axis_lanes(&[3, 5], &[1, 3], 0).unwrap();
/// assert_eq!((l.lanes.count, l.lanes.len, l.lanes.axis_stride, l.lanes.inner_stride), (5, 3, 1, 3));
/// ```
pub fn axis_lanes(shape: &[usize], strides: &[isize], axis: usize) -> Result<LaneBatches> {
    Ok(axis_lanes_pair(shape, strides, strides, axis)?.0)
}

/// The lanes along `axis` of two arrays of the same `shape` (an input and an output with
/// their own strides), merged alike so that lane `l` of one is lane `l` of the other.
///
/// ```
/// // A row-major input and a column-major output of 2 × 3 × 4, lanes along axis 2.
/// let (a, b) = gpu_core::axis_lanes_pair(&[2, 3, 4], &[12, 4, 1], &[1, 2, 6], 2).unwrap();
/// assert_eq!((a.lanes.count, b.lanes.count), (6, 6));
/// assert_eq!((a.lanes.axis_stride, b.lanes.axis_stride), (1, 6));
/// ```
pub fn axis_lanes_pair(
    shape: &[usize],
    a_strides: &[isize],
    b_strides: &[isize],
    axis: usize,
) -> Result<(LaneBatches, LaneBatches)> {
    crate::check_axis(axis, shape.len())?;
    for strides in [a_strides, b_strides] {
        if strides.len() != shape.len() {
            return Err(Error::invalid(
                "strides",
                format!("{} strides for {} dimensions", strides.len(), shape.len()),
            ));
        }
    }
    // The other axes, innermost first, merged where both arrays allow: (extent, a, b strides).
    let mut groups: Vec<(u64, i64, i64)> = Vec::new();
    for d in (0..shape.len()).rev().filter(|&d| d != axis) {
        let (n, sa, sb) = (shape[d] as u64, a_strides[d] as i64, b_strides[d] as i64);
        if n == 1 {
            continue;
        }
        match groups.last_mut() {
            Some((gn, ga, gb)) if *ga * *gn as i64 == sa && *gb * *gn as i64 == sb => *gn *= n,
            _ => groups.push((n, sa, sb)),
        }
    }
    let any_empty = shape.iter().enumerate().any(|(d, &n)| d != axis && n == 0);
    let build = |pick: fn(&(u64, i64, i64)) -> i64, axis_stride: isize| {
        let (inner, inner_stride) = groups.first().map_or((1, 0), |g| (g.0, pick(g)));
        let (outer, outer_stride) = groups.get(1).map_or((1, 0), |g| (g.0, pick(g)));
        // Axes beyond two groups: one batch per index of the outer ones, in row-major order.
        let outer_axes: Vec<(u64, i64)> = groups.iter().skip(2).map(|g| (g.0, pick(g))).collect();
        LaneBatches {
            lanes: AxisLanes {
                count: if any_empty { 0 } else { inner * outer },
                inner,
                len: shape[axis] as u64,
                outer_stride,
                inner_stride,
                axis_stride: axis_stride as i64,
            },
            batches: if any_empty {
                Vec::new()
            } else {
                row_major_offsets(&outer_axes)
            },
        }
    };
    Ok((
        build(|g| g.1, a_strides[axis]),
        build(|g| g.2, b_strides[axis]),
    ))
}

/// Offsets of every index of `axes` (innermost first) in row-major order.
fn row_major_offsets(axes: &[(u64, i64)]) -> Vec<i64> {
    let mut out = vec![0i64];
    // Outermost axis first: each step refines every existing offset by the next inner axis.
    for &(n, s) in axes.iter().rev() {
        out = out
            .iter()
            .flat_map(|&b| (0..n as i64).map(move |k| b + k * s))
            .collect();
    }
    out
}

/// How a launch maps lanes onto the GPU (what ran, for the caller to see).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaneAccess {
    /// One thread per lane, 256 lanes per block (short lanes).
    ThreadPerLane,
    /// A group of this many threads of one warp per lane (2 … 16).
    GroupPerLane(u32),
    /// One or more warps per lane (a whole block per lane for the longest).
    WarpsPerLane(u32),
    /// Lanes side by side in memory (the axis strided): each warp reads rows of the tile,
    /// coalesced across the lanes.
    Columns,
    /// The lanes are the consecutive rows of one contiguous array, `2^log2_len` elements
    /// each (at most 32 vectors of 16 bytes): read as one flat array, four 16-byte vectors
    /// in flight per thread, a vector holding whole rows or a few threads holding one row.
    PackedRows {
        /// log2 of the row length.
        log2_len: u32,
    },
    /// Lanes side by side in memory (the axis strided), read as 16-byte vectors of
    /// neighbouring lanes: a thread per vector of lanes, `groups_across` of them side by side in
    /// a block, eight vector rows in flight per thread; scans in one pass (a look-back per
    /// group of lanes). See [`ColumnLanes`].
    VectorColumns {
        /// Vectors (threads) side by side in a block.
        groups_across: u32,
        /// Lanes per vector.
        lanes_per_vector: u32,
        /// Vector rows each thread takes: [`COLUMN_ROWS`], or [`COLUMN_LONG_ROWS`] for the
        /// long spans of a scan of few tiles side by side.
        rows_per_thread: u32,
        /// Threads down a block: `256 / groups_across`, or fewer for a long-span scan, whose
        /// blocks then share an SM (a block is `groups_across × threads_down` threads).
        threads_down: u32,
        /// Spans ahead (in the order they are handed out) whose input each block of a
        /// long-span scan asks into L2 (0: none; `scan.shaped_prefetch_from`).
        prefetch: u32,
    },
    /// Long contiguous rows, each scanned as the flat single-pass scan scans an array: tiles
    /// of `tile` values, a decoupled look-back per row (scans only; `tiles` counts the rows,
    /// `splits` the tiles per row).
    LookBackRows {
        /// Values per tile (block).
        tile: u32,
    },
    /// `lanes` (2 or 4) lanes side by side with one row of them every `lanes` elements (the
    /// columns of a dense array of that many columns): read as rows of `lanes`-wide vectors,
    /// scanned as [`LookBackRows`](Self::LookBackRows) scans a row, the operator applied lane
    /// by lane (`tile` counts vectors; `tiles` counts the groups of lanes, `splits` the tiles
    /// per group).
    InterleavedRows {
        /// Lanes per vector.
        lanes: u32,
        /// Vectors per tile (block).
        tile: u32,
    },
    /// Segments read as one flat array: tiles of `tile` consecutive values whatever the
    /// segment lengths, the segment starts inside a tile marked from the offsets, each tile
    /// scanned segment-wise in registers, and the part of a segment begun in earlier tiles
    /// taken by a decoupled look-back (`tiles` counts the tiles).
    SegmentTiles {
        /// Values per tile (block).
        tile: u32,
        /// Tiles ahead of its own whose input each block asks into L2 (0: none; scans of long
        /// inputs on GPUs whose tuning says so: `scan.shaped_prefetch_from`).
        prefetch: u32,
    },
    /// Short segments, a thread per segment: each block takes up to `segments_per_block`
    /// consecutive segments, stages their values in shared memory (16-byte loads) and each
    /// thread folds its segments from there in order (`tiles` counts the blocks; reductions
    /// only). The `long` segments (longer than a block's thread should fold) are left out of
    /// the blocks and reduced by the lane kernels, a group, warps or a block each.
    ShortSegments {
        /// Segments per block.
        segments_per_block: u32,
        /// Segments left to the lane kernels.
        long: u64,
    },
}

impl LaneAccess {
    /// How far ahead each block of the plan prefetches into L2, in tiles (spans of a columns
    /// scan): 0 where it is off and for patterns without it (all but the long column spans
    /// and the segment tiles of scans).
    pub fn prefetch(&self) -> u32 {
        match *self {
            LaneAccess::VectorColumns { prefetch, .. }
            | LaneAccess::SegmentTiles { prefetch, .. } => prefetch,
            _ => 0,
        }
    }

    /// For a long-span columns scan, the vector rows each thread holds in shared memory
    /// beyond its [`COLUMN_LONG_ROWS`] in registers: 0, or [`COLUMN_STAGED_ROWS`] (the staged
    /// spans, [`LanePlan::with_staged_spans`]); `None` for every other access.
    pub fn long_span_staged_rows(&self) -> Option<u32> {
        match *self {
            LaneAccess::VectorColumns {
                rows_per_thread, ..
            } if rows_per_thread as u64 >= COLUMN_LONG_ROWS => {
                Some(rows_per_thread - COLUMN_LONG_ROWS as u32)
            }
            _ => None,
        }
    }

    /// The same access with the prefetch distance `prefetch` where the pattern has one
    /// (unchanged otherwise).
    pub fn with_prefetch(mut self, ahead: u32) -> LaneAccess {
        match &mut self {
            LaneAccess::VectorColumns { prefetch, .. }
            | LaneAccess::SegmentTiles { prefetch, .. } => *prefetch = ahead,
            _ => {}
        }
        self
    }
}

/// The mapping parameters of `gp::LaneTiling` (kernel argument).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaneTiling {
    /// Consecutive threads of a warp on one lane (1 … 32).
    pub group: u32,
    /// Lanes side by side in a warp (`group · lanes_per_warp ≤ 32`).
    pub lanes_per_warp: u32,
    /// Warps sharing the same lanes (1, 2, 4, 8).
    pub warps_per_lane: u32,
    /// Padding (0).
    pub unused: u32,
}

impl LaneTiling {
    /// Lanes per block.
    pub fn lanes_per_block(&self) -> u32 {
        (LANES_WARPS / self.warps_per_lane) * self.lanes_per_warp
    }

    /// Threads (positions) per lane in a block.
    pub fn positions(&self) -> u32 {
        LANES_BLOCK / self.lanes_per_block()
    }

    /// Whether the segment lane kernels can take this mapping: they compute it with shifts and
    /// combine a lane's threads with a butterfly over `group` consecutive ones, so every
    /// parameter is a power of two and `group · lanes_per_warp = 32` (as every
    /// [`LanePlan::segments`] gives).
    pub fn fits_segment_lanes(&self) -> bool {
        self.group.is_power_of_two()
            && self.lanes_per_warp.is_power_of_two()
            && self.warps_per_lane.is_power_of_two()
            && self.warps_per_lane <= LANES_WARPS
            && self.group * self.lanes_per_warp == 32
    }
}

/// A planned lane launch: the mapping, the grid (`tiles` × `splits`), and the access pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LanePlan {
    /// What the mapping amounts to.
    pub access: LaneAccess,
    /// The kernel's mapping argument.
    pub tiling: LaneTiling,
    /// Blocks along the lanes (grid x), each holding `tiling.lanes_per_block()` lanes.
    pub tiles: u64,
    /// Ranges each lane is cut into (grid y), merged by the kernel (reductions) or seeded by a
    /// first pass (scans).
    pub splits: u32,
}

/// Largest power of two ≤ `x` (1 for 0).
fn pow2_floor(x: u64) -> u64 {
    if x <= 1 {
        1
    } else {
        1 << (63 - x.leading_zeros())
    }
}

/// Grid y limit of the driver.
const MAX_SPLITS: u64 = 65_535;
/// Bytes of the vectors the packed-rows kernels read, and vectors per thread per step
/// (`gp::PACKED_VECTORS`).
const PACKED_VECTOR_BYTES: u64 = 16;
const PACKED_VECTORS: u64 = 4;
/// Longest packed row, in vectors (the threads of a row must fit in a warp).
const PACKED_MAX_VECTORS: u64 = 32;
/// Fewest elements a split gets per position (so splitting never makes blocks that only
/// reduce a handful of values).
const MIN_ITEMS_PER_SPLIT_POSITION: u64 = 16;

impl LanePlan {
    /// Plans `lanes` (`len` the typical lane length: the axis length, or the mean segment
    /// length) for a GPU that holds `target_blocks` lane blocks at once, each thread taking
    /// `items` consecutive elements per step (4 for reductions; the scan's per-thread items).
    ///
    /// Lanes adjacent in memory with a strided axis get [`LaneAccess::Columns`]; otherwise a
    /// lane gets about `len / items` threads (one thread, a group of a warp, up to a whole
    /// block). Lanes cut into splits when the tiles alone cannot fill the GPU.
    pub fn new(lanes: &AxisLanes, target_blocks: u64, items: u32) -> LanePlan {
        let items = items.max(1) as u64;
        let columns = lanes.inner >= 2
            && lanes.inner_stride.unsigned_abs() == 1
            && lanes.axis_stride.unsigned_abs() != 1;
        let (access, tiling) = if columns {
            let side = pow2_floor(lanes.inner).min(LANES_BLOCK as u64) as u32;
            let lanes_per_warp = side.min(32);
            let warps_per_lane = LANES_WARPS * lanes_per_warp / side;
            (
                LaneAccess::Columns,
                LaneTiling {
                    group: 1,
                    lanes_per_warp,
                    warps_per_lane,
                    unused: 0,
                },
            )
        } else {
            Self::rows(lanes.len, items)
        };
        Self::with_tiling(lanes.count, lanes.len, access, tiling, target_blocks, items)
    }

    /// The segment-tiles plan over `len` values in tiles of `tile` values (one block each).
    pub fn segment_tiles(len: u64, tile: u32) -> LanePlan {
        LanePlan {
            access: LaneAccess::SegmentTiles { tile, prefetch: 0 },
            tiling: LaneTiling {
                group: 1,
                lanes_per_warp: 1,
                warps_per_lane: 1,
                unused: 0,
            },
            tiles: len.div_ceil(tile.max(1) as u64),
            splits: 1,
        }
    }

    /// The short-segments plan: `blocks` blocks of up to `segments_per_block` segments, and
    /// `long` segments left to the lane kernels.
    pub fn short_segments(blocks: u64, segments_per_block: u32, long: u64) -> LanePlan {
        LanePlan {
            access: LaneAccess::ShortSegments {
                segments_per_block,
                long,
            },
            tiling: LaneTiling {
                group: 1,
                lanes_per_warp: 32,
                warps_per_lane: 1,
                unused: 0,
            },
            tiles: blocks,
            splits: 1,
        }
    }

    /// Plans segments of mean length `mean_len` (contiguous, one thread group per segment).
    pub fn segments(count: u64, mean_len: u64, target_blocks: u64, items: u32) -> LanePlan {
        let items = items.max(1) as u64;
        let (access, tiling) = Self::rows(mean_len, items);
        Self::with_tiling(count, mean_len, access, tiling, target_blocks, items)
    }

    fn rows(len: u64, items: u64) -> (LaneAccess, LaneTiling) {
        let positions = pow2_floor(len / items).min(LANES_BLOCK as u64) as u32;
        if positions <= 32 {
            let access = if positions == 1 {
                LaneAccess::ThreadPerLane
            } else {
                LaneAccess::GroupPerLane(positions)
            };
            let tiling = LaneTiling {
                group: positions,
                lanes_per_warp: 32 / positions,
                warps_per_lane: 1,
                unused: 0,
            };
            (access, tiling)
        } else {
            let warps = positions / 32;
            let tiling = LaneTiling {
                group: 32,
                lanes_per_warp: 1,
                warps_per_lane: warps,
                unused: 0,
            };
            (LaneAccess::WarpsPerLane(warps), tiling)
        }
    }

    fn with_tiling(
        count: u64,
        len: u64,
        access: LaneAccess,
        tiling: LaneTiling,
        target_blocks: u64,
        items: u64,
    ) -> LanePlan {
        let per_block = tiling.lanes_per_block() as u64;
        let tiles = count.div_ceil(per_block);
        let mut splits = 1u64;
        if tiles > 0 && tiles < target_blocks {
            // One whole wave: rounding up would leave a few blocks for a second, nearly empty
            // wave (64 tiles × 17 splits = 1088 blocks on 1056 resident slots ran at 0.60×
            // copy on an H100; 64 × 16 fills one wave).
            let want = target_blocks / tiles;
            let most = len / (tiling.positions() as u64 * items * MIN_ITEMS_PER_SPLIT_POSITION);
            splits = want.min(most).clamp(1, MAX_SPLITS);
        }
        LanePlan {
            access,
            tiling,
            tiles,
            splits: splits as u32,
        }
    }

    /// The packed-rows plan when every lane of `lb` is a row of one contiguous array (lane
    /// `l` = elements `l·len .. (l+1)·len` from the base) of a power-of-two length of at most
    /// 32 vectors of 16 bytes, for elements of `elem_size` bytes (1 … 8); `None` otherwise. The
    /// caller also needs the base 16-byte aligned.
    ///
    /// ```
    /// use gpu_core::{axis_lanes, LaneAccess, LanePlan};
    /// // 67108864 × 4 row-major, along axis 1: rows of 4, one 16-byte vector each.
    /// let l = axis_lanes(&[67108864, 4], &[4, 1], 1).unwrap();
    /// let plan = LanePlan::packed_rows(&l, 4).unwrap();
    /// assert_eq!(plan.access, LaneAccess::PackedRows { log2_len: 2 });
    /// // Along axis 0 the lanes are columns: not packed rows.
    /// assert!(LanePlan::packed_rows(&axis_lanes(&[67108864, 4], &[4, 1], 0).unwrap(), 4).is_none());
    /// ```
    pub fn packed_rows(lb: &LaneBatches, elem_size: usize) -> Option<LanePlan> {
        let l = &lb.lanes;
        let size = elem_size as u64;
        let packed = lb.batches == [0]
            && l.count > 0
            && l.len.is_power_of_two()
            && (1..=8).contains(&size)
            && l.len * size <= PACKED_MAX_VECTORS * PACKED_VECTOR_BYTES
            && (l.len == 1 || l.axis_stride == 1)
            && (l.inner == 1 || l.inner_stride == l.len as i64)
            && (l.count == l.inner || l.outer_stride == (l.inner * l.len) as i64);
        if !packed {
            return None;
        }
        let vectors = (l.count * l.len * size).div_ceil(PACKED_VECTOR_BYTES);
        Some(LanePlan {
            access: LaneAccess::PackedRows {
                log2_len: l.len.trailing_zeros(),
            },
            tiling: LaneTiling {
                group: 1,
                lanes_per_warp: 1,
                warps_per_lane: 1,
                unused: 0,
            },
            tiles: vectors.div_ceil(LANES_BLOCK as u64 * PACKED_VECTORS).max(1),
            splits: 1,
        })
    }

    /// The same plan without splits (one block range per lane, whatever its length).
    pub fn without_splits(mut self) -> LanePlan {
        self.splits = 1;
        self
    }

    /// Whether every lane lies within one warp in one split (`warps_per_lane` 1, `splits` 1):
    /// such plans of segments and of axis lanes launch the lean form of the lane kernels,
    /// compiled without the splits' merge and the warps' combine (docs/shapes.md, twelfth
    /// session).
    ///
    /// ```
    /// use gpu_core::LanePlan;
    /// // Segments of 1000 values on average: a warp each.
    /// assert!(LanePlan::segments(268_000, 1000, 660, 16).in_one_warp());
    /// // 16 segments of 2^24: eight warps each, cut into splits.
    /// assert!(!LanePlan::segments(16, 1 << 24, 660, 16).in_one_warp());
    /// ```
    pub fn in_one_warp(&self) -> bool {
        self.splits == 1 && self.tiling.warps_per_lane == 1
    }

    /// Grid x of the launch: the tiles, capped at the driver's limit (the kernels walk the
    /// rest grid-stride).
    pub fn grid_x(&self) -> u32 {
        self.tiles.clamp(1, i32::MAX as u64) as u32
    }
}

impl std::fmt::Display for LanePlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let access = match self.access {
            LaneAccess::ThreadPerLane => "thread per lane".to_string(),
            LaneAccess::GroupPerLane(g) => format!("{g} threads per lane"),
            LaneAccess::WarpsPerLane(w) => format!("{w} warp(s) per lane"),
            LaneAccess::Columns => {
                format!("columns, {} side by side", self.tiling.lanes_per_block())
            }
            LaneAccess::PackedRows { log2_len } => {
                format!("packed rows of {}", 1u64 << log2_len)
            }
            LaneAccess::VectorColumns {
                groups_across,
                lanes_per_vector,
                rows_per_thread,
                threads_down,
                ..
            } => {
                let long = match self.access.long_span_staged_rows() {
                    Some(0) => format!(", long spans of {threads_down} threads down"),
                    Some(staged) => format!(
                        ", long spans of {threads_down} threads down \
                         ({} rows a thread in registers, {staged} in shared memory)",
                        rows_per_thread - staged
                    ),
                    None => String::new(),
                };
                format!(
                    "vector columns, {} side by side{long}",
                    groups_across * lanes_per_vector
                )
            }
            LaneAccess::LookBackRows { tile } => format!("look-back rows, tiles of {tile}"),
            LaneAccess::InterleavedRows { lanes, tile } => {
                format!("interleaved lanes, {lanes} side by side, look-back tiles of {tile} rows")
            }
            LaneAccess::SegmentTiles { tile, .. } => format!("segment tiles of {tile}"),
            LaneAccess::ShortSegments {
                segments_per_block,
                long,
            } => {
                let long = if long > 0 {
                    format!(" ({long} long one(s) by the lane kernels)")
                } else {
                    String::new()
                };
                format!("a thread per segment, {segments_per_block} per block{long}")
            }
        };
        let prefetch = match self.access.prefetch() {
            0 => String::new(),
            p => format!(", L2 prefetch {p} ahead"),
        };
        write!(
            f,
            "{access}, {} tile(s) × {} split(s){prefetch}",
            self.tiles, self.splits
        )
    }
}

/// Vector rows each thread of a columns kernel takes per step (`gp::COLUMN_ROWS`).
pub const COLUMN_ROWS: u64 = 8;
/// Vector rows each thread of a long-span columns scan holds (`gp::COLUMN_LONG_ROWS`).
pub const COLUMN_LONG_ROWS: u64 = 32;
/// Vector rows each thread of a staged long-span columns scan holds in shared memory beyond
/// its [`COLUMN_LONG_ROWS`] in registers (`gp::COLUMN_STAGED_ROWS`; 16 bytes each).
pub const COLUMN_STAGED_ROWS: u64 = 32;
/// Fewest tiles side by side for a columns scan of several spans (see `vector_columns`).
const COLUMN_SCAN_MIN_TILES: u64 = 64;
/// Bytes of a columns kernel's vectors.
const COLUMN_VECTOR_BYTES: u64 = 16;

/// Lanes side by side in memory, seen as 16-byte vectors: each vector holds `16 / (rv ·
/// element size)` neighbouring lanes (a *lane group*) of `rv` consecutive rows. Kernel
/// argument `gp::ColumnLanes` of the columns kernels (`lanes_columns.cuh`).
///
/// ```
/// use gpu_core::{axis_lanes, ColumnLanes, LaneAccess, LanePlan};
/// // 4194304 × 64 f32, row-major, along axis 0: 64 columns = 16 vectors of 4 lanes per row.
/// let l = axis_lanes(&[4194304, 64], &[64, 1], 0).unwrap();
/// let (plan, c) = LanePlan::vector_columns(&l, 4, 1056, false).unwrap();
/// assert_eq!((c.groups, c.vrows, c.vrow_stride, c.rv), (16, 4194304, 64, 1));
/// assert_eq!(
///     plan.access,
///     LaneAccess::VectorColumns {
///         groups_across: 16,
///         lanes_per_vector: 4,
///         rows_per_thread: 8,
///         threads_down: 16,
///         prefetch: 0,
///     }
/// );
/// // 134217728 × 2: a vector holds two rows of both lanes.
/// let l = axis_lanes(&[134217728, 2], &[2, 1], 0).unwrap();
/// let (_, c) = LanePlan::vector_columns(&l, 4, 1056, false).unwrap();
/// assert_eq!((c.groups, c.vrows, c.rv), (1, 67108864, 2));
/// // Its scan takes spans of 32 vector rows per thread: 8192 spans of one tile.
/// let (plan, _) = LanePlan::vector_columns(&l, 4, 1056, true).unwrap();
/// assert_eq!(plan.splits, 8192);
/// // Two lanes of f16: four rows a vector, for a reduction only.
/// let (_, c) = LanePlan::vector_columns(&l, 2, 1056, false).unwrap();
/// assert_eq!((c.groups, c.vrows, c.rv, c.lanes_per_vector(2)), (1, 33554432, 4, 2));
/// assert!(LanePlan::vector_columns(&l, 2, 1056, true).is_none());
/// // Three columns of f32 do not split into aligned vectors.
/// assert!(LanePlan::vector_columns(&axis_lanes(&[99, 3], &[3, 1], 0).unwrap(), 4, 1056, false).is_none());
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColumnLanes {
    /// Outer indices, each holding `groups` lane groups.
    pub outer: u64,
    /// Lane groups (vectors) per outer index.
    pub groups: u64,
    /// Vector rows per lane (elements per lane / `rv`).
    pub vrows: u64,
    /// Elements between outer indices.
    pub outer_stride: i64,
    /// Elements between consecutive vector rows.
    pub vrow_stride: i64,
    /// Lane groups side by side in a block (a power of two ≤ 256).
    pub tx: u32,
    /// Rows per vector: 1; 2 when a vector holds two rows of half a vector's lanes (two
    /// 4-byte lanes, four 2-byte ones); 4 for four rows of two 2-byte lanes (reductions only:
    /// [`of_reduction`](Self::of_reduction)).
    pub rv: u32,
}

impl ColumnLanes {
    /// The vector view of `lb`'s lanes for elements of `elem_size` bytes (2, 4 or 8) with `tx`
    /// groups across, where every vector is 16-byte aligned given a 16-byte aligned base:
    /// lanes side by side (inner stride 1), their count per outer index a multiple of the
    /// vector width (or half of it over dense rows, an even number of them: two 4-byte lanes,
    /// four 2-byte ones), strides and batch offsets multiples of the vector width. `None`
    /// otherwise.
    ///
    /// ```
    /// use gpu_core::{axis_lanes, ColumnLanes};
    /// // 16-bit values: eight lanes a vector, or four over two rows; two lanes would need
    /// // vectors of four rows, which only the reductions take (`of_reduction`).
    /// let c = ColumnLanes::of(&axis_lanes(&[1000, 16], &[16, 1], 0).unwrap(), 2, 1).unwrap();
    /// assert_eq!((c.groups, c.rv, c.lanes_per_vector(2)), (2, 1, 8));
    /// let c = ColumnLanes::of(&axis_lanes(&[1000, 4], &[4, 1], 0).unwrap(), 2, 1).unwrap();
    /// assert_eq!((c.groups, c.vrows, c.rv, c.lanes_per_vector(2)), (1, 500, 2, 4));
    /// assert!(ColumnLanes::of(&axis_lanes(&[1000, 2], &[2, 1], 0).unwrap(), 2, 1).is_none());
    /// ```
    pub fn of(lb: &LaneBatches, elem_size: usize, tx: u32) -> Option<ColumnLanes> {
        Self::with_rows(lb, elem_size, tx, false)
    }

    /// [`of`](Self::of) for a reduction, whose kernels also take vectors of four rows of two
    /// 2-byte lanes (`rv` 4: each lane's four parts merged after the walk); a scan's do not.
    ///
    /// ```
    /// use gpu_core::{axis_lanes, ColumnLanes};
    /// let two = axis_lanes(&[1000, 2], &[2, 1], 0).unwrap();
    /// let c = ColumnLanes::of_reduction(&two, 2, 1).unwrap();
    /// assert_eq!((c.groups, c.vrows, c.vrow_stride, c.rv), (1, 250, 8, 4));
    /// assert_eq!(c.lanes_per_vector(2), 2);
    /// // A number of rows not a multiple of four: no whole vectors.
    /// let odd = axis_lanes(&[1002, 2], &[2, 1], 0).unwrap();
    /// assert!(ColumnLanes::of_reduction(&odd, 2, 1).is_none());
    /// // Two 4-byte lanes stay two rows a vector.
    /// assert_eq!(ColumnLanes::of_reduction(&two, 4, 1).unwrap().rv, 2);
    /// ```
    pub fn of_reduction(lb: &LaneBatches, elem_size: usize, tx: u32) -> Option<ColumnLanes> {
        Self::with_rows(lb, elem_size, tx, true)
    }

    fn with_rows(
        lb: &LaneBatches,
        elem_size: usize,
        tx: u32,
        four_rows: bool,
    ) -> Option<ColumnLanes> {
        let l = &lb.lanes;
        if !matches!(elem_size, 2 | 4 | 8) || l.count == 0 || l.len == 0 || l.inner < 2 {
            return None;
        }
        let w = COLUMN_VECTOR_BYTES / elem_size as u64;
        let wi = w as i64;
        if l.inner_stride != 1 || lb.batches.iter().any(|b| b % wi != 0) {
            return None;
        }
        let (lw, rv) = if l.inner % w == 0 && l.axis_stride % wi == 0 && l.axis_stride != 0 {
            (w, 1)
        } else if w == 2 * l.inner && l.axis_stride == l.inner as i64 && l.len % 2 == 0 {
            (l.inner, 2)
        } else if four_rows && w == 4 * l.inner && l.axis_stride == l.inner as i64 && l.len % 4 == 0
        {
            (l.inner, 4)
        } else {
            return None;
        };
        let outer = l.count / l.inner;
        if outer > 1 && l.outer_stride % wi != 0 {
            return None;
        }
        Some(ColumnLanes {
            outer,
            groups: l.inner / lw,
            vrows: l.len / rv,
            outer_stride: l.outer_stride,
            vrow_stride: l.axis_stride * rv as i64,
            tx,
            rv: rv as u32,
        })
    }

    /// Lanes per vector.
    pub fn lanes_per_vector(&self, elem_size: usize) -> u64 {
        COLUMN_VECTOR_BYTES / elem_size as u64 / self.rv as u64
    }

    /// Blocks side by side along the lanes: `outer` × ⌈groups / tx⌉.
    pub fn tiles(&self) -> u64 {
        self.outer * self.groups.div_ceil(self.tx as u64)
    }

    /// Threads down a block (`256 / tx`).
    pub fn ty(&self) -> u64 {
        (LANES_BLOCK / self.tx) as u64
    }

    /// Whether the short columns kernels take these lanes (a thread per lane group, no block
    /// work): 256 lane groups across a block, so one thread down, which walks its lanes
    /// [`COLUMN_ROWS`] vector rows a step (lanes of at most that many rows, or many lanes of
    /// any length: [`LanePlan::thread_columns`]).
    pub fn is_short(&self) -> bool {
        self.ty() == 1
    }

    /// Lane groups a thread of the short columns kernels takes: two for lanes of up to
    /// `COLUMN_ROWS / 2` vector rows (both in flight at once), one otherwise (the kernels'
    /// rule).
    pub fn short_groups_per_thread(&self) -> u64 {
        if self.vrows <= COLUMN_ROWS / 2 {
            2
        } else {
            1
        }
    }

    /// Blocks of the short columns reduction over these lanes: a block's tiles are its
    /// threads' lane groups ([`short_groups_per_thread`](Self::short_groups_per_thread);
    /// more blocks would only idle).
    pub fn short_reduce_blocks(&self) -> u64 {
        self.tiles()
            .div_ceil(self.short_groups_per_thread())
            .clamp(1, i32::MAX as u64)
    }

    /// Blocks of the short columns scan over these lanes (it counts lane groups across the
    /// outer indices, 256 threads a block, grid-stride).
    pub fn short_scan_blocks(&self) -> u64 {
        (self.outer * self.groups)
            .div_ceil(LANES_BLOCK as u64 * self.short_groups_per_thread())
            .clamp(1, i32::MAX as u64)
    }

    /// Spans of a columns scan: vector rows a block scans (`ty` × [`COLUMN_ROWS`]) per lane.
    pub fn spans(&self) -> u64 {
        self.spans_in(COLUMN_ROWS, self.ty())
    }

    /// Spans of a columns scan whose blocks are `ty` threads down, each holding `rows` vector
    /// rows.
    pub fn spans_in(&self, rows: u64, ty: u64) -> u64 {
        self.vrows.div_ceil(ty.max(1) * rows)
    }
}

/// Threads per block of a long-span columns scan of `tiles` tiles side by side (at least the
/// lane groups across): half blocks where at least [`COLUMN_SCAN_MIN_TILES`] tiles lie side by
/// side, so that two blocks share an SM and one's loads overlap the other's look-back and
/// stores (H100, 16384 × 16384 along the strided axis, 128 tiles of 64 spans: 0.78 → 0.85×
/// copy); whole blocks for fewer tiles, whose longer chain of spans cost more than the overlap
/// gave (one tile: 0.70 → 0.50×). `GPU_PRIMS_COLUMN_SCAN_THREADS` (benchmarks; read once)
/// sets one size for all.
fn column_long_span_threads(tiles: u64) -> u64 {
    static THREADS: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    let forced = THREADS.get_or_init(|| {
        std::env::var("GPU_PRIMS_COLUMN_SCAN_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&v: &u64| (32..=LANES_BLOCK as u64).contains(&v) && v.is_power_of_two())
    });
    forced.unwrap_or(if tiles >= COLUMN_SCAN_MIN_TILES {
        LANES_BLOCK as u64 / 2
    } else {
        LANES_BLOCK as u64
    })
}

impl LanePlan {
    /// The vector-columns plan and the input's [`ColumnLanes`] where `lb`'s lanes fit
    /// ([`ColumnLanes::of`]; the caller also needs the base 16-byte aligned), for elements of
    /// `elem_size` bytes on a GPU holding `target_blocks` lane blocks at once. Short lanes get
    /// wide blocks (up to 256 vectors across, every thread its whole lane); long ones 32 or
    /// fewer vectors across and eight threads down. A reduction cuts lanes into splits to fill
    /// the GPU (`scan` false); a scan into spans, one block each, chained by a look-back
    /// (`splits` then counts the spans): [`vector_columns_scan`](Self::vector_columns_scan)
    /// with long spans.
    pub fn vector_columns(
        lb: &LaneBatches,
        elem_size: usize,
        target_blocks: u64,
        scan: bool,
    ) -> Option<(LanePlan, ColumnLanes)> {
        Self::columns_with(lb, elem_size, target_blocks, scan.then_some(true))
    }

    /// The thread-per-lane-group plan of a columns reduction or scan: 256 lane groups across
    /// a block, one thread each walking its lanes [`COLUMN_ROWS`] vector rows a step (a fold,
    /// or a running value carried from step to step), no block work and no splits or spans,
    /// where lanes are many enough for `target_blocks` such blocks (a vector row of at least
    /// 256 groups); `None` otherwise. Many lanes of a few dozen rows (64 × 4194304 f32 along
    /// axis 0) read at 0.79–0.91× copy on an H200 through the block's threads down and its
    /// fold, and were scanned at 0.77×; see docs/shapes.md (ninth and thirteenth sessions).
    ///
    /// ```
    /// use gpu_core::{axis_lanes, LaneAccess, LanePlan};
    /// let l = axis_lanes(&[64, 4194304], &[4194304, 1], 0).unwrap();
    /// let (plan, c) = LanePlan::thread_columns(&l, 4, 660).unwrap();
    /// assert_eq!((c.tx, c.ty(), c.vrows, plan.tiles, plan.splits), (256, 1, 64, 4096, 1));
    /// assert!(matches!(plan.access, LaneAccess::VectorColumns { threads_down: 1, .. }));
    /// // 64 × 4096: 4 blocks of lanes do not fill a GPU.
    /// let l = axis_lanes(&[64, 4096], &[4096, 1], 0).unwrap();
    /// assert!(LanePlan::thread_columns(&l, 4, 660).is_none());
    /// ```
    pub fn thread_columns(
        lb: &LaneBatches,
        elem_size: usize,
        target_blocks: u64,
    ) -> Option<(LanePlan, ColumnLanes)> {
        let c = ColumnLanes::of(lb, elem_size, LANES_BLOCK)?;
        if c.groups < LANES_BLOCK as u64 || c.tiles() < target_blocks.max(1) {
            return None;
        }
        let plan = Self::vector_columns_of(&c, elem_size, COLUMN_ROWS, 1, 1);
        Some((plan, c))
    }

    /// The vector-columns scan plan: lanes of several spans take long spans
    /// ([`COLUMN_LONG_ROWS`] vector rows per thread, 128 KiB per block of 4-byte lanes) where
    /// `long_spans` (the kernels exist for sum, prod, min and max); otherwise spans of
    /// [`COLUMN_ROWS`] where at least 64 tiles lie side by side, and `None` for fewer tiles
    /// of several spans (their look-back chain over 32 KiB spans was measured slower than the
    /// lane kernels' two passes). `GPU_PRIMS_COLUMN_SCAN_SPANS=short` (benchmarks) turns long
    /// spans off.
    pub fn vector_columns_scan(
        lb: &LaneBatches,
        elem_size: usize,
        long_spans: bool,
    ) -> Option<(LanePlan, ColumnLanes)> {
        Self::columns_with(lb, elem_size, 0, Some(long_spans))
    }

    /// The long-span columns scan `self` (of [`vector_columns_scan`](Self::vector_columns_scan)
    /// over `c`) with spans twice as long: each thread holds [`COLUMN_STAGED_ROWS`] more
    /// vector rows in shared memory (`COLUMN_STAGED_ROWS · 16` bytes a thread; the kernels
    /// need compute capability 8.0+), so the chain of spans is half as long. Any other plan,
    /// and a scan of one span per lane, comes back unchanged.
    ///
    /// ```
    /// use gpu_core::{axis_lanes, LaneAccess, LanePlan};
    /// // 4194304 × 64 f32 along axis 0: one tile of 8192 spans of 32 rows a thread …
    /// let l = axis_lanes(&[4194304, 64], &[64, 1], 0).unwrap();
    /// let (plan, c) = LanePlan::vector_columns_scan(&l, 4, true).unwrap();
    /// assert_eq!((plan.tiles, plan.splits), (1, 8192));
    /// assert_eq!(plan.access.long_span_staged_rows(), Some(0));
    /// // … or 4096 of 64 (32 in registers, 32 in shared memory).
    /// let staged = plan.with_staged_spans(&c);
    /// assert_eq!((staged.tiles, staged.splits), (1, 4096));
    /// assert_eq!(staged.access.long_span_staged_rows(), Some(32));
    /// assert!(staged.to_string().contains("32 rows a thread in registers, 32 in shared memory"));
    /// // A reduction's plan, or a scan of one span a lane, stays as it is.
    /// let short = axis_lanes(&[300, 64], &[64, 1], 0).unwrap();
    /// let (plan, c) = LanePlan::vector_columns_scan(&short, 4, true).unwrap();
    /// assert_eq!(plan.with_staged_spans(&c), plan);
    /// ```
    pub fn with_staged_spans(mut self, c: &ColumnLanes) -> LanePlan {
        if let LaneAccess::VectorColumns {
            rows_per_thread,
            threads_down,
            ..
        } = &mut self.access
        {
            if *rows_per_thread as u64 == COLUMN_LONG_ROWS && self.splits > 1 {
                let rows = COLUMN_LONG_ROWS + COLUMN_STAGED_ROWS;
                *rows_per_thread = rows as u32;
                self.splits = c.spans_in(rows, *threads_down as u64) as u32;
            }
        }
        self
    }

    /// `scan`: `None` for a reduction, `Some(long_spans)` for a scan.
    fn columns_with(
        lb: &LaneBatches,
        elem_size: usize,
        target_blocks: u64,
        scan: Option<bool>,
    ) -> Option<(LanePlan, ColumnLanes)> {
        let mut c = if scan.is_some() {
            ColumnLanes::of(lb, elem_size, 1)?
        } else {
            ColumnLanes::of_reduction(lb, elem_size, 1)?
        };
        let want_ty = c
            .vrows
            .div_ceil(COLUMN_ROWS)
            .next_power_of_two()
            .clamp(1, 8);
        c.tx = (LANES_BLOCK as u64 / want_ty).min(c.groups.next_power_of_two()) as u32;
        let tiles = c.tiles();
        let mut rows = COLUMN_ROWS;
        let mut ty = c.ty();
        let splits = if let Some(long_spans) = scan {
            // Spans of 32 KiB: the look-back chain sets the pace (one tile of thousands of
            // spans 0.15–0.34× copy on an H100, run 10); spans four times longer lifted every
            // case of several spans (run 13: 0.55 → 0.69 for one tile, 0.71 → 0.78 for 128).
            let long = long_spans
                && std::env::var("GPU_PRIMS_COLUMN_SCAN_SPANS").as_deref() != Ok("short");
            if c.spans() > 1 {
                if long {
                    rows = COLUMN_LONG_ROWS;
                    ty = (column_long_span_threads(tiles) / c.tx as u64).clamp(1, c.ty());
                } else if tiles < COLUMN_SCAN_MIN_TILES {
                    return None;
                }
            }
            // Span ids are 32-bit (one counter): more than 2^31 blocks take the lane kernels.
            if tiles.checked_mul(c.spans_in(rows, ty))? > i32::MAX as u64 {
                return None;
            }
            c.spans_in(rows, ty)
        } else if tiles < target_blocks {
            let most = c.vrows / (c.ty() * COLUMN_ROWS);
            (target_blocks / tiles).min(most).clamp(1, MAX_SPLITS)
        } else {
            1
        };
        let plan = Self::vector_columns_of(&c, elem_size, rows, ty, splits);
        Some((plan, c))
    }

    /// The `VectorColumns` plan of `c`'s lanes: `c.tx` groups across, `ty` threads down, `rows`
    /// vector rows per thread and step, `splits` along grid y.
    fn vector_columns_of(
        c: &ColumnLanes,
        elem_size: usize,
        rows: u64,
        ty: u64,
        splits: u64,
    ) -> LanePlan {
        LanePlan {
            access: LaneAccess::VectorColumns {
                groups_across: c.tx,
                lanes_per_vector: c.lanes_per_vector(elem_size) as u32,
                rows_per_thread: rows as u32,
                threads_down: ty as u32,
                prefetch: 0,
            },
            tiling: LaneTiling {
                group: 1,
                lanes_per_warp: 1,
                warps_per_lane: 1,
                unused: 0,
            },
            tiles: c.tiles(),
            splits: splits as u32,
        }
    }
}

/// Refuses an array whose strides make two different indices address one element (outputs
/// must not alias, and inputs that do are almost always a mistake). `what` names the argument.
pub fn check_no_alias(shape: &[usize], strides: &[isize], what: &'static str) -> Result<()> {
    if shape.contains(&0) {
        return Ok(());
    }
    let mut dims: Vec<(usize, usize)> = shape
        .iter()
        .zip(strides)
        .filter(|(&n, _)| n > 1)
        .map(|(&n, &s)| (s.unsigned_abs(), n))
        .collect();
    dims.sort_unstable();
    let mut span = 1usize; // elements covered by the smaller-stride axes so far
    for (stride, n) in dims {
        if stride < span {
            return Err(Error::invalid(
                what,
                format!("strides {strides:?} for shape {shape:?} address some elements twice"),
            ));
        }
        span = stride.saturating_mul(n);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    /// Every offset `j ≥ 1` belongs to exactly one tile: the one holding position
    /// `max(offsets[j], 1) - 1` (the segment's last value, or the start of an empty one).
    fn owner(o: u64, tile: u64) -> u64 {
        o.max(1).saturating_sub(1) / tile
    }

    /// The segment lane kernels (`gp::lanes_reduce` over segments) need every plan of segments
    /// to fit them (`LaneTiling::fits_segment_lanes`).
    #[test]
    fn segment_plans_are_powers_of_two_filling_a_warp() {
        for mean in (0..70)
            .map(|k| 1u64 << (k / 3))
            .chain([3, 15, 17, 1000, 1023, 4097])
        {
            for (count, items) in [(1u64, 16u32), (1000, 16), (1 << 20, 16), (5, 4), (7, 64)] {
                let t = LanePlan::segments(count, mean, 1056, items).tiling;
                assert!(
                    t.fits_segment_lanes(),
                    "mean {mean}, {count} segments, {items} items: {t:?}"
                );
            }
        }
    }

    quickcheck! {
        fn segment_tile_bounds_give_each_offset_one_owner(lens: Vec<u8>, tile: u8) -> bool {
            let tile = tile as u64 % 9 + 1;
            let mut offsets = vec![0u64];
            for l in &lens {
                offsets.push(offsets.last().unwrap() + (*l as u64 % 7));
            }
            let b = segment_tile_bounds(&offsets, tile);
            let len = *offsets.last().unwrap();
            if len == 0 {
                return b.is_empty();
            }
            let tiles = len.div_ceil(tile);
            if b.len() as u64 != tiles + 1 || b[0] != 1 || b[tiles as usize] != offsets.len() as u64 {
                return false;
            }
            (1..offsets.len()).all(|j| {
                let t = owner(offsets[j], tile);
                b[t as usize] <= j as u64 && (j as u64) < b[t as usize + 1]
            })
        }
    }
}
