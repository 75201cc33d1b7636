//! Axis scans of host arrays through the host pipeline: an array in any order of its axes is a
//! sequence of slices along its outer memory axis, and when the scan runs along another axis
//! every lane lies inside one slice. Chunks of whole slices then go up, are scanned in their
//! ring slot and come down while the next ones do, with no carry between chunks. Along the
//! outer axis itself, where every lane crosses the chunks, the one-shot launch is cut into
//! parts at its own tile boundaries (vector columns: spans; look-back rows: tiles), each part
//! launched over its chunk with the status of the earlier ones, and the generic lane kernels'
//! splits are launched chunk by chunk with their seeds scanned as the one-shot launch scans
//! them (lanes of one split: at the kernel's rounds, each chunk handing on its running
//! value), so every operator, floats included, gives the one-shot bits; where no such cut fits
//! a chunk, exact operators (integer types) carry each lane's running value instead.

use std::mem::MaybeUninit;

use gpu_core::{
    enqueue_layout_copy_at, AxisLanes, DeviceArray, HostNd, LaneAccess, LaneBatches, LanePlan, Pod,
    Result, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS,
};

use super::lanes::{lane_items, seed_lanes, AxisChoice, RowsTile, SpanPart};
use super::{LaneKind, Scanner};
use crate::shaped::scan_lanes;

/// Split totals per round of a generic lane scan, or a multiple of it: a round is the block's
/// positions on a lane (a power of two up to 256) times its items per thread (1, 2 or 4).
const SEED_ROUND: u64 = 1024;

impl Scanner {
    /// Scans `host` along `axis` into `output` (memory order, the input's length) through the
    /// host pipeline: `Ok(true)` with every element written, `Ok(false)` with nothing done where
    /// it does not apply: `axis` is the outer memory axis (its lanes cross the slices), the
    /// operator is not `exact` and the one-shot launch cannot be cut at chunk boundaries
    /// ([`scan_outer_axis_host_pipelined`](Self::scan_outer_axis_host_pipelined)), one slice
    /// exceeds a pipeline chunk, fewer than two slices, or a chunk's launch would not give its
    /// lanes the arithmetic of the whole array's launch (so results stay bit for bit those of
    /// the one-shot scan), or another pipeline of the `Gpu` holds its staging.
    pub(crate) fn scan_axis_host_pipelined<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        host: &HostNd<'_, T>,
        axis: usize,
        exclusive: bool,
        exact: bool,
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let Some(outer) = host.outer_axis() else {
            return Ok(false);
        };
        let (total, slices) = (host.data.len(), host.shape[outer]);
        if total == 0 || slices < 2 || output.len() != total {
            return Ok(false);
        }
        if axis == outer {
            return self
                .scan_outer_axis_host_pipelined(kind, host, outer, exclusive, exact, output);
        }
        let size = std::mem::size_of::<T>();
        let slice = total / slices;
        let per_chunk = (PIPELINE_CHUNK_BYTES / (slice * size)).min(slices);
        if per_chunk == 0 {
            return Ok(false);
        }
        let chunk = per_chunk * slice;
        // The lanes of `count` slices: the same strides, the outer axis shorter.
        let lanes_of = |count: usize| -> Result<LaneBatches> {
            let mut shape = host.shape.clone();
            shape[outer] = count;
            scan_lanes(&shape, &host.strides, axis)
        };
        let whole = lanes_of(slices)?;
        let arithmetic = self.choose_axis(kind, 0, &whole, 0, &whole)?.arithmetic();
        let gpu = self.gpu.clone();
        let (mut ring_in, mut ring_out) = rings::<T>(&gpu, chunk)?;
        // Every chunk length in every slot (alignments differ between slots) must plan as the
        // whole array does.
        let last = slices % per_chunk;
        for count in std::iter::once(per_chunk).chain((last > 0).then_some(last)) {
            let lanes = lanes_of(count)?;
            for s in 0..PIPELINE_RING_SLOTS {
                let offset = (s * chunk * size) as u64;
                let (i, o) = (
                    ring_in.device_ptr() + offset,
                    ring_out.device_ptr() + offset,
                );
                if self.choose_axis(kind, i, &lanes, o, &lanes)?.arithmetic() != arithmetic {
                    return Ok(false);
                }
            }
        }
        self.release_scratch()?;
        gpu.host_pipeline_rings(
            &host.data,
            &mut ring_in,
            0,
            output,
            &mut ring_out,
            chunk,
            |step, stream| {
                let lanes = lanes_of(step.range.len() / slice)?;
                let input = step.input.wrapping_add((step.range.start * size) as u64);
                let out = step.output.wrapping_add((step.produced * size) as u64);
                self.in_order(stream, |s| {
                    s.enqueue_axis(kind, input, &lanes, out, &lanes, exclusive, stream)
                        .map(drop)
                })?;
                Ok(step.range)
            },
        )
    }

    /// The scan along the outer memory axis of `host` (every lane crosses the slices) through
    /// the host pipeline. Where the one-shot launch takes the vector columns or the look-back
    /// rows (the columns of a dense array of one, two or four columns), its spans or tiles are
    /// launched chunk by chunk ([`outer_columns`](Self::outer_columns),
    /// [`outer_rows`](Self::outer_rows)), as are the generic lane kernels' splits
    /// ([`outer_splits`](Self::outer_splits)), or their rounds for lanes of one split
    /// ([`outer_one_split`](Self::outer_one_split)): the one-shot bits for every operator.
    /// Elsewhere exact operators carry each lane's running value
    /// ([`outer_carry`](Self::outer_carry)), and float scans return `Ok(false)`, as where one
    /// slice (or one span, tile, round or two splits of slices) exceeds a chunk or the
    /// pipeline's staging is busy.
    fn scan_outer_axis_host_pipelined<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        host: &HostNd<'_, T>,
        outer: usize,
        exclusive: bool,
        exact: bool,
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        // The C-order view: axis 0 is the outer axis, the lanes are each slice's elements in
        // memory order, so lane `l`'s running value is `carry[l]`.
        let (shape, strides, axis) = host.c_order_view(outer);
        let (total, slices) = (host.data.len(), shape[0]);
        let slice = total / slices;
        if axis != 0 || slice * std::mem::size_of::<T>() > PIPELINE_CHUNK_BYTES {
            return Ok(false);
        }
        let whole = scan_lanes(&shape, &strides, 0)?;
        let l = whole.lanes;
        // (One lane, a column of one or a 1-D array, has no stride across lanes.)
        let in_memory_order = whole.batches == [0]
            && l.count == slice as u64
            && (l.count == 1
                || l.inner_stride == 1 && (l.inner == l.count || l.outer_stride == l.inner as i64));
        if !in_memory_order {
            return Ok(false);
        }
        // The one-shot launch's choice is that of the array as staged (its own shape and
        // strides, from 16-byte aligned bases): the view's must give every lane the same
        // arithmetic (a Fortran array's lanes may merge otherwise and take another kernel).
        let staged = scan_lanes(&host.shape, &host.strides, outer)?;
        let one_shot = self.choose_axis(kind, 0, &staged, 0, &staged)?.arithmetic();
        let choice = self.choose_axis(kind, 0, &whole, 0, &whole)?;
        let choice = (choice.arithmetic() == one_shot).then_some(choice);
        let ctx = OuterScan {
            host,
            slice,
            exclusive,
        };
        // The generic lanes' splits where they can be cut into chunks; else, for exact
        // operators, the carry below.
        if let Some(AxisChoice::Lanes(plan)) = &choice {
            let done = if plan.splits > 1 {
                self.outer_splits(kind, &ctx, &whole, *plan, output)?
            } else {
                !exact && self.outer_one_split(kind, &ctx, &whole, *plan, output)?
            };
            if done {
                return Ok(true);
            }
        }
        match choice {
            Some(AxisChoice::Columns(planned)) if planned.0.splits > 1 => {
                self.outer_columns(kind, &ctx, &whole, planned, output)
            }
            Some(AxisChoice::Rows(planned)) => self.outer_rows(kind, &ctx, &whole, planned, output),
            Some(AxisChoice::Interleaved(i)) => {
                let vkind = LaneKind::new(&i.suffix, i.value_size);
                self.outer_rows(&vkind, &ctx, &i.input, i.rows, output)
            }
            _ if exact => self.outer_carry(kind, &ctx, &shape, &strides, output),
            _ => Ok(false),
        }
    }

    /// The generic lane scan of the whole array (`plan`, more than one split per lane)
    /// launched chunk by chunk, each chunk holding whole splits of slices. Per chunk, on the
    /// work stream: the totals of its whole splits; the seeds of its splits, scanned from the
    /// totals with the one-shot seed scan's plan, from the start of the seed scan's round
    /// that holds the chunk's first split (its running value is that round's first exclusive
    /// output, which the seed scan gives exactly); then its splits scanned from their seeds.
    /// The same splits, totals, rounds and seeds as the one-shot launch: its bits, for every
    /// operator. `Ok(false)` where a chunk cannot hold two splits, or the chunks would end in
    /// one whole split before the partial last one (a totals pass needs two splits).
    fn outer_splits<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        ctx: &OuterScan<'_, '_, T>,
        whole: &LaneBatches,
        plan: LanePlan,
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let (l, vs, size) = (whole.lanes, kind.value_size, std::mem::size_of::<T>());
        if whole.batches != [0] || vs != size || l.len == 0 {
            return Ok(false);
        }
        let (n, count, splits) = (l.len, l.count, plan.splits as u64);
        // The kernels' cut (lane_split): splits of `per` slices, a multiple of 4.
        let per = (n.div_ceil(splits) + 3) & !3;
        let (full, used) = (n / per, n.div_ceil(per));
        let split_len = per as usize * ctx.slice;
        let fit = (PIPELINE_CHUNK_BYTES / (split_len * size)) as u64;
        let ends_well = |m: u64| {
            let last_first = (used - 1) / m * m;
            used == full || full.saturating_sub(last_first) != 1
        };
        let Some(m) = (2..=fit.min(used)).rev().find(|&m| ends_well(m)) else {
            return Ok(false);
        };
        let chunk = m as usize * split_len;
        let gpu = self.gpu.clone();
        let (mut ring_in, mut ring_out) = rings::<T>(&gpu, chunk)?;
        // Totals and seeds of every split and one more (a chunk's seed scan runs one split
        // past its own, whose exclusive output is the next round's running value); zeroed,
        // so that no scan reads uninitialised memory.
        let row = count as usize * vs;
        let words = ((splits as usize + 1) * row).div_ceil(8);
        let (totals_buf, seeds_buf) = (gpu.zeros::<u64>(words)?, gpu.zeros::<u64>(words)?);
        let (totals, seeds) = (totals_buf.device_ptr(), seeds_buf.device_ptr());
        let seed_plan = self.seed_plan(kind, count, plan.splits)?;
        let scan = self.lane_kernel("axis", kind)?;
        let first = self.lane_kernel("axis_totals", kind)?;
        let exclusive = ctx.exclusive;
        let at = |base: u64, s: u64, unit: usize| base + s * unit as u64;
        self.release_scratch()?;
        gpu.host_pipeline_rings(
            &ctx.host.data,
            &mut ring_in,
            0,
            output,
            &mut ring_out,
            chunk,
            |step, stream| {
                let (s0, s1) = (
                    (step.range.start / split_len) as u64,
                    step.range.end.div_ceil(split_len) as u64,
                );
                let whole_end = s1.min(full);
                let (input, out) = (step.input, step.output);
                let bytes = split_len * size;
                self.in_order(stream, |_| {
                    // SAFETY (all three launches): the chunk's slices lie in its ring slots
                    // (`input` and `out` stand for element 0 of the array, so split `s`
                    // starts at `s · split_len` elements); `totals` and `seeds` hold
                    // `splits + 1` rows of `count` values, alive until the pipeline has
                    // waited for the stream; the seed scan reads its running value from the
                    // first row it writes (read before any write, the kernel's contract).
                    unsafe {
                        if whole_end >= s0 + 2 {
                            let lanes = AxisLanes {
                                len: (whole_end - s0) * per,
                                ..l
                            };
                            let p = LanePlan {
                                splits: (whole_end - s0) as u32,
                                ..plan
                            };
                            Scanner::launch_split_totals(
                                &first,
                                at(input, s0, bytes),
                                lanes,
                                &p,
                                at(totals, s0, row),
                                stream,
                            )?;
                        }
                        let r0 = s0 / SEED_ROUND * SEED_ROUND;
                        let lanes = seed_lanes(count, s1 + 1 - r0);
                        let carry = if r0 == 0 { 0 } else { at(seeds, r0, row) };
                        Scanner::launch_lane_scan(
                            &scan,
                            (at(totals, r0, row), lanes),
                            (at(seeds, r0, row), lanes),
                            &seed_plan,
                            carry,
                            true,
                            stream,
                        )?;
                        // The whole splits, then the partial last one (a split of its own).
                        let mut parts = vec![(s0, whole_end - s0, (whole_end - s0) * per)];
                        if s1 > full {
                            parts.push((full, 1, n - full * per));
                        }
                        for (a, k, len) in parts.into_iter().filter(|p| p.1 > 0) {
                            let lanes = AxisLanes { len, ..l };
                            let p = LanePlan {
                                splits: k as u32,
                                ..plan
                            };
                            Scanner::launch_lane_scan(
                                &scan,
                                (at(input, a, bytes), lanes),
                                (at(out, a, bytes), lanes),
                                &p,
                                at(seeds, a, row),
                                exclusive,
                                stream,
                            )?;
                        }
                    }
                    Ok(())
                })?;
                Ok(step.range)
            },
        )
    }

    /// The vector-columns scan of the whole array (`planned`, of more than one span per lane)
    /// launched chunk by chunk: each chunk holds whole spans of slices, and its launch scans
    /// those spans' ids over the one status (zeroed by the first), looking back into the
    /// spans of the earlier chunks. The same spans, each with the same prefix: the one-shot
    /// bits.
    fn outer_columns<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        ctx: &OuterScan<'_, '_, T>,
        whole: &LaneBatches,
        planned: (LanePlan, gpu_core::ColumnLanes, gpu_core::ColumnLanes),
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        // A chunk's later spans are not on the device yet: nothing to prefetch.
        let planned = (without_prefetch(planned.0), planned.1, planned.2);
        let plan = planned.0;
        let LaneAccess::VectorColumns {
            rows_per_thread,
            threads_down,
            ..
        } = plan.access
        else {
            return Ok(false);
        };
        let span = (rows_per_thread * threads_down) as usize * planned.1.rv as usize;
        let Some((chunk, mut ring_in, mut ring_out)) = self.outer_rings(ctx, span)? else {
            return Ok(false);
        };
        let (slice, tiles, ids) = (ctx.slice, plan.tiles, plan.tiles * plan.splits as u64);
        let mut first = true;
        self.release_scratch()?;
        self.gpu.clone().host_pipeline_rings(
            &ctx.host.data,
            &mut ring_in,
            0,
            output,
            &mut ring_out,
            chunk,
            |step, stream| {
                let part = SpanPart {
                    begin: (step.range.start / slice / span) as u64 * tiles,
                    end: ((step.range.end / slice).div_ceil(span) as u64 * tiles).min(ids),
                    first,
                };
                first = false;
                self.in_order(stream, |s| {
                    s.enqueue_columns(
                        kind,
                        step.input,
                        whole,
                        step.output,
                        whole,
                        planned,
                        ctx.exclusive,
                        Some(part),
                        stream,
                    )
                    .map(drop)
                })?;
                Ok(step.range)
            },
        )
    }

    /// The look-back-rows scan of the whole array's one lane (`lanes`: a column of one, or
    /// the two or four interleaved columns as one lane of vectors, a vector per slice)
    /// launched chunk by chunk: each chunk holds whole tiles, and its launch takes the next
    /// tiles from the counter over the one status, as the flat scan's pipeline does. The same
    /// tiles, each with the same prefix: the one-shot bits.
    fn outer_rows<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        ctx: &OuterScan<'_, '_, T>,
        lanes: &LaneBatches,
        planned: (LanePlan, RowsTile),
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let tile = match planned.0.access {
            LaneAccess::LookBackRows { tile } | LaneAccess::InterleavedRows { tile, .. } => {
                tile as usize
            }
            _ => return Ok(false),
        };
        let slices = ctx.host.data.len() / ctx.slice;
        if lanes.batches != [0] || lanes.lanes.count != 1 || lanes.lanes.len != slices as u64 {
            return Ok(false);
        }
        let Some((chunk, mut ring_in, mut ring_out)) = self.outer_rings(ctx, tile)? else {
            return Ok(false);
        };
        let slice = ctx.slice;
        let mut run = None;
        self.release_scratch()?;
        self.gpu.clone().host_pipeline_rings(
            &ctx.host.data,
            &mut ring_in,
            0,
            output,
            &mut ring_out,
            chunk,
            |step, stream| {
                let tiles = (step.range.len() / slice).div_ceil(tile) as u64;
                self.in_order(stream, |s| {
                    if run.is_none() {
                        run = Some(s.rows_begin(kind, planned, ctx.exclusive, stream)?);
                    }
                    let run = run.as_ref().expect("begun above");
                    let l = &lanes.lanes;
                    s.rows_tiles(run, step.input, l, step.output, l, tiles, stream)
                })?;
                Ok(step.range)
            },
        )
    }

    /// The generic lane scan of the whole array with one split per lane (`plan`) launched
    /// chunk by chunk: each chunk holds whole rounds of the kernel (its positions on a lane
    /// times its items per thread), is scanned from the running value the one-shot launch
    /// has at its first round, and hands on the running value it ends with. That value is the
    /// exclusive output at the next round's first element, which the kernel gives exactly: a
    /// second, exclusive scan of the chunk, copied with one zero row after it (not read from
    /// the ring, whose next slot may be filling), from the same seed into scratch. The same
    /// rounds and running values as the one-shot launch: its bits. `Ok(false)` where a round
    /// of slices exceeds a chunk.
    fn outer_one_split<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        ctx: &OuterScan<'_, '_, T>,
        whole: &LaneBatches,
        plan: LanePlan,
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let (l, vs, size) = (whole.lanes, kind.value_size, std::mem::size_of::<T>());
        if whole.batches != [0] || vs != size || plan.splits != 1 {
            return Ok(false);
        }
        let slice = ctx.slice;
        let round = (plan.tiling.positions() * lane_items(vs)) as usize;
        let rows = PIPELINE_CHUNK_BYTES / (slice * size) / round * round;
        if rows == 0 {
            return Ok(false);
        }
        let (chunk, total) = (rows * slice, ctx.host.data.len());
        let gpu = self.gpu.clone();
        let (mut ring_in, mut ring_out) = rings::<T>(&gpu, chunk)?;
        // The carry scan's input (a chunk and one zero row) and output, and the running values.
        let (tail_in, tail_out) = (
            gpu.zeros::<T>(chunk + slice)?,
            gpu.alloc::<T>(chunk + slice)?,
        );
        let carry = gpu.alloc::<T>(slice)?;
        let scan = self.lane_kernel("axis", kind)?;
        let exclusive = ctx.exclusive;
        self.release_scratch()?;
        gpu.host_pipeline_rings(
            &ctx.host.data,
            &mut ring_in,
            0,
            output,
            &mut ring_out,
            chunk,
            |step, stream| {
                let lanes = AxisLanes {
                    len: (step.range.len() / slice) as u64,
                    ..l
                };
                let at = (step.range.start * size) as u64;
                let (input, out) = (step.input + at, step.output + at);
                let seeds = if step.range.start == 0 {
                    0
                } else {
                    carry.device_ptr()
                };
                self.in_order(stream, |_| {
                    // SAFETY: the chunk's rows lie in its ring slots from `input` and `out`;
                    // `tail_in` and `tail_out` hold `rows + 1` rows and `carry` one, alive until
                    // the pipeline has waited for the stream; distinct allocations; each scan
                    // reads its seeds before it writes, and the copy into `carry` comes after
                    // both scans that read it, on the same stream.
                    unsafe {
                        Scanner::launch_lane_scan(
                            &scan,
                            (input, lanes),
                            (out, lanes),
                            &plan,
                            seeds,
                            exclusive,
                            stream,
                        )?;
                        if step.range.end == total {
                            return Ok(());
                        }
                        let copy = |src: u64, dst: u64, len: usize| {
                            enqueue_layout_copy_at::<T>(&gpu, src, &[1], dst, &[1], &[len], stream)
                        };
                        copy(input, tail_in.device_ptr(), chunk)?;
                        let tail = AxisLanes {
                            len: rows as u64 + 1,
                            ..l
                        };
                        Scanner::launch_lane_scan(
                            &scan,
                            (tail_in.device_ptr(), tail),
                            (tail_out.device_ptr(), tail),
                            &plan,
                            seeds,
                            true,
                            stream,
                        )?;
                        copy(
                            tail_out.device_ptr() + (chunk * size) as u64,
                            carry.device_ptr(),
                            slice,
                        )
                    }
                })?;
                Ok(step.range)
            },
        )
    }

    /// The chunk (a multiple of `unit` slices, at most one pipeline chunk) and the device
    /// rings of an outer-axis pipeline, or `None` where `unit` slices exceed a chunk.
    #[allow(clippy::type_complexity)]
    fn outer_rings<T: Pod>(
        &self,
        ctx: &OuterScan<'_, '_, T>,
        unit: usize,
    ) -> Result<Option<(usize, DeviceArray<T>, DeviceArray<T>)>> {
        let slices = ctx.host.data.len() / ctx.slice;
        let fit = PIPELINE_CHUNK_BYTES / (ctx.slice * std::mem::size_of::<T>());
        let per_chunk = (fit / unit.max(1) * unit).min(slices.next_multiple_of(unit.max(1)));
        if per_chunk == 0 {
            return Ok(None);
        }
        let chunk = per_chunk * ctx.slice;
        let (ring_in, ring_out) = rings::<T>(&self.gpu, chunk)?;
        Ok(Some((chunk, ring_in, ring_out)))
    }

    /// The scan along the outer memory axis for exact operators, through the generic lane
    /// kernels: chunks of whole slices, each lane of a chunk scanned from its running value
    /// in `carry` (the identity for the first chunk), then `carry` advanced to the chunk's
    /// last inclusive value, all on the work stream. Any grouping gives exact operators the
    /// same values, so the results equal the one-shot scan's.
    fn outer_carry<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        ctx: &OuterScan<'_, '_, T>,
        shape: &[usize],
        strides: &[isize],
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let (host, slice, exclusive) = (ctx.host, ctx.slice, ctx.exclusive);
        let (total, slices) = (host.data.len(), shape[0]);
        let size = std::mem::size_of::<T>();
        let per_chunk = (PIPELINE_CHUNK_BYTES / (slice * size)).min(slices);
        let chunk = per_chunk * slice;
        let lanes_of = |count: usize| -> Result<LaneBatches> {
            let mut shape = shape.to_vec();
            shape[0] = count;
            scan_lanes(&shape, strides, 0)
        };
        debug_assert!(total % slice == 0);
        let gpu = self.gpu.clone();
        let (mut ring_in, mut ring_out) = rings::<T>(&gpu, chunk)?;
        let carry = gpu.alloc::<T>(slice)?;
        self.release_scratch()?;
        let mut carried = false;
        gpu.host_pipeline_rings(
            &host.data,
            &mut ring_in,
            0,
            output,
            &mut ring_out,
            chunk,
            |step, stream| {
                let count = step.range.len() / slice;
                let lanes = lanes_of(count)?;
                let plan = self.axis_plan(kind, &lanes.lanes)?;
                let input = step.input.wrapping_add((step.range.start * size) as u64);
                let out = step.output.wrapping_add((step.produced * size) as u64);
                let last = ((count - 1) * slice * size) as u64;
                let seeds = if carried { carry.device_ptr() } else { 0 };
                self.in_order(stream, |s| {
                    s.enqueue_lanes(
                        kind, input, &lanes, out, &lanes, plan, exclusive, seeds, stream,
                    )?;
                    // The running value after this chunk: its last inclusive result, which
                    // for an exclusive scan is the last output ⊕ the last input.
                    let (from, with) = match exclusive {
                        true => (input + last, out + last),
                        false => (out + last, 0),
                    };
                    s.enqueue_lane_step(kind, from, with, carry.device_ptr(), slice as u64, stream)
                })?;
                carried = true;
                Ok(step.range)
            },
        )
    }
}

/// The input and output rings of a pipeline of `chunk`-element chunks (no halo).
fn rings<T: Pod>(gpu: &gpu_core::Gpu, chunk: usize) -> Result<(DeviceArray<T>, DeviceArray<T>)> {
    let len = PIPELINE_RING_SLOTS * chunk;
    Ok((gpu.alloc::<T>(len)?, gpu.alloc::<T>(len)?))
}

/// What every outer-axis pipeline of one call shares: the host array, the elements of one
/// slice, and whether the scan is exclusive.
struct OuterScan<'h, 'a, T: Clone> {
    host: &'h HostNd<'a, T>,
    slice: usize,
    exclusive: bool,
}

/// `plan` with its L2 prefetch off (a host pipeline's launches: later chunks are not on the
/// device yet).
fn without_prefetch(plan: LanePlan) -> LanePlan {
    LanePlan {
        access: plan.access.with_prefetch(0),
        ..plan
    }
}
