//! Host-to-host pipelines: data that starts and ends in host memory goes through the device in
//! chunks on three streams ordered by events, so that chunk k+1 uploads while chunk k is
//! processed and chunk k−1 downloads. The link carries both directions at once (55 GB/s each
//! way on an H100 host) while the GPU works, instead of an upload, the work and a download one
//! after the other.
//!
//! Pageable host memory goes through a ring of pinned staging buffers owned by the `Gpu`
//! (`SLOTS` per direction of [`PIPELINE_CHUNK_BYTES`], made on first use, 48 MiB in all), the
//! host side of each chunk copied by a crew of rayon threads that stays awake for the call
//! (`copy_crew`), streaming stores into the caller's memory; page-locked memory (a
//! [`PinnedBuffer`](crate::PinnedBuffer)'s slice, say) is read and written by the DMA engines
//! directly.

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::TryLockError;

use crate::copy_crew::{with_crew, HostCopy, SharedPtr, Store};
use crate::device::Gpu;
use crate::driver::check;
use crate::driver::sys as cu;
use crate::driver_code;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::memory::DeviceArray;
use crate::pipelining::{PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS};
use crate::staging::is_pinned;
use crate::stream::{Event, Stream};

/// Staging buffers per direction: one being filled or emptied by the host, one in flight on
/// the link, one waiting.
const SLOTS: usize = PIPELINE_RING_SLOTS;

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
    /// On an error the streams are drained first. `output` is then untouched when the failure
    /// came before the first download (every allocation and setup call); after it each element
    /// holds what the work produced for it or is untouched.
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
            self.pipeline_raw(
                input,
                Layout::whole(base, base),
                output,
                chunk,
                |step, stream| {
                    work(step.range.clone(), stream)?;
                    Ok(step.range)
                },
            )
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
        mut work: impl FnMut(Range<usize>, &Stream) -> Result<Range<usize>>,
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
                Layout::whole(device_in.device_ptr(), device_out.device_ptr()),
                output,
                chunk,
                |step, stream| work(step.range, stream),
            )
        }
    }

    /// The upload-only pipeline, for work that consumes its input and returns no array (a
    /// reduction): chunk `k` of `input` (`chunk` elements each, the last one shorter) is
    /// uploaded into slot `k mod PIPELINE_RING_SLOTS` of `ring` (a device array of at least
    /// [`PIPELINE_RING_SLOTS`]` · chunk` elements, so the device memory stays small whatever
    /// the input), and `work(range, address, stream)` enqueues on `stream` the processing of
    /// the chunk at device `address`; the slot is overwritten only after that work has run.
    /// As [`host_pipeline`](Gpu::host_pipeline) otherwise: `Ok(false)` with nothing done when
    /// another pipeline of this `Gpu` holds the staging, streams drained on every error,
    /// page-locked input read by the DMA engine directly. Everything enqueued has run when
    /// this returns.
    pub fn host_stream_in<T: Pod>(
        &self,
        input: &[T],
        ring: &mut DeviceArray<T>,
        chunk: usize,
        mut work: impl FnMut(Range<usize>, u64, &Stream) -> Result<()>,
    ) -> Result<bool> {
        check_ring("ring", ring.len(), chunk, 0)?;
        self.check_same_device(ring.gpu(), "ring")?;
        let size = std::mem::size_of::<T>() as u64;
        let empty: &mut [MaybeUninit<T>] = &mut [];
        // SAFETY: `ring` (borrowed mutably for the call) holds PIPELINE_RING_SLOTS · chunk
        // elements (checked); there is no output.
        unsafe {
            self.pipeline_raw(
                input,
                Layout::ring(ring.device_ptr(), 0, Out::Whole(0)),
                empty,
                chunk,
                |step, stream| {
                    let at = step.input.wrapping_add(step.range.start as u64 * size);
                    work(step.range, at, stream)?;
                    Ok(0..0)
                },
            )
        }
    }

    /// [`host_pipeline`](Gpu::host_pipeline) through a device ring instead of a whole array:
    /// chunk `k` is uploaded into slot `k mod PIPELINE_RING_SLOTS` of `ring` (at least
    /// [`PIPELINE_RING_SLOTS`]` · chunk` elements, so the device memory stays small whatever the
    /// input; tested up to 8 GiB), processed there in place
    /// and downloaded from there; the slot takes the next chunk once that download has run.
    /// `work(range, base, stream)` finds input element `p` of the chunk's `range` at device
    /// address `base + p · size_of::<T>()` (`base` itself may lie outside the ring: only the
    /// chunk's own elements are there).
    pub fn host_pipeline_ring<T: Pod>(
        &self,
        input: &[T],
        output: &mut [MaybeUninit<T>],
        ring: &mut DeviceArray<T>,
        chunk: usize,
        mut work: impl FnMut(Range<usize>, u64, &Stream) -> Result<()>,
    ) -> Result<bool> {
        if output.len() != input.len() {
            return Err(Error::invalid(
                "output",
                format!(
                    "holds {} elements; the input has {}",
                    output.len(),
                    input.len()
                ),
            ));
        }
        check_ring("ring", ring.len(), chunk, 0)?;
        self.check_same_device(ring.gpu(), "ring")?;
        // SAFETY: `ring` (borrowed mutably for the call) holds PIPELINE_RING_SLOTS · chunk
        // elements (checked); outputs are the chunk's own elements in its slot.
        unsafe {
            self.pipeline_raw(
                input,
                Layout::ring(ring.device_ptr(), 0, Out::InInput),
                output,
                chunk,
                |step, stream| {
                    work(step.range.clone(), step.input, stream)?;
                    Ok(step.range)
                },
            )
        }
    }

    /// A pageable upload of `src` into the device range at `dst` through the pipeline's staging
    /// ring (three slots, the host's copy crew filling one while the link carries another):
    /// 1 GiB in 20.7–21 ms on the H100 host against 32–37 ms through the two-slot one-shot
    /// staging. `Ok(false)`, having done nothing, when another pipeline holds the ring.
    ///
    /// # Safety
    /// `dst` must address `src.len()` elements of `T` in device memory of this context that
    /// nothing else uses until this returns.
    pub(crate) unsafe fn pipeline_upload<T: Pod>(&self, dst: u64, src: &[T]) -> Result<bool> {
        let chunk = (PIPELINE_CHUNK_BYTES / std::mem::size_of::<T>()).max(1);
        // SAFETY: the caller's contract for `dst`; nothing is written to the device output.
        unsafe {
            self.pipeline_raw(
                src,
                Layout::whole(dst, 0),
                &mut [] as &mut [MaybeUninit<T>],
                chunk,
                |_, _| Ok(0..0),
            )
        }
    }

    /// A pageable download of the device range at `src` into `dst` through the pipeline's
    /// staging ring (the host's copy crew emptying one slot while the link fills the next);
    /// `Ok(false)`, having done nothing, when another pipeline holds the ring.
    ///
    /// # Safety
    /// `src` must address `dst.len()` elements of `T` in device memory of this context that
    /// nothing writes until this returns.
    pub(crate) unsafe fn pipeline_download<T: Pod>(
        &self,
        dst: &mut [MaybeUninit<T>],
        src: u64,
    ) -> Result<bool> {
        let (len, chunk) = (
            dst.len(),
            (PIPELINE_CHUNK_BYTES / std::mem::size_of::<T>()).max(1),
        );
        // SAFETY: the caller's contract for `src`; there is no input.
        unsafe {
            self.pipeline_raw(&[] as &[T], Layout::whole(0, src), dst, chunk, |_, _| {
                Ok(0..len)
            })
        }
    }

    /// [`host_pipeline_between`](Gpu::host_pipeline_between) through device rings: chunk `k`
    /// is uploaded with the `halo` input elements before it (a window of at most
    /// `chunk + halo`) into slot `k mod PIPELINE_RING_SLOTS` of `ring_in` (at least
    /// [`PIPELINE_RING_SLOTS`]` · (chunk + halo)` elements), and the outputs each step
    /// announces are written into slot `k mod PIPELINE_RING_SLOTS` of `ring_out` (slots of
    /// `ring_out.len() / PIPELINE_RING_SLOTS` elements; a step announcing more is an error
    /// naming `work`). `work(step, stream)` finds input element `p` of the window at
    /// `step.input + p · size_of::<T>()` and writes output `q` of its announced range at
    /// `step.output + q · size_of::<U>()`. Slots are reused only after the work and downloads
    /// that read them have run.
    // Two rings, their data and the chunking: each argument is one thing a caller sets.
    #[allow(clippy::too_many_arguments)]
    pub fn host_pipeline_rings<T: Pod, U: Pod>(
        &self,
        input: &[T],
        ring_in: &mut DeviceArray<T>,
        halo: usize,
        output: &mut [MaybeUninit<U>],
        ring_out: &mut DeviceArray<U>,
        chunk: usize,
        work: impl FnMut(PipelineStep, &Stream) -> Result<Range<usize>>,
    ) -> Result<bool> {
        check_ring("ring_in", ring_in.len(), chunk, halo)?;
        let out_slot = ring_out.len() / PIPELINE_RING_SLOTS;
        if out_slot == 0 && !output.is_empty() {
            return Err(Error::invalid(
                "ring_out",
                format!("holds {} elements: no room for outputs", ring_out.len()),
            ));
        }
        self.check_same_device(ring_in.gpu(), "ring_in")?;
        self.check_same_device(ring_out.gpu(), "ring_out")?;
        // SAFETY: both rings are borrowed mutably for the call; `ring_in` holds
        // PIPELINE_RING_SLOTS · (chunk + halo) elements (checked), `ring_out`
        // PIPELINE_RING_SLOTS slots of `out_slot`, which the engine checks each step against.
        unsafe {
            self.pipeline_raw(
                input,
                Layout::ring(
                    ring_in.device_ptr(),
                    halo,
                    Out::Ring {
                        base: ring_out.device_ptr(),
                        slot: out_slot,
                    },
                ),
                output,
                chunk,
                work,
            )
        }
    }

    /// The pipeline over raw device addresses, as `layout` places the data.
    ///
    /// # Safety
    /// The memory `layout` names is this context's, alive and used by nothing else for the
    /// call: a whole input array of `input.len()` elements of `T` or a ring of
    /// `PIPELINE_RING_SLOTS · (chunk + halo)`, a whole output array of `output.len()` elements
    /// of `U` or a ring of `PIPELINE_RING_SLOTS · slot` (in-place outputs need `T` = `U`).
    unsafe fn pipeline_raw<T: Pod, U: Pod>(
        &self,
        input: &[T],
        layout: Layout,
        output: &mut [MaybeUninit<U>],
        chunk: usize,
        mut work: impl FnMut(PipelineStep, &Stream) -> Result<Range<usize>>,
    ) -> Result<bool> {
        let (n, m) = (input.len(), output.len());
        let (size_in, size_out) = (std::mem::size_of::<T>(), std::mem::size_of::<U>());
        let window_max = chunk.saturating_add(layout.halo);
        if chunk == 0 || window_max.saturating_mul(size_in) > PIPELINE_CHUNK_BYTES {
            return Err(Error::invalid(
                "chunk",
                format!(
                    "{chunk} elements (+ {} of halo) of {size_in} bytes: must be 1 to \
                     {PIPELINE_CHUNK_BYTES} bytes",
                    layout.halo
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
        // Per step slot: the step's downloads have run (its device output slot is free).
        let out_free = new_events()?;
        let (pinned_in, pinned_out) = (
            is_pinned(input.as_ptr() as *const u8, std::mem::size_of_val(input)),
            is_pinned(output.as_ptr() as *const u8, std::mem::size_of_val(output)),
        );
        // Steps: one per input chunk (at least one, so that work runs for an empty input too).
        let steps = n.div_ceil(chunk).max(1);
        let range = |k: usize| (k * chunk).min(n)..((k + 1) * chunk).min(n);
        // What step k uploads: its chunk, and in a ring the halo before it too.
        let window = |k: usize| {
            let r = range(k);
            if layout.in_ring {
                r.start - layout.halo.min(r.start)..r.end
            } else {
                r
            }
        };
        // Downloads go in pieces of at most one staging slot, piece p through slot p mod SLOTS.
        let piece_len = (PIPELINE_CHUNK_BYTES / size_out.max(1)).max(1);
        let mut pieces: Vec<Range<usize>> = Vec::new();
        let mut drained = 0usize;
        let in_ptr = SharedPtr(input.as_ptr() as *mut u8);
        let out_ptr = SharedPtr(output.as_mut_ptr() as *mut u8);
        // Piece p's host copy-out, once its download has finished (its slot is then free for
        // piece p + SLOTS).
        let drain = |p: usize, r: &Range<usize>| -> Result<Option<HostCopy>> {
            let s = p % SLOTS;
            downloaded[s].synchronize()?;
            if pinned_out {
                return Ok(None);
            }
            // The download of piece p into ring.down[s] has finished (event above);
            // `out_ptr + r.start·size_out` .. `+ r.len()·size_out` lies inside `output`, which
            // this function borrows mutably (writing uninitialised memory is fine), and no DMA
            // writes it (pageable: the ring did).
            Ok(Some(HostCopy {
                src: ring.down[s],
                dst: out_ptr.get().wrapping_add(r.start * size_out),
                len: r.len() * size_out,
                store: Store::Streaming,
            }))
        };
        // Step k's host copy-in into its staging slot, once the upload that last read the slot
        // (step k − SLOTS) has finished.
        let fill = |k: usize| -> Result<Option<HostCopy>> {
            if pinned_in {
                return Ok(None);
            }
            let s = k % SLOTS;
            let r = window(k);
            uploaded[s].synchronize()?;
            // The slot holds PIPELINE_CHUNK_BYTES ≥ r.len()·size_in bytes (chunk + halo checked
            // above) and no DMA reads it now; the source range lies inside `input`.
            Ok(Some(HostCopy {
                src: in_ptr.get().wrapping_add(r.start * size_in),
                dst: ring.up[s],
                len: r.len() * size_in,
                store: Store::Cached,
            }))
        };
        with_crew(|crew| -> Result<()> {
            let mut produced = 0usize;
            for k in 0..steps {
                let s = k % SLOTS;
                let r = range(k);
                let win = window(k);
                // The host fills this step's slot and empties the oldest downloads still held
                // (all but the last SLOTS − 1), the copies in one batch for the crew.
                let keep = SLOTS - 1;
                let mut copies: Vec<HostCopy> = fill(k)?.into_iter().collect();
                if pieces.len() > drained + keep {
                    let upto = pieces.len() - keep;
                    for (p, piece) in pieces.iter().enumerate().take(upto).skip(drained) {
                        copies.extend(drain(p, piece)?);
                    }
                    drained = upto;
                }
                // SAFETY: each copy's ranges are as `fill` and `drain` state: disjoint, inside
                // `input`, `output` and slots no DMA uses until the copies are done.
                unsafe { crew.copy(&copies) };
                // Where the window goes: its own range of a whole array, or the slot (whose
                // virtual base then stands for element 0).
                let (in_slot, in_virtual) = if layout.in_ring {
                    let at = layout.input + (s * window_max * size_in) as u64;
                    (at, at.wrapping_sub((win.start * size_in) as u64))
                } else {
                    (layout.input + (win.start * size_in) as u64, layout.input)
                };
                if layout.in_ring && k >= SLOTS {
                    // The slot's previous window must have been worked on, and downloaded where
                    // the outputs were left in it, before it is overwritten.
                    streams.up.wait(&worked[s])?;
                    if matches!(layout.output, Out::InInput) {
                        streams.up.wait(&out_free[s])?;
                    }
                }
                let bytes = win.len() * size_in;
                if bytes > 0 {
                    let src = if pinned_in {
                        // SAFETY: within `input` (win.end ≤ n).
                        unsafe { in_ptr.get().add(win.start * size_in) as *const u8 }
                    } else {
                        ring.up[s] as *const u8
                    };
                    // SAFETY: `src` holds `bytes` bytes that stay untouched until the stream is
                    // synchronised (by `uploaded[s]` before the slot is refilled, or by `streams`'
                    // drop); `in_slot` .. `+ bytes` lies inside the input array or its ring slot.
                    check("cuMemcpyHtoDAsync", unsafe {
                        driver_code!(cuMemcpyHtoDAsync_v2(
                            in_slot,
                            src as *const c_void,
                            bytes,
                            streams.up.as_raw()
                        ))
                    })?;
                    uploaded[s].record(&streams.up)?;
                    streams.work.wait(&uploaded[s])?;
                }
                let out_virtual = match layout.output {
                    Out::Whole(base) => base,
                    Out::InInput => in_virtual,
                    Out::Ring { base, slot } => {
                        if k >= SLOTS {
                            // The slot's previous outputs must have been downloaded.
                            streams.work.wait(&out_free[s])?;
                        }
                        let at = base + (s * slot * size_out) as u64;
                        at.wrapping_sub((produced * size_out) as u64)
                    }
                };
                let step = PipelineStep {
                    range: r.clone(),
                    window: win.clone(),
                    input: in_virtual,
                    output: out_virtual,
                    produced,
                };
                let ready = work(step, &streams.work)?;
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
                if let Out::Ring { slot, .. } = layout.output {
                    if ready.len() > slot {
                        return Err(Error::invalid(
                            "work",
                            format!(
                            "returned {} outputs in one step; the output ring's slots hold {slot}",
                            ready.len()
                        ),
                        ));
                    }
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
                worked[s].record(&streams.work)?;
                if ready.is_empty() {
                    out_free[s].record(&streams.work)?;
                    continue;
                }
                streams.down.wait(&worked[s])?;
                let mut at = ready.start;
                while at < ready.end {
                    let piece = at..(at + piece_len).min(ready.end);
                    at = piece.end;
                    let p = pieces.len();
                    // The staging slot must have been emptied by the host (piece p − SLOTS).
                    while drained + SLOTS <= p {
                        let copy = drain(drained, &pieces[drained])?;
                        // SAFETY: as `drain` states.
                        unsafe { crew.copy(copy.as_slice()) };
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
                    // (drop); the source lies inside the output array or this step's slot.
                    check("cuMemcpyDtoHAsync", unsafe {
                        driver_code!(cuMemcpyDtoHAsync_v2(
                            dst as *mut c_void,
                            out_virtual.wrapping_add(offset as u64),
                            bytes,
                            streams.down.as_raw()
                        ))
                    })?;
                    downloaded[p % SLOTS].record(&streams.down)?;
                    pieces.push(piece);
                }
                out_free[s].record(&streams.down)?;
            }
            let mut copies = Vec::new();
            for (p, piece) in pieces.iter().enumerate().skip(drained) {
                copies.extend(drain(p, piece)?);
            }
            // SAFETY: as `drain` states.
            unsafe { crew.copy(&copies) };
            Ok(())
        })?;
        drop(streams);
        Ok(true)
    }
}

/// One step of a ring pipeline ([`Gpu::host_pipeline_rings`]), as its work sees it.
#[derive(Debug, Clone)]
pub struct PipelineStep {
    /// The chunk of the input this step uploaded.
    pub range: Range<usize>,
    /// The input elements on the device for this step: the chunk and the halo before it.
    pub window: Range<usize>,
    /// Device address standing for input element 0: element `p` of `window` is at
    /// `input + p · size` (the address itself may lie outside the ring).
    pub input: u64,
    /// Device address standing for output element 0: output `q` of the range this step
    /// returns is written at `output + q · size`.
    pub output: u64,
    /// Outputs announced so far: this step's range starts here.
    pub produced: usize,
}

/// Checks that a ring of `len` elements holds [`PIPELINE_RING_SLOTS`] slots of
/// `chunk + halo`.
fn check_ring(what: &'static str, len: usize, chunk: usize, halo: usize) -> Result<()> {
    let need = chunk
        .saturating_add(halo)
        .saturating_mul(PIPELINE_RING_SLOTS);
    if len < need {
        return Err(Error::invalid(
            what,
            format!(
                "holds {len} elements; {PIPELINE_RING_SLOTS} slots of {chunk} + {halo} need {need}"
            ),
        ));
    }
    Ok(())
}

/// Where a pipeline's data live on the device (addresses in this context's memory).
#[derive(Clone, Copy)]
struct Layout {
    /// The whole input array, or a ring of slots of `chunk + halo` elements.
    input: u64,
    in_ring: bool,
    /// Input elements before each chunk uploaded again with it (rings only).
    halo: usize,
    output: Out,
}

impl Layout {
    fn whole(input: u64, output: u64) -> Layout {
        Layout {
            input,
            in_ring: false,
            halo: 0,
            output: Out::Whole(output),
        }
    }

    fn ring(input: u64, halo: usize, output: Out) -> Layout {
        Layout {
            input,
            in_ring: true,
            halo,
            output,
        }
    }
}

/// Where a pipeline's outputs live on the device.
#[derive(Clone, Copy)]
enum Out {
    /// A whole output array at this address.
    Whole(u64),
    /// A ring of `slot`-element slots at `base`: step k writes slot k mod SLOTS.
    Ring { base: u64, slot: usize },
    /// In place, in the step's input slot (the input ring's element type).
    InInput,
}
