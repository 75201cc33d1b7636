//! Host-to-host pipelines: data that starts and ends in host memory goes through the device in
//! chunks on three streams ordered by events, so that chunk k+1 uploads while chunk k is
//! processed and chunk k−1 downloads. The link carries both directions at once (55 GB/s each
//! way on an H100 host) while the GPU works, instead of an upload, the work and a download one
//! after the other.
//!
//! Pageable host memory goes through a ring of pinned staging buffers owned by the `Gpu`
//! (`SLOTS` per direction of [`PIPELINE_CHUNK_BYTES`], made on first use, 48 MiB in all), the
//! host side of each chunk copied by the rayon pool; page-locked memory (a
//! [`PinnedBuffer`](crate::PinnedBuffer)'s slice, say) is read and written by the DMA engines
//! directly.

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::TryLockError;

use crate::device::Gpu;
use crate::driver::check;
use crate::driver::sys as cu;
use crate::driver_code;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::memory::DeviceArray;
use crate::pipelining::PIPELINE_CHUNK_BYTES;
use crate::staging::{is_pinned, parallel_copy};
use crate::stream::{Event, Stream};

/// Staging buffers per direction: one being filled or emptied by the host, one in flight on
/// the link, one waiting.
const SLOTS: usize = 3;

/// The pinned ring of one `Gpu`. Raw allocations, not `PinnedBuffer`s, because it lives inside
/// the `Gpu`'s own state (which those would keep alive); freed by `GpuInner::drop`.
pub(crate) struct PipelineStaging {
    up: [*mut u8; SLOTS],
    down: [*mut u8; SLOTS],
}

// SAFETY: raw pinned pointers, used only under the owning mutex in `GpuInner`.
unsafe impl Send for PipelineStaging {}
// SAFETY: shared only within one pipeline (which holds the mutex), whose tasks read the
// pointers and copy through disjoint slots.
unsafe impl Sync for PipelineStaging {}

impl PipelineStaging {
    /// Allocates the ring; the caller has made the context current.
    fn new() -> Result<Self> {
        let mut s = PipelineStaging {
            up: [std::ptr::null_mut(); SLOTS],
            down: [std::ptr::null_mut(); SLOTS],
        };
        for i in 0..2 * SLOTS {
            let mut raw: *mut c_void = std::ptr::null_mut();
            // SAFETY: out-pointer to a local; non-zero size.
            let r = check("cuMemAllocHost", unsafe {
                driver_code!(cuMemAllocHost_v2(&mut raw, PIPELINE_CHUNK_BYTES))
            });
            #[cfg(feature = "fault-injection")]
            if r.is_ok() {
                crate::fault_injection::track_pinned(PIPELINE_CHUNK_BYTES as i64);
            }
            if let Err(e) = r {
                s.free();
                return Err(e);
            }
            if i < SLOTS {
                s.up[i] = raw as *mut u8;
            } else {
                s.down[i - SLOTS] = raw as *mut u8;
            }
        }
        Ok(s)
    }

    /// Frees the ring (idempotent); the caller has made the context current, and no DMA uses
    /// it (every pipeline synchronises its streams before it returns).
    pub(crate) fn free(&mut self) {
        for p in self.up.iter_mut().chain(self.down.iter_mut()) {
            if !p.is_null() {
                // SAFETY: allocated by cuMemAllocHost in `new`, freed once (nulled below).
                unsafe { cu::cuMemFreeHost(*p as *mut c_void) };
                #[cfg(feature = "fault-injection")]
                crate::fault_injection::track_pinned(-(PIPELINE_CHUNK_BYTES as i64));
                *p = std::ptr::null_mut();
            }
        }
    }
}

/// The three streams of a pipeline; dropping it waits for all of them, so no DMA reads or
/// writes host memory after the pipeline has returned, whatever error it returns.
struct Streams {
    up: Stream,
    work: Stream,
    down: Stream,
}

impl Drop for Streams {
    fn drop(&mut self) {
        let _ = self.up.synchronize();
        let _ = self.work.synchronize();
        let _ = self.down.synchronize();
    }
}

impl Gpu {
    /// Runs `work` over host data chunk by chunk: chunk `k` (the elements `range` of `input`,
    /// `chunk` elements each, the last one shorter) is uploaded into the same range of `device`,
    /// `work(range, stream)` enqueues its processing on `stream` (in place in `device`, reading
    /// nothing beyond the ranges already given), and the range is downloaded into `output`
    /// (uninitialised memory, e.g. a `Vec`'s spare capacity: every element is written when this
    /// returns `Ok(true)`).
    /// Uploads, work and downloads run on three streams ordered by events, so the link carries
    /// both directions while the GPU works; chunks are handed to `work` in order, on one
    /// stream, each after the previous one's work was enqueued.
    ///
    /// Returns `Ok(false)`, having done nothing, when another pipeline of this `Gpu` holds the
    /// staging buffers (the caller then takes its one-shot path: no waiting, no deadlock).
    /// On an error the streams are drained first; `output` is then partly written.
    ///
    /// `input` and `output` have the same length, at most `device.len()`; `chunk` elements fit
    /// in [`PIPELINE_CHUNK_BYTES`]. [`host_pipeline_between`](Gpu::host_pipeline_between) is
    /// the general form (separate input and output arrays, outputs of another length).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::Gpu;
    /// let gpu = Gpu::default_device()?;
    /// let x: Vec<u32> = (0..10_000_000).collect();
    /// let mut device = gpu.alloc::<u32>(x.len())?;
    /// let mut y: Vec<u32> = Vec::with_capacity(x.len());
    /// // No work: the data make the round trip, 1 Mi elements per chunk.
    /// let ran = gpu.host_pipeline(&x, y.spare_capacity_mut(), &mut device, 1 << 20, |_range, _stream| {
    ///     Ok(()) // enqueue kernels over `_range` of `device` on `_stream` here
    /// })?;
    /// assert!(ran);
    /// // SAFETY: the pipeline wrote every element.
    /// unsafe { y.set_len(x.len()) };
    /// assert_eq!(x, y);
    /// # Ok(()) }
    /// ```
    pub fn host_pipeline<T: Pod>(
        &self,
        input: &[T],
        output: &mut [MaybeUninit<T>],
        device: &mut DeviceArray<T>,
        chunk: usize,
        mut work: impl FnMut(Range<usize>, &Stream) -> Result<()>,
    ) -> Result<bool> {
        let n = input.len();
        if output.len() != n {
            return Err(Error::invalid(
                "output",
                format!("holds {} elements; the input has {n}", output.len()),
            ));
        }
        if device.len() < n {
            return Err(Error::invalid(
                "device",
                format!("holds {} elements; the input has {n}", device.len()),
            ));
        }
        self.check_same_device(device.gpu(), "device")?;
        let base = device.device_ptr();
        // SAFETY: `device` (borrowed mutably for the call) holds n elements at `base`, read and
        // written in place; each output range is the chunk just worked on.
        unsafe {
            self.pipeline_raw(input, base, output, base, chunk, |r, stream| {
                work(r.clone(), stream)?;
                Ok(r)
            })
        }
    }

    /// The general host pipeline: `input` is uploaded chunk by chunk into `device_in`
    /// (`chunk` elements each, the last one shorter, into the same range), and after each
    /// upload `work(range, stream)` enqueues on `stream` whatever the data uploaded so far
    /// allow, writing into `device_out`, and returns the range of `device_out` now final: it
    /// starts where the previous one ended (empty ranges are fine) and the last chunk's ends
    /// at `output.len()`. Those outputs are downloaded into `output` while the next chunks
    /// upload. A convolution, say, returns the outputs whose windows lie inside the uploaded
    /// prefix; a reduction returns empty ranges into an empty `output`.
    ///
    /// As [`host_pipeline`](Gpu::host_pipeline) otherwise: `Ok(false)` with nothing done when
    /// another pipeline of this `Gpu` holds the staging, streams drained on every error,
    /// page-locked host memory used by the DMA engines directly.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::Gpu;
    /// let gpu = Gpu::default_device()?;
    /// let x: Vec<u32> = (0..10_000_000).collect();
    /// let (mut din, mut dout) = (gpu.alloc::<u32>(x.len())?, gpu.alloc::<u32>(x.len())?);
    /// let mut y: Vec<u32> = Vec::with_capacity(x.len());
    /// let (src, dst) = (din.device_ptr(), dout.device_ptr());
    /// let ran = gpu.host_pipeline_between(&x, &mut din, y.spare_capacity_mut(), &mut dout, 1 << 20,
    ///     |range, stream| {
    ///         // A kernel on `stream` would read `src` and write `dst` here; nothing is written,
    ///         // so the downloaded outputs are whatever `dout` held: announce none until the end.
    ///         let _ = (src, dst, stream);
    ///         Ok(if range.end == 10_000_000 { 0..10_000_000 } else { 0..0 })
    ///     })?;
    /// assert!(ran);
    /// # Ok(()) }
    /// ```
    pub fn host_pipeline_between<T: Pod, U: Pod>(
        &self,
        input: &[T],
        device_in: &mut DeviceArray<T>,
        output: &mut [MaybeUninit<U>],
        device_out: &mut DeviceArray<U>,
        chunk: usize,
        work: impl FnMut(Range<usize>, &Stream) -> Result<Range<usize>>,
    ) -> Result<bool> {
        if device_in.len() < input.len() {
            return Err(Error::invalid(
                "device_in",
                format!(
                    "holds {} elements; the input has {}",
                    device_in.len(),
                    input.len()
                ),
            ));
        }
        if device_out.len() < output.len() {
            return Err(Error::invalid(
                "device_out",
                format!(
                    "holds {} elements; the output has {}",
                    device_out.len(),
                    output.len()
                ),
            ));
        }
        self.check_same_device(device_in.gpu(), "device_in")?;
        self.check_same_device(device_out.gpu(), "device_out")?;
        // SAFETY: both arrays are borrowed mutably for the call and hold the lengths checked.
        unsafe {
            self.pipeline_raw(
                input,
                device_in.device_ptr(),
                output,
                device_out.device_ptr(),
                chunk,
                work,
            )
        }
    }

    /// The pipeline over raw device addresses.
    ///
    /// # Safety
    /// `in_base` holds `input.len()` elements of `T` and `out_base` `output.len()` of `U`, in
    /// this context's memory, alive and used by nothing else for the call (they may be the
    /// same memory when `T` and `U` are, for in-place work).
    unsafe fn pipeline_raw<T: Pod, U: Pod>(
        &self,
        input: &[T],
        in_base: u64,
        output: &mut [MaybeUninit<U>],
        out_base: u64,
        chunk: usize,
        mut work: impl FnMut(Range<usize>, &Stream) -> Result<Range<usize>>,
    ) -> Result<bool> {
        let (n, m) = (input.len(), output.len());
        let (size_in, size_out) = (std::mem::size_of::<T>(), std::mem::size_of::<U>());
        if chunk == 0 || chunk * size_in > PIPELINE_CHUNK_BYTES {
            return Err(Error::invalid(
                "chunk",
                format!(
                    "{chunk} elements of {size_in} bytes: must be 1 to {PIPELINE_CHUNK_BYTES} bytes"
                ),
            ));
        }
        let mut slot = match self.inner.pipeline.try_lock() {
            Ok(g) => g,
            Err(TryLockError::WouldBlock) => return Ok(false),
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
        };
        if n == 0 && m == 0 {
            return Ok(true);
        }
        self.bind()?;
        if slot.is_none() {
            *slot = Some(PipelineStaging::new()?);
        }
        let ring = slot.as_ref().expect("made above");
        let streams = Streams {
            up: self.new_stream()?,
            work: self.new_stream()?,
            down: self.new_stream()?,
        };
        let new_events =
            || -> Result<Vec<Event>> { (0..SLOTS).map(|_| self.new_event(false)).collect() };
        let (uploaded, worked, downloaded) = (new_events()?, new_events()?, new_events()?);
        let (pinned_in, pinned_out) = (
            is_pinned(input.as_ptr() as *const u8, std::mem::size_of_val(input)),
            is_pinned(output.as_ptr() as *const u8, std::mem::size_of_val(output)),
        );
        // Steps: one per input chunk (at least one, so that work runs for an empty input too).
        let steps = n.div_ceil(chunk).max(1);
        let range = |k: usize| (k * chunk).min(n)..((k + 1) * chunk).min(n);
        // Downloads go in pieces of at most one staging slot, piece p through slot p mod SLOTS.
        let piece_len = (PIPELINE_CHUNK_BYTES / size_out.max(1)).max(1);
        let mut pieces: Vec<Range<usize>> = Vec::new();
        let mut drained = 0usize;
        let in_ptr = SendPtr(input.as_ptr() as *mut u8);
        let out_ptr = SendPtr(output.as_mut_ptr() as *mut u8);
        // Piece p's host copy-out, once its download has finished (its slot is then free for
        // piece p + SLOTS).
        let drain = |p: usize, r: &Range<usize>| -> Result<()> {
            let s = p % SLOTS;
            downloaded[s].synchronize()?;
            if !pinned_out {
                // SAFETY: the download of piece p into ring.down[s] has finished (event above);
                // `out_ptr + r.start·size_out` .. `+ r.len()·size_out` lies inside `output`,
                // which this function borrows mutably (writing uninitialised memory is fine),
                // and no DMA writes it (pageable: the ring did).
                unsafe {
                    parallel_copy(
                        ring.down[s],
                        out_ptr.get().add(r.start * size_out),
                        r.len() * size_out,
                    )
                };
            }
            Ok(())
        };
        // Chunk k's host copy-in into its ring slot, once the upload that last read the slot
        // (chunk k − SLOTS) has finished.
        let fill = |k: usize| -> Result<()> {
            if pinned_in {
                return Ok(());
            }
            let s = k % SLOTS;
            let r = range(k);
            uploaded[s].synchronize()?;
            // SAFETY: the slot holds PIPELINE_CHUNK_BYTES ≥ r.len()·size_in bytes and no DMA
            // reads it now; the source range lies inside `input`.
            unsafe {
                parallel_copy(
                    in_ptr.get().add(r.start * size_in),
                    ring.up[s],
                    r.len() * size_in,
                )
            };
            Ok(())
        };
        let mut produced = 0usize;
        for k in 0..steps {
            let s = k % SLOTS;
            let r = range(k);
            // The host fills this chunk's slot while it empties the oldest download still
            // held, the two copies at once (each on half the pool, as rayon splits them).
            let keep = SLOTS - 1;
            if pieces.len() > drained + keep {
                let upto = pieces.len() - keep;
                let (a, b) = rayon::join(
                    || fill(k),
                    || -> Result<()> {
                        for (p, piece) in pieces.iter().enumerate().take(upto).skip(drained) {
                            drain(p, piece)?;
                        }
                        Ok(())
                    },
                );
                a?;
                b?;
                drained = upto;
            } else {
                fill(k)?;
            }
            let (offset, bytes) = (r.start * size_in, r.len() * size_in);
            if bytes > 0 {
                let src = if pinned_in {
                    // SAFETY: within `input` (offset + bytes ≤ n·size_in).
                    unsafe { in_ptr.get().add(offset) as *const u8 }
                } else {
                    ring.up[s] as *const u8
                };
                // SAFETY: `src` holds `bytes` bytes that stay untouched until the stream is
                // synchronised (by `uploaded[s]` before the slot is refilled, or by `streams`'
                // drop); `in_base + offset` .. `+ bytes` lies inside the input array.
                check("cuMemcpyHtoDAsync", unsafe {
                    driver_code!(cuMemcpyHtoDAsync_v2(
                        in_base + offset as u64,
                        src as *const c_void,
                        bytes,
                        streams.up.as_raw()
                    ))
                })?;
                uploaded[s].record(&streams.up)?;
                streams.work.wait(&uploaded[s])?;
            }
            let ready = work(r.clone(), &streams.work)?;
            let last = k + 1 == steps;
            if ready.start != produced || ready.end < ready.start || ready.end > m {
                return Err(Error::invalid(
                    "work",
                    format!(
                        "returned outputs {ready:?} after {produced} of {m}: ranges must follow \
                         one another inside the output"
                    ),
                ));
            }
            if last && ready.end != m {
                return Err(Error::invalid(
                    "work",
                    format!(
                        "left outputs {}..{m} unwritten after the last chunk",
                        ready.end
                    ),
                ));
            }
            produced = ready.end;
            if ready.is_empty() {
                continue;
            }
            worked[s].record(&streams.work)?;
            streams.down.wait(&worked[s])?;
            let mut at = ready.start;
            while at < ready.end {
                let piece = at..(at + piece_len).min(ready.end);
                at = piece.end;
                let p = pieces.len();
                // The slot must have been emptied by the host (piece p − SLOTS).
                while drained + SLOTS <= p {
                    drain(drained, &pieces[drained])?;
                    drained += 1;
                }
                let (offset, bytes) = (piece.start * size_out, piece.len() * size_out);
                let dst = if pinned_out {
                    // SAFETY: within `output`.
                    unsafe { out_ptr.get().add(offset) }
                } else {
                    ring.down[p % SLOTS]
                };
                // SAFETY: `dst` has room for `bytes` and nothing reads or writes it until
                // `downloaded[p mod SLOTS]` fires (drain) or the streams are synchronised
                // (drop); the source range lies inside the output array.
                check("cuMemcpyDtoHAsync", unsafe {
                    driver_code!(cuMemcpyDtoHAsync_v2(
                        dst as *mut c_void,
                        out_base + offset as u64,
                        bytes,
                        streams.down.as_raw()
                    ))
                })?;
                downloaded[p % SLOTS].record(&streams.down)?;
                pieces.push(piece);
            }
        }
        for (p, piece) in pieces.iter().enumerate().skip(drained) {
            drain(p, piece)?;
        }
        drop(streams);
        Ok(true)
    }
}

/// A host pointer handed to the rayon tasks of one pipeline, which touch disjoint ranges.
#[derive(Clone, Copy)]
struct SendPtr(*mut u8);
// SAFETY: used only inside `pipeline_raw`, whose copies touch disjoint ranges of memory it
// borrows for the call.
unsafe impl Send for SendPtr {}
// SAFETY: as above.
unsafe impl Sync for SendPtr {}
impl SendPtr {
    fn get(self) -> *mut u8 {
        self.0
    }
}
