//! The `__constant__` mask buffer: writing it (the driver-API form of `cudaMemcpyToSymbol`) and
//! serialising the launches that read it.
//!
//! Each kernel is its own module (gpu-core loads kernels one by one), so each constant-memory
//! kernel has one `conv1d_mask` per context, and two launches of that kernel with different
//! masks must not overlap: the second one's mask copy would change what the first one reads.
//! Every such launch therefore goes through [`with_constant_mask`], which, under a process-wide
//! lock held only while enqueueing:
//!
//! 1. makes the launch's stream wait (on the device, `cuStreamWaitEvent`) for the event recorded
//!    after the previous launch of the same kernel in the same context, on whatever stream it
//!    ran;
//! 2. enqueues a device-to-device copy of the mask into `conv1d_mask` on that stream;
//! 3. enqueues the kernel;
//! 4. records the event on the stream.
//!
//! The host never blocks; constant-memory launches simply run one after another on the device.
//! The mask copy reads the `Conv1d`'s device copy of the mask, uploaded (and waited for) when the
//! `Conv1d` was built, so no pageable host memory is involved.

use std::sync::{Mutex, Once};

use gpu_core::driver::sys as cu;
use gpu_core::{DeviceArray, Error, Gpu, Kernel, Pod, Result, Stream};

use crate::plan::CONSTANT_MASK_BYTES;

/// Name of the `__constant__` buffer in `kernels/conv1d.cu`.
const SYMBOL: &str = "conv1d_mask";

/// One kernel's buffer in one context, and the event after its last user.
struct Slot {
    /// Keeps the context (and so the module, the symbol and the event) alive.
    gpu: Gpu,
    kernel: String,
    symbol: u64,
    size: usize,
    event: cu::CUevent,
    used: bool,
}

// SAFETY: the event is a driver handle usable from any thread; it is only touched while the
// `SLOTS` mutex is held.
unsafe impl Send for Slot {}

static SLOTS: Mutex<Vec<Slot>> = Mutex::new(Vec::new());

impl Drop for Slot {
    fn drop(&mut self) {
        let _ = self.gpu.bind();
        // SAFETY: created in `Slot::new`, destroyed once; a pending record is fine (the driver
        // releases the event once it completes).
        unsafe {
            cu::cuEventDestroy_v2(self.event);
        }
    }
}

impl Slot {
    fn new(gpu: &Gpu, kernel: &Kernel) -> Result<Slot> {
        let (symbol, size) = kernel.global(SYMBOL)?;
        if size != CONSTANT_MASK_BYTES {
            return Err(Error::invalid(
                "mask",
                format!("`{SYMBOL}` holds {size} bytes, expected {CONSTANT_MASK_BYTES}"),
            ));
        }
        let available = gpu.properties().constant_memory;
        if available < size {
            return Err(Error::invalid(
                "strategy",
                format!(
                    "the device has {available} bytes of constant memory, the constant-memory \
                     strategies need {size}"
                ),
            ));
        }
        gpu.bind()?;
        let mut event = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; the context is current (bound above).
        unsafe {
            gpu_core::driver_call!(cuEventCreate(
                &mut event,
                cu::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32,
            ))
        }?;
        Ok(Slot {
            gpu: gpu.clone(),
            kernel: kernel.name().to_string(),
            symbol,
            size,
            event,
            used: false,
        })
    }
}

/// Copies `mask` into `kernel`'s `__constant__` buffer on `stream` and runs `launch` (which must
/// enqueue `kernel` on the same `stream`), serialised against every other launch of that kernel
/// in the same context. Returns without waiting for the device.
pub(crate) fn with_constant_mask<T: Pod>(
    gpu: &Gpu,
    kernel: &Kernel,
    mask: &DeviceArray<T>,
    stream: &Stream,
    launch: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let mut slots = SLOTS.lock().unwrap_or_else(|p| p.into_inner());
    let index = match slots
        .iter()
        .position(|s| s.gpu.same_device(gpu) && s.kernel == kernel.name())
    {
        Some(i) => i,
        None => {
            // Emptied at exit: each slot holds its `Gpu` (and so the context).
            static AT_EXIT: Once = Once::new();
            AT_EXIT.call_once(|| {
                gpu_core::on_exit(|| SLOTS.lock().unwrap_or_else(|p| p.into_inner()).clear())
            });
            slots.push(Slot::new(gpu, kernel)?);
            slots.len() - 1
        }
    };
    let slot = &mut slots[index];
    let bytes = mask.size_bytes();
    if bytes > slot.size {
        return Err(Error::invalid(
            "mask",
            format!(
                "{bytes} bytes exceed the {} bytes of the __constant__ mask buffer",
                slot.size
            ),
        ));
    }
    gpu.bind()?;
    if slot.used {
        // SAFETY: valid stream of this context and valid event (created by `Slot::new`, never
        // destroyed while the slot lives).
        unsafe { gpu_core::driver_call!(cuStreamWaitEvent(stream.as_raw(), slot.event, 0)) }?;
    }
    // SAFETY: `symbol` is the device address of the module's `conv1d_mask`, `size` bytes long,
    // and `bytes <= size`; `mask` holds `bytes` bytes of device memory of the same context, fully
    // written before the `Conv1d` holding it was returned, and it outlives the copy (freeing
    // device memory waits for work using it). Ordered on `stream` after the previous user of the
    // buffer (the wait above) and before the kernel that reads it.
    if bytes > 0 {
        unsafe {
            gpu_core::driver_call!(cuMemcpyDtoDAsync_v2(
                slot.symbol,
                mask.device_ptr(),
                bytes,
                stream.as_raw()
            ))
        }?;
    }
    let launched = launch();
    // Recorded even when the launch failed: the copy is in the stream either way.
    // SAFETY: valid event and stream of this context.
    unsafe { gpu_core::driver_call!(cuEventRecord(slot.event, stream.as_raw())) }?;
    slot.used = true;
    launched
}
