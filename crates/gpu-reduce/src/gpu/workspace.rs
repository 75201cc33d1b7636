//! Device scratch of the reductions: the last-block counter, the partials buffer and the
//! result slot, reusable across calls; and the per-device pool the host-returning calls take
//! theirs from.

use std::sync::{Mutex, OnceLock};

use gpu_core::{DeviceArray, Event, Gpu, Result, Stream};
use gpu_sync::LastBlockCounter;

/// Bytes of the result slot: the largest accumulator (a `Mat2<f64>`, 32 bytes).
pub(crate) const RESULT_BYTES: usize = 32;
/// Byte written over outputs and scratch when poisoning.
pub(crate) const POISON: u8 = 0xA5;

/// Reusable device scratch for reductions: a last-block counter ([`LastBlockCounter`], zeroed
/// once; the guard leaves it at zero after every launch), a partials buffer that grows to the largest
/// size asked for, and a one-value result slot.
///
/// Create one per stream you launch on and reuse it: [`Reduce::reduce_into`] then allocates
/// nothing and never waits for the host, which is what timing loops need. A workspace used on
/// a different stream than last time first waits (on the host) for its previous work, so two
/// streams never share its counter or buffers at the same time.
///
/// [`Reduce::reduce_into`]: crate::Reduce::reduce_into
pub struct Workspace {
    gpu: Gpu,
    counter: LastBlockCounter,
    scratch: DeviceArray<u8>,
    result: DeviceArray<u8>,
    fence: Event,
    last_stream: Option<usize>,
    poison: bool,
}

impl Workspace {
    /// A workspace on `gpu` (allocates the counter and the result slot).
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(Workspace {
            counter: LastBlockCounter::new(gpu)?,
            scratch: gpu.alloc::<u8>(0)?,
            result: gpu.zeros::<u8>(RESULT_BYTES)?,
            fence: gpu.new_event(false)?,
            last_stream: None,
            poison: false,
            gpu: gpu.clone(),
        })
    }

    /// The device of this workspace.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// When on, every use first overwrites the output value and the partials it will use with
    /// a poison byte pattern (`0xA5`), so a kernel that fails to write shows as garbage rather
    /// than as a stale earlier result. For tests; costs one small memset per buffer.
    pub fn set_poison(&mut self, on: bool) {
        self.poison = on;
    }

    /// Whether poisoning is on.
    pub fn poisons(&self) -> bool {
        self.poison
    }

    /// Bytes of the partials buffer at present.
    pub fn scratch_bytes(&self) -> usize {
        self.scratch.len()
    }

    /// Waits for the previous use when it was on another stream.
    pub(crate) fn begin(&mut self, stream: &Stream) -> Result<()> {
        if self
            .last_stream
            .is_some_and(|s| s != stream.as_raw() as usize)
        {
            self.fence.synchronize()?;
        }
        Ok(())
    }

    /// Waits for the last use and forgets its stream, before work on a stream made for one
    /// call (a host pipeline's): the first `begin` on it then needs no wait, and the driver
    /// calls do not depend on whether the new stream's handle equals a destroyed one's.
    pub(crate) fn forget_stream(&mut self) -> Result<()> {
        self.fence.synchronize()?;
        self.last_stream = None;
        Ok(())
    }

    /// Marks the end of this use on `stream`.
    pub(crate) fn end(&mut self, stream: &Stream) -> Result<()> {
        self.fence.record(stream)?;
        self.last_stream = Some(stream.as_raw() as usize);
        Ok(())
    }

    /// Device address of at least `bytes` bytes of scratch, growing it first if needed.
    /// Call before enqueuing the launches of a use (growing waits for earlier uses only).
    pub(crate) fn scratch(&mut self, bytes: usize, stream: &Stream) -> Result<u64> {
        if self.scratch.len() < bytes {
            // Earlier work may still read the old buffer: wait for it before it is freed.
            if self.last_stream.is_some() {
                self.fence.synchronize()?;
            }
            let grown = bytes.checked_next_power_of_two().unwrap_or(bytes).max(4096);
            self.scratch = self.gpu.alloc::<u8>(0)?;
            self.scratch = self.gpu.alloc::<u8>(grown)?;
        }
        if self.poison {
            self.poison_bytes(self.scratch.device_ptr(), bytes, stream)?;
        }
        Ok(self.scratch.device_ptr())
    }

    pub(crate) fn counter_ptr(&self) -> u64 {
        self.counter.device_ptr()
    }

    /// The last-block counter (gpu-sync's): 0 whenever no launch is in flight.
    pub fn last_block_counter(&self) -> &LastBlockCounter {
        &self.counter
    }

    pub(crate) fn result_ptr(&self) -> u64 {
        self.result.device_ptr()
    }

    /// The result slot's bytes (waits for the default stream; synchronise the launch stream
    /// first).
    pub(crate) fn read_result(&self) -> Result<Vec<u8>> {
        self.result.to_vec()
    }

    /// Drops a partials buffer larger than `max` bytes (the pool keeps small ones only).
    /// Only call when no work on the workspace is in flight.
    fn shrink(&mut self, max: usize) -> Result<()> {
        if self.scratch.len() > max {
            self.scratch = self.gpu.alloc::<u8>(0)?;
        }
        Ok(())
    }

    /// Writes the poison pattern over `bytes` bytes at `ptr`, on `stream`.
    pub(crate) fn poison_bytes(&self, ptr: u64, bytes: usize, stream: &Stream) -> Result<()> {
        self.fill_bytes(ptr, bytes, POISON, stream)
    }

    /// Writes `value` over `bytes` bytes at `ptr`, on `stream`.
    pub(crate) fn fill_bytes(
        &self,
        ptr: u64,
        bytes: usize,
        value: u8,
        stream: &Stream,
    ) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: callers pass a device address of this context with at least `bytes` bytes
        // allocated (the scratch buffer after growing, the result slot, or an output array of
        // at least one value); any byte pattern is valid for the plain-data types stored there.
        unsafe { gpu_core::driver_call!(cuMemsetD8Async(ptr, value, bytes, stream.as_raw())) }
    }
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("gpu", &self.gpu)
            .field("scratch_bytes", &self.scratch.len())
            .field("poison", &self.poison)
            .finish()
    }
}

/// Workspaces kept for the host-returning calls, at most this many.
const POOL_CAP: usize = 8;
/// Partials buffers above this size are not kept in the pool.
const POOLED_SCRATCH_MAX: usize = 64 << 20;

fn pool() -> &'static Mutex<Vec<Workspace>> {
    static POOL: OnceLock<Mutex<Vec<Workspace>>> = OnceLock::new();
    POOL.get_or_init(|| {
        // Emptied at exit: its workspaces hold device memory and their `Gpu`.
        gpu_core::on_exit(|| pool().lock().unwrap_or_else(|e| e.into_inner()).clear());
        Mutex::default()
    })
}

/// Runs `f` with a workspace of `gpu` taken from the pool (or a new one), returning it to the
/// pool afterwards. `f` must leave no work in flight on the workspace (it synchronises).
pub(crate) fn with_pooled<R>(gpu: &Gpu, f: impl FnOnce(&mut Workspace) -> Result<R>) -> Result<R> {
    let taken = {
        let mut p = pool().lock().unwrap_or_else(|e| e.into_inner());
        p.iter()
            .position(|w| w.gpu.same_device(gpu))
            .map(|i| p.swap_remove(i))
    };
    let mut ws = match taken {
        Some(ws) => ws,
        None => Workspace::new(gpu)?,
    };
    let r = f(&mut ws);
    // A failed use may have left the counter mid-count: such a workspace is dropped.
    if r.is_ok() && ws.shrink(POOLED_SCRATCH_MAX).is_ok() {
        let mut p = pool().lock().unwrap_or_else(|e| e.into_inner());
        if p.len() < POOL_CAP {
            p.push(ws);
        }
    }
    r
}
