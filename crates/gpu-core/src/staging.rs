//! Large transfers between pageable host memory and the device, staged through two page-locked
//! buffers: the host copies one chunk into a pinned buffer while the DMA engine moves the other,
//! which beats the driver's own pageable path by a wide margin. The host side of each chunk is
//! copied by a crew of rayon threads ([`with_crew`]): one thread's memcpy (~10 GB/s on an H100
//! host) is well below the DMA engine's pinned rate.

use std::ffi::c_void;

use crate::driver::sys as cu;
use crate::driver_code;

use crate::copy_crew::{with_crew, HostCopy, Store};
use crate::driver::check;
use crate::error::Result;
use crate::stream::Stream;

/// Bytes per staged chunk.
pub(crate) const CHUNK: usize = 8 << 20;
/// Transfers at least this large are staged; smaller ones go straight through the driver.
pub(crate) const THRESHOLD: usize = 2 * CHUNK;

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

    /// Waits for the last DMA recorded on `slot` (none recorded counts as done).
    fn wait_slot(&self, slot: usize) -> Result<()> {
        // SAFETY: an event made in `new`, recorded or never recorded.
        check("cuEventSynchronize", unsafe {
            driver_code!(cuEventSynchronize(self.done[slot]))
        })
    }

    /// Copies `src` to device address `dst`, chunk by chunk, and waits for the last chunk.
    pub(crate) fn upload(&mut self, dst: u64, src: &[u8], stream: &Stream) -> Result<()> {
        with_crew(|crew| {
            for (k, chunk) in src.chunks(CHUNK).enumerate() {
                let slot = k % 2;
                // The DMA that last read this slot (two chunks ago) must be done before
                // refilling it.
                self.wait_slot(slot)?;
                // SAFETY: the slot holds CHUNK ≥ chunk.len() bytes and no DMA reads it now;
                // `chunk` is borrowed for the call.
                unsafe {
                    crew.copy(&[HostCopy {
                        src: chunk.as_ptr(),
                        dst: self.host[slot],
                        len: chunk.len(),
                        store: Store::Cached,
                    }])
                };
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
            Ok(())
        })?;
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
        with_crew(|crew| {
            for k in 0..chunks {
                if k + 1 < chunks {
                    issue(k + 1, self)?;
                }
                let slot = k % 2;
                self.wait_slot(slot)?;
                // SAFETY: chunk k's DMA has finished; `dst + k·CHUNK .. + len_of(k)` is within
                // the `len` bytes the caller guarantees.
                unsafe {
                    crew.copy(&[HostCopy {
                        src: self.host[slot],
                        dst: dst.add(k * CHUNK),
                        len: len_of(k),
                        store: Store::Streaming,
                    }])
                };
            }
            Ok(())
        })
    }
}

// SAFETY: raw pinned pointers and events, used only under the owning mutex in `GpuInner`.
unsafe impl Send for Staging {}
