//! Shaped reductions on the GPU: along an axis of an N-D array, and over segments. One kernel
//! family (`reduce_axis_*`, `reduce_segments_*`, over `gpu_prims/lanes.cuh`) for every shape;
//! the plan ([`LanePlan`]) picks how lanes map onto the GPU.

use gpu_core::{
    axis_lanes, kernel_args, AxisLanes, ColumnLanes, DeviceArray, DeviceArrayD, Element, Error,
    HostNd, Input, Kernel, LaneAccess, LaneBatches, LanePlan, LaneTiling, LaunchConfig,
    LongSegments, Op, Pod, Result, SegmentOffsets, SegmentPairLanes, Segments, ShapedInput,
    StatusLayout, Stream, LANES_BLOCK,
};
use ndarray::{ArrayD, Axis, IxDyn};

use super::engine::Desc;
use super::workspace::{with_pooled, Workspace};
use super::{desc_arg, desc_monoid, desc_op, desc_wide, Reduce};
use crate::algorithm::Operation;
use crate::kernels::REDUCE_PTX;
use crate::value::{DeviceMonoid, Extreme, Widen};

/// Elements each thread reads per step in the lane kernels over segments (the plan's unit):
/// four 16-byte vectors of 4-byte values, so that enough loads are in flight on medium rows.
const REDUCE_ITEMS: u32 = 16;
/// The same unit for axis lanes: two rounds of four vectors per thread before the lane's
/// threads combine. Rows of 1024 f32 took two warps each (one round) at 16 and read at
/// 0.76–0.83× copy on an H100; at 32 (a warp each) 0.88–0.99×, at 64 0.94–0.99×
/// (docs/shapes.md, run 14).
const AXIS_REDUCE_ITEMS: u32 = 32;

/// Threads per block of `reduce_segment_tiles_*` (its launch bound; 128 and 512 measured the
/// same on an H100).
const SEGMENT_TILES_BLOCK: u32 = 256;
/// Segments this long on average keep the lane kernels (a group, a warp or a block per
/// segment). Measured on an H100 (2^28 f32, docs/shapes.md run 12): lengths 1-8 ran at 0.71×
/// copy in segment tiles against 0.33× in the lane kernels, lengths 1-2000 at 0.69× against
/// 0.79×, 16 of 2^24 at 0.63× against 0.93×; the crossover between means of 4.5 and 1000 is not
/// measured yet.
const SEGMENT_TILES_MAX_MEAN: u64 = 128;

/// Overrides [`SEGMENT_TILES_MAX_MEAN`] for the process (read once): how the benchmarks measure
/// both paths at every length distribution. Not a stable interface.
pub const SEGMENT_TILES_MAX_MEAN_VAR: &str = "GPU_PRIMS_SEGMENT_TILES_MAX_MEAN";

/// The number in environment variable `var`, if it is set to one.
fn env_number<N: std::str::FromStr>(var: &str) -> Option<N> {
    std::env::var(var).ok().and_then(|v| v.parse().ok())
}

fn segment_tiles_max_mean() -> u64 {
    static MAX: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| env_number(SEGMENT_TILES_MAX_MEAN_VAR).unwrap_or(SEGMENT_TILES_MAX_MEAN))
}

/// Segments per block and bytes of dynamic shared memory (one staged chunk of the block's
/// values) of `reduce_segments_short_*` for accumulators of `value_size` bytes
/// (`gp::ShortSegmentsPolicyFor`: 256 threads × 8 segments in 48 KiB chunks for 4-byte
/// accumulators, × 4 in 32 KiB for wider ones).
fn short_segments_policy(value_size: usize) -> (u32, u32) {
    if value_size <= 4 {
        (2048, 49152)
    } else {
        (1024, 32768)
    }
}

/// Device values in segments shorter than this on average take a thread per segment
/// (`reduce_segments_short_*`) instead of the segment tiles, whose marking and segmented scans
/// cost more instructions per value than a few-value segment repays. Measured on an H200
/// (docs/shapes.md, run 21: f32, lengths uniform in 1-8 … 1-40): 0.49-0.56× copy in segment
/// tiles, 0.76-0.83× here, at every mean up to 20.5, the longest measured.
const SHORT_SEGMENTS_MAX_MEAN: u64 = 21;
/// The longest segment the short-segments kernel folds (one thread per segment, so a long one
/// would hold its block; and a block's positions are kept in 32 bits: 2048 segments of this
/// length stay far below 2^32). Longer ones are left out of its blocks and reduced by the lane
/// kernels (`reduce_segment_pairs_*`), their results then put in place.
const SHORT_SEGMENTS_MAX_LEN: u64 = 2048;
/// Long segments go to the lane kernels beside a short-segments run only where they are rare
/// (at least this many segments per long one) and long (at least SHORT_SEGMENTS_MIN_LONG_MEAN
/// on average); otherwise the segment tiles or the lane kernels take all. Measured on an H200
/// (f32 sums, 2^28 values, segments of 1-8 with every k-th segment L long, against the segment
/// tiles; docs/shapes.md, run 22): L = 4096 / 8192 / 16384 at k = 1000 0.53 → 0.66 / 0.72 /
/// 0.80× copy, L = 30000 at k = 250 / 500 / 1000 0.57 / 0.54 / 0.54 → 0.80 / 0.81 / 0.82; but
/// L = 2100 at k = 500 0.53 → 0.46 (lanes just past the limit). Below a mean of about 4096 or
/// more often than every 250th segment the rule is not measured, so the long ones are not split
/// out. (4000, not 4096: the benchmark's last segment is cut at the array's end, so its long ones
/// average just under L, and the rule at exactly 4096 missed the measured case.)
const SHORT_SEGMENTS_MIN_SHORT_PER_LONG: u64 = 250;
const SHORT_SEGMENTS_MIN_LONG_MEAN: u64 = 4000;

/// Override [`SHORT_SEGMENTS_MIN_SHORT_PER_LONG`] and [`SHORT_SEGMENTS_MIN_LONG_MEAN`] for the
/// process (read once; 0 lifts the limit): how the benchmarks place the rule. Not a stable
/// interface.
pub const SHORT_SEGMENTS_PER_LONG_VAR: &str = "GPU_PRIMS_SHORT_SEGMENTS_PER_LONG";
pub const SHORT_SEGMENTS_LONG_MEAN_VAR: &str = "GPU_PRIMS_SHORT_SEGMENTS_LONG_MEAN";

/// (segments per long one, mean long length) the plan asks of long segments beside short ones.
fn short_segments_long_rule() -> (u64, u64) {
    static RULE: std::sync::OnceLock<(u64, u64)> = std::sync::OnceLock::new();
    *RULE.get_or_init(|| {
        (
            env_number(SHORT_SEGMENTS_PER_LONG_VAR).unwrap_or(SHORT_SEGMENTS_MIN_SHORT_PER_LONG),
            env_number(SHORT_SEGMENTS_LONG_MEAN_VAR).unwrap_or(SHORT_SEGMENTS_MIN_LONG_MEAN),
        )
    })
}

/// Overrides [`SHORT_SEGMENTS_MAX_MEAN`] for the process (read once; 0 turns the kernel off):
/// how the benchmarks compare it with the segment tiles. Not a stable interface.
pub const SHORT_SEGMENTS_MAX_MEAN_VAR: &str = "GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN";

fn short_segments_max_mean() -> u64 {
    static MAX: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| env_number(SHORT_SEGMENTS_MAX_MEAN_VAR).unwrap_or(SHORT_SEGMENTS_MAX_MEAN))
}

/// Overrides [`REDUCE_ITEMS`] and [`AXIS_REDUCE_ITEMS`] for the process (read once): how the
/// benchmarks compare lane mappings (more items, fewer threads per lane). Not a stable
/// interface.
pub const REDUCE_LANE_ITEMS_VAR: &str = "GPU_PRIMS_REDUCE_LANE_ITEMS";

/// The lane plans' items per thread: `default`, unless [`REDUCE_LANE_ITEMS_VAR`] is set.
fn lane_items(default: u32) -> u32 {
    static ITEMS: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    ITEMS
        .get_or_init(|| env_number(REDUCE_LANE_ITEMS_VAR).filter(|&v: &u32| v > 0))
        .unwrap_or(default)
}

/// Resident waves of blocks the general axis kernel launches at most (it walks the other tiles
/// grid-stride). A block per tile (32768 blocks of 8 rows of 1024 f32) read at 0.94–0.96× copy on
/// an H100, four waves at 0.99–1.00: no block start and end per 32 KiB. Not for the segment lanes
/// (uneven tiles: 0.89 → 0.84 on segments of 1–2000) nor the vector columns (a block fold per
/// tile: 0.93–0.97 → 0.88–0.95), measured so.
const LANE_GRID_WAVES: u64 = 4;

/// Grid x of a general lane kernel's launch of `plan`: its tiles, at most
/// [`LANE_GRID_WAVES`] resident waves (with splits the tiles are fewer than one wave anyway).
fn lane_grid(plan: &LanePlan, kernel: &Kernel) -> Result<u32> {
    let most = (LANE_GRID_WAVES * kernel.lane_target_blocks()?).clamp(1, u32::MAX as u64);
    Ok(plan.grid_x().min(most as u32))
}

/// Values per thread of the segment-tiles kernels: 128 bytes of 4-byte accumulators, 64 bytes
/// of the others (`gp::ScanTileShape` of the accumulator).
fn segment_tile_items(value_size: usize) -> u32 {
    if value_size == 4 {
        32
    } else {
        (64 / value_size).max(1) as u32
    }
}

/// Dynamic shared memory of a segment-tiles reduction: the tile's accumulators with one spare
/// slot after every `items` (gp::segment_slot's spacing): 33 KiB for 4-byte values, 18–24 KiB for
/// wider ones (under the 48 KiB a launch gets without opting in, beside the kernel's 12–13 KiB
/// of static shared memory).
fn segment_tile_shared_bytes(tile: u32, items: u32, value_size: usize) -> u32 {
    let slots = if items > 1 { tile + tile / items } else { tile };
    slots * value_size as u32
}

/// Where a shaped reduction writes: `count` results of `size` bytes at `ptr`.
pub(super) struct Out {
    pub(super) ptr: u64,
    pub(super) size: usize,
}

/// A planned segment-tiles reduction ([`Reduce::segment_tiles_begin`]): its kernel, bounds
/// and zeroed status (counter, flags, aggregates, inclusives).
pub(super) struct SegmentTilesRun {
    kernel: Kernel,
    tile: u32,
    shared_bytes: u32,
    st: gpu_core::SegmentTiles,
    _bounds: std::sync::Arc<DeviceArray<u64>>,
    status: [u64; 4],
}

/// How an axis reduction maps its lanes onto the GPU: the kernel family and its plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AxisChoice {
    /// `reduce_packed_*`: rows of one contiguous array, a few per warp.
    Packed(LanePlan),
    /// `reduce_columns_*` (or `_short`): lanes side by side in 16-byte vectors.
    Columns(LanePlan, ColumnLanes),
    /// `reduce_axis_*`: any lanes.
    Lanes(LanePlan),
}

impl AxisChoice {
    /// The plan that runs.
    pub(super) fn plan(&self) -> LanePlan {
        match *self {
            AxisChoice::Packed(p) | AxisChoice::Columns(p, _) | AxisChoice::Lanes(p) => p,
        }
    }

    /// This choice's arithmetic for other lanes `lb` at `input` (elements of `size` bytes):
    /// the same kernel, mapping and splits per lane, the tiles counted for `lb`. `None` where
    /// `lb`'s lanes are not laid out alike (another length, vector shape or alignment). Two
    /// launches of one choice reduce every lane bit for bit alike, however many lanes each
    /// holds: how a pipelined reduction of a host array by chunks of whole slices keeps the
    /// one-shot results.
    pub(super) fn for_lanes(&self, lb: &LaneBatches, input: u64, size: usize) -> Option<Self> {
        match *self {
            AxisChoice::Packed(p) => {
                let q = LanePlan::packed_rows(lb, size).filter(|_| input % 16 == 0)?;
                (q.access == p.access).then_some(AxisChoice::Packed(q))
            }
            AxisChoice::Columns(p, c) => {
                let d = ColumnLanes::of_reduction(lb, size, c.tx).filter(|_| input % 16 == 0)?;
                let alike = (d.groups, d.vrows, d.vrow_stride, d.rv)
                    == (c.groups, c.vrows, c.vrow_stride, c.rv);
                alike.then_some(AxisChoice::Columns(
                    LanePlan {
                        tiles: d.tiles(),
                        ..p
                    },
                    d,
                ))
            }
            AxisChoice::Lanes(p) => {
                let q = LanePlan::new(&lb.lanes, 1, lane_items(AXIS_REDUCE_ITEMS));
                let alike = (q.access, q.tiling) == (p.access, p.tiling);
                alike.then_some(AxisChoice::Lanes(LanePlan {
                    tiles: q.tiles,
                    ..p
                }))
            }
        }
    }
}

impl Reduce<'_> {
    fn lane_kernel(&self, shape: &str, desc: &Desc) -> Result<Kernel> {
        self.gpu
            .kernel(&REDUCE_PTX, &format!("reduce_{shape}_{}", desc.kind))
    }

    /// The lane kernel of `shape` (`axis`, `segments`) that launches `plan`: its in-warp form
    /// where every lane lies within one warp in one split, compiled without the splits' merge
    /// and the warps' combine (H200: segments of 1-2000 0.82-0.84 -> 1.00x copy, rows of 1024
    /// 0.91-0.94 -> 0.98-1.01; docs/shapes.md, twelfth session).
    fn plan_lane_kernel(&self, shape: &str, plan: &LanePlan, desc: &Desc) -> Result<Kernel> {
        if plan.in_one_warp() {
            self.lane_kernel(&format!("{shape}_in_warp"), desc)
        } else {
            self.lane_kernel(shape, desc)
        }
    }

    /// Scratch for a launch of `plan` over `count` lanes: partials and zeroed per-tile
    /// counters, from `ws`. Returns (partials, counters) addresses (0 when not needed).
    fn lane_scratch(
        ws: &mut Workspace,
        plan: &LanePlan,
        count: u64,
        desc: &Desc,
        stream: &Stream,
    ) -> Result<(u64, u64)> {
        let (_, partials, counters) = Self::lane_scratch_after(ws, 0, plan, count, desc, stream)?;
        Ok((partials, counters))
    }

    /// [`lane_scratch`](Self::lane_scratch) after `results_bytes` (a multiple of 16) of the
    /// caller's: returns (results, partials, counters) addresses (0 when not needed).
    fn lane_scratch_after(
        ws: &mut Workspace,
        results_bytes: usize,
        plan: &LanePlan,
        count: u64,
        desc: &Desc,
        stream: &Stream,
    ) -> Result<(u64, u64, u64)> {
        if plan.splits <= 1 {
            let results = if results_bytes > 0 {
                ws.scratch(results_bytes, stream)?
            } else {
                0
            };
            return Ok((results, 0, 0));
        }
        let partial_bytes = (plan.splits as u64 * count) as usize * desc.value_size;
        let partial_bytes = partial_bytes.next_multiple_of(16);
        let counter_bytes = plan.grid_x() as usize * 4;
        let base = ws.scratch(results_bytes + partial_bytes + counter_bytes, stream)?;
        let partials = base + results_bytes as u64;
        let counters = partials + partial_bytes as u64;
        ws.fill_bytes(counters, counter_bytes, 0, stream)?;
        Ok((base, partials, counters))
    }

    /// How `desc` maps the lanes `lb` of the input at `input` onto the GPU: packed rows,
    /// vector columns, or the general lane kernel.
    pub(super) fn choose_axis(
        &self,
        input: u64,
        lb: &LaneBatches,
        desc: &Desc,
    ) -> Result<AxisChoice> {
        if let Some(plan) = Self::packed_plan(lb, desc, input) {
            return Ok(AxisChoice::Packed(plan));
        }
        if let Some((plan, columns)) = self.columns_plan(lb, desc, input)? {
            return Ok(AxisChoice::Columns(plan, columns));
        }
        let kernel = self.lane_kernel("axis", desc)?;
        Ok(AxisChoice::Lanes(LanePlan::new(
            &lb.lanes,
            kernel.lane_target_blocks()?,
            lane_items(AXIS_REDUCE_ITEMS),
        )))
    }

    /// Enqueues `desc` along the lanes `lb` of the input at `input` into `out` (row-major over
    /// the lanes), with the pooled or given workspace; returns the plan.
    pub(super) fn enqueue_axis(
        &self,
        input: u64,
        lb: &LaneBatches,
        desc: &Desc,
        out: &Out,
        ws: &mut Workspace,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let choice = self.choose_axis(input, lb, desc)?;
        self.enqueue_choice(&choice, input, lb, desc, out, ws, stream)
    }

    /// Enqueues `desc` along the lanes `lb` at `input` as `choice` maps them (from
    /// [`choose_axis`](Self::choose_axis) for these lanes, or [`AxisChoice::for_lanes`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enqueue_choice(
        &self,
        choice: &AxisChoice,
        input: u64,
        lb: &LaneBatches,
        desc: &Desc,
        out: &Out,
        ws: &mut Workspace,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let plan = match *choice {
            AxisChoice::Packed(plan) => {
                return self.enqueue_packed(input, lb, desc, out, plan, stream)
            }
            AxisChoice::Columns(plan, columns) => {
                return self.enqueue_columns(input, lb, desc, out, (plan, columns), ws, stream)
            }
            AxisChoice::Lanes(plan) => plan,
        };
        let kernel = self.plan_lane_kernel("axis", &plan, desc)?;
        if lb.total_lanes() == 0 {
            return Ok(plan);
        }
        ws.begin(stream)?;
        let r = (|| {
            let (partials, counters) = Self::lane_scratch(ws, &plan, lb.lanes.count, desc, stream)?;
            let config = LaunchConfig::new(lane_grid(&plan, &kernel)?, LANES_BLOCK);
            for (b, &base) in lb.batches.iter().enumerate() {
                let in_ptr = offset_ptr(input, base, desc.input_size)?;
                let out_ptr = out.ptr + (b as u64 * lb.lanes.count) * out.size as u64;
                let (lanes, tiling): (AxisLanes, LaneTiling) = (lb.lanes, plan.tiling);
                // SAFETY: reduce_axis[_in_warp]_<kind>(const In* in, gp::AxisLanes lanes,
                // gp::LaneTiling tiling, Out* out, V* partials, unsigned* counters) matches
                // (u64, AxisLanes, LaneTiling, u64, u64, u64): both structs are #[repr(C)]
                // copies of the CUDA ones. Every element the lanes address lies inside the
                // staged input (its shape and strides were checked when it was built); `out`
                // holds `count` results of this batch; with splits > 1, `partials` holds
                // splits × count values and `counters` grid_x zeroed words (scratch sized
                // above, alive in the workspace, launches ordered on one stream). The in-warp
                // form only for plans with one split and warps_per_lane 1.
                unsafe {
                    kernel.launch_2d(
                        config,
                        plan.splits,
                        stream,
                        &kernel_args![in_ptr, lanes, tiling, out_ptr, partials, counters],
                    )?;
                }
            }
            Ok(())
        })();
        ws.end(stream)?;
        r.map(|()| plan)
    }

    /// The packed-rows plan for lanes `lb` of the input at `input`, where it applies: rows of
    /// one contiguous, 16-byte aligned array, any operator but the monoids (whose kernels
    /// keep one ordered path).
    fn packed_plan(lb: &LaneBatches, desc: &Desc, input: u64) -> Option<LanePlan> {
        if desc.operation == Operation::Monoid || input % 16 != 0 {
            return None;
        }
        LanePlan::packed_rows(lb, desc.input_size)
    }

    /// Enqueues the packed-rows kernel of `plan` (from [`packed_plan`](Self::packed_plan)).
    fn enqueue_packed(
        &self,
        input: u64,
        lb: &LaneBatches,
        desc: &Desc,
        out: &Out,
        plan: LanePlan,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let LaneAccess::PackedRows { log2_len } = plan.access else {
            return Err(Error::invalid("plan", "not a packed-rows plan"));
        };
        let kernel = self
            .gpu
            .kernel(&REDUCE_PTX, &format!("reduce_packed_{}", desc.kind))?;
        let config = LaunchConfig::new(plan.grid_x(), LANES_BLOCK);
        let (count, out_ptr) = (lb.lanes.count, out.ptr);
        // SAFETY: reduce_packed_<kind>(const In* in, u64 count, u32 log2n, Out* out) matches
        // (u64, u64, u32, u64). packed_rows checked that the lanes are the count rows of
        // 2^log2n elements of one contiguous array from `input` (16-byte aligned, checked),
        // which lies inside the staged input; `out` holds `count` results.
        unsafe {
            kernel.launch(
                config,
                stream,
                &kernel_args![input, count, log2_len, out_ptr],
            )?;
        }
        Ok(plan)
    }

    /// The vector-columns plan for lanes `lb` of the input at `input`, where it applies:
    /// lanes side by side in 16-byte aligned vectors (`ColumnLanes::of_reduction`), any
    /// operator but the monoids.
    fn columns_plan(
        &self,
        lb: &LaneBatches,
        desc: &Desc,
        input: u64,
    ) -> Result<Option<(LanePlan, ColumnLanes)>> {
        // Vectors of four rows (two 16-bit lanes) for values alone: the index kernels do not
        // take them (a third loop would need more shared memory than a block has).
        let four_rows = !matches!(desc.operation, Operation::ArgMin | Operation::ArgMax);
        let fits = |c: &ColumnLanes| c.rv <= 2 || four_rows;
        if desc.operation == Operation::Monoid
            || input % 16 != 0
            || !ColumnLanes::of_reduction(lb, desc.input_size, 1).is_some_and(|c| fits(&c))
        {
            return Ok(None);
        }
        let kernel = self.lane_kernel("columns", desc)?;
        let target = kernel.lane_target_blocks()?;
        // Lanes many enough to fill the GPU a thread each: the thread-per-group kernel (where
        // it exists, as enqueue_columns).
        if Self::has_columns_short(desc) {
            if let Some(planned) = LanePlan::thread_columns(lb, desc.input_size, target) {
                return Ok(Some(planned));
            }
        }
        Ok(LanePlan::vector_columns(lb, desc.input_size, target, false).filter(|(_, c)| fits(c)))
    }

    /// Whether the thread-per-lane-group columns kernel (`reduce_columns_short_*`) exists for
    /// `desc`: a built-in operator over values read as they are stored, or over 16-bit floats
    /// in f32 (not indices, widening sums or monoids).
    fn has_columns_short(desc: &Desc) -> bool {
        matches!(desc.operation, Operation::Op(_))
            && (desc.input_size == desc.value_size || desc.input_size == 2)
    }

    /// Enqueues the vector-columns kernel of `planned` (from [`columns_plan`](Self::columns_plan)).
    #[allow(clippy::too_many_arguments)]
    fn enqueue_columns(
        &self,
        input: u64,
        lb: &LaneBatches,
        desc: &Desc,
        out: &Out,
        planned: (LanePlan, ColumnLanes),
        ws: &mut Workspace,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let (plan, columns) = planned;
        // Lanes of a thread each (a few vector rows, or many lanes: thread_columns): the
        // short kernel, which keeps a step's rows in flight and has no block work (vectors of
        // four rows, two 16-bit lanes, only the general kernel takes).
        if Self::has_columns_short(desc) && plan.splits == 1 && columns.ty() == 1 && columns.rv <= 2
        {
            let kernel = self.lane_kernel("columns_short", desc)?;
            let config = LaunchConfig::new(columns.short_reduce_blocks() as u32, LANES_BLOCK);
            for (b, &base) in lb.batches.iter().enumerate() {
                let in_ptr = offset_ptr(input, base, desc.input_size)?;
                let out_ptr = out.ptr + (b as u64 * lb.lanes.count) * out.size as u64;
                // SAFETY: reduce_columns_short_<kind>(const In* in, gp::ColumnLanes c, V* out)
                // matches (u64, ColumnLanes, u64); the arrays as for the general kernel
                // below (the same checks), one thread down as the kernel requires (it walks
                // each lane's vector rows itself); no scratch.
                unsafe {
                    kernel.launch(config, stream, &kernel_args![in_ptr, columns, out_ptr])?;
                }
            }
            return Ok(plan);
        }
        let kernel = self.lane_kernel("columns", desc)?;
        ws.begin(stream)?;
        let r = (|| {
            let (partials, counters) = Self::lane_scratch(ws, &plan, lb.lanes.count, desc, stream)?;
            let config = LaunchConfig::new(plan.grid_x(), LANES_BLOCK);
            for (b, &base) in lb.batches.iter().enumerate() {
                let in_ptr = offset_ptr(input, base, desc.input_size)?;
                let out_ptr = out.ptr + (b as u64 * lb.lanes.count) * out.size as u64;
                // SAFETY: reduce_columns_<kind>(const In* in, gp::ColumnLanes c, Out* out, V*
                // partials, unsigned* counters) matches (u64, ColumnLanes, u64, u64, u64), the
                // struct a #[repr(C)] copy of the CUDA one. ColumnLanes::of_reduction checked that every
                // vector it addresses is a 16-byte aligned run of the lanes' elements given the
                // aligned base (input checked, batch offsets multiples of the vector width),
                // all inside the staged input (checked shape and strides); `out` holds `count`
                // results of this batch; partials and counters as in enqueue_axis.
                unsafe {
                    kernel.launch_2d(
                        config,
                        plan.splits,
                        stream,
                        &kernel_args![in_ptr, columns, out_ptr, partials, counters],
                    )?;
                }
            }
            Ok(())
        })();
        ws.end(stream)?;
        r.map(|()| plan)
    }

    /// The plan of `desc` over `segments`: a thread per segment where device values lie in
    /// short segments (none long, or a few long ones, which the lane kernels then take apart:
    /// SHORT_SEGMENTS_MIN_SHORT_PER_LONG), segment tiles unless the segments are very long on
    /// average (or there are no values), the lane kernels otherwise. `host_values`: the values
    /// come from host memory, where segment tiles are taken at every length: the host pipeline
    /// streams whole tiles, and its one-shot fallback (small inputs, a busy staging) must give
    /// the same float bits, while the link, not the kernel, sets the speed.
    pub(super) fn plan_segments(
        &self,
        segments: &Segments,
        desc: &Desc,
        host_values: bool,
    ) -> Result<LanePlan> {
        let len = segments.values_len() as u64;
        if len > 0 && !host_values {
            // Short segments, none long: one kernel. Some long ones among many short: those to
            // the lane kernels, provided they are few (a few long segments alone read faster
            // by the lane kernels or the tiles without the short kernel's pass).
            // The rule is weighed on host counts; only a plan that takes the kernel lays the
            // blocks out (and uploads them, once per `Segments`).
            let per_block = short_segments_policy(desc.value_size).0;
            let count = segments.count() as u64;
            let (long, long_values) = segments.longer_than(SHORT_SEGMENTS_MAX_LEN);
            let short_mean = (len - long_values).checked_div(count - long).unwrap_or(0);
            let (per_long, long_mean) = short_segments_long_rule();
            let long_ok = long == 0
                || (long.saturating_mul(per_long) <= count && long_values / long >= long_mean);
            if short_mean < short_segments_max_mean() && long_ok {
                let layout = segments.short_layout(SHORT_SEGMENTS_MAX_LEN, per_block)?;
                debug_assert_eq!(layout.long.as_ref().map_or(0, |l| l.count), long);
                return Ok(LanePlan::short_segments(layout.blocks, per_block, long));
            }
        }
        if len > 0 && (host_values || segments.mean_len() < segment_tiles_max_mean()) {
            let tile = SEGMENT_TILES_BLOCK * segment_tile_items(desc.value_size);
            return Ok(LanePlan::segment_tiles(len, tile));
        }
        let kernel = self.lane_kernel("segments", desc)?;
        Ok(LanePlan::segments(
            segments.count() as u64,
            segments.mean_len(),
            kernel.lane_target_blocks()?,
            lane_items(REDUCE_ITEMS),
        ))
    }

    /// Enqueues `desc` over `segments` of the values at `input` (uploaded from host memory:
    /// `host_values`, see [`plan_segments`](Self::plan_segments)) into `out`.
    #[allow(clippy::too_many_arguments)]
    fn enqueue_segments(
        &self,
        input: u64,
        segments: &Segments,
        desc: &Desc,
        host_values: bool,
        out: &Out,
        ws: &mut Workspace,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let plan = self.plan_segments(segments, desc, host_values)?;
        if let LaneAccess::SegmentTiles { tile, .. } = plan.access {
            return self.enqueue_segment_tiles(
                input,
                segments,
                desc,
                out,
                (plan, tile),
                ws,
                stream,
            );
        }
        if let LaneAccess::ShortSegments { .. } = plan.access {
            self.launch_short_segments(input, segments, desc, out, &plan, ws, stream)?;
            return Ok(plan);
        }
        let kernel = self.plan_lane_kernel("segments", &plan, desc)?;
        let count = segments.count() as u64;
        if count == 0 {
            return Ok(plan);
        }
        ws.begin(stream)?;
        let r = (|| {
            let (partials, counters) = Self::lane_scratch(ws, &plan, count, desc, stream)?;
            debug_assert!(plan.tiling.fits_segment_lanes(), "{plan}");
            let config = LaunchConfig::new(plan.grid_x(), LANES_BLOCK);
            let lanes = segments.lanes();
            let (tiling, out_ptr) = (plan.tiling, out.ptr);
            // SAFETY: reduce_segments[_in_warp]_<kind>(const In* in, gp::SegmentLanes lanes,
            // gp::LaneTiling tiling, Out* out, V* partials, unsigned* counters) matches
            // (u64, SegmentLanes, LaneTiling, u64, u64, u64), #[repr(C)] copies of the CUDA
            // structs. The offsets were checked (non-decreasing, last = the staged input's
            // length) when `segments` was built and matched against this input's length;
            // `out` holds `count` results; scratch as in enqueue_axis. The in-warp form is
            // launched only for plans with warps_per_lane 1 and one split (grid y 1), the
            // only ones it computes right.
            unsafe {
                kernel.launch_2d(
                    config,
                    plan.splits,
                    stream,
                    &kernel_args![input, lanes, tiling, out_ptr, partials, counters],
                )?;
            }
            Ok(())
        })();
        ws.end(stream)?;
        r.map(|()| plan)
    }

    /// Launches the short-segments reduction (`plan` from
    /// [`plan_segments`](Self::plan_segments), at least one segment): the blocks of short
    /// segments in one pass, then any long ones by the lane kernels into `ws`'s scratch and
    /// from there into place.
    #[allow(clippy::too_many_arguments)]
    fn launch_short_segments(
        &self,
        input: u64,
        segments: &Segments,
        desc: &Desc,
        out: &Out,
        plan: &LanePlan,
        ws: &mut Workspace,
        stream: &Stream,
    ) -> Result<()> {
        let (per_block, stage_bytes) = short_segments_policy(desc.value_size);
        let layout = segments.short_layout(SHORT_SEGMENTS_MAX_LEN, per_block)?;
        debug_assert_eq!(plan.tiles, layout.blocks);
        let lanes = segments.lanes();
        let n = segments.values_len() as u64;
        let out_ptr = out.ptr;
        if layout.blocks > 0 {
            let kernel = self
                .gpu
                .kernel(&REDUCE_PTX, &format!("reduce_segments_short_{}", desc.kind))?;
            let grid = layout.blocks.min(self.gpu.properties().max_grid_x as u64) as u32;
            let config = LaunchConfig::new(grid, LANES_BLOCK).with_shared_bytes(stage_bytes);
            let ranges = layout.ranges.as_ref().map_or(0, |r| r.device_ptr());
            let blocks = layout.blocks;
            // SAFETY: reduce_segments_short_<kind>(const In* in, gp::SegmentLanes lanes, u64 n,
            // const u64* ranges, u64 blocks, Out* out) matches (u64, SegmentLanes, u64, u64,
            // u64, u64), SegmentLanes a #[repr(C)] copy of the CUDA struct. The offsets were
            // checked (non-decreasing, first 0, last = n = the input's length) when `segments`
            // was built and matched against this input; `ranges` (null: fixed blocks of
            // per_block segments) holds `blocks` pairs of segment indices, each at most
            // per_block segments none longer than SHORT_SEGMENTS_MAX_LEN, so a block's values
            // number fewer than 2^32 (the kernel's positions are 32-bit), and it lives in the
            // layout cached in `segments` until the launch is done; the dynamic shared memory
            // is the chunk of gp::ShortSegmentsPolicyFor<V> (48 KiB at most: no opt-in); each
            // block reads values below n only and writes out[j] for its segments j < count,
            // which `out` holds; blocks past the grid are walked grid-stride.
            unsafe {
                kernel.launch(
                    config,
                    stream,
                    &kernel_args![input, lanes, n, ranges, blocks, out_ptr],
                )?;
            }
        }
        let Some(long) = layout.long.as_ref() else {
            return Ok(());
        };
        self.launch_long_segments(input, long, desc, out, ws, stream)
    }

    /// Reduces the `long` segments of a short-segments run with the lane kernels (a group,
    /// warps or a block per segment) into `ws`'s scratch, then puts each result at its
    /// segment's index in `out`.
    fn launch_long_segments(
        &self,
        input: u64,
        long: &LongSegments,
        desc: &Desc,
        out: &Out,
        ws: &mut Workspace,
        stream: &Stream,
    ) -> Result<()> {
        let kernel = self.lane_kernel("segment_pairs", desc)?;
        let plan = LanePlan::segments(
            long.count,
            long.mean_len,
            kernel.lane_target_blocks()?,
            lane_items(REDUCE_ITEMS),
        );
        // Scratch: the results in pair order, then the split partials and counters.
        let results_bytes = (long.count as usize * out.size).next_multiple_of(16);
        ws.begin(stream)?;
        let r = (|| {
            let (results, partials, counters) =
                Self::lane_scratch_after(ws, results_bytes, &plan, long.count, desc, stream)?;
            let lanes = SegmentPairLanes {
                pairs: long.pairs.device_ptr(),
                count: long.count,
            };
            let tiling = plan.tiling;
            debug_assert!(tiling.fits_segment_lanes(), "{plan}");
            let config = LaunchConfig::new(plan.grid_x(), LANES_BLOCK);
            // SAFETY: reduce_segment_pairs_<kind>(const In* in, gp::SegmentPairLanes lanes,
            // gp::LaneTiling tiling, Out* out, V* partials, unsigned* counters) matches (u64,
            // SegmentPairLanes, LaneTiling, u64, u64, u64), #[repr(C)] copies of the CUDA
            // structs. The pairs are [start, end) of segments of checked offsets of this input
            // (alive in the layout cached in the caller's `segments`); the results go to the
            // scratch's first `count` slots of the output size, the partials and counters
            // (the counters zeroed) after them, from lane_scratch_after.
            unsafe {
                kernel.launch_2d(
                    config,
                    plan.splits,
                    stream,
                    &kernel_args![input, lanes, tiling, results, partials, counters],
                )?;
            }
            let words = out.size / 4;
            let scatter = self
                .gpu
                .kernel(&REDUCE_PTX, &format!("reduce_scatter_w{words}"))?;
            let grid = long.count.div_ceil(LANES_BLOCK as u64).clamp(1, 65_535) as u32;
            let (list, count, dst) = (long.list.device_ptr(), long.count, out.ptr);
            // SAFETY: reduce_scatter_w<W>(const u32* src, const u64* list, u64 count, u32* dst)
            // matches (u64, u64, u64, u64); W = out.size / 4 (outputs are 4, 8, 16 or 32
            // bytes, a whole number of words); `src` holds `count` results just written on this
            // stream, `list` the `count` segment indices (each < the segments' count, which
            // `out` holds); grid-stride over the rest.
            unsafe {
                scatter.launch(
                    LaunchConfig::new(grid, LANES_BLOCK),
                    stream,
                    &kernel_args![results, list, count, dst],
                )
            }
        })();
        ws.end(stream)?;
        r
    }

    /// Enqueues the segment-tiles reduction (`plan` from [`plan_segments`](Self::plan_segments)).
    #[allow(clippy::too_many_arguments)]
    fn enqueue_segment_tiles(
        &self,
        input: u64,
        segments: &Segments,
        desc: &Desc,
        out: &Out,
        (plan, tile): (LanePlan, u32),
        ws: &mut Workspace,
        stream: &Stream,
    ) -> Result<LanePlan> {
        ws.begin(stream)?;
        let r = (|| {
            let run = self.segment_tiles_begin(segments, desc, (plan, tile), ws, stream)?;
            self.segment_tiles_launch(&run, input, out.ptr, plan.tiles, stream)
        })();
        ws.end(stream)?;
        r.map(|()| plan)
    }

    /// Plans a segment-tiles reduction and zeroes its tile counter and status in `ws`'s
    /// scratch on `stream` (inside a use of `ws` begun on that stream); the tiles then run in
    /// one or more [`segment_tiles_launch`](Self::segment_tiles_launch) launches on it.
    pub(super) fn segment_tiles_begin(
        &self,
        segments: &Segments,
        desc: &Desc,
        (plan, tile): (LanePlan, u32),
        ws: &mut Workspace,
        stream: &Stream,
    ) -> Result<SegmentTilesRun> {
        let kernel = self
            .gpu
            .kernel(&REDUCE_PTX, &format!("reduce_segment_tiles_{}", desc.kind))?;
        self.segment_grid(plan.tiles, tile)?;
        // Zeroed before each launch: the kernels read it as the epoch-tagged status of run 1.
        let layout = StatusLayout::epoch(plan.tiles, desc.value_size)?;
        // The bounds stay cached in `segments` (and alive with it) for later calls.
        let (st, bounds) = segments.tiles(tile as u64)?;
        let shared_bytes =
            segment_tile_shared_bytes(tile, segment_tile_items(desc.value_size), desc.value_size);
        let base = ws.scratch(layout.total_bytes, stream)?;
        ws.fill_bytes(base, layout.zero_bytes, 0, stream)?;
        let at = |offset: usize| base + offset as u64;
        Ok(SegmentTilesRun {
            kernel,
            tile,
            shared_bytes,
            st,
            _bounds: bounds,
            status: [
                at(layout.counter),
                layout.flags.map_or(0, at),
                at(layout.aggregates),
                at(layout.inclusives),
            ],
        })
    }

    /// One launch's grid of `tiles` tiles of `tile` values, or the error naming the limit.
    fn segment_grid(&self, tiles: u64, tile: u32) -> Result<u32> {
        u32::try_from(tiles)
            .ok()
            .filter(|&g| g <= self.gpu.properties().max_grid_x)
            .ok_or_else(|| {
                Error::invalid(
                    "values",
                    format!("{tiles} tiles of {tile} values exceed one launch's grid"),
                )
            })
    }

    /// Launches the next `tiles` tiles of `run` (the first ones, or those after the previous
    /// launch's on the same stream) over the values at `input` (an address standing for value
    /// 0) into the per-segment results at `out`.
    pub(super) fn segment_tiles_launch(
        &self,
        run: &SegmentTilesRun,
        input: u64,
        out: u64,
        tiles: u64,
        stream: &Stream,
    ) -> Result<()> {
        let config = LaunchConfig::new(self.segment_grid(tiles, run.tile)?, SEGMENT_TILES_BLOCK)
            .with_shared_bytes(run.shared_bytes);
        let st = run.st;
        let [counter, flags, aggs, incs] = run.status;
        // SAFETY: reduce_segment_tiles_<kind>(const In* in, gp::SegmentTiles st, Out* out,
        // u32* counter, u32* flags, void* aggs, void* incs) matches (u64, SegmentTiles,
        // u64, u64, u64, u64, u64), SegmentTiles a #[repr(C)] copy of the CUDA struct. The
        // offsets were checked against the values' length when the segments were built, and
        // the bounds (alive in `run`) computed from them for tiles of `tile` values = 256
        // threads × the kernel's items per thread (segment_tile_items mirrors
        // gp::ScanTileShape); each block takes the next tile from the counter and reads only
        // that tile's values, which the caller has placed at `input` + position (the whole
        // array, or a pipeline chunk holding exactly this launch's tiles); `out` holds one
        // result per segment; the dynamic shared memory holds one accumulator per value of a
        // tile; the scratch holds the counter and status of all the run's tiles as
        // StatusLayout lays them out, zeroed by `segment_tiles_begin` on this stream.
        unsafe {
            run.kernel.launch(
                config,
                stream,
                &kernel_args![input, st, out, counter, flags, aggs, incs],
            )
        }
    }

    /// Runs `desc` along `axis` of `x` into a new device array of `V` (results in row-major
    /// order of the array without `axis`); returns it with the result shape and the plan.
    fn axis_device<T: Pod, V: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        desc: &Desc,
    ) -> Result<(DeviceArray<V>, Vec<usize>, u64, LanePlan)> {
        self.settings().validate(desc.operation)?;
        let staged = x.stage_nd(&self.gpu)?;
        let lb = axis_lanes(staged.shape(), staged.strides(), axis.0)?;
        let mut shape = staged.shape().to_vec();
        shape.remove(axis.0);
        let out = self.gpu.alloc::<V>(lb.total_lanes() as usize)?;
        let stream = self.launch_stream();
        let plan = with_pooled(&self.gpu, |ws| {
            let o = Out {
                ptr: out.device_ptr(),
                size: std::mem::size_of::<V>(),
            };
            let plan = self.enqueue_axis(staged.device_ptr(), &lb, desc, &o, ws, stream)?;
            stream.synchronize()?;
            Ok(plan)
        })?;
        Ok((out, shape, lb.lanes.len, plan))
    }

    fn axis_host<T: Pod, V: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        desc: &Desc,
    ) -> Result<(ArrayD<V>, u64)> {
        let host = x.host_for_pipeline(&|bytes| self.takes_pipeline(bytes));
        self.axis_host_from(x, host.as_ref(), axis, desc)
    }

    /// [`axis_host`](Self::axis_host) with the input's host memory for the pipeline, if any,
    /// already found.
    fn axis_host_from<T: Pod, V: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        host: Option<&HostNd<'_, T>>,
        axis: Axis,
        desc: &Desc,
    ) -> Result<(ArrayD<V>, u64)> {
        if let Some(host) = host {
            if let Some(a) = self.axis_host_pipelined::<T, V>(host, axis.0, desc)? {
                return Ok((a, host.shape[axis.0] as u64));
            }
        }
        let (out, shape, len, _) = self.axis_device::<T, V, I>(x, axis, desc)?;
        Ok((to_array(out.to_vec()?, &shape)?, len))
    }

    /// `op` along `axis` of `x`: an array with that axis removed, each element the reduction
    /// of its lane (the identity for a zero-length axis, min and max included, as the 1-D
    /// [`reduce`](Reduce::reduce); [`min_axis`](Self::min_axis) and [`max_axis`](Self::max_axis) refuse one). `x` is any ndarray array or view (any
    /// layout and strides) or a [`DeviceArrayD`]. Same semantics as
    /// [`cpu::reduce_axis`](crate::cpu::reduce_axis).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// use gpu_reduce::Reduce;
    /// use ndarray::{array, Axis};
    /// let gpu = Gpu::default_device()?;
    /// let x = array![[1, 2, 3], [4, 5, 6]];
    /// let r = Reduce::new(&gpu);
    /// assert_eq!(r.reduce_axis(&x, Axis(1), Op::Sum)?, array![6, 15].into_dyn());
    /// assert_eq!(r.max_axis(&x.t(), Axis(1))?, array![4, 5, 6].into_dyn());
    /// assert_eq!(r.argmin_axis(&x, Axis(0))?, array![0usize, 0, 0].into_dyn());
    /// # Ok(()) }
    /// ```
    pub fn reduce_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
    ) -> Result<ArrayD<T::Accumulator>> {
        Ok(self
            .axis_host::<T, T::Accumulator, I>(x, axis, &desc_op::<T>(op)?)?
            .0)
    }

    /// min/max along `axis`, refusing a zero-length axis unless the result is empty.
    fn extreme_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
    ) -> Result<ArrayD<T>> {
        let (out, len) = self.axis_host::<T, T::Accumulator, I>(x, axis, &desc_op::<T>(op)?)?;
        if len == 0 && !out.is_empty() {
            return Err(empty_axis(op.name()));
        }
        // Exact (min/max of f16 and bf16 computed in f32); no copy when the types are equal.
        Ok(out.mapv_into_any(T::from_accumulator))
    }

    /// The sums along `axis` (wrapping for integers; f32 for f16 and bf16), as ndarray's
    /// `sum_axis`.
    pub fn sum_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<T::Accumulator>> {
        self.reduce_axis(x, axis, Op::Sum)
    }

    /// The products along `axis` (wrapping for integers; f32 for f16 and bf16).
    pub fn product_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<T::Accumulator>> {
        self.reduce_axis(x, axis, Op::Product)
    }

    /// The minima along `axis` (NaN if a lane has one). A zero-length axis is an error unless
    /// the result is empty (numpy's rule).
    pub fn min_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<T>> {
        self.extreme_axis(x, axis, Op::Min)
    }

    /// The maxima along `axis` (NaN if a lane has one); zero-length axis as [`min_axis`](Self::min_axis).
    pub fn max_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<T>> {
        self.extreme_axis(x, axis, Op::Max)
    }

    fn arg_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        which: Extreme,
    ) -> Result<ArrayD<usize>> {
        let desc = desc_arg::<T>(which);
        let host = x.host_for_pipeline(&|bytes| self.takes_pipeline(bytes));
        if let Some(host) = &host {
            if let Some(out) = self.outer_axis_arg_pipelined(host, axis.0, which, &desc)? {
                return checked_indices(out, host.shape[axis.0] as u64);
            }
        }
        let (out, len) = self.axis_host_from::<T, u64, I>(x, host.as_ref(), axis, &desc)?;
        if len == 0 && !out.is_empty() {
            return Err(empty_axis(which.kernel_op()));
        }
        checked_indices(out, len)
    }

    /// The index along `axis` of each lane's first smallest element (of its first NaN if it
    /// has one). A zero-length axis is an error unless the result is empty.
    pub fn argmin_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<usize>> {
        self.arg_axis(x, axis, Extreme::Min)
    }

    /// [`argmin_axis`](Self::argmin_axis) for the largest element.
    pub fn argmax_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<usize>> {
        self.arg_axis(x, axis, Extreme::Max)
    }

    /// `op` (sum or product) along `axis`, accumulated in the wider type.
    pub fn reduce_axis_wide<T: Widen, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
    ) -> Result<ArrayD<T::Wide>> {
        Ok(self
            .axis_host::<T, T::Wide, I>(x, axis, &desc_wide::<T>(op))?
            .0)
    }

    /// The in-order product of a non-commutative monoid along `axis` (the identity for a
    /// zero-length axis).
    pub fn reduce_axis_monoid<M: DeviceMonoid, I: ShapedInput<M> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<M>> {
        Ok(self.axis_host::<M, M, I>(x, axis, &desc_monoid::<M>())?.0)
    }

    /// `op` along `axis` of `x` into `out`, a row-major device array of `x`'s shape without
    /// `axis`, with the scratch of `ws`; returns the plan that ran. With a
    /// [`stream`](Reduce::stream) set and device-resident `x` it only enqueues (keep `x`, `out`
    /// and `ws` alive until the stream has run); otherwise it waits. A zero-length axis leaves
    /// the identity (min/max: the type's extreme) in `out`.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{DeviceArrayD, Gpu, Op};
    /// use gpu_reduce::{Reduce, Workspace};
    /// use ndarray::Axis;
    /// let gpu = Gpu::default_device()?;
    /// let x = DeviceArrayD::from_array(&gpu, &ndarray::Array2::<f32>::ones((4096, 64)))?;
    /// let (mut out, mut ws) = (DeviceArrayD::zeros(&gpu, &[64])?, Workspace::new(&gpu)?);
    /// let plan = Reduce::new(&gpu).reduce_axis_into(&x, Axis(0), Op::Sum, &mut out, &mut ws)?;
    /// println!("{plan}");   // columns, 64 side by side, 1 tile(s) × … split(s)
    /// # Ok(()) }
    /// ```
    pub fn reduce_axis_into<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
        out: &mut DeviceArrayD<T::Accumulator>,
        ws: &mut Workspace,
    ) -> Result<LanePlan> {
        self.axis_into(x, axis, &desc_op::<T>(op)?, out, ws)
    }

    /// [`argmin_axis`](Self::argmin_axis) into a device array of indices (`u64`; `u64::MAX`
    /// for the lanes of a zero-length axis).
    pub fn argmin_axis_into<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        out: &mut DeviceArrayD<u64>,
        ws: &mut Workspace,
    ) -> Result<LanePlan> {
        self.axis_into(x, axis, &desc_arg::<T>(Extreme::Min), out, ws)
    }

    /// [`argmax_axis`](Self::argmax_axis) into a device array of indices.
    pub fn argmax_axis_into<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        out: &mut DeviceArrayD<u64>,
        ws: &mut Workspace,
    ) -> Result<LanePlan> {
        self.axis_into(x, axis, &desc_arg::<T>(Extreme::Max), out, ws)
    }

    fn axis_into<T: Pod, V: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        desc: &Desc,
        out: &mut DeviceArrayD<V>,
        ws: &mut Workspace,
    ) -> Result<LanePlan> {
        self.settings().validate(desc.operation)?;
        self.gpu.check_same_device(out.gpu(), "out")?;
        self.gpu.check_same_device(ws.gpu(), "ws")?;
        let staged = x.stage_nd(&self.gpu)?;
        let lb = axis_lanes(staged.shape(), staged.strides(), axis.0)?;
        let mut shape = staged.shape().to_vec();
        shape.remove(axis.0);
        check_out(out, &shape)?;
        let stream = self.launch_stream();
        let o = Out {
            ptr: out.device_ptr(),
            size: std::mem::size_of::<V>(),
        };
        let plan = self.enqueue_axis(staged.device_ptr(), &lb, desc, &o, ws, stream)?;
        if self.stream.is_none() || staged.is_uploaded() {
            stream.synchronize()?;
        }
        Ok(plan)
    }

    /// The plan a reduction along `axis` of an array of `shape` and element `strides` would
    /// run (how lanes map onto the GPU): what `reduce_axis` chose, for the caller to see.
    pub fn axis_plan<T: Element>(
        &self,
        shape: &[usize],
        strides: &[isize],
        axis: Axis,
        op: Op,
    ) -> Result<LanePlan> {
        let desc = desc_op::<T>(op)?;
        let lb = axis_lanes(shape, strides, axis.0)?;
        // Device allocations are 16-byte aligned: a packed array from its first element.
        Ok(self.choose_axis(0, &lb, &desc)?.plan())
    }

    // ---- Segments ------------------------------------------------------------------------

    fn segments_device<T: Pod, V: Pod, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
        desc: &Desc,
    ) -> Result<(Vec<V>, Segments)> {
        self.settings().validate(desc.operation)?;
        let mut checked = None;
        if let Some(host) = values.host_slice() {
            let segments = offsets.segments(&self.gpu, host.len())?.into_owned();
            if let Some(v) = self.segments_host_pipelined(host, &segments, desc)? {
                return Ok((v, segments));
            }
            checked = Some(segments);
        }
        let staged = values.stage(&self.gpu)?;
        let segments = match checked {
            Some(s) => s,
            None => offsets.segments(&self.gpu, staged.len())?.into_owned(),
        };
        let out = self.gpu.alloc::<V>(segments.count())?;
        let stream = self.launch_stream();
        with_pooled(&self.gpu, |ws| {
            let o = Out {
                ptr: out.device_ptr(),
                size: std::mem::size_of::<V>(),
            };
            let host = staged.is_uploaded();
            self.enqueue_segments(staged.device_ptr(), &segments, desc, host, &o, ws, stream)?;
            stream.synchronize()
        })?;
        Ok((out.to_vec()?, segments))
    }

    /// `op` over each segment of `values`: `offsets[i]..offsets[i + 1]` is segment `i` (CSR
    /// style; give a checked [`Segments`] to reuse, or host offsets, checked per call). An
    /// empty segment gives the identity. Same semantics as
    /// [`cpu::segmented_reduce`](crate::cpu::segmented_reduce).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// let gpu = Gpu::default_device()?;
    /// let r = gpu_reduce::Reduce::new(&gpu);
    /// let v = [1u32, 2, 3, 4, 5];
    /// assert_eq!(r.segmented_reduce(&v, &[0, 2, 2, 5], Op::Sum)?, vec![3, 0, 12]);
    /// assert_eq!(r.segmented_max(&v, &[0, 2, 2, 5])?, vec![Some(2), None, Some(5)]);
    /// # Ok(()) }
    /// ```
    pub fn segmented_reduce<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
        op: Op,
    ) -> Result<Vec<T::Accumulator>> {
        Ok(self
            .segments_device::<T, T::Accumulator, I, S>(values, offsets, &desc_op::<T>(op)?)?
            .0)
    }

    /// The sum of each segment (0 for an empty one; f32 for f16 and bf16).
    pub fn segmented_sum<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
    ) -> Result<Vec<T::Accumulator>> {
        self.segmented_reduce(values, offsets, Op::Sum)
    }

    fn segmented_extreme<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
        op: Op,
    ) -> Result<Vec<Option<T>>> {
        let desc = desc_op::<T>(op)?;
        let (v, segs) = self.segments_device::<T, T::Accumulator, I, S>(values, offsets, &desc)?;
        Ok(v.into_iter()
            .enumerate()
            .map(|(i, x)| (segs.len_of(i) > 0).then(|| T::from_accumulator(x)))
            .collect())
    }

    /// The smallest element of each segment (NaN if it has one), `None` for an empty one.
    pub fn segmented_min<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
    ) -> Result<Vec<Option<T>>> {
        self.segmented_extreme(values, offsets, Op::Min)
    }

    /// The largest element of each segment (NaN if it has one), `None` for an empty one.
    pub fn segmented_max<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
    ) -> Result<Vec<Option<T>>> {
        self.segmented_extreme(values, offsets, Op::Max)
    }

    fn segmented_arg<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
        which: Extreme,
    ) -> Result<Vec<Option<usize>>> {
        let (v, segs) =
            self.segments_device::<T, u64, I, S>(values, offsets, &desc_arg::<T>(which))?;
        v.into_iter()
            .enumerate()
            .map(|(i, k)| {
                let len = segs.len_of(i);
                if len == 0 {
                    Ok(None)
                } else if k < len {
                    Ok(Some(k as usize))
                } else {
                    Err(internal_index(k, len))
                }
            })
            .collect()
    }

    /// The index within each segment of its first smallest element (first NaN if any), `None`
    /// for an empty segment.
    pub fn segmented_argmin<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
    ) -> Result<Vec<Option<usize>>> {
        self.segmented_arg(values, offsets, Extreme::Min)
    }

    /// [`segmented_argmin`](Self::segmented_argmin) for the largest element.
    pub fn segmented_argmax<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
    ) -> Result<Vec<Option<usize>>> {
        self.segmented_arg(values, offsets, Extreme::Max)
    }

    /// `op` (sum or product) over each segment, accumulated in the wider type.
    pub fn segmented_reduce_wide<T: Widen, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
        op: Op,
    ) -> Result<Vec<T::Wide>> {
        Ok(self
            .segments_device::<T, T::Wide, I, S>(values, offsets, &desc_wide::<T>(op))?
            .0)
    }

    /// The in-order product of a non-commutative monoid over each segment.
    pub fn segmented_reduce_monoid<
        M: DeviceMonoid,
        I: Input<M> + ?Sized,
        S: SegmentOffsets + ?Sized,
    >(
        &self,
        values: &I,
        offsets: &S,
    ) -> Result<Vec<M>> {
        Ok(self
            .segments_device::<M, M, I, S>(values, offsets, &desc_monoid::<M>())?
            .0)
    }

    /// `op` over each segment into `out` (one value per segment, in the accumulator type; the
    /// identity for empty ones), with the scratch of `ws`; returns the plan that ran. Waits,
    /// unless a [`stream`](Reduce::stream) is set and `values` live on the device.
    pub fn segmented_reduce_into<T: Element, I: Input<T> + ?Sized>(
        &self,
        values: &I,
        segments: &Segments,
        op: Op,
        out: &mut DeviceArray<T::Accumulator>,
        ws: &mut Workspace,
    ) -> Result<LanePlan> {
        let desc = desc_op::<T>(op)?;
        self.settings().validate(desc.operation)?;
        self.gpu.check_same_device(out.gpu(), "out")?;
        self.gpu.check_same_device(ws.gpu(), "ws")?;
        let staged = values.stage(&self.gpu)?;
        let segments = segments.segments(&self.gpu, staged.len())?;
        if out.len() != segments.count() {
            return Err(Error::invalid(
                "out",
                format!(
                    "holds {} values for {} segments",
                    out.len(),
                    segments.count()
                ),
            ));
        }
        let stream = self.launch_stream();
        let o = Out {
            ptr: out.device_ptr(),
            size: std::mem::size_of::<T::Accumulator>(),
        };
        let host = staged.is_uploaded();
        let plan =
            self.enqueue_segments(staged.device_ptr(), &segments, &desc, host, &o, ws, stream)?;
        if self.stream.is_none() || staged.is_uploaded() {
            stream.synchronize()?;
        }
        Ok(plan)
    }

    /// The plan a segmented reduction over `segments` would run.
    pub fn segments_plan<T: Element>(&self, segments: &Segments, op: Op) -> Result<LanePlan> {
        self.plan_segments(segments, &desc_op::<T>(op)?, false)
    }
}

/// `base + offset` elements of `size` bytes (offsets may be negative: reversed axes).
fn offset_ptr(base: u64, offset: i64, size: usize) -> Result<u64> {
    base.checked_add_signed(offset * size as i64)
        .ok_or_else(|| Error::invalid("x", "element offset outside the address space"))
}

fn to_array<V: Pod>(v: Vec<V>, shape: &[usize]) -> Result<ArrayD<V>> {
    ArrayD::from_shape_vec(IxDyn(shape), v).map_err(|e| Error::invalid("shape", e.to_string()))
}

fn empty_axis(what: &str) -> Error {
    Error::invalid(
        "axis",
        format!("{what} along a zero-length axis has no value (the result is not empty)"),
    )
}

fn internal_index(k: u64, len: u64) -> Error {
    Error::invalid(
        "x",
        format!("internal error: index {k} returned for a lane of {len}"),
    )
}

fn checked_indices(out: ArrayD<u64>, len: u64) -> Result<ArrayD<usize>> {
    if let Some(&k) = out.iter().find(|&&k| k >= len) {
        return Err(internal_index(k, len));
    }
    Ok(out.mapv(|k| k as usize))
}

/// `out` must be row-major of `shape`.
pub(crate) fn check_out<V: Pod>(out: &DeviceArrayD<V>, shape: &[usize]) -> Result<()> {
    if out.shape() != shape {
        return Err(Error::invalid(
            "out",
            format!(
                "has shape {:?}, the result has shape {shape:?}",
                out.shape()
            ),
        ));
    }
    if !out.is_standard_layout() {
        return Err(Error::invalid(
            "out",
            "must be a row-major (standard layout) array",
        ));
    }
    Ok(())
}

/// Reductions along an axis in method syntax on device N-D arrays, as ndarray's
/// `x.sum_axis(Axis(k))`; results stay on the device (row-major, in the accumulator type:
/// f32 for f16 and bf16), with the default algorithm on the device's default stream.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{DeviceArrayD, Gpu};
/// use gpu_reduce::DeviceReduceAxis;
/// use ndarray::{array, Axis};
/// let gpu = Gpu::default_device()?;
/// let x = DeviceArrayD::from_array(&gpu, &array![[1.0f32, 2.0], [3.0, 4.0]])?;
/// let col_sums = x.sum_axis(Axis(0))?;           // on the device
/// assert_eq!(col_sums.to_array()?, array![4.0f32, 6.0].into_dyn());
/// # Ok(()) }
/// ```
pub trait DeviceReduceAxis<T: Element> {
    /// `op` along `axis`, left on the device.
    fn reduce_axis(&self, axis: Axis, op: Op) -> Result<DeviceArrayD<T::Accumulator>>;
    /// The sums along `axis`.
    fn sum_axis(&self, axis: Axis) -> Result<DeviceArrayD<T::Accumulator>> {
        self.reduce_axis(axis, Op::Sum)
    }
    /// The maxima along `axis` (the type's lowest value for a zero-length axis).
    fn max_axis(&self, axis: Axis) -> Result<DeviceArrayD<T::Accumulator>> {
        self.reduce_axis(axis, Op::Max)
    }
    /// The minima along `axis` (the type's highest value for a zero-length axis).
    fn min_axis(&self, axis: Axis) -> Result<DeviceArrayD<T::Accumulator>> {
        self.reduce_axis(axis, Op::Min)
    }
}

impl<T: Element> DeviceReduceAxis<T> for DeviceArrayD<T> {
    fn reduce_axis(&self, axis: Axis, op: Op) -> Result<DeviceArrayD<T::Accumulator>> {
        let r = Reduce::new(self.gpu());
        let desc = desc_op::<T>(op)?;
        let (out, shape, _, _) = r.axis_device::<T, T::Accumulator, _>(self, axis, &desc)?;
        DeviceArrayD::from_device(out, &shape)
    }
}
