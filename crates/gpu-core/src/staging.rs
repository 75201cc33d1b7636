//! Large transfers between pageable host memory and the device, staged through two page-locked
//! buffers: the host copies one chunk into a pinned buffer while the DMA engine moves the other,
//! which beats the driver's own pageable path by a wide margin. The host side of each chunk is
//! copied by the rayon pool, 256 KiB per task: one thread's memcpy (~8 GB/s on an H100 host) was
//! the bound, well below the DMA engine's pinned rate.

use std::ffi::c_void;

use crate::driver::sys as cu;
use crate::driver_code;

use crate::driver::check;
use crate::error::Result;
use crate::stream::Stream;

/// Bytes per staged chunk.
pub(crate) const CHUNK: usize = 8 << 20;
/// Transfers at least this large are staged; smaller ones go straight through the driver.
pub(crate) const THRESHOLD: usize = 2 * CHUNK;
/// Bytes one rayon task copies between pageable and pinned memory, unless
/// `GPU_PRIMS_HOST_COPY_PIECE_KIB` sets it (for benchmarks, read once; not a stable interface):
/// 32 tasks per 8 MiB chunk, so that every thread of a 16-core host can take part.
const PIECE: usize = 256 << 10;

fn piece() -> usize {
    static CELL: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CELL.get_or_init(|| {
        std::env::var("GPU_PRIMS_HOST_COPY_PIECE_KIB")
            .ok()
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|k| (4..=65536).contains(k))
            .map_or(PIECE, |k| k << 10)
    })
}

/// A raw host pointer that may cross to rayon's threads (read through `get`, so closures
/// capture the wrapper and not the bare pointer).
#[derive(Clone, Copy)]
pub(crate) struct SharedPtr(pub(crate) *mut u8);
// SAFETY: used only by `parallel_copy` and the host pipeline, whose tasks touch disjoint byte
// ranges of memory their caller borrows for the call.
unsafe impl Send for SharedPtr {}
// SAFETY: as above.
unsafe impl Sync for SharedPtr {}
impl SharedPtr {
    pub(crate) fn get(self) -> *mut u8 {
        self.0
    }
}

/// Copies `len` bytes from `src` to `dst` on the rayon pool, [`piece`] bytes per task.
///
/// # Safety
/// `src` must be valid for reads and `dst` for writes of `len` bytes (`dst` may be
/// uninitialised), the two ranges must not overlap, and nothing else may access them meanwhile.
pub(crate) unsafe fn parallel_copy(src: *const u8, dst: *mut u8, len: usize) {
    use rayon::prelude::*;
    let (src, dst) = (SharedPtr(src as *mut u8), SharedPtr(dst));
    let piece = piece();
    (0..len.div_ceil(piece)).into_par_iter().for_each(|k| {
        let offset = k * piece;
        let n = piece.min(len - offset);
        // SAFETY: [offset, offset + n) lies within both ranges (the caller's contract) and no
        // other task touches it.
        unsafe { std::ptr::copy_nonoverlapping(src.get().add(offset), dst.get().add(offset), n) };
    });
}

/// Whether `len` bytes from `p` are page-locked host memory the DMA engines can use directly
/// (both ends checked). Only a matter of speed: the driver copies pageable memory correctly
/// too, synchronously.
pub(crate) fn is_pinned(p: *const u8, len: usize) -> bool {
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

/// Two pinned chunks and an event per chunk marking when its DMA has finished. Raw handles, not
/// `PinnedBuffer`/`Event`, because it lives inside the context's own `GpuInner` (which those
/// would keep alive); `GpuInner::drop` calls `free` while the context is still retained.
pub(crate) struct Staging {
    host: [*mut u8; 2],
    done: [cu::CUevent; 2],
}

impl Staging {
    /// Allocates the buffers; the caller has made the context current.
    pub(crate) fn new() -> Result<Self> {
        let mut s = Staging {
            host: [std::ptr::null_mut(); 2],
            done: [std::ptr::null_mut(); 2],
        };
        for i in 0..2 {
            let mut raw: *mut c_void = std::ptr::null_mut();
            // SAFETY: out-pointer to a local; non-zero size.
            let r = check("cuMemAllocHost", unsafe {
                driver_code!(cuMemAllocHost_v2(&mut raw, CHUNK))
            });
            #[cfg(feature = "fault-injection")]
            if r.is_ok() {
                crate::fault_injection::track_pinned(CHUNK as i64);
            }
            if let Err(e) = r {
                s.free();
                return Err(e);
            }
            s.host[i] = raw as *mut u8;
            let flags = cu::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
            // SAFETY: out-pointer into `s`; context current.
            let r = check("cuEventCreate", unsafe {
                driver_code!(cuEventCreate(&mut s.done[i], flags))
            });
            if let Err(e) = r {
                s.free();
                return Err(e);
            }
        }
        Ok(s)
    }

    /// Frees the buffers and events (idempotent); the caller has made the context current.
    pub(crate) fn free(&mut self) {
        for i in 0..2 {
            if !self.done[i].is_null() {
                // SAFETY: event created in `new`, destroyed once (nulled below).
                unsafe { cu::cuEventDestroy_v2(self.done[i]) };
                self.done[i] = std::ptr::null_mut();
            }
            if !self.host[i].is_null() {
                // SAFETY: allocated by cuMemAllocHost in `new`; any DMA using it was waited for
                // by the transfer that issued it.
                unsafe { cu::cuMemFreeHost(self.host[i] as *mut c_void) };
                #[cfg(feature = "fault-injection")]
                crate::fault_injection::track_pinned(-(CHUNK as i64));
                self.host[i] = std::ptr::null_mut();
            }
        }
    }

    /// Copies `src` to device address `dst`, chunk by chunk, and waits for the last chunk.
    pub(crate) fn upload(&mut self, dst: u64, src: &[u8], stream: &Stream) -> Result<()> {
        for (k, chunk) in src.chunks(CHUNK).enumerate() {
            let slot = k % 2;
            // The DMA that last read this slot (two chunks ago) must be done before refilling it.
            // SAFETY: valid event (recorded or never recorded, which counts as complete).
            check("cuEventSynchronize", unsafe {
                driver_code!(cuEventSynchronize(self.done[slot]))
            })?;
            // SAFETY: the slot holds CHUNK ≥ chunk.len() bytes and no DMA reads it now; `chunk`
            // is borrowed for the call.
            unsafe { parallel_copy(chunk.as_ptr(), self.host[slot], chunk.len()) };
            let offset = (k * CHUNK) as u64;
            // SAFETY: pinned source of chunk.len() bytes, kept untouched until `done[slot]`
            // fires; `dst + offset` lies inside the destination the caller sized for `src`.
            check("cuMemcpyHtoDAsync", unsafe {
                driver_code!(cuMemcpyHtoDAsync_v2(
                    dst + offset,
                    self.host[slot] as *const c_void,
                    chunk.len(),
                    stream.as_raw(),
                ))
            })?;
            // SAFETY: valid event and stream.
            check("cuEventRecord", unsafe {
                driver_code!(cuEventRecord(self.done[slot], stream.as_raw()))
            })?;
        }
        stream.synchronize()
    }

    /// Copies `len` bytes from device address `src` to `dst`, chunk by chunk: the DMA of chunk
    /// k+1 runs while the host copies chunk k out of its pinned buffer.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `len` bytes (it may be uninitialised).
    pub(crate) unsafe fn download(
        &mut self,
        dst: *mut u8,
        len: usize,
        src: u64,
        stream: &Stream,
    ) -> Result<()> {
        let chunks = len.div_ceil(CHUNK);
        let len_of = |k: usize| CHUNK.min(len - k * CHUNK);
        let issue = |k: usize, s: &mut Staging| -> Result<()> {
            let slot = k % 2;
            // SAFETY: the slot holds CHUNK ≥ len_of(k) bytes and the host finished reading it
            // (chunk k−2 was copied out before chunk k is issued); `src + k·CHUNK` lies inside
            // the source the caller sized for `dst`.
            check("cuMemcpyDtoHAsync", unsafe {
                driver_code!(cuMemcpyDtoHAsync_v2(
                    s.host[slot] as *mut c_void,
                    src + (k * CHUNK) as u64,
                    len_of(k),
                    stream.as_raw(),
                ))
            })?;
            // SAFETY: valid event and stream.
            check("cuEventRecord", unsafe {
                driver_code!(cuEventRecord(s.done[slot], stream.as_raw()))
            })
        };
        issue(0, self)?;
        for k in 0..chunks {
            if k + 1 < chunks {
                issue(k + 1, self)?;
            }
            let slot = k % 2;
            // SAFETY: valid event, recorded after chunk k's copy.
            check("cuEventSynchronize", unsafe {
                driver_code!(cuEventSynchronize(self.done[slot]))
            })?;
            let n = len_of(k);
            // SAFETY: chunk k's DMA has finished; `dst + k·CHUNK .. + n` is within the `len`
            // bytes the caller guarantees.
            unsafe { parallel_copy(self.host[slot], dst.add(k * CHUNK), n) };
        }
        Ok(())
    }
}

// SAFETY: raw pinned pointers and events, used only under the owning mutex in `GpuInner`.
unsafe impl Send for Staging {}
