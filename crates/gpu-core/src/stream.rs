//! Streams and events.

use std::sync::Arc;

use crate::driver::sys as cu;
use crate::driver_code;

use crate::context::Context;
use crate::driver::check;
use crate::error::Result;

/// A CUDA stream: work on one stream runs in order, work on different streams may overlap.
///
/// Every [`Gpu`](crate::Gpu) has a default stream ([`Gpu::stream`](crate::Gpu::stream)); make
/// more with [`Gpu::new_stream`](crate::Gpu::new_stream), or wrap one created elsewhere with
/// [`Stream::from_raw`]. Operations taking a `&Stream` only enqueue work; they return before it
/// finishes unless they say otherwise.
pub struct Stream {
    raw: cu::CUstream,
    /// Keeps the context alive for streams this crate created and must destroy.
    owner: Option<Arc<Context>>,
}

// SAFETY: a CUstream is a driver handle usable from any thread; the driver API is thread-safe.
unsafe impl Send for Stream {}
// SAFETY: as above; `&Stream` only enqueues work, which the driver serialises.
unsafe impl Sync for Stream {}

impl Stream {
    pub(crate) fn create(owner: Option<Arc<Context>>) -> Result<Self> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; the caller made the context current.
        check("cuStreamCreate", unsafe {
            driver_code!(cuStreamCreate(
                &mut raw,
                cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32
            ))
        })?;
        Ok(Stream { raw, owner })
    }

    /// Wraps a stream created elsewhere (by another library, say) without taking ownership:
    /// it is not destroyed when the `Stream` drops.
    ///
    /// # Safety
    /// `raw` must be a valid stream of the context of the `Gpu` it is used with, and must
    /// outlive the returned value.
    pub unsafe fn from_raw(raw: cu::CUstream) -> Self {
        Stream { raw, owner: None }
    }

    /// The raw driver handle.
    pub fn as_raw(&self) -> cu::CUstream {
        self.raw
    }

    /// Blocks until all work enqueued on this stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: valid stream handle.
        check("cuStreamSynchronize", unsafe {
            driver_code!(cuStreamSynchronize(self.raw))
        })
    }

    /// Whether all work enqueued on this stream has finished, without blocking (for waits
    /// that poll, with a timeout, for instance).
    pub fn is_done(&self) -> Result<bool> {
        // SAFETY: valid stream handle.
        let code = unsafe { driver_code!(cuStreamQuery(self.raw)) };
        if code == crate::DriverCode::NOT_READY {
            return Ok(false);
        }
        check("cuStreamQuery", code).map(|()| true)
    }

    /// Makes later work on this stream wait (on the device, without blocking the host) until
    /// the work before `event`'s last record has finished.
    pub fn wait(&self, event: &Event) -> Result<()> {
        // SAFETY: valid stream and event handles.
        check("cuStreamWaitEvent", unsafe {
            driver_code!(cuStreamWaitEvent(self.raw, event.raw, 0))
        })
    }

    pub(crate) fn destroy_raw(raw: cu::CUstream) {
        // SAFETY: called once for a stream this crate created; errors at teardown are ignored.
        unsafe {
            cu::cuStreamDestroy_v2(raw);
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Some(owner) = &self.owner {
            let _ = owner.bind();
            Stream::destroy_raw(self.raw);
        }
    }
}

/// A CUDA event: a point in a stream that the host can wait for or time against.
pub struct Event {
    raw: cu::CUevent,
    _owner: Arc<Context>,
}

// SAFETY: driver handles are usable from any thread.
unsafe impl Send for Event {}
// SAFETY: as above; recording and querying are serialised by the driver.
unsafe impl Sync for Event {}

impl Event {
    pub(crate) fn create(owner: Arc<Context>, timing: bool) -> Result<Self> {
        owner.bind()?;
        let flags = if timing {
            cu::CUevent_flags::CU_EVENT_DEFAULT as u32
        } else {
            cu::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32
        };
        let mut raw = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; context made current above.
        check("cuEventCreate", unsafe {
            driver_code!(cuEventCreate(&mut raw, flags))
        })?;
        Ok(Event { raw, _owner: owner })
    }

    /// Records the event at the current end of `stream`.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        // SAFETY: valid event and stream handles.
        check("cuEventRecord", unsafe {
            driver_code!(cuEventRecord(self.raw, stream.raw))
        })
    }

    /// Blocks until the work before the event's last record has finished.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: valid event handle.
        check("cuEventSynchronize", unsafe {
            driver_code!(cuEventSynchronize(self.raw))
        })
    }

    /// Milliseconds between `start` and this event (both recorded, this one waited for).
    pub fn elapsed_ms_since(&self, start: &Event) -> Result<f32> {
        self.synchronize()?;
        let mut ms = 0.0f32;
        // SAFETY: both are valid timing events; out-pointer to a local.
        check("cuEventElapsedTime", unsafe {
            driver_code!(cuEventElapsedTime(&mut ms, start.raw, self.raw))
        })?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: event created by this crate, destroyed once.
        unsafe {
            cu::cuEventDestroy_v2(self.raw);
        }
    }
}
