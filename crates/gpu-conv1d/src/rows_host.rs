//! Batches of rows from host memory through the host pipeline: rows stored one after the
//! other (an `Array2` in C order, the lanes along an array's innermost memory axis) go up in
//! chunks of whole rows, each chunk is convolved row by row into its block of results and
//! comes down while the next ones upload. Chunks start 16 bytes from their slot's start in both
//! rings, as the rows do in one whole array, so every kernel (vector and tensor-core paths
//! included) gives each output the one-shot call's arithmetic: the results are equal bit for
//! bit.

use std::mem::MaybeUninit;

use gpu_core::{aligned_count, Result, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS};

use crate::gpu::{Conv1d, SPAN_ALIGN};
use crate::Real;

impl<T: Real> Conv1d<'_, T> {
    /// The `rows` signals stored one after the other in `x` convolved into `out` (`rows ×
    /// n_out`, rows one after the other) through the host pipeline: `Ok(true)` with every
    /// element written, `Ok(false)` with nothing done where it does not apply (a stream is
    /// set, the input is below the pipelining size, fewer than two rows, one row, or sixteen
    /// bytes' worth of rows, exceeds a pipeline chunk, or another pipeline holds the staging).
    pub(crate) fn rows_pipelined(
        &self,
        x: &[T],
        rows: usize,
        out: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let size = std::mem::size_of::<T>();
        if self.has_stream()
            || rows < 2
            || x.len() % rows != 0
            || !self.options().pipelining.applies(std::mem::size_of_val(x))
        {
            return Ok(false);
        }
        let n = x.len() / rows;
        let n_out = self.output_len(n)?;
        if n == 0 || n_out == 0 || out.len() != rows * n_out {
            return Ok(false);
        }
        // Whole rows per chunk, a multiple of what starts every chunk's input and results on a
        // 16-byte boundary of their slots (the kernels' vector alignment and tile shift).
        // (Both counts are powers of two: the larger is a multiple of the smaller.)
        let align = aligned_count(n * size).max(aligned_count(n_out * size));
        let per_chunk = (PIPELINE_CHUNK_BYTES / (n * size)).min(rows) / align * align;
        if per_chunk == 0 {
            return Ok(false);
        }
        let chunk = per_chunk * n;
        let gpu = self.gpu().clone();
        // The kernels may read up to a tile and a mask past the last row: room after the
        // last slot, as the one-row pipeline keeps.
        let mut ring_in =
            gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk + SPAN_ALIGN + self.mask_len())?;
        let mut ring_out = gpu.alloc::<T>(PIPELINE_RING_SLOTS * per_chunk * n_out)?;
        gpu.host_pipeline_rings(
            x,
            &mut ring_in,
            0,
            out,
            &mut ring_out,
            chunk,
            |step, stream| {
                let r = step.range.len() / n;
                let input = step.input.wrapping_add((step.range.start * size) as u64);
                let output = step.output.wrapping_add((step.produced * size) as u64);
                self.enqueue_rows_at(input, r * n, r, output, r * n_out, stream)?;
                Ok(step.produced..step.produced + r * n_out)
            },
        )
    }

    /// [`rows_pipelined`](Self::rows_pipelined) into a new `Vec`; `None` where it does not
    /// apply.
    pub(crate) fn rows_host_pipelined(&self, x: &[T], rows: usize) -> Result<Option<Vec<T>>> {
        if rows < 2 || x.len() % rows != 0 {
            return Ok(None);
        }
        let len = rows * self.output_len(x.len() / rows)?;
        let mut out = gpu_core::host_output_vec::<T>(len);
        if !self.rows_pipelined(x, rows, &mut out.spare_capacity_mut()[..len])? {
            return Ok(None);
        }
        // SAFETY: the pipeline wrote all `len` elements of the spare capacity when it returned
        // true; `T: Pod` accepts the bytes it copied.
        unsafe { out.set_len(len) };
        Ok(Some(out))
    }
}
