//! Host signal in, host result out, through the device's host pipeline
//! ([`gpu_core::Gpu::host_pipeline_rings`]): the signal uploads chunk by chunk, each with the
//! halo before it, into a three-slot device ring (about 50 MiB of device memory whatever the
//! signal's length), and after each chunk the outputs whose windows lie inside the uploaded prefix
//! are convolved into a three-slot output ring and downloaded while the next chunks upload. Each span of outputs is launched with the kernel the whole
//! result would use, from a multiple of [`SPAN_ALIGN`], its halo widened by what the path reads
//! beyond a span's windows ([`span_rule`]: the FFT path's pairs of tiles, the tensor-core
//! path's staged tile), so the results equal the one-shot call's bit for bit. Only the cuFFT
//! path (segments planned over whole rows) and `Wrap` stay one-shot.

use std::mem::MaybeUninit;
use std::ops::Range;

use gpu_core::{Error, Result, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS};

use crate::gpu::{Conv1d, SPAN_ALIGN};
use crate::tensor::{TENSOR_TILE, WARPGROUP_TILE};
use crate::{Boundary, Path, Real};

impl<T: Real> Conv1d<'_, T> {
    /// The result for the host signal `x` written into the host slice `out`, which holds
    /// exactly [`output_len`](Conv1d::output_len)`(x.len())` elements: through the device's
    /// host pipeline where [`Options::pipelining`](crate::Options::pipelining) takes it
    /// (chunks uploaded, convolved and downloaded at once, the same results bit for bit),
    /// otherwise uploaded, convolved and downloaded whole. Page-locked memory (a
    /// [`PinnedBuffer`](gpu_core::PinnedBuffer)'s slices) is read and written by the DMA
    /// engines directly. Waits. On an error `out` is untouched when the failure came before
    /// the first results came back (every allocation and setup failure, out of memory
    /// included); after that (only a fault of the device itself stops a pipeline there) each
    /// element holds its result or is untouched.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_conv1d::{Conv1d, Options};
    /// use gpu_core::{Gpu, Pipelining};
    /// let gpu = Gpu::default_device()?;
    /// let conv = Conv1d::correlation(&gpu, &[1.0f32; 31], Options::new())?
    ///     .pipelining(Pipelining::Auto);
    /// let x = vec![1.0f32; 1 << 26];
    /// let mut y = vec![0.0f32; conv.output_len(x.len())?];
    /// conv.run_to_slice(&x, &mut y)?;
    /// assert_eq!(y[1 << 20], 31.0);
    /// # Ok(()) }
    /// ```
    pub fn run_to_slice(&self, x: &[T], out: &mut [T]) -> Result<()> {
        let n_out = self.output_len(x.len())?;
        if out.len() != n_out {
            return Err(Error::invalid(
                "out",
                format!(
                    "holds {} elements; {} outputs for a signal of {}",
                    out.len(),
                    n_out,
                    x.len()
                ),
            ));
        }
        // SAFETY: the pipeline only ever writes whole elements' bytes copied from device
        // memory holding `T` values (`T: Pod`), so `out` stays initialised.
        let uninit = unsafe { &mut *(out as *mut [T] as *mut [MaybeUninit<T>]) };
        if self.pipelined(x, uninit)? {
            return Ok(());
        }
        let mut y = self.gpu().alloc::<T>(n_out)?;
        self.run_into(x, &mut y)?;
        if self.has_stream() {
            self.run_stream_sync()?;
        }
        y.copy_to(out)
    }

    /// [`pipelined`](Self::pipelined) into a new `Vec`; `None` where it does not apply.
    pub(crate) fn run_host_pipelined(&self, x: &[T]) -> Result<Option<Vec<T>>> {
        if !self.takes_pipeline(x) {
            return Ok(None); // before allocating the output
        }
        let n_out = self.output_len(x.len())?;
        let mut out = gpu_core::host_output_vec::<T>(n_out);
        if !self.pipelined(x, out.spare_capacity_mut())? {
            return Ok(None);
        }
        // SAFETY: the pipeline wrote all `n_out` elements of the spare capacity when it
        // returned Ok(true); `T: Pod` accepts the bytes it copied.
        unsafe { out.set_len(n_out) };
        Ok(Some(out))
    }

    /// Whether [`Options::pipelining`](crate::Options::pipelining) sends `x` through the
    /// pipeline here: no stream of the caller's, no periodic boundary (it reads the far end of
    /// the signal first), a halo that leaves room for a chunk, and not the cuFFT path (its
    /// segments are planned over whole rows).
    fn takes_pipeline(&self, x: &[T]) -> bool {
        if self.has_stream()
            || !self.options().pipelining.applies(std::mem::size_of_val(x))
            || self.options().boundary == Boundary::Wrap
        {
            return false;
        }
        let w = self.mask_len();
        let Ok(path) = self.output_len(x.len()).map(|n_out| self.resolve(n_out)) else {
            return false;
        };
        span_rule::<T>(path, w).is_some_and(|rule| halo(w, rule.reach) <= chunk_budget::<T>() / 2)
    }

    /// The host-to-host run of `x` into `out` (`output_len(x.len())` elements) through the
    /// host pipeline where it applies: `Ok(true)` with every element written, `Ok(false)` with
    /// nothing done (not taken, or another pipeline holds the staging).
    fn pipelined(&self, x: &[T], out: &mut [MaybeUninit<T>]) -> Result<bool> {
        if !self.takes_pipeline(x) {
            return Ok(false);
        }
        let (n, n_out) = (x.len(), out.len());
        let w = self.mask_len();
        let path = self.resolve(n_out);
        // Spans start on multiples of SPAN_ALIGN: of every rule's quantum and alignment.
        let Some(SpanRule { reach, .. }) = span_rule::<T>(path, w) else {
            return Ok(false);
        };
        let h = halo(w, reach);
        let chunk = round_down(chunk_budget::<T>() - h);
        // Outputs per step: at most a chunk plus the alignment slack (SPAN_ALIGN) and the
        // reach, and in the last step also the mask's overhang (`full` mode's w − 1 more
        // outputs than inputs).
        let out_slot = round_up(chunk + w + SPAN_ALIGN + reach);
        let gpu = self.gpu().clone();
        // The kernels may read up to a tile and a mask past the last output they store: the
        // input ring has that much room after its last slot.
        let mut ring_in = gpu.alloc::<T>(PIPELINE_RING_SLOTS * (chunk + h) + SPAN_ALIGN + w)?;
        let mut ring_out = gpu.alloc::<T>(PIPELINE_RING_SLOTS * out_slot)?;
        let off = self.options().mode.offset(w);
        let mut done = 0usize;
        gpu.host_pipeline_rings(
            x,
            &mut ring_in,
            h,
            out,
            &mut ring_out,
            chunk,
            |step, stream| {
                let end = if step.range.end == n {
                    n_out
                } else {
                    ready_outputs(step.range.end, off, w + reach, n_out)
                };
                let span: Range<usize> = done..end.max(done);
                self.enqueue_span(step.input, n, step.output, span.clone(), path, stream)?;
                done = span.end;
                Ok(span)
            },
        )
    }
}

/// Signal elements a pipeline step may upload (its chunk and halo): one staging slot.
fn chunk_budget<T>() -> usize {
    PIPELINE_CHUNK_BYTES / std::mem::size_of::<T>()
}

/// How launches of a path over parts of a signal give every output the bits of the launch over
/// all of it ([`span_rule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SpanRule {
    /// Spans start on multiples of this many outputs (the tile grid).
    pub quantum: usize,
    /// Rows of a window keep each position's place modulo this many elements (the 16-byte
    /// shift the tile grid follows).
    pub align: usize,
    /// Outputs beyond a span, on either side, whose windows its launch reads (values that
    /// decide its arithmetic, though it stores none of those outputs).
    pub reach: usize,
}

/// The [`SpanRule`] of `path` with a mask of `w`, or `None` for the cuFFT path (segments planned
/// over whole rows). The direct kernels compute each output by itself from its window. The FFT
/// path computes whole pairs of tiles (each of [`fft_tile`](crate::fft::fft_tile) outputs),
/// paired by the outputs' place in the signal, and reads every pair's windows. The tensor-core
/// path cuts its rows into tiles of [`TENSOR_TILE`] outputs from a 16-byte boundary of the input,
/// and stages (and checks for non-finite values) a tile's whole span: up to a tile and its
/// line rounding past the last output a launch stores; the warpgroup path the same with tiles of
/// [`WARPGROUP_TILE`].
pub(crate) fn span_rule<T: Real>(path: Path, w: usize) -> Option<SpanRule> {
    let direct = SpanRule {
        quantum: 1,
        align: 1,
        reach: 0,
    };
    match path {
        Path::CuFft { .. } => None,
        // From the sizes fft_pad may pad at, tiles are no longer and spans start up to one
        // position before the windows: one output more.
        Path::Fft { size } | Path::FftEvenOdd { size } => Some(SpanRule {
            reach: 2 * crate::fft::fft_tile(size as usize, w)
                + usize::from(size as usize >= crate::fft::FFT_EVEN_ODD_MIN),
            ..direct
        }),
        Path::FftEvenOddParts { size, parts } => Some(SpanRule {
            reach: 2 * crate::fft::fft_tile(
                size as usize,
                crate::fft::fft_part_width(w, parts as usize),
            ) + 1,
            ..direct
        }),
        Path::TensorCore => Some(SpanRule {
            quantum: TENSOR_TILE,
            align: 16 / std::mem::size_of::<T>(),
            reach: TENSOR_TILE + 128,
        }),
        Path::Warpgroup => Some(SpanRule {
            quantum: WARPGROUP_TILE,
            align: 16 / std::mem::size_of::<T>(),
            reach: WARPGROUP_TILE + 128,
        }),
        _ => Some(direct),
    }
}

/// Signal elements uploaded again before each chunk (a mask of `w`, a path reaching `reach`
/// outputs beyond its spans): a step's first output lies up to `SPAN_ALIGN − 1 + reach`
/// before the first whose reads all lie in its chunk's prefix, its launch reads `reach`
/// outputs' windows further back, and a window reaches `w − 1` back; 64 more cover the
/// kernels' vector alignment, and the total stays a multiple of 64 so the slots' bases stay
/// 16-byte aligned.
fn halo(w: usize, reach: usize) -> usize {
    round_up(w + 2 * reach + SPAN_ALIGN + 62)
}

fn round_up(v: usize) -> usize {
    v.next_multiple_of(64)
}

fn round_down(v: usize) -> usize {
    v / 64 * 64
}

/// How many outputs (from 0, a multiple of [`SPAN_ALIGN`]) have all their reads inside the
/// first `uploaded` signal elements: output `o` reads positions `o + off .. o + off + w`, and
/// with `reach` the windows of `reach` outputs after it too (`span`: `w + reach`).
fn ready_outputs(uploaded: usize, off: i64, span: usize, n_out: usize) -> usize {
    let end = (uploaded as i64 - off - (span as i64 - 1)).clamp(0, n_out as i64) as usize;
    end / SPAN_ALIGN * SPAN_ALIGN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_rules_by_path() {
        let direct = SpanRule {
            quantum: 1,
            align: 1,
            reach: 0,
        };
        assert_eq!(span_rule::<f32>(Path::Basic, 31), Some(direct));
        assert_eq!(span_rule::<f32>(Path::CuFft { size: 1 << 16 }, 20000), None);
        let fft = span_rule::<f32>(Path::Fft { size: 4096 }, 1023).unwrap();
        assert_eq!(fft.reach, 2 * (4096 - 1023 + 1));
        let spans = span_rule::<f32>(Path::FftEvenOdd { size: 16384 }, 4095).unwrap();
        assert_eq!(spans.reach, 2 * (16384 - 4095 + 1) + 1);
        let tc16 = span_rule::<gpu_core::f16>(Path::TensorCore, 31).unwrap();
        let tc32 = span_rule::<f32>(Path::TensorCore, 31).unwrap();
        assert_eq!((tc16.quantum, tc16.align, tc32.align), (TENSOR_TILE, 8, 4));
        assert!(tc16.reach > TENSOR_TILE);
        // The flat pipeline's spans start on multiples of SPAN_ALIGN: every rule's grid.
        for rule in [direct, fft, tc16, tc32] {
            assert_eq!(SPAN_ALIGN % rule.quantum, 0);
            assert_eq!(SPAN_ALIGN % rule.align, 0);
        }
    }

    #[test]
    fn ready_outputs_have_their_windows_uploaded() {
        // `same` with w = 31: off = -15; a window of output o ends at o + 15.
        let a = SPAN_ALIGN;
        assert_eq!(ready_outputs(3 * a, -15, 31, 10 * a), 2 * a);
        assert_eq!(ready_outputs(3 * a + 15, -15, 31, 10 * a), 3 * a);
        assert_eq!(ready_outputs(3 * a + 14, -15, 31, 10 * a), 2 * a);
        // Nothing ready yet, and never past the result.
        assert_eq!(ready_outputs(10, 0, 31, 10 * a), 0);
        assert_eq!(ready_outputs(100 * a, 0, 3, 10 * a), 10 * a);
        // `full`: off = -(w - 1), windows end at o.
        assert_eq!(ready_outputs(2 * a, -30, 31, 10 * a), 2 * a);
    }
}
