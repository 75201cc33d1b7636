//! Scans of shaped data: every lane of an axis, or every segment, with the lane kernels of
//! `gpu_prims/lanes.cuh`. A lane too long for its blocks is cut into splits: a first pass
//! writes each split's total, an exclusive scan along the splits turns them into seeds, and
//! the scan pass starts each split from its seed.

use gpu_core::{
    kernel_args, AxisLanes, ColumnLanes, Error, Kernel, LaneAccess, LaneBatches, LanePlan,
    LaneTiling, LaunchConfig, Result, Segments, Stream, COLUMN_STAGED_ROWS, LANES_BLOCK,
};

use super::launch::LookbackStatus;
use super::Scanner;
use crate::kernels::{SCAN_PTX, SCAN_SM80_PTX, SCAN_SM90_PTX};
use crate::plan::{
    lookback_items, staged_tiles_available, LookbackTuning, StatusLayout, STAGED_BYTES_PER_THREAD,
    STAGED_SHARED_BYTES_PER_THREAD,
};
use crate::TileStaging;
use std::sync::OnceLock;

/// Items each thread scans per round (`gp::LaneItems`).
pub(crate) fn lane_items(value_size: usize) -> u32 {
    match value_size {
        0..=4 => 4,
        5..=8 => 2,
        _ => 1,
    }
}

/// What is scanned: the kernel name suffix (`sum_f32`, `mat2_u64`, `sum_f16_to_f32`), the
/// size of the values the kernels compute in (status, split totals, seeds), and for the 16-bit
/// floats the elements in memory ([`LaneIo`]).
pub(crate) struct LaneKind<'a> {
    pub suffix: &'a str,
    pub value_size: usize,
    pub io: Option<LaneIo<'a>>,
}

/// The elements of a converting scan (16-bit floats computed in f32): their sizes in the input
/// and the output, and the suffixes of the kernels that see only values or only inputs.
#[derive(Clone, Copy)]
pub(crate) struct LaneIo<'a> {
    pub in_size: usize,
    pub out_size: usize,
    /// The split-totals kernel's (`sum_f16`: it reads inputs and writes f32 totals).
    pub totals: &'a str,
    /// The computed type's own kind (`sum_f32`), which scans the split totals into seeds.
    pub seeds: &'a str,
}

impl<'a> LaneKind<'a> {
    /// A kind whose elements are the values it computes in.
    pub(crate) fn new(suffix: &'a str, value_size: usize) -> Self {
        LaneKind {
            suffix,
            value_size,
            io: None,
        }
    }

    /// Bytes per input element.
    pub(crate) fn in_size(&self) -> usize {
        self.io.map_or(self.value_size, |io| io.in_size)
    }

    /// Bytes per output element.
    pub(crate) fn out_size(&self) -> usize {
        self.io.map_or(self.value_size, |io| io.out_size)
    }

    /// The kind that scans this kind's split totals (values, not elements) into seeds.
    fn seed_kind(&self) -> LaneKind<'a> {
        match self.io {
            Some(io) => LaneKind::new(io.seeds, self.value_size),
            None => LaneKind::new(self.suffix, self.value_size),
        }
    }

    /// The suffix of the split-totals kernel.
    fn totals_suffix(&self) -> &'a str {
        self.io.map_or(self.suffix, |io| io.totals)
    }

    /// Whether `scan_packed_<suffix>` exists: every operator on the scalar types, not the
    /// monoids (`mat2_*`, `affine_*`), which keep one ordered path, nor the 16-bit floats.
    fn has_packed(&self) -> bool {
        self.io.is_none()
            && !self.suffix.starts_with("mat2_")
            && !self.suffix.starts_with("affine_")
    }

    /// Whether the large fast-path kernels exist for it (`scan_rows_staged_*`,
    /// `scan_columns_long_*`): sum, prod, min and max (`GP_FOR_EACH_ARITH_OP_TYPE`), not the
    /// 16-bit floats.
    fn has_fast_paths(&self) -> bool {
        self.io.is_none()
            && ["sum_", "prod_", "min_", "max_"]
                .iter()
                .any(|op| self.suffix.starts_with(op))
    }

    /// Whether its long column spans may be staged in shared memory
    /// (`scan_columns_staged_*`) in a plan of `tiles` tiles: every operator at every tile
    /// count but the prod of 8-byte values, for one tile. On an H200 (2^28 values along axis 0
    /// of 64, 1024 and 16384 columns) staging won for one tile with every operator measured
    /// (6-44 %) and beyond it for the sums of every size, f64 max (10-11 % at 16 and 256
    /// tiles, which do not spill) and, since their kernels keep each lane width apart and no
    /// longer spill, f32 and i32 max and u32 prod (up to 9 % at 8 tiles, 1-2 % at 128); 8-byte
    /// prod spills, and i64 prod was level at 128 tiles.
    fn stages_column_spans(&self, tiles: u64) -> bool {
        self.io.is_none()
            && (!self.suffix.starts_with("prod_") || self.value_size == 4 || tiles == 1)
    }
}

/// Threads per block of the segment-tiles scan in register tiles: on an H100 (2^28 f32) 256
/// beat 512 and 1024 for short segments (0.74 / 0.73 / 0.64× copy for lengths 1-8, 0.82 / 0.81
/// / 0.69 for 1-2000; 0.79 / 0.80 / 0.81 for 16 × 2^24): the segment phases (starts, look-back)
/// of one block overlap another block's loads only when several blocks share an SM.
const SEGMENT_TILES_BLOCK: u32 = 256;

/// Threads per block of the segment-tiles scan in staged tiles (`scan_segment_tiles_staged_*`,
/// 56 values of 4 bytes per thread, 128 bytes of them in shared memory); 32 … 1024, set by
/// `GPU_PRIMS_SEGMENT_STAGED_BLOCK` for benchmarks.
const SEGMENT_STAGED_BLOCK: u32 = 256;

/// Threads per block of the look-back-rows scan: at least a warp (rows shorter than its tile,
/// 1024 values of 4 bytes, take the lane kernels), at most 1024 (or
/// `GPU_PRIMS_SCAN_ROWS_MAX_BLOCK`, for benchmarks).
const ROWS_MIN_BLOCK: u64 = 32;
const ROWS_MAX_BLOCK: u64 = 1024;

/// A block size set for benchmarks by the environment variable `var` (a power of two, 32 …
/// 1024), read once per process; `default` otherwise. Not a stable interface.
fn block_from_env(var: &'static str, cell: &'static OnceLock<Option<u32>>, default: u32) -> u32 {
    cell.get_or_init(|| {
        std::env::var(var)
            .ok()
            .and_then(|b| b.parse::<u32>().ok())
            .filter(|b| b.is_power_of_two() && (32..=1024).contains(b))
    })
    .unwrap_or(default)
}

/// The look-back rows' largest block ([`ROWS_MAX_BLOCK`] unless set for benchmarks).
fn rows_max_block() -> u64 {
    static CELL: OnceLock<Option<u32>> = OnceLock::new();
    block_from_env(
        "GPU_PRIMS_SCAN_ROWS_MAX_BLOCK",
        &CELL,
        ROWS_MAX_BLOCK as u32,
    ) as u64
}

/// The staged segment tiles' block ([`SEGMENT_STAGED_BLOCK`] unless set for benchmarks).
fn segment_staged_block() -> u32 {
    static CELL: OnceLock<Option<u32>> = OnceLock::new();
    block_from_env(
        "GPU_PRIMS_SEGMENT_STAGED_BLOCK",
        &CELL,
        SEGMENT_STAGED_BLOCK,
    )
}

/// Which lanes the columns scan walks a thread per lane group (`LanePlan::thread_columns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ColumnWalk {
    /// Where the lanes make a block of 256 lane groups per SM or more (the default).
    Fill,
    /// Wherever a vector row holds 256 lane groups.
    Any,
    /// Never (the spans' plans, as before the walk).
    Off,
}

/// `GPU_PRIMS_COLUMN_SCAN_WALK` = `any` or `off` (benchmarks; read once), else
/// [`ColumnWalk::Fill`].
fn column_scan_walk() -> ColumnWalk {
    static WALK: std::sync::OnceLock<ColumnWalk> = std::sync::OnceLock::new();
    *WALK.get_or_init(
        || match std::env::var("GPU_PRIMS_COLUMN_SCAN_WALK").as_deref() {
            Ok("any") => ColumnWalk::Any,
            Ok("off") => ColumnWalk::Off,
            _ => ColumnWalk::Fill,
        },
    )
}

fn offset_ptr(base: u64, offset: i64, size: usize) -> u64 {
    base.wrapping_add_signed(offset * size as i64)
}

impl Scanner {
    pub(crate) fn lane_kernel(&self, name: &str, kind: &LaneKind<'_>) -> Result<Kernel> {
        self.gpu
            .kernel(&SCAN_PTX, &format!("scan_{name}_{}", kind.suffix))
    }

    /// The look-back tile kernel of `family` ("rows" or "segment_tiles"): the staged one from
    /// the sm80 module when it gets dynamic shared memory (its twin from the sm90 module with
    /// `prefetch`), else the register-tile one.
    fn tile_kernel(
        &self,
        family: &str,
        kind: &LaneKind<'_>,
        shared_bytes: usize,
        prefetch: bool,
    ) -> Result<Kernel> {
        if shared_bytes == 0 {
            return self.lane_kernel(family, kind);
        }
        let kernel = if prefetch {
            let name = format!("scan_{family}_staged_pf_{}", kind.suffix);
            self.gpu.kernel(&SCAN_SM90_PTX, &name)?
        } else {
            let name = format!("scan_{family}_staged_{}", kind.suffix);
            self.gpu.kernel(&SCAN_SM80_PTX, &name)?
        };
        kernel.set_max_dynamic_shared(shared_bytes)?;
        Ok(kernel)
    }

    /// How many spans (tiles) of `span_bytes` bytes of input ahead of its own a span of a
    /// device-resident scan of `n` values prefetches into L2 (0: none), `chains` chains of
    /// spans running side by side, as the device's tuning says (`scan.shaped_prefetch_from`,
    /// `scan.prefetch_kib`); at most `u32::MAX`.
    fn prefetch_ahead(&self, n: u64, span_bytes: u64, chains: u64) -> u32 {
        let tuning = LookbackTuning::from_keys(|k| self.gpu.tuned(k));
        let compute = self.gpu.properties().compute_capability;
        tuning
            .shaped_prefetch_ahead(n, span_bytes, chains, compute)
            .min(u32::MAX as u64) as u32
    }

    /// The plan of a scan along the lanes `lanes`.
    pub(crate) fn axis_plan(&self, kind: &LaneKind<'_>, lanes: &AxisLanes) -> Result<LanePlan> {
        let kernel = self.lane_kernel("axis", kind)?;
        Ok(LanePlan::new(
            lanes,
            kernel.lane_target_blocks()?,
            lane_items(kind.value_size),
        ))
    }

    /// The packed-rows plan where input and output lanes are both packed rows from 16-byte
    /// aligned bases (`LanePlan::packed_rows`).
    pub(crate) fn packed_plan(
        kind: &LaneKind<'_>,
        input: u64,
        in_lb: &LaneBatches,
        output: u64,
        out_lb: &LaneBatches,
    ) -> Option<LanePlan> {
        if !kind.has_packed() || input % 16 != 0 || output % 16 != 0 {
            return None;
        }
        LanePlan::packed_rows(out_lb, kind.value_size)?;
        LanePlan::packed_rows(in_lb, kind.value_size)
    }

    /// The vector-columns plan, with the input's and the output's [`ColumnLanes`], where both
    /// arrays' lanes are side by side in 16-byte aligned vectors of the same geometry
    /// (`ColumnLanes::of`); scalar operators only.
    pub(crate) fn columns_plan(
        &self,
        kind: &LaneKind<'_>,
        input: u64,
        in_lb: &LaneBatches,
        output: u64,
        out_lb: &LaneBatches,
    ) -> Result<Option<(LanePlan, ColumnLanes, ColumnLanes)>> {
        if !kind.has_packed() || input % 16 != 0 || output % 16 != 0 {
            return Ok(None);
        }
        let (Some(a), Some(b)) = (
            ColumnLanes::of(in_lb, kind.value_size, 1),
            ColumnLanes::of(out_lb, kind.value_size, 1),
        ) else {
            return Ok(None);
        };
        if (a.outer, a.groups, a.vrows, a.rv) != (b.outer, b.groups, b.vrows, b.rv) {
            return Ok(None);
        }
        // Lanes many enough for a block of 256 lane groups per SM: each thread walks its lane
        // group with its running values in registers (no spans, no look-back, no block
        // work). Eight 16-byte loads per thread and step keep 32 KiB in flight per block, about
        // what an SM's share of an H200's bandwidth needs; on an H200 the walk took 4096 blocks
        // (64 x 4194304 along axis 0) from 0.76-0.77 to 0.92-0.94x copy and 256 blocks
        // (262144 x 1024 Fortran along axis 1, lanes of 1024) from 0.68-0.70 to 0.91-0.93x
        // (docs/shapes.md, thirteenth session).
        let walk = column_scan_walk();
        if walk != ColumnWalk::Off {
            let target = match walk {
                ColumnWalk::Any => 1,
                _ => self.gpu.properties().sm_count as u64,
            };
            if let Some((plan, ci)) = LanePlan::thread_columns(in_lb, kind.value_size, target) {
                return Ok(Some((plan, ci, ColumnLanes { tx: ci.tx, ..b })));
            }
        }
        // Long spans exist for sum, prod, min and max.
        let Some((mut plan, ci)) =
            LanePlan::vector_columns_scan(in_lb, kind.value_size, kind.has_fast_paths())
        else {
            return Ok(None);
        };
        // Long spans (tiles of several spans) stage half of each span in shared memory (8-byte
        // prod for one tile only: `LaneKind::stages_column_spans`), and prefetch the span handed
        // out that far on, where the tuning says so, counting one launch's values (a batch
        // each).
        if plan.access.long_span_staged_rows().is_some() && plan.splits > 1 {
            let values = in_lb.lanes.count * in_lb.lanes.len; // one launch's
            let tuning = LookbackTuning::from_keys(|k| self.gpu.tuned(k));
            let props = self.gpu.properties();
            let staged_bytes = column_staged_bytes(LANES_BLOCK);
            if kind.stages_column_spans(plan.tiles)
                && tuning.column_staged(values, props.compute_capability)
                && staged_bytes + COLUMN_STATIC_SHARED <= props.shared_memory_per_block_optin
            {
                plan = plan.with_staged_spans(&ci);
            }
            if let LaneAccess::VectorColumns {
                rows_per_thread,
                threads_down,
                groups_across,
                ..
            } = plan.access
            {
                let span_bytes = (rows_per_thread * threads_down * groups_across) as u64 * 16;
                plan.access = plan
                    .access
                    .with_prefetch(self.prefetch_ahead(values, span_bytes, plan.tiles));
            }
        }
        let co = ColumnLanes { tx: ci.tx, ..b };
        Ok(Some((plan, ci, co)))
    }

    /// Enqueues the one-pass vector-columns scan of `planned` (from
    /// [`columns_plan`](Self::columns_plan)) for every batch: all of its spans, or (`part`,
    /// one batch) only the span ids of one launch of several.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_columns(
        &mut self,
        kind: &LaneKind<'_>,
        input: u64,
        in_lb: &LaneBatches,
        output: u64,
        out_lb: &LaneBatches,
        planned: (LanePlan, ColumnLanes, ColumnLanes),
        exclusive: bool,
        part: Option<SpanPart>,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let (plan, ci, co) = planned;
        // Scratch: the span counter and one flag per (span, tile), then per (span, tile, lane
        // group) the aggregates and inclusive prefixes (one vector of lanes each).
        let spans = plan.tiles * plan.splits as u64;
        let slots = spans * ci.tx as u64;
        let state_bytes = ((1 + spans) * 4).next_multiple_of(16);
        let pack = ci.lanes_per_vector(kind.value_size) * kind.value_size as u64;
        let bytes = (state_bytes + 2 * slots * pack) as usize;
        // Lanes of a thread each (one span, one thread down): the short kernel (no look-back,
        // no block work).
        let short = plan.splits == 1 && ci.is_short();
        let staged_rows = plan.access.long_span_staged_rows();
        let long = staged_rows.is_some();
        // Threads per block: the lane groups across times the threads down (fewer than 256
        // for long spans, so that blocks share an SM).
        let threads = match plan.access {
            LaneAccess::VectorColumns { threads_down, .. } if !short => ci.tx * threads_down,
            _ => LANES_BLOCK,
        };
        // Long spans staged in shared memory (columns_plan; prefetching or not: a host
        // pipeline's chunks do not) take scan_columns_staged_* from the sm90 module; unstaged
        // ones with the L2 prefetch (columns_plan sets it on long spans only)
        // scan_columns_long_pf_* from there.
        let prefetch = plan.access.prefetch() as u64;
        let staged = staged_rows.is_some_and(|r| r > 0);
        let shared_bytes = if staged {
            column_staged_bytes(threads)
        } else {
            0
        };
        let scan = if staged {
            let name = format!("scan_columns_staged_{}", kind.suffix);
            let kernel = self.gpu.kernel(&SCAN_SM90_PTX, &name)?;
            kernel.set_max_dynamic_shared(shared_bytes)?;
            kernel
        } else if prefetch > 0 {
            let name = format!("scan_columns_long_pf_{}", kind.suffix);
            self.gpu.kernel(&SCAN_SM90_PTX, &name)?
        } else {
            self.lane_kernel(
                if short {
                    "columns_short"
                } else if long {
                    "columns_long"
                } else {
                    "columns"
                },
                kind,
            )?
        };
        let part = part.unwrap_or(SpanPart {
            begin: 0,
            end: spans,
            first: true,
        });
        if part.end > spans || part.begin >= part.end || (short && part.begin > 0) {
            return Err(Error::invalid(
                "spans",
                format!(
                    "internal error: span ids {}..{} of {spans}",
                    part.begin, part.end
                ),
            ));
        }
        let blocks = if short {
            ci.short_scan_blocks()
        } else {
            part.end - part.begin
        };
        let blocks = blocks.clamp(1, i32::MAX as u64) as u32;
        let exclusive = exclusive as u32;
        let (begin, end) = (part.begin, part.end);
        for (&ib, &ob) in in_lb.batches.iter().zip(&out_lb.batches) {
            let (src, dst) = (
                offset_ptr(input, ib, kind.value_size),
                offset_ptr(output, ob, kind.value_size),
            );
            if short {
                // SAFETY: scan_columns_short_<kind>(const T* in, ColumnLanes in_lanes, T* out,
                // ColumnLanes out_lanes, u32 exclusive) matches (u64, ColumnLanes, u64,
                // ColumnLanes, u32); the arrays as for the spans' kernel below (the same
                // checks), no scratch.
                unsafe {
                    scan.launch(
                        LaunchConfig::new(blocks, LANES_BLOCK),
                        stream,
                        &kernel_args![src, ci, dst, co, exclusive],
                    )?;
                }
                continue;
            }
            // The first launch zeroes the counter and every flag; a later part of the same
            // scan only the counter: its spans look back into the flags and values the
            // earlier parts published, in the same scratch.
            let words = if part.first { 1 + spans } else { 1 };
            let base = self.zeroed_scratch(bytes, words, stream)?;
            let values = base + state_bytes;
            // SAFETY: scan_columns_<kind>(const T* in, ColumnLanes in_lanes, T* out,
            // ColumnLanes out_lanes, u32* state, void* values, u32 exclusive, u64 begin, u64
            // end) matches (u64, ColumnLanes, u64, ColumnLanes, u64, u64, u32, u64, u64), the
            // structs #[repr(C)] copies of the CUDA one. ColumnLanes::of checked both arrays'
            // vectors 16-byte aligned (bases checked) and inside their arrays (checked shapes
            // and strides), of one geometry; a part's callers place the rows of its spans
            // there (the rest is not touched); the output does not alias the input unless it
            // is the input itself, lane for lane (each element read before the same thread
            // writes it). `state` holds the zeroed counter and `spans` flags, zeroed by the
            // first part, `values` 2 · slots vectors of lanes (scratch sized above, alive in
            // this scanner, the parts' launches ordered on one stream, each span's look-back
            // reaching only lower ids, launched in this or an earlier part). The prefetching
            // twin (scan_columns_long_pf_*) takes one more argument, u64 prefetch_spans ≥ 1:
            // each block prefetches rows of spans of `in_lanes` only (a hint; it writes
            // nothing). The staged twin (scan_columns_staged_*) takes it too (0: none), and
            // `shared_bytes` of dynamic shared memory, COLUMN_STAGED_ROWS vectors a thread
            // (allowed above: set_max_dynamic_shared), where each thread keeps its own rows.
            let mut args =
                kernel_args![src, ci, dst, co, base, values, exclusive, begin, end].to_vec();
            if prefetch > 0 || staged {
                args.extend(kernel_args![prefetch]);
            }
            let config = LaunchConfig::new(blocks, threads).with_shared_bytes(shared_bytes as u32);
            unsafe {
                scan.launch(config, stream, &args)?;
            }
        }
        Ok(plan)
    }

    /// The interleaved-lanes plan: where both arrays' lanes are K = 2 or 4 lanes side by side
    /// with one row of them every K elements (the columns of a dense array of K columns, in
    /// batches at multiples of K), from bases aligned to the K values, the lanes read as rows
    /// of K-wide vectors and scanned by the staged look-back rows
    /// (`scan_rows_staged_<op>_<type>x<K>`: sum, prod, min, max on GPUs with staged tiles;
    /// vectors of up to 16 bytes). Returns the vector kind's suffix, the lanes counted in
    /// vectors, and the rows plan.
    pub(crate) fn interleaved_plan(
        &self,
        kind: &LaneKind<'_>,
        input: u64,
        in_lb: &LaneBatches,
        output: u64,
        out_lb: &LaneBatches,
    ) -> Option<Interleaved> {
        if !kind.has_fast_paths() {
            return None;
        }
        let k = in_lb.lanes.inner;
        let (vin, vout) = (
            interleaved_lanes(in_lb, input, k, kind.value_size)?,
            interleaved_lanes(out_lb, output, k, kind.value_size)?,
        );
        let value_size = kind.value_size * k as usize;
        let suffix = format!("{}x{k}", kind.suffix);
        let (mut plan, tile_form) =
            self.rows_plan(&LaneKind::new(&suffix, value_size), &vin, &vout, true)?;
        let LaneAccess::LookBackRows { tile } = plan.access else {
            unreachable!("rows_plan returns look-back rows")
        };
        plan.access = LaneAccess::InterleavedRows {
            lanes: k as u32,
            tile,
        };
        Some(Interleaved {
            suffix,
            value_size,
            input: vin,
            output: vout,
            rows: (plan, tile_form),
        })
    }

    /// How the lanes of `in_lb` (at `input`) are scanned into `out_lb` (at `output`): the
    /// first pattern that fits, in the order of `gpu_prims/lanes.cuh`'s table.
    pub(crate) fn choose_axis(
        &self,
        kind: &LaneKind<'_>,
        input: u64,
        in_lb: &LaneBatches,
        output: u64,
        out_lb: &LaneBatches,
    ) -> Result<AxisChoice> {
        if let Some(plan) = Self::packed_plan(kind, input, in_lb, output, out_lb) {
            return Ok(AxisChoice::Packed(plan));
        }
        if let Some(i) = self.interleaved_plan(kind, input, in_lb, output, out_lb) {
            return Ok(AxisChoice::Interleaved(i));
        }
        if let Some(c) = self.columns_plan(kind, input, in_lb, output, out_lb)? {
            return Ok(AxisChoice::Columns(c));
        }
        if let Some(r) = self.rows_plan(kind, in_lb, out_lb, false) {
            return Ok(AxisChoice::Rows(r));
        }
        Ok(AxisChoice::Lanes(self.axis_plan(kind, &in_lb.lanes)?))
    }

    /// The look-back-rows plan (and tile form) where both arrays' lanes are contiguous rows of
    /// at least one tile of a warp: each row a flat single-pass scan of its own, in the
    /// largest tile it fills (a warp's for rows of 1024 values of 4 bytes, 1024 threads' from
    /// 32768). Rows that fill a 1024-thread staged tile (57344 values of 4 bytes) take it on
    /// GPUs that have it (`scan_rows_staged_*`, sum, prod, min and max, as the flat scan does
    /// for long arrays), unless `GPU_PRIMS_SCAN_ROWS_REGISTERS` is set (benchmarks).
    /// `vectors`: rows of interleaved lanes' vectors ([`interleaved_plan`](Self::interleaved_plan)),
    /// which exist in staged tiles only: the largest staged block (32 … 1024 threads) a row
    /// fills, or no plan.
    pub(crate) fn rows_plan(
        &self,
        kind: &LaneKind<'_>,
        in_lb: &LaneBatches,
        out_lb: &LaneBatches,
        vectors: bool,
    ) -> Option<(LanePlan, RowsTile)> {
        let (a, b) = (&in_lb.lanes, &out_lb.lanes);
        let staged_items = (STAGED_BYTES_PER_THREAD / kind.value_size) as u64;
        let items = if vectors {
            staged_items
        } else {
            crate::plan::lookback_items(kind.value_size) as u64
        };
        if a.count == 0
            || a.axis_stride != 1
            || b.axis_stride != 1
            || a.len < ROWS_MIN_BLOCK * items
        {
            return None;
        }
        let props = self.gpu.properties();
        let staged_ok = kind.has_fast_paths()
            && matches!(kind.value_size, 4 | 8 | 16)
            && staged_tiles_available(props.compute_capability)
            && ROWS_MAX_BLOCK as usize * STAGED_SHARED_BYTES_PER_THREAD
                <= props.shared_memory_per_block_optin
            && std::env::var_os("GPU_PRIMS_SCAN_ROWS_REGISTERS").is_none();
        let staged = staged_ok && (vectors || a.len >= ROWS_MAX_BLOCK * staged_items);
        if vectors && !staged {
            return None;
        }
        // The largest block (up to 1024 threads) whose tile a row fills.
        let max_block = rows_max_block();
        let mut block = ROWS_MIN_BLOCK;
        while block < max_block && 2 * block * items <= a.len {
            block *= 2;
        }
        let tile = if staged {
            block * staged_items
        } else {
            block * items
        };
        let per_lane = a.len.div_ceil(tile);
        if a.count.checked_mul(per_lane)? > u32::MAX as u64 / 2 {
            return None;
        }
        let plan = LanePlan {
            access: LaneAccess::LookBackRows { tile: tile as u32 },
            tiling: LaneTiling {
                group: 1,
                lanes_per_warp: 1,
                warps_per_lane: 1,
                unused: 0,
            },
            tiles: a.count,
            splits: per_lane as u32,
        };
        let shared_bytes = if staged {
            block as usize * STAGED_SHARED_BYTES_PER_THREAD
        } else {
            0
        };
        Some((
            plan,
            RowsTile {
                block: block as u32,
                shared_bytes,
            },
        ))
    }

    /// Enqueues the look-back-rows scan of `planned` (from [`rows_plan`](Self::rows_plan)) for
    /// every batch.
    #[allow(clippy::too_many_arguments)]
    fn enqueue_rows(
        &mut self,
        kind: &LaneKind<'_>,
        input: u64,
        in_lb: &LaneBatches,
        output: u64,
        out_lb: &LaneBatches,
        planned: (LanePlan, RowsTile),
        exclusive: bool,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let plan = planned.0;
        let tiles = plan.tiles * plan.splits as u64;
        // The kernel is looked up once; each batch is a run of its own over a fresh status.
        let mut run = self.rows_begin(kind, planned, exclusive, stream)?;
        for (b, (&ib, &ob)) in in_lb.batches.iter().zip(&out_lb.batches).enumerate() {
            let (src, dst) = (
                offset_ptr(input, ib, kind.in_size()),
                offset_ptr(output, ob, kind.out_size()),
            );
            if b > 0 {
                // A run of its own: the next epoch over the same status, nothing zeroed.
                let (status, epoch) = self.epoch_status(tiles, kind.value_size, stream)?;
                (run.status, run.epoch, run.base) = (status, epoch.epoch, epoch.base);
            }
            self.rows_tiles(&run, src, &in_lb.lanes, dst, &out_lb.lanes, tiles, stream)?;
        }
        Ok(plan)
    }

    /// The kernel and status (epoch-tagged, zeroed on `stream` only where needed) of the
    /// look-back-rows scan `planned`, for [`rows_tiles`](Self::rows_tiles) launches of its tiles.
    pub(crate) fn rows_begin(
        &mut self,
        kind: &LaneKind<'_>,
        planned: (LanePlan, RowsTile),
        exclusive: bool,
        stream: &Stream,
    ) -> Result<RowsRun> {
        let (plan, tile) = planned;
        let per_lane = plan.splits as u64;
        let kernel = self.tile_kernel("rows", kind, tile.shared_bytes, false)?;
        self.check_kernel(&kernel, tile.block)?;
        self.grid(plan.tiles * per_lane)?;
        let (status, epoch) = self.epoch_status(plan.tiles * per_lane, kind.value_size, stream)?;
        Ok(RowsRun {
            kernel,
            tile,
            per_lane,
            status,
            epoch: epoch.epoch,
            base: epoch.base,
            exclusive: exclusive as u32,
        })
    }

    /// Launches the next `tiles` tiles of `run` (the first ones, or those after the previous
    /// launch's on the same stream) over the lanes `in_lanes` at `input` into `out_lanes` at
    /// `output`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rows_tiles(
        &mut self,
        run: &RowsRun,
        input: u64,
        in_lanes: &AxisLanes,
        output: u64,
        out_lanes: &AxisLanes,
        tiles: u64,
        stream: &Stream,
    ) -> Result<()> {
        let grid = self.grid(tiles)?;
        let LookbackStatus {
            counter,
            flags,
            aggregates,
            inclusives,
        } = run.status;
        let (in_lanes, out_lanes, per_lane, exclusive, epoch, base) = (
            *in_lanes,
            *out_lanes,
            run.per_lane,
            run.exclusive,
            run.epoch,
            run.base,
        );
        let RowsTile {
            block,
            shared_bytes,
        } = run.tile;
        // SAFETY: scan_rows[_staged]_<kind>(const T* in, AxisLanes in_lanes, T* out, AxisLanes
        // out_lanes, u64 tiles_per_lane, u32 exclusive, u32* counter, u32* flags, void*
        // aggs, void* incs, u32 epoch, u32 base) matches (u64, AxisLanes, u64, AxisLanes, u64,
        // u32, u64, u64, u64, u64, u32, u32). Both arrays' lanes are contiguous (axis stride 1, checked by
        // rows_plan) and lie inside their arrays (checked shapes and strides); the output
        // does not alias the input unless it is the input itself, lane for lane (a block
        // reads its tile before writing it); the launches of one run have count ·
        // tiles_per_lane blocks of `block` threads in all, each block taking the next tile
        // from the counter (a launch after another on the same stream continues where it
        // stopped, and reads only tiles whose data its callers have placed by then), each
        // tile block · items values (items as the kernel's shape, registers or staged),
        // staged kernels get the block · 128 bytes of dynamic shared memory they index
        // (allowed by rows_begin); the scratch holds the counter and the status of at least
        // that many tiles as the run's layout places them, every word zero or tagged by an
        // earlier epoch of that layout, the counter at `base` before the run (rows_begin and
        // enqueue_rows through `epoch_status`: lookback_epoch.cuh's preconditions).
        let launched = unsafe {
            run.kernel.launch(
                LaunchConfig::new(grid, block).with_shared_bytes(shared_bytes as u32),
                stream,
                &kernel_args![
                    input, in_lanes, output, out_lanes, per_lane, exclusive, counter, flags,
                    aggregates, inclusives, epoch, base
                ],
            )
        };
        // One tile per lane takes its index from the block, not the counter.
        self.counted(launched, if per_lane > 1 { tiles } else { 0 })
    }

    /// Turns the `splits × count` split totals at `totals` into each split's seed, in place:
    /// their exclusive scan along the splits, from `carry[lane]` (`count` values) or, with
    /// `carry` 0, the identity.
    fn seed_splits(
        &mut self,
        kind: &LaneKind<'_>,
        totals: u64,
        count: u64,
        splits: u32,
        carry: u64,
        stream: &Stream,
    ) -> Result<()> {
        let kind = &kind.seed_kind();
        let lanes = seed_lanes(count, splits as u64);
        let plan = self.seed_plan(kind, count, splits)?;
        let scan = self.lane_kernel("axis", kind)?;
        // SAFETY: the lanes address splits × count values of the totals scratch (alive in
        // this scanner), scanned in place (each element read and written by one thread);
        // seeds null or the caller's `count` values.
        unsafe {
            Self::launch_lane_scan(
                &scan,
                (totals, lanes),
                (totals, lanes),
                &plan,
                carry,
                true,
                stream,
            )
        }
    }

    /// The plan of the scan of `splits` split totals of `count` lanes into their seeds
    /// ([`seed_splits`](Self::seed_splits)): one split of its own.
    pub(crate) fn seed_plan(
        &self,
        kind: &LaneKind<'_>,
        count: u64,
        splits: u32,
    ) -> Result<LanePlan> {
        Ok(self
            .axis_plan(kind, &seed_lanes(count, splits as u64))?
            .without_splits())
    }

    /// Launches `scan_axis_<kind>` (the generic lane scan) of the lanes `input.1` at `input.0`
    /// into `output.1` at `output.0` with `plan` (its tiling, tiles and splits), split `s` of
    /// lane `l` starting from `seeds[s · count + l]` or, with `seeds` 0, the identity.
    ///
    /// # Safety
    /// Both lane sets lie inside device memory of this context that stays allocated until the
    /// stream has run the launch, lane `l` the same index in both; the output does not
    /// overlap the input unless it is the input itself, lane for lane (each element is read
    /// and written by one thread, read first); `seeds` is 0 or holds `splits · count` values
    /// (read before the first barrier: each block reads its lanes' seeds before any of its
    /// threads writes, so they may lie in the output's first row itself).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_lane_scan(
        scan: &Kernel,
        input: (u64, AxisLanes),
        output: (u64, AxisLanes),
        plan: &LanePlan,
        seeds: u64,
        exclusive: bool,
        stream: &Stream,
    ) -> Result<()> {
        let ((src, in_lanes), (dst, out_lanes)) = (input, output);
        let (tiling, exclusive) = (plan.tiling, exclusive as u32);
        // SAFETY: scan_axis_<kind>(const T* in, AxisLanes in_lanes, T* out, AxisLanes
        // out_lanes, LaneTiling tiling, const T* seeds, u32 exclusive) matches (u64,
        // AxisLanes, u64, AxisLanes, LaneTiling, u64, u32); the memory as the caller
        // guarantees.
        unsafe {
            scan.launch_2d(
                LaunchConfig::new(plan.grid_x(), LANES_BLOCK),
                plan.splits,
                stream,
                &kernel_args![src, in_lanes, dst, out_lanes, tiling, seeds, exclusive],
            )
        }
    }

    /// Launches `scan_axis_totals_<kind>`: the totals of the `plan.splits` (> 1) contiguous
    /// ranges of every lane of `lanes` at `input` into `totals` (split-major: split `s` of
    /// lane `l` at `s · count + l`).
    ///
    /// # Safety
    /// The lanes lie inside device memory of this context, and `totals` holds `splits · count`
    /// values, both allocated until the stream has run the launch.
    pub(crate) unsafe fn launch_split_totals(
        first: &Kernel,
        input: u64,
        lanes: AxisLanes,
        plan: &LanePlan,
        totals: u64,
        stream: &Stream,
    ) -> Result<()> {
        if plan.splits < 2 {
            // With one split the kernel would store results, not totals.
            return Err(Error::invalid(
                "splits",
                "a totals pass needs at least two splits",
            ));
        }
        let tiling = plan.tiling;
        // SAFETY: scan_axis_totals_<kind>(const T* in, AxisLanes lanes, LaneTiling tiling,
        // T* totals) matches (u64, AxisLanes, LaneTiling, u64); the memory as the caller
        // guarantees; splits > 1 along y (the kernel then writes only the totals).
        unsafe {
            first.launch_2d(
                LaunchConfig::new(plan.grid_x(), LANES_BLOCK),
                plan.splits,
                stream,
                &kernel_args![input, lanes, tiling, totals],
            )
        }
    }

    /// Enqueues the scan of every lane of `in_lb` (at `input`) into the same lanes of `out_lb`
    /// (at `output`, merged alike: see `gpu_core::axis_lanes_pair`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_axis(
        &mut self,
        kind: &LaneKind<'_>,
        input: u64,
        in_lb: &LaneBatches,
        output: u64,
        out_lb: &LaneBatches,
        exclusive: bool,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let plan = match self.choose_axis(kind, input, in_lb, output, out_lb)? {
            AxisChoice::Packed(plan) => {
                let LaneAccess::PackedRows { log2_len } = plan.access else {
                    unreachable!("packed_rows returns packed plans")
                };
                let kernel = self.lane_kernel("packed", kind)?;
                let (count, exclusive) = (in_lb.lanes.count, exclusive as u32);
                // SAFETY: scan_packed_<kind>(const T* in, T* out, u64 count, u32 log2n, u32
                // exclusive) matches (u64, u64, u64, u32, u32). packed_plan checked that input
                // and output lanes are the `count` rows of 2^log2n elements of one contiguous
                // array each, from 16-byte aligned bases, inside their arrays; the output is the
                // input itself or does not overlap it (checked strides, separate arrays).
                unsafe {
                    kernel.launch(
                        LaunchConfig::new(plan.grid_x(), LANES_BLOCK),
                        stream,
                        &kernel_args![input, output, count, log2_len, exclusive],
                    )?;
                }
                return Ok(plan);
            }
            AxisChoice::Interleaved(i) => {
                let vkind = LaneKind::new(&i.suffix, i.value_size);
                // The vector lanes are the same memory as the element lanes (counted in K-wide
                // vectors, bases aligned to them: interleaved_lanes), so the rows scan's
                // conditions carry over; it returns the interleaved plan as it got it.
                return self.enqueue_rows(
                    &vkind, input, &i.input, output, &i.output, i.rows, exclusive, stream,
                );
            }
            AxisChoice::Columns(planned) => {
                if in_lb.total_lanes() == 0 {
                    return Ok(planned.0);
                }
                return self.enqueue_columns(
                    kind, input, in_lb, output, out_lb, planned, exclusive, None, stream,
                );
            }
            AxisChoice::Rows(planned) => {
                return self.enqueue_rows(
                    kind, input, in_lb, output, out_lb, planned, exclusive, stream,
                );
            }
            AxisChoice::Lanes(plan) => plan,
        };
        self.enqueue_lanes(
            kind, input, in_lb, output, out_lb, plan, exclusive, 0, stream,
        )?;
        Ok(plan)
    }

    /// Enqueues the generic lane scan of `plan` (splits seeded by a totals pass) of every lane
    /// of `in_lb` into `out_lb`, lane `l` of each batch starting from `carry[l]` (`count`
    /// values on the device, read before anything of this launch writes) or, with `carry` 0,
    /// from the identity.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_lanes(
        &mut self,
        kind: &LaneKind<'_>,
        input: u64,
        in_lb: &LaneBatches,
        output: u64,
        out_lb: &LaneBatches,
        plan: LanePlan,
        exclusive: bool,
        carry: u64,
        stream: &Stream,
    ) -> Result<()> {
        if in_lb.total_lanes() == 0 || in_lb.lanes.len == 0 {
            return Ok(());
        }
        let count = in_lb.lanes.count;
        let totals = if plan.splits > 1 {
            self.scratch(plan.splits as usize * count as usize * kind.value_size)?
        } else {
            0
        };
        let scan = self.lane_kernel("axis", kind)?;
        let first = self.lane_kernel(
            "axis_totals",
            &LaneKind::new(kind.totals_suffix(), kind.value_size),
        )?;
        for (&ib, &ob) in in_lb.batches.iter().zip(&out_lb.batches) {
            let (src, dst) = (
                offset_ptr(input, ib, kind.in_size()),
                offset_ptr(output, ob, kind.out_size()),
            );
            let (in_lanes, out_lanes) = (in_lb.lanes, out_lb.lanes);
            if plan.splits > 1 {
                // SAFETY: the lanes lie inside the staged input (checked shape and strides);
                // `totals` holds splits × count values of the scratch.
                unsafe { Self::launch_split_totals(&first, src, in_lanes, &plan, totals, stream)? };
                self.seed_splits(kind, totals, count, plan.splits, carry, stream)?;
            }
            let seeds = if plan.splits > 1 { totals } else { carry };
            // SAFETY: input and output lanes come from one merge of the same shape (lane l is
            // the same index in both) and lie inside their arrays; the output does not alias
            // (checked strides) unless it is the input itself, lane for lane; seeds hold
            // splits × count values (the seeded totals), or `count` values (the caller's
            // carry) or are null with one split.
            unsafe {
                Self::launch_lane_scan(
                    &scan,
                    (src, in_lanes),
                    (dst, out_lanes),
                    &plan,
                    seeds,
                    exclusive,
                    stream,
                )?;
            }
        }
        Ok(())
    }

    /// Enqueues `out[l] = seeds[l] ⊕ input[l]` for `count` contiguous values (`seeds` 0: a
    /// copy): lanes of one element scanned from their seeds. Carries a running value per lane
    /// from one chunk of an array to the next.
    pub(crate) fn enqueue_lane_step(
        &mut self,
        kind: &LaneKind<'_>,
        input: u64,
        seeds: u64,
        output: u64,
        count: u64,
        stream: &Stream,
    ) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        let lanes = AxisLanes {
            count,
            inner: count,
            len: 1,
            outer_stride: 0,
            inner_stride: 1,
            axis_stride: 1,
        };
        let kernel = self.lane_kernel("axis", kind)?;
        let plan = self.axis_plan(kind, &lanes)?.without_splits();
        // SAFETY: the caller gives `count` values at `input`, at `seeds` (or null) and at
        // `output`, the output apart from both; one split.
        unsafe {
            Self::launch_lane_scan(
                &kernel,
                (input, lanes),
                (output, lanes),
                &plan,
                seeds,
                false,
                stream,
            )
        }
    }

    /// The segment tiles of a scan of `kind`: threads per block, values per tile and the
    /// dynamic shared memory (0: register tiles). `staging` as for the flat scan: staged tiles
    /// (sum, prod, min and max of 4- and 8-byte values on GPUs with cp.async) for `Auto` where
    /// they run, an `InvalidArgument` for `Staged` where they do not.
    pub(super) fn segment_tiles_shape(
        &self,
        kind: &LaneKind<'_>,
        staging: TileStaging,
    ) -> Result<(u32, u32, usize)> {
        let props = self.gpu.properties();
        let block = segment_staged_block();
        let shared_bytes = block as usize * STAGED_SHARED_BYTES_PER_THREAD;
        let possible = kind.has_fast_paths()
            && matches!(kind.value_size, 4 | 8)
            && staged_tiles_available(props.compute_capability)
            && shared_bytes <= props.shared_memory_per_block_optin;
        let staged = match staging {
            TileStaging::Registers => false,
            TileStaging::Auto => possible,
            TileStaging::Staged if possible => true,
            TileStaging::Staged => {
                let (major, minor) = props.compute_capability;
                return Err(Error::invalid(
                    "staging",
                    format!(
                        "staged segment tiles exist for sum, prod, min and max of 4- and 8-byte                          values on GPUs of compute capability 8.0 or later; this scan is {} on                          a {major}.{minor} device",
                        kind.suffix
                    ),
                ));
            }
        };
        Ok(if staged {
            let items = (STAGED_BYTES_PER_THREAD / kind.value_size) as u32;
            (block, block * items, shared_bytes)
        } else {
            let block = SEGMENT_TILES_BLOCK;
            (block, block * lookback_items(kind.value_size), 0)
        })
    }

    /// Enqueues the scan of every segment of the values at `input` into `output` (same
    /// positions): segment tiles (the values read as the flat look-back scan reads an array,
    /// whatever the segment lengths), one block per tile
    /// ([`segment_tiles_shape`](Self::segment_tiles_shape)).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_segments(
        &mut self,
        kind: &LaneKind<'_>,
        input: u64,
        segments: &Segments,
        output: u64,
        exclusive: bool,
        staging: TileStaging,
        stream: &Stream,
    ) -> Result<LanePlan> {
        let run = self.segments_begin(kind, segments, exclusive, staging, true, stream)?;
        if run.plan.tiles > 0 {
            self.segment_tiles(&run, input, output, run.plan.tiles, stream)?;
        }
        Ok(run.plan)
    }

    /// Plans a segmented scan and zeroes its tile counter and status on `stream`; the tiles
    /// then run in one or more [`segment_tiles`](Self::segment_tiles) launches on that stream.
    /// `resident`: the values are all on the device before the first launch, so staged tiles
    /// may prefetch later ones where the tuning says so (not a host pipeline's chunks).
    pub(crate) fn segments_begin(
        &mut self,
        kind: &LaneKind<'_>,
        segments: &Segments,
        exclusive: bool,
        staging: TileStaging,
        resident: bool,
        stream: &Stream,
    ) -> Result<SegmentsRun> {
        let len = segments.values_len() as u64;
        let (block, tile, shared_bytes) = self.segment_tiles_shape(kind, staging)?;
        let mut plan = LanePlan::segment_tiles(len, tile);
        if resident && shared_bytes > 0 {
            let ahead = self.prefetch_ahead(len, tile as u64 * kind.value_size as u64, 1);
            plan.access = plan.access.with_prefetch(ahead);
        }
        // The bounds stay cached in `segments` (and alive with it) for later calls.
        let (st, bounds) = segments.tiles(tile as u64)?;
        let launch = if plan.tiles == 0 {
            None
        } else {
            let prefetching = plan.access.prefetch() > 0;
            let kernel = self.tile_kernel("segment_tiles", kind, shared_bytes, prefetching)?;
            self.check_kernel(&kernel, block)?;
            self.grid(plan.tiles)?;
            // Zeroed before each launch: the epoch-tagged status of run 1 to the kernels.
            let layout = StatusLayout::epoch(plan.tiles, kind.value_size)?;
            Some((kernel, self.zeroed_status(&layout, stream)?))
        };
        Ok(SegmentsRun {
            launch,
            block,
            shared_bytes,
            plan,
            st,
            _bounds: bounds,
            exclusive: exclusive as u32,
        })
    }

    /// Launches the next `tiles` tiles of `run` (the first ones, or those after the previous
    /// launch's on the same stream) over the values at `input` into `output`, both addresses
    /// standing for value 0 (a pipeline's chunk may hold only the tiles launched).
    pub(crate) fn segment_tiles(
        &self,
        run: &SegmentsRun,
        input: u64,
        output: u64,
        tiles: u64,
        stream: &Stream,
    ) -> Result<()> {
        let Some((kernel, status)) = &run.launch else {
            return Ok(());
        };
        let LookbackStatus {
            counter,
            flags,
            aggregates,
            inclusives,
        } = *status;
        let grid = self.grid(tiles)?;
        let (st, exclusive) = (run.st, run.exclusive);
        // SAFETY: scan_segment_tiles[_staged]_<kind>(const T* in, SegmentTiles st, T* out, u32
        // exclusive, u32* counter, u32* flags, void* aggs, void* incs) matches (u64,
        // SegmentTiles, u64, u32, u64, u64, u64, u64), SegmentTiles a #[repr(C)] copy of the
        // CUDA struct. The offsets were checked against the input's length when the segments
        // were built, and the bounds (alive in `run`) computed from them for tiles of `tile` =
        // block × the kernel's items per thread (lookback_items mirrors gp::ScanTileShape,
        // STAGED_BYTES_PER_THREAD gp::ScanStagedShape; at most 1024 threads, whose staged
        // bitmask the kernel sizes); each block takes the next tile from the counter and reads
        // and writes only that tile's values, which the callers have placed at `input` /
        // `output` + position (the whole arrays, or a pipeline chunk holding exactly the tiles
        // of this launch; `output` may be `input`: a tile reads all its values before
        // writing); staged kernels get the block · 128 bytes of dynamic shared memory they
        // index (allowed when planned); the scratch holds the counter and status of all the
        // run's tiles as StatusLayout lays them out, zeroed by `segments_begin` on this stream.
        // The prefetching twin (scan_segment_tiles_staged_pf_*, planned only for values all on
        // the device) takes one more argument, u64 prefetch_tiles ≥ 1: each tile prefetches
        // values below st.n and offsets the bounds give (a hint; it writes nothing).
        let prefetch = run.plan.access.prefetch() as u64;
        let mut args =
            kernel_args![input, st, output, exclusive, counter, flags, aggregates, inclusives]
                .to_vec();
        if prefetch > 0 {
            args.extend(kernel_args![prefetch]);
        }
        unsafe {
            kernel.launch(
                LaunchConfig::new(grid, run.block).with_shared_bytes(run.shared_bytes as u32),
                stream,
                &args,
            )
        }
    }
}

/// A planned segmented scan ([`Scanner::segments_begin`]): its kernel, plan and zeroed status.
pub(crate) struct SegmentsRun {
    /// The kernel and its zeroed status; `None` when there are no tiles.
    launch: Option<(gpu_core::Kernel, LookbackStatus)>,
    block: u32,
    shared_bytes: usize,
    pub(crate) plan: LanePlan,
    st: gpu_core::SegmentTiles,
    _bounds: std::sync::Arc<gpu_core::DeviceArray<u64>>,
    exclusive: u32,
}

/// A scan of interleaved lanes ([`Scanner::interleaved_plan`]): the K-wide vector kind and the
/// lanes counted in vectors.
pub(crate) struct Interleaved {
    pub(crate) suffix: String,
    pub(crate) value_size: usize,
    pub(crate) input: LaneBatches,
    pub(crate) output: LaneBatches,
    pub(crate) rows: (LanePlan, RowsTile),
}

/// Dynamic shared memory of a staged long-span columns scan of `threads` threads a block:
/// [`COLUMN_STAGED_ROWS`] vectors of 16 bytes a thread.
fn column_staged_bytes(threads: u32) -> usize {
    threads as usize * COLUMN_STAGED_ROWS as usize * 16
}

/// Static shared memory of the long-span columns scans, at most, checked beside the staged
/// rows against the device's limit per block: an entry of 4-byte values holds
/// `lanes_scan_columns_lw` for 4 and 2 lanes a vector, each with its own totals and prefixes
/// (16 and 8 bytes a thread each) and two words (a GPU unit test checks the kernels' own
/// figure against it).
const COLUMN_STATIC_SHARED: usize = (2 * 16 + 2 * 8) * LANES_BLOCK as usize + 2 * 16;

/// One launch of several that together scan the spans of a columns scan (a host pipeline's
/// chunk): span ids `[begin, end)`; `first` zeroes the status the later ones read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpanPart {
    pub begin: u64,
    pub end: u64,
    pub first: bool,
}

/// A look-back-rows scan launched in parts ([`Scanner::rows_begin`]): its kernel, tile and
/// status, the tiles of each part continuing the counter where the previous part on the stream
/// left it.
pub(crate) struct RowsRun {
    kernel: gpu_core::Kernel,
    tile: RowsTile,
    per_lane: u64,
    status: LookbackStatus,
    /// The run's status tag and the counter's value before it (lookback_epoch.cuh).
    epoch: u32,
    base: u32,
    exclusive: u32,
}

/// How the look-back rows run: threads per block, and the dynamic shared memory of the staged
/// tile (0: register tiles).
#[derive(Clone, Copy)]
pub(crate) struct RowsTile {
    block: u32,
    shared_bytes: usize,
}

/// The pattern chosen for a scan along an axis ([`Scanner::choose_axis`]).
pub(crate) enum AxisChoice {
    Packed(LanePlan),
    Interleaved(Interleaved),
    Columns((LanePlan, ColumnLanes, ColumnLanes)),
    Rows((LanePlan, RowsTile)),
    Lanes(LanePlan),
}

/// What fixes the arithmetic of every lane of an axis scan: the pattern, its mapping, the
/// splits per lane and the rows' tile (not how many tiles there are).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct LaneArithmetic {
    pattern: u8,
    access: LaneAccess,
    tiling: LaneTiling,
    splits: u32,
    rows_tile: Option<(u32, usize)>,
}

impl AxisChoice {
    /// The arithmetic this choice gives each lane: two launches with equal arithmetic compute
    /// every lane bit for bit alike, however many lanes each holds.
    pub(crate) fn arithmetic(&self) -> LaneArithmetic {
        let (pattern, rows_tile) = match self {
            AxisChoice::Packed(_) => (0, None),
            AxisChoice::Interleaved(i) => (1, Some((i.rows.1.block, i.rows.1.shared_bytes))),
            AxisChoice::Columns(_) => (2, None),
            AxisChoice::Rows((_, t)) => (3, Some((t.block, t.shared_bytes))),
            AxisChoice::Lanes(_) => (4, None),
        };
        let plan = self.plan();
        LaneArithmetic {
            pattern,
            // The L2 prefetch is a hint: it changes no result.
            access: plan.access.with_prefetch(0),
            tiling: plan.tiling,
            splits: plan.splits,
            rows_tile,
        }
    }

    /// The plan that runs.
    pub(crate) fn plan(&self) -> LanePlan {
        match self {
            AxisChoice::Packed(p) | AxisChoice::Lanes(p) => *p,
            AxisChoice::Interleaved(i) => i.rows.0,
            AxisChoice::Columns((p, _, _)) | AxisChoice::Rows((p, _)) => *p,
        }
    }
}

/// `lb` (at `base`) as lanes of `k`-wide vectors (2 or 4 values of `size` bytes), where its
/// lanes are `k` side by side at stride 1 with one row of them every `k` elements (axis
/// stride `k`), every batch and outer index starts at a multiple of `k`, and `base` is
/// aligned to the vector: each vector lane is then `len` consecutive vectors.
fn interleaved_lanes(lb: &LaneBatches, base: u64, k: u64, size: usize) -> Option<LaneBatches> {
    let a = &lb.lanes;
    let ki = k as i64;
    let outer = a.count.checked_div(a.inner)?;
    if !(k == 2 || k == 4)
        || a.inner != k
        || a.inner_stride != 1
        || a.axis_stride != ki
        || (outer > 1 && a.outer_stride % ki != 0)
        || base % (k * size as u64) != 0
        || lb.batches.iter().any(|b| b % ki != 0)
    {
        return None;
    }
    Some(LaneBatches {
        lanes: AxisLanes {
            count: outer,
            inner: 1,
            len: a.len,
            outer_stride: a.outer_stride / ki,
            inner_stride: 0,
            axis_stride: 1,
        },
        batches: lb.batches.iter().map(|b| b / ki).collect(),
    })
}

/// The split totals of `count` lanes as lanes of their own: `splits` values each, split-major
/// (split `s` of lane `l` at `s · count + l`).
pub(crate) fn seed_lanes(count: u64, splits: u64) -> AxisLanes {
    AxisLanes {
        count,
        inner: count,
        len: splits,
        outer_stride: 0,
        inner_stride: 1,
        axis_stride: count as i64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operator_but_the_8_byte_prod_stages_its_column_spans_at_any_tile_count() {
        for t in [1, 2, 8, 128] {
            for (op, size) in [
                ("sum_f32", 4),
                ("sum_u64", 8),
                ("max_f32", 4),
                ("min_i32", 4),
                ("prod_u32", 4),
                ("min_i64", 8),
                ("max_f64", 8),
            ] {
                assert!(LaneKind::new(op, size).stages_column_spans(t), "{op} {t}");
            }
            for (op, size) in [("prod_u64", 8), ("prod_i64", 8)] {
                assert_eq!(
                    LaneKind::new(op, size).stages_column_spans(t),
                    t == 1,
                    "{op} {t}"
                );
            }
        }
        // The 16-bit floats' converting scans have no staged kernels.
        let half = LaneKind {
            io: Some(LaneIo {
                in_size: 2,
                out_size: 2,
                totals: "sum_f16",
                seeds: "sum_f32",
            }),
            ..LaneKind::new("sum_f16_to_f16", 4)
        };
        assert!(!half.stages_column_spans(1));
    }

    /// The plan checks `COLUMN_STATIC_SHARED` beside the staged rows without loading a kernel:
    /// it must cover every staged kernel's static shared memory, and a block of
    /// `LANES_BLOCK` threads with its staged rows must fit on an SM.
    #[test]
    fn staged_columns_shared_memory_is_what_the_plan_counts() {
        let Some(gpu) = gpu_core::testing::gpu_or_skip() else {
            return;
        };
        if gpu.properties().compute_capability < crate::plan::PREFETCH_MIN_COMPUTE {
            eprintln!("skipped: no staged column spans below compute capability 9.0");
            return;
        }
        let types = ["i32", "u32", "f32", "i64", "u64", "f64"];
        for (op, t) in ["sum", "prod", "min", "max"]
            .iter()
            .flat_map(|op| types.iter().map(move |t| (op, t)))
        {
            let name = format!("scan_columns_staged_{op}_{t}");
            let k = gpu.kernel(&SCAN_SM90_PTX, &name).unwrap();
            let fixed = k.static_shared_bytes().unwrap();
            assert!(fixed <= COLUMN_STATIC_SHARED, "{name}: {fixed} bytes");
            let dynamic = column_staged_bytes(LANES_BLOCK);
            k.set_max_dynamic_shared(dynamic).unwrap();
            let blocks = k.max_active_blocks_per_sm(LANES_BLOCK, dynamic).unwrap();
            assert!(blocks >= 1, "{name}: {blocks} blocks an SM");
        }
    }
}
