//! Axis scans of host arrays through the host pipeline: an array in C or Fortran order is a
//! sequence of slices along its outer memory axis, and when the scan runs along another axis
//! every lane lies inside one slice. Chunks of whole slices then go up, are scanned in their
//! ring slot and come down while the next ones do, with no carry between chunks.

use std::mem::MaybeUninit;

use gpu_core::{
    axis_lanes, HostNd, LaneBatches, Pod, Result, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS,
};

use super::{LaneKind, Scanner};

impl Scanner {
    /// Scans `host` along `axis` into `output` (memory order, the input's length) through the
    /// host pipeline: `Ok(true)` with every element written, `Ok(false)` with nothing done where
    /// it does not apply: `axis` is the outer memory axis (its lanes cross the slices), one
    /// slice exceeds a pipeline chunk, fewer than two slices, or a chunk's launch would not give
    /// its lanes the arithmetic of the whole array's launch (so results stay bit for bit those of
    /// the one-shot scan), or another pipeline of the `Gpu` holds its staging.
    pub(crate) fn scan_axis_host_pipelined<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        host: &HostNd<'_, T>,
        axis: usize,
        exclusive: bool,
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let Some(outer) = host.outer_axis() else {
            return Ok(false);
        };
        let (total, slices) = (host.data.len(), host.shape[outer]);
        if axis == outer || total == 0 || slices < 2 || output.len() != total {
            return Ok(false);
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
}
