//! Convolution along the outer memory axis of a host array through the host pipeline: every
//! lane crosses every chunk. Chunks of whole slices go up, each with the `w` slices before it
//! (the windows of its first outputs reach back that far); on the device each chunk's window
//! of slices is gathered into packed rows (one per lane, as the one-shot call gathers whole
//! lanes), the outputs whose windows it holds are convolved by the batched-rows kernels with
//! the rows' ends standing for the signal's where they are its ends, and the results are
//! scattered back into slices in the ring slot, which comes down while the next chunk uploads.
//! Every path but cuFFT is taken, each by its [`SpanRule`]: a direct path's output is the same
//! chain of multiply-adds wherever it falls in a launch, the FFT path pairs its tiles by the
//! outputs' place in the signal, and the tensor-core path's tiles follow the outputs' place and
//! the rows' 16-byte alignment (spans on its tile grid, windows that keep every row's
//! alignment); each window also holds what the launch reads beyond its outputs' windows (the
//! rule's reach), so the results equal the one-shot call's bit for bit.

use std::mem::MaybeUninit;

use gpu_core::{enqueue_layout_copy_at, HostNd, Result, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS};

use crate::gpu::{Conv1d, SPAN_ALIGN};
use crate::host::{span_rule, SpanRule};
use crate::{Boundary, Real};

impl<T: Real> Conv1d<'_, T> {
    /// [`run_axis`](Conv1d::run_axis) of `host` along `axis`, its outer memory axis, through
    /// the host pipeline into `out` (the result in the input's memory order): `Ok(true)` with
    /// every element written, `Ok(false)` with nothing done where it does not apply (another
    /// axis, a periodic boundary (it reads the far end first), the cuFFT path (segments over
    /// whole rows), a halo of slices over half a chunk, or another pipeline holds the
    /// staging). The caller has checked the stream and the pipelining size.
    pub(crate) fn axis_outer_pipelined(
        &self,
        host: &HostNd<'_, T>,
        axis: usize,
        out: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let size = std::mem::size_of::<T>();
        if self.options().boundary == Boundary::Wrap {
            return Ok(false);
        }
        // The C-order view: axis 0 is the outer one; a slice holds one element of each lane.
        // (Axes of length 1 before it change nothing.)
        let (shape, _, a) = host.c_order_view(axis);
        let (slices, total) = (shape[a], host.data.len());
        if shape[..a].iter().any(|&n| n != 1) || slices == 0 || total == 0 {
            return Ok(false);
        }
        let lanes = total / slices;
        let n_out = self.output_len(slices)?;
        if n_out == 0 || out.len() != n_out * lanes {
            return Ok(false);
        }
        let path = self.resolve(n_out);
        let w = self.mask_len();
        let Some(SpanRule {
            quantum,
            align,
            reach,
        }) = span_rule::<T>(path, w)
        else {
            return Ok(false);
        };
        // Slices uploaded again before each chunk: the first output a step computes has its
        // window start w − 1 slices before the chunk, up to a quantum and an alignment earlier,
        // and its launch reads `reach` outputs' windows further back, from an output up to
        // `reach` before the chunk's first ready. A multiple of the alignment, as the chunks
        // are, so every window starts aligned.
        let halo_slices = (w + 2 * reach + quantum + align).next_multiple_of(align);
        let budget = PIPELINE_CHUNK_BYTES / size;
        let Some(halo) = halo_slices.checked_mul(lanes).filter(|&h| h <= budget / 2) else {
            return Ok(false);
        };
        // At least the halo's slices per chunk: each step has outputs to give.
        let per_chunk = (budget / lanes - halo_slices) / align * align;
        let chunk = per_chunk * lanes;
        // Outputs per step: at most a chunk's and, in the last, the reach, the slack of the
        // quantum and alignment, and `full` mode's w − 1 more.
        let out_slot = (per_chunk + 2 * w + reach + quantum + align) * lanes;
        let gpu = self.gpu().clone();
        let mut ring_in = gpu.alloc::<T>(PIPELINE_RING_SLOTS * (chunk + halo))?;
        let mut ring_out = gpu.alloc::<T>(PIPELINE_RING_SLOTS * out_slot)?;
        // The packed rows of one window and their results (the work stream runs one step at a
        // time); room past the rows as the one-row pipeline keeps.
        let rows_in = gpu.alloc::<T>(chunk + halo + SPAN_ALIGN + w)?;
        let rows_out = gpu.alloc::<T>(out_slot)?;
        let off = self.options().mode.offset(w);
        let lane_stride = lanes as isize;
        let mut done = 0usize;
        gpu.host_pipeline_rings(
            &host.data,
            &mut ring_in,
            halo,
            out,
            &mut ring_out,
            chunk,
            |s, stream| {
                // Slices `first .. last` are on the device, of which the window keeps as many
                // as leave its rows the signal's alignment (all once the last slice is up);
                // outputs up to `end` (on the quantum) have their reads inside them.
                let (first, mut last) = (s.window.start / lanes, s.range.end / lanes);
                let end = if last == slices {
                    n_out
                } else {
                    last = aligned_end(first, last, slices, align);
                    let reads = (w + reach) as i64 - 1;
                    let ready = (last as i64 - off - reads).clamp(0, n_out as i64) as usize;
                    ready / quantum * quantum
                };
                let span = done..end.max(done);
                if span.is_empty() {
                    return Ok(s.produced..s.produced);
                }
                let (m, count) = (last - first, span.len());
                let window = s.input.wrapping_add((first * lanes * size) as u64);
                // SAFETY: the window's `m` slices of `lanes` lie in C order in its input slot
                // from `window`; their packed rows (`lanes` rows of `m`) fit `rows_in`
                // (`chunk + halo` elements); distinct allocations, alive until the pipeline
                // has waited for the stream.
                unsafe {
                    enqueue_layout_copy_at::<T>(
                        &gpu,
                        window,
                        &[lane_stride, 1],
                        rows_in.device_ptr(),
                        &[1, m as isize],
                        &[m, lanes],
                        stream,
                    )?;
                }
                self.enqueue_rows_window(
                    rows_in.device_ptr(),
                    lanes,
                    (first, m, slices),
                    rows_out.device_ptr(),
                    span.clone(),
                    path,
                    stream,
                )?;
                let output = s.output.wrapping_add((s.produced * size) as u64);
                // SAFETY: as above for the results: `lanes` packed rows of `count` in
                // `rows_out` (`out_slot` elements), the step's `count` slices of results in
                // C order in its output slot from `output`, which the engine checks the
                // announced range against.
                unsafe {
                    enqueue_layout_copy_at::<T>(
                        &gpu,
                        rows_out.device_ptr(),
                        &[1, count as isize],
                        output,
                        &[lane_stride, 1],
                        &[count, lanes],
                        stream,
                    )?;
                }
                done = span.end;
                Ok(s.produced..s.produced + count * lanes)
            },
        )
    }
}

/// The end of a window from slice `first` (a multiple of `align`) that keeps as many of the
/// slices up to `last` as leave its rows the signal's alignment: `end − first ≡ slices`
/// (mod `align`), at most `align − 1` slices short of `last` (at least `align` slices apart).
fn aligned_end(first: usize, last: usize, slices: usize, align: usize) -> usize {
    last - (last - first + align - slices % align) % align
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_keep_the_rows_alignment() {
        for align in [1, 2, 4, 8] {
            for slices in [1, 37, 64, 200_003] {
                for (first, last) in [(0, 100), (8, 17), (64, 1000), (1600, 1615)] {
                    let end = aligned_end(first, last, slices, align);
                    assert!(end <= last && last - end < align, "{first} {last} {align}");
                    assert_eq!(
                        (end - first) % align,
                        slices % align,
                        "{first} {last} {align}"
                    );
                }
            }
        }
    }
}
