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
use crate::staging::parallel_copy;
use crate::stream::{Event, Stream};

/// Largest chunk of a host pipeline, in bytes (each staging buffer holds one).
pub const PIPELINE_CHUNK_BYTES: usize = 8 << 20;
/// Host data of at least this many bytes goes through the pipeline under
/// [`Pipelining::Auto`]: four chunks, so that uploads, work and downloads can overlap at all
/// (a first guess: the crossover is not measured yet).
pub const PIPELINE_MIN_BYTES: usize = 4 * PIPELINE_CHUNK_BYTES;

/// Whether a call with its data in host memory (in and out) goes through the host pipeline
/// ([`Gpu::host_pipeline`]) or the one-shot path (upload everything, work, download
/// everything). The default is the one-shot path until the pipeline is measured faster: its
/// results are the same bit for bit, but the first measurement (scans into a new `Vec`, where
/// allocating and faulting in the output dominates) showed no gain yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Pipelining {
    /// Always the one-shot path (the default).
    #[default]
    Never,
    /// The pipeline from [`PIPELINE_MIN_BYTES`] of input on.
    Auto,
    /// The pipeline whenever the primitive has one for the call.
    Always,
}

impl Pipelining {
    /// Whether an input of `bytes` bytes takes the pipeline.
    pub fn applies(self, bytes: usize) -> bool {
        match self {
            Pipelining::Auto => bytes >= PIPELINE_MIN_BYTES,
            Pipelining::Never => false,
            Pipelining::Always => bytes > 0,
        }
    }
}

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

/// Whether `len` bytes from `p` are page-locked host memory the DMA engines can use directly
/// (both ends checked). Only a matter of speed: the driver copies pageable memory correctly
/// too, synchronously.
fn is_pinned(p: *const u8, len: usize) -> bool {
    let host = |q: *const u8| {
        let mut kind: u32 = 0;
        // SAFETY: out-pointer to a local u32 (CUmemorytype is a C enum); any address may be
        // asked about: unknown (pageable) ones give an error, not a fault.
        let r = unsafe {
            cu::cuPointerGetAttribute(
                &mut kind as *mut u32 as *mut c_void,
                cust::sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                q as u64,
            )
        };
        r == 0 && kind == cust::sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32
    };
    len > 0 && host(p) && host(p.wrapping_add(len - 1))
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
    /// in [`PIPELINE_CHUNK_BYTES`].
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
        let size = std::mem::size_of::<T>();
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
        if chunk == 0 || chunk * size > PIPELINE_CHUNK_BYTES {
            return Err(Error::invalid(
                "chunk",
                format!(
                    "{chunk} elements of {size} bytes: must be 1 to {PIPELINE_CHUNK_BYTES} bytes"
                ),
            ));
        }
        self.check_same_device(device.gpu(), "device")?;
        let mut slot = match self.inner.pipeline.try_lock() {
            Ok(g) => g,
            Err(TryLockError::WouldBlock) => return Ok(false),
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
        };
        if n == 0 {
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
        let chunks = n.div_ceil(chunk);
        let range = |k: usize| k * chunk..((k + 1) * chunk).min(n);
        let base = device.device_ptr();
        let out_ptr = output.as_mut_ptr() as *mut u8;
        // Chunk k's host copy-out, once its download has finished (slot k mod SLOTS is then free
        // for chunk k + SLOTS).
        let drain = |k: usize| -> Result<()> {
            let s = k % SLOTS;
            downloaded[s].synchronize()?;
            if !pinned_out {
                let r = range(k);
                // SAFETY: the download of chunk k into ring.down[s] has finished (event above);
                // `out_ptr + r.start·size` .. `+ r.len()·size` lies inside `output`, which this
                // function borrows mutably (writing uninitialised memory is fine), and no DMA
                // writes it (pageable: the ring did).
                unsafe { parallel_copy(ring.down[s], out_ptr.add(r.start * size), r.len() * size) };
            }
            Ok(())
        };
        for k in 0..chunks {
            let s = k % SLOTS;
            let r = range(k);
            let (offset, bytes) = (r.start * size, r.len() * size);
            let dev = base + offset as u64;
            // Upload: from the input itself when pinned, else through the ring slot, once the
            // upload that last read it (chunk k − SLOTS) has finished.
            let src = if pinned_in {
                // SAFETY: within `input` (offset + bytes ≤ n·size).
                unsafe { (input.as_ptr() as *const u8).add(offset) }
            } else {
                uploaded[s].synchronize()?;
                // SAFETY: the slot holds PIPELINE_CHUNK_BYTES ≥ bytes and no DMA reads it now;
                // the source range lies inside `input`.
                unsafe {
                    parallel_copy((input.as_ptr() as *const u8).add(offset), ring.up[s], bytes)
                };
                ring.up[s] as *const u8
            };
            // SAFETY: `src` holds `bytes` bytes that stay untouched until the stream is
            // synchronised (by `uploaded[s]` before the slot is refilled, or by `streams`'
            // drop); `dev` .. `dev + bytes` lies inside `device` (n ≤ device.len()).
            check("cuMemcpyHtoDAsync", unsafe {
                driver_code!(cuMemcpyHtoDAsync_v2(
                    dev,
                    src as *const c_void,
                    bytes,
                    streams.up.as_raw()
                ))
            })?;
            uploaded[s].record(&streams.up)?;
            streams.work.wait(&uploaded[s])?;
            work(r.clone(), &streams.work)?;
            worked[s].record(&streams.work)?;
            streams.down.wait(&worked[s])?;
            // Download: into the output itself when pinned, else into the ring slot, which
            // chunk k − SLOTS left (drained in iteration k − 1 below).
            let dst = if pinned_out {
                // SAFETY: within `output`.
                unsafe { out_ptr.add(offset) }
            } else {
                ring.down[s]
            };
            // SAFETY: `dst` has room for `bytes` and nothing reads or writes it until
            // `downloaded[s]` fires (drain) or the streams are synchronised (drop); the
            // source range lies inside `device`.
            check("cuMemcpyDtoHAsync", unsafe {
                driver_code!(cuMemcpyDtoHAsync_v2(
                    dst as *mut c_void,
                    dev,
                    bytes,
                    streams.down.as_raw()
                ))
            })?;
            downloaded[s].record(&streams.down)?;
            // Empty the oldest slot still in flight, so that iteration k + 1 can reuse it.
            if k + 1 >= SLOTS {
                drain(k + 1 - SLOTS)?;
            }
        }
        for k in chunks.saturating_sub(SLOTS - 1)..chunks {
            drain(k)?;
        }
        drop(streams);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelining_choice() {
        assert_eq!(Pipelining::default(), Pipelining::Never);
        assert!(!Pipelining::Never.applies(1 << 30));
        assert!(!Pipelining::Auto.applies(PIPELINE_MIN_BYTES - 1));
        assert!(Pipelining::Auto.applies(PIPELINE_MIN_BYTES));
        assert!(Pipelining::Always.applies(1));
        assert!(!Pipelining::Always.applies(0));
    }
}
