//! Convolution along a middle axis of a host array through the host pipeline. An array in C
//! or Fortran order is a sequence of slices along its outer memory axis, and every lane along
//! an axis that is neither that one nor the innermost lies inside one slice. Chunks of whole
//! slices go up; on the device each chunk is gathered into packed rows (its lanes one after the
//! other, as the one-shot call gathers the whole array), convolved by the batched-rows kernels
//! and scattered back into the output's order in its ring slot, which comes down while the next
//! chunk uploads. The chunks hold a multiple of the rows that keep every row's 16-byte
//! alignment that of the same row in the one-shot gather, so each output gets the one-shot
//! call's arithmetic: the results are equal bit for bit.

use std::mem::MaybeUninit;

use gpu_core::{
    aligned_count, enqueue_layout_copy_at, HostNd, Result, PIPELINE_CHUNK_BYTES,
    PIPELINE_RING_SLOTS,
};

use crate::axis::{packed_strides, rows_order};
use crate::gpu::{Conv1d, SPAN_ALIGN};
use crate::Real;

/// Strides of `shape` in C order.
fn c_strides(shape: &[usize]) -> Vec<isize> {
    let order: Vec<usize> = (0..shape.len()).collect();
    packed_strides(shape, &order)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl<T: Real> Conv1d<'_, T> {
    /// [`run_axis`](Conv1d::run_axis) of `host` along `axis`, a middle axis (neither the outer
    /// nor the innermost memory axis), through the host pipeline into `out` (the result in the
    /// input's memory order: C, or Fortran for a Fortran input): `Ok(true)` with every element
    /// written, `Ok(false)` with nothing done where it does not apply (another axis, fewer than
    /// two slices, a slice's worth of aligned rows exceeds a chunk, or another pipeline holds
    /// the staging). The caller has checked the stream and the pipelining size.
    pub(crate) fn axis_slices_pipelined(
        &self,
        host: &HostNd<'_, T>,
        axis: usize,
        out: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let size = std::mem::size_of::<T>();
        // The C-order view: axis 0 is the outer one, the last the innermost.
        let (shape, _, a) = host.c_order_view(axis);
        if a == 0 || a + 1 >= shape.len() {
            return Ok(false);
        }
        let (n, slices, total) = (shape[a], shape[0], host.data.len());
        let n_out = self.output_len(n)?;
        if total == 0 || n_out == 0 || slices < 2 {
            return Ok(false);
        }
        let slice = total / slices;
        let rows_per_slice = slice / n;
        let slice_out = rows_per_slice * n_out;
        if out.len() != slices * slice_out {
            return Ok(false);
        }
        // Row r of the one-shot gather is row r of the whole array; a chunk starting at a
        // multiple of `align` rows keeps every row's alignment (and the kernels' tile shift).
        let align = aligned_count(n * size).max(aligned_count(n_out * size));
        let step = align / gcd(align, rows_per_slice);
        let per_chunk = (PIPELINE_CHUNK_BYTES / (slice * size)).min(slices) / step * step;
        if per_chunk == 0 {
            return Ok(false);
        }
        let (chunk, chunk_out) = (per_chunk * slice, per_chunk * slice_out);
        let gpu = self.gpu().clone();
        let mut ring_in = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        let mut ring_out = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk_out)?;
        // The packed rows of one chunk and their results (the work stream runs one chunk at a
        // time); room past the rows as the one-row pipeline keeps.
        let rows_in = gpu.alloc::<T>(chunk + SPAN_ALIGN + self.mask_len())?;
        let rows_out = gpu.alloc::<T>(chunk_out)?;
        gpu.host_pipeline_rings(
            &host.data,
            &mut ring_in,
            0,
            out,
            &mut ring_out,
            chunk,
            |s, stream| {
                let count = s.range.len() / slice;
                let mut in_shape = shape.clone();
                in_shape[0] = count;
                let mut out_shape = in_shape.clone();
                out_shape[a] = n_out;
                let (in_strides, out_strides) = (c_strides(&in_shape), c_strides(&out_shape));
                let order = rows_order(&in_strides, a);
                let input = s.input.wrapping_add((s.range.start * size) as u64);
                let output = s.output.wrapping_add((s.produced * size) as u64);
                // SAFETY: the chunk's `count` slices lie in its input slot (C order from
                // `input`), the packed rows of the same shape in `rows_in` (`chunk` elements);
                // distinct allocations, alive until the pipeline has waited for the stream.
                unsafe {
                    enqueue_layout_copy_at::<T>(
                        &gpu,
                        input,
                        &in_strides,
                        rows_in.device_ptr(),
                        &packed_strides(&in_shape, &order),
                        &in_shape,
                        stream,
                    )?;
                }
                let rows = count * rows_per_slice;
                self.enqueue_rows_at(
                    rows_in.device_ptr(),
                    count * slice,
                    rows,
                    rows_out.device_ptr(),
                    rows * n_out,
                    stream,
                )?;
                // SAFETY: as above for the results: packed rows in `rows_out`, the chunk's
                // `count · slice_out` results in C order in its output slot.
                unsafe {
                    enqueue_layout_copy_at::<T>(
                        &gpu,
                        rows_out.device_ptr(),
                        &packed_strides(&out_shape, &order),
                        output,
                        &out_strides,
                        &out_shape,
                        stream,
                    )?;
                }
                Ok(s.produced..s.produced + count * slice_out)
            },
        )
    }
}
