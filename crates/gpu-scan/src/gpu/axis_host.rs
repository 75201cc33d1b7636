//! Axis scans of host arrays through the host pipeline: an array in C or Fortran order is a
//! sequence of slices along its outer memory axis, and when the scan runs along another axis
//! every lane lies inside one slice. Chunks of whole slices then go up, are scanned in their
//! ring slot and come down while the next ones do, with no carry between chunks. Along the
//! outer axis itself, where every lane crosses the chunks, exact operators (integer types)
//! carry each lane's running value from chunk to chunk on the device.

use std::mem::MaybeUninit;

use gpu_core::{
    axis_lanes, HostNd, LaneBatches, Pod, Result, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS,
};

use super::{LaneKind, Scanner};

impl Scanner {
    /// Scans `host` along `axis` into `output` (memory order, the input's length) through the
    /// host pipeline: `Ok(true)` with every element written, `Ok(false)` with nothing done where
    /// it does not apply: `axis` is the outer memory axis (its lanes cross the slices) and the
    /// operator is not `exact` (a float's running sums would be grouped by chunks), one slice
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
            return match exact {
                true => self.scan_outer_axis_host_pipelined(kind, host, outer, exclusive, output),
                false => Ok(false),
            };
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
            axis_lanes(&shape, &host.strides, axis)
        };
        let whole = lanes_of(slices)?;
        let arithmetic = self.choose_axis(kind, 0, &whole, 0, &whole)?.arithmetic();
        let gpu = self.gpu.clone();
        let mut ring_in = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        let mut ring_out = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
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
            host.data,
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
    /// the host pipeline, for exact operators only: chunks of whole slices, each lane of a
    /// chunk scanned by the generic lane kernel from its running value in `carry` (the identity
    /// for the first chunk), then `carry` advanced to the chunk's last inclusive value, all on
    /// the work stream. Any grouping gives exact operators the same values, so the results
    /// equal the one-shot scan's. `Ok(false)` with nothing done where one slice exceeds a
    /// chunk or the pipeline's staging is busy.
    fn scan_outer_axis_host_pipelined<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        host: &HostNd<'_, T>,
        outer: usize,
        exclusive: bool,
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        // The C-order view: axis 0 is the outer axis, the lanes are each slice's elements in
        // memory order, so lane `l`'s running value is `carry[l]`.
        let (shape, strides, axis) = host.c_order_view(outer);
        let (total, slices) = (host.data.len(), shape[0]);
        let size = std::mem::size_of::<T>();
        let slice = total / slices;
        let per_chunk = (PIPELINE_CHUNK_BYTES / (slice * size)).min(slices);
        if axis != 0 || per_chunk == 0 {
            return Ok(false);
        }
        let chunk = per_chunk * slice;
        let lanes_of = |count: usize| -> Result<LaneBatches> {
            let mut shape = shape.clone();
            shape[0] = count;
            axis_lanes(&shape, &strides, 0)
        };
        let whole = lanes_of(slices)?;
        let l = whole.lanes;
        let in_memory_order = whole.batches == [0]
            && l.count == slice as u64
            && l.inner_stride == 1
            && (l.inner == l.count || l.outer_stride == l.inner as i64);
        if !in_memory_order {
            return Ok(false);
        }
        let gpu = self.gpu.clone();
        let mut ring_in = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        let mut ring_out = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        let carry = gpu.alloc::<T>(slice)?;
        self.release_scratch()?;
        let mut carried = false;
        gpu.host_pipeline_rings(
            host.data,
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
