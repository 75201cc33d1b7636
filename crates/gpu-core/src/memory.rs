//! Typed device arrays and page-locked host buffers.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Mutex;

use crate::driver::sys as cu;
use ndarray::{Array1, ArrayBase, ArrayView1, Data, Dimension};

use crate::device::Gpu;
use crate::driver::check;
use crate::driver_code;
use crate::driver_code::DriverCode;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::staging::{self, Staging};
use crate::stream::{Event, Stream};

/// `len` elements of `T` in device memory, freed on drop.
///
/// An empty array allocates nothing. Lengths beyond 2^31 elements are fine: kernels of this
/// workspace index with 64 bits.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use ndarray::{array, s};
/// let gpu = gpu_core::Gpu::default_device()?;
/// let a = array![1.0f64, 2.0, 3.0, 4.0];
/// let every_other = gpu.upload_view(a.slice(s![..;2]))?; // strided views are gathered
/// assert_eq!(every_other.to_vec()?, vec![1.0, 3.0]);
/// # Ok(()) }
/// ```
pub struct DeviceArray<T: Pod> {
    ptr: cu::CUdeviceptr,
    len: usize,
    gpu: Gpu,
    _marker: PhantomData<T>,
}

// SAFETY: the array owns device memory, reachable only through `&self`/`&mut self`; copies go
// through the driver, which is thread-safe. `T: Pod` is `Send + Sync`.
unsafe impl<T: Pod> Send for DeviceArray<T> {}
// SAFETY: `&DeviceArray` only reads (device-to-host copies, or kernels given a read pointer).
unsafe impl<T: Pod> Sync for DeviceArray<T> {}

fn bytes_of<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::invalid("len", format!("{len} elements overflow the address space")))
}

impl Gpu {
    /// An array of `len` elements with unspecified contents (whatever bytes the memory held).
    pub fn alloc<T: Pod>(&self, len: usize) -> Result<DeviceArray<T>> {
        let bytes = bytes_of::<T>(len)?;
        let mut ptr = 0;
        if bytes > 0 {
            self.bind()?;
            if bytes > self.properties().total_memory {
                let (free, _) = self.memory_info()?;
                return Err(Error::OutOfMemory {
                    requested: bytes,
                    free,
                });
            }
            // SAFETY: out-pointer to a local; non-zero size; context current.
            let r = unsafe { driver_code!(cuMemAlloc_v2(&mut ptr, bytes)) };
            if r == DriverCode::OUT_OF_MEMORY {
                let (free, _) = self.memory_info()?;
                return Err(Error::OutOfMemory {
                    requested: bytes,
                    free,
                });
            }
            check("cuMemAlloc", r)?;
            #[cfg(feature = "fault-injection")]
            crate::fault_injection::track_device(bytes as i64);
        }
        Ok(DeviceArray {
            ptr,
            len,
            gpu: self.clone(),
            _marker: PhantomData,
        })
    }

    /// An array of `len` elements, every byte zero.
    pub fn zeros<T: Pod>(&self, len: usize) -> Result<DeviceArray<T>> {
        let a = self.alloc::<T>(len)?;
        a.memset_bytes(0, self.stream())?;
        self.stream().synchronize()?;
        Ok(a)
    }

    /// Copies a host slice to a new device array (waits for the copy). Arrays of 16 MiB or more
    /// are staged through the host pipeline's three pinned slots, filled by a crew of rayon
    /// threads (about 50 GB/s from pageable memory on an H100 host, against 8 GB/s
    /// single-threaded), or through two more slots while a pipeline holds those; when another
    /// transfer holds them too, the driver's own pageable path is taken instead of waiting.
    /// Page-locked memory (a [`PinnedBuffer`]'s slice) is copied by the DMA engine directly
    /// (55 GB/s on an H100 host).
    pub fn upload<T: Pod>(&self, data: &[T]) -> Result<DeviceArray<T>> {
        let mut a = self.alloc::<T>(data.len())?;
        a.copy_from(data)?;
        Ok(a)
    }

    /// Copies a 1-D ndarray view to a new device array. Contiguous views are copied directly;
    /// strided or reversed views are gathered in logical order first.
    pub fn upload_view<T: Pod>(&self, view: ArrayView1<'_, T>) -> Result<DeviceArray<T>> {
        self.upload_array(&view)
    }

    /// Copies an n-dimensional ndarray to a new device array in logical row-major order
    /// (rows of a 2-D array end up one after the other), whatever its memory layout.
    pub fn upload_array<T: Pod, S: Data<Elem = T>, D: Dimension>(
        &self,
        array: &ArrayBase<S, D>,
    ) -> Result<DeviceArray<T>> {
        match array.as_slice() {
            Some(slice) => self.upload(slice),
            None => self.upload(&array.iter().copied().collect::<Vec<T>>()),
        }
    }

    /// Copies page-locked host memory to a new device array asynchronously on `stream`.
    pub fn upload_async<T: Pod>(
        &self,
        data: &PinnedBuffer<T>,
        stream: &Stream,
    ) -> Result<DeviceArray<T>> {
        let mut a = self.alloc::<T>(data.len())?;
        a.copy_from_pinned_async(data, stream)?;
        Ok(a)
    }
}

impl Gpu {
    /// Runs `f` with this context's staging buffers (allocated on first use), or returns `None`
    /// at once when another transfer holds them; the caller then takes the driver's own path.
    /// Never waiting here keeps concurrent transfers from queueing behind one another, and keeps
    /// a transfer started from a rayon task from deadlocking against a staged copy that holds
    /// the buffers while it runs on the same pool.
    fn try_with_staging<R>(&self, f: impl FnOnce(&mut Staging) -> Result<R>) -> Result<Option<R>> {
        let mut guard = match self.inner.staging.try_lock() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Ok(None),
        };
        if guard.is_none() {
            *guard = Some(Staging::new()?);
        }
        f(guard.as_mut().expect("initialised above")).map(Some)
    }
}

impl<T: Pod> DeviceArray<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// The device this array lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The device address of the first element (0 for an empty array), for kernel arguments.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The device address of element `offset` (`offset ≤ len`).
    pub fn device_ptr_at(&self, offset: usize) -> Result<u64> {
        if offset > self.len {
            return Err(Error::invalid(
                "offset",
                format!("{offset} is past the end of an array of {}", self.len),
            ));
        }
        Ok(self.ptr + (offset * std::mem::size_of::<T>()) as u64)
    }

    fn check_len(&self, name: &'static str, other: usize) -> Result<()> {
        if other != self.len {
            return Err(Error::invalid(
                name,
                format!(
                    "length {other} differs from the device array's {}",
                    self.len
                ),
            ));
        }
        Ok(())
    }

    /// Overwrites the array with a host slice of the same length (waits for the copy).
    pub fn copy_from(&mut self, src: &[T]) -> Result<()> {
        self.check_len("src", src.len())?;
        if self.len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        let stream = self.gpu.stream();
        // Page-locked memory (a `PinnedBuffer`'s slice) goes straight to the DMA engine: staging
        // it would only add a host copy.
        if self.size_bytes() >= staging::THRESHOLD
            && !staging::is_pinned(src.as_ptr() as *const u8, self.size_bytes())
        {
            // The pipeline's ring when free (the faster path), ordered after the default
            // stream's earlier work by waiting for it.
            stream.synchronize()?;
            // SAFETY: `self` holds `len` elements and is borrowed mutably for the call.
            if unsafe { self.gpu.pipeline_upload(self.ptr, src)? } {
                return Ok(());
            }
            // SAFETY: `T: Pod` has no padding, so its bytes are initialised `u8`s.
            let bytes =
                unsafe { std::slice::from_raw_parts(src.as_ptr() as *const u8, self.size_bytes()) };
            if let Some(()) = self
                .gpu
                .try_with_staging(|s| s.upload(self.ptr, bytes, stream))?
            {
                return Ok(());
            }
        }
        // SAFETY: `src` holds exactly `size_bytes` readable bytes; the copy completes before
        // return (pageable memory is staged by the driver, and we synchronise the stream).
        check("cuMemcpyHtoDAsync", unsafe {
            driver_code!(cuMemcpyHtoDAsync_v2(
                self.ptr,
                src.as_ptr() as *const c_void,
                self.size_bytes(),
                stream.as_raw(),
            ))
        })?;
        stream.synchronize()
    }

    /// Copies the array into a host slice of the same length (waits for earlier work on the
    /// default stream and for the copy).
    pub fn copy_to(&self, dst: &mut [T]) -> Result<()> {
        self.check_len("dst", dst.len())?;
        // SAFETY: `dst` holds exactly `len` writable elements.
        unsafe { self.copy_to_raw(dst.as_mut_ptr()) }
    }

    /// # Safety
    /// `dst` must be valid for writes of `len` elements.
    unsafe fn copy_to_raw(&self, dst: *mut T) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        let stream = self.gpu.stream();
        if self.size_bytes() >= staging::THRESHOLD
            && !staging::is_pinned(dst as *const u8, self.size_bytes())
        {
            // The pipeline's ring when free (the faster path), after the default stream's
            // earlier work.
            stream.synchronize()?;
            // SAFETY: the caller guarantees `dst` for `len` elements (uninitialised is fine);
            // `self` holds `len` elements and is borrowed for the call.
            let out = unsafe {
                std::slice::from_raw_parts_mut(dst as *mut std::mem::MaybeUninit<T>, self.len)
            };
            if unsafe { self.gpu.pipeline_download(out, self.ptr)? } {
                return Ok(());
            }
            // The staged path reads on the default stream too, after the work enqueued there.
            // SAFETY: the caller guarantees `dst` for `len` elements = `size_bytes` bytes.
            let staged = self.gpu.try_with_staging(|s| unsafe {
                s.download(dst as *mut u8, self.size_bytes(), self.ptr, stream)
            })?;
            if let Some(()) = staged {
                return Ok(());
            }
        }
        // SAFETY: the caller guarantees `dst`; `T: Pod` accepts any bytes; we synchronise
        // before returning, so `dst` outlives the copy.
        check("cuMemcpyDtoHAsync", unsafe {
            driver_code!(cuMemcpyDtoHAsync_v2(
                dst as *mut c_void,
                self.ptr,
                self.size_bytes(),
                stream.as_raw(),
            ))
        })?;
        stream.synchronize()
    }

    /// The contents as a `Vec`.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v = crate::host_output_vec::<T>(self.len);
        // SAFETY: the capacity holds `len` elements; they are initialised by the copy before
        // `set_len` exposes them, and `T: Pod` accepts whatever bytes were copied.
        unsafe {
            self.copy_to_raw(v.as_mut_ptr())?;
            v.set_len(self.len);
        }
        Ok(v)
    }

    /// The contents as an ndarray `Array1`.
    pub fn to_array1(&self) -> Result<Array1<T>> {
        Ok(Array1::from_vec(self.to_vec()?))
    }

    /// Copies another device array of the same length into this one, on `stream`.
    pub fn copy_from_device(&mut self, src: &DeviceArray<T>, stream: &Stream) -> Result<()> {
        self.check_len("src", src.len)?;
        if self.len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: both allocations hold `size_bytes`; distinct arrays (`&mut self` vs `&src`).
        check("cuMemcpyDtoDAsync", unsafe {
            driver_code!(cuMemcpyDtoDAsync_v2(
                self.ptr,
                src.ptr,
                self.size_bytes(),
                stream.as_raw()
            ))
        })
    }

    /// Copies elements `range` of `src` (an array of the same device) into this array from
    /// element `at`, on `stream`; an `InvalidArgument` when either range runs past its array or
    /// the devices differ. A plain device-to-device copy at the copy engines' speed.
    pub fn copy_range_from(
        &mut self,
        at: usize,
        src: &DeviceArray<T>,
        range: std::ops::Range<usize>,
        stream: &Stream,
    ) -> Result<()> {
        self.gpu.check_same_device(&src.gpu, "src")?;
        let len = self.check_copy_range(at, src, &range)?;
        if len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        let size = std::mem::size_of::<T>();
        // SAFETY: both ranges lie inside their allocations (checked above); distinct arrays
        // (`&mut self` vs `&src`), so they do not overlap.
        check("cuMemcpyDtoDAsync", unsafe {
            driver_code!(cuMemcpyDtoDAsync_v2(
                self.ptr + (at * size) as u64,
                src.ptr + (range.start * size) as u64,
                len * size,
                stream.as_raw()
            ))
        })
    }

    /// [`copy_range_from`](Self::copy_range_from) from an array on any device of this
    /// process, on `stream` (this array's device's). From another device it is a peer copy:
    /// over NVLink or PCIe directly where the devices can reach each other (enabled on first
    /// use, [`Gpu::enable_peer_access`]), staged by the driver otherwise. The copy does not
    /// wait for work on `src`'s device: make `stream` wait for it (an
    /// [`Event`]) or synchronise that device first.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::Gpu;
    /// let (a, b) = (Gpu::new(0)?, Gpu::new(1)?);
    /// let x = a.upload(&[1.0f32, 2.0, 3.0])?; // waits for the upload
    /// let mut y = b.zeros::<f32>(4)?;
    /// y.copy_range_from_peer(1, &x, 0..3, b.stream())?;
    /// b.synchronize()?;
    /// assert_eq!(y.to_vec()?, [0.0, 1.0, 2.0, 3.0]);
    /// # Ok(()) }
    /// ```
    pub fn copy_range_from_peer(
        &mut self,
        at: usize,
        src: &DeviceArray<T>,
        range: std::ops::Range<usize>,
        stream: &Stream,
    ) -> Result<()> {
        if self.gpu.same_device(&src.gpu) {
            return self.copy_range_from(at, src, range, stream);
        }
        let len = self.check_copy_range(at, src, &range)?;
        if len == 0 {
            return Ok(());
        }
        self.gpu.enable_peer_access(&src.gpu)?;
        self.gpu.bind()?;
        let size = std::mem::size_of::<T>();
        // SAFETY: both ranges lie inside their allocations (checked above), on two devices
        // whose contexts are retained by the arrays' handles; distinct memory.
        check("cuMemcpyPeerAsync", unsafe {
            driver_code!(cuMemcpyPeerAsync(
                self.ptr + (at * size) as u64,
                self.gpu.raw_context(),
                src.ptr + (range.start * size) as u64,
                src.gpu.raw_context(),
                len * size,
                stream.as_raw()
            ))
        })
    }

    /// The length of a copy of `range` of `src` to element `at` of this array, or an
    /// `InvalidArgument` when either range runs past its array.
    fn check_copy_range(
        &self,
        at: usize,
        src: &DeviceArray<T>,
        range: &std::ops::Range<usize>,
    ) -> Result<usize> {
        let len = range.end.saturating_sub(range.start);
        if range.start > range.end || range.end > src.len {
            return Err(Error::invalid(
                "range",
                format!("{range:?} of a source of {} elements", src.len),
            ));
        }
        if !matches!(at.checked_add(len), Some(end) if end <= self.len) {
            return Err(Error::invalid(
                "at",
                format!("{len} elements from {at} in an array of {}", self.len),
            ));
        }
        Ok(len)
    }

    /// A new device array with the same contents (waits for the copy).
    pub fn try_clone(&self) -> Result<DeviceArray<T>> {
        let mut c = self.gpu.alloc::<T>(self.len)?;
        c.copy_from_device(self, self.gpu.stream())?;
        self.gpu.stream().synchronize()?;
        Ok(c)
    }

    /// Sets every byte to `value`, on `stream`.
    pub fn memset_bytes(&self, value: u8, stream: &Stream) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: the allocation holds `size_bytes`; any byte pattern is a valid `T: Pod`.
        check("cuMemsetD8Async", unsafe {
            driver_code!(cuMemsetD8Async(
                self.ptr,
                value,
                self.size_bytes(),
                stream.as_raw()
            ))
        })
    }

    /// Starts copying page-locked host memory of the same length into the array on `stream`.
    /// The buffer's contents stay unreadable from the host until the copy has finished (its
    /// accessors wait for it), so no synchronisation is needed for soundness.
    pub fn copy_from_pinned_async(&mut self, src: &PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        self.check_len("src", src.len())?;
        if self.len == 0 {
            return Ok(());
        }
        src.wait()?;
        self.gpu.bind()?;
        // SAFETY: `src` is page-locked and holds `size_bytes`; it records an event after the copy
        // and every host access to it (and its drop) waits for that event first.
        check("cuMemcpyHtoDAsync", unsafe {
            driver_code!(cuMemcpyHtoDAsync_v2(
                self.ptr,
                src.ptr as *const c_void,
                self.size_bytes(),
                stream.as_raw(),
            ))
        })?;
        src.mark_in_flight(&self.gpu, stream)
    }

    /// Starts copying the array into page-locked host memory of the same length on `stream`;
    /// reading the buffer waits for the copy.
    pub fn copy_to_pinned_async(&self, dst: &mut PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        self.check_len("dst", dst.len())?;
        if self.len == 0 {
            return Ok(());
        }
        dst.wait()?;
        self.gpu.bind()?;
        // SAFETY: as in `copy_from_pinned_async`; `T: Pod` accepts any bytes.
        check("cuMemcpyDtoHAsync", unsafe {
            driver_code!(cuMemcpyDtoHAsync_v2(
                dst.ptr as *mut c_void,
                self.ptr,
                self.size_bytes(),
                stream.as_raw(),
            ))
        })?;
        dst.mark_in_flight(&self.gpu, stream)
    }
}

impl<T: Pod> Drop for DeviceArray<T> {
    fn drop(&mut self) {
        if self.ptr != 0 {
            let _ = self.gpu.bind();
            // SAFETY: allocated by `cuMemAlloc` in `alloc`, freed once. cuMemFree waits for
            // work still using the memory to finish.
            unsafe {
                cu::cuMemFree_v2(self.ptr);
            }
            #[cfg(feature = "fault-injection")]
            crate::fault_injection::track_device(-(self.size_bytes() as i64));
        }
    }
}

impl<T: Pod + std::fmt::Debug> std::fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceArray")
            .field("len", &self.len)
            .field("type", &std::any::type_name::<T>())
            .finish()
    }
}

/// Page-locked (pinned) host memory: the fast path for large host↔device transfers and the
/// only kind that copies truly asynchronously.
///
/// Asynchronous copies record an event; [`PinnedBuffer::as_slice`], [`as_mut_slice`] and drop
/// wait for it, so the host never sees a buffer the device is still copying.
///
/// [`as_mut_slice`]: PinnedBuffer::as_mut_slice
pub struct PinnedBuffer<T: Pod> {
    ptr: *mut T,
    len: usize,
    pending: Mutex<Option<Event>>,
    gpu: Gpu,
}

// SAFETY: owns its allocation; host access is through `&`/`&mut` and waits for device copies.
unsafe impl<T: Pod> Send for PinnedBuffer<T> {}
// SAFETY: as above; the pending event is behind a mutex.
unsafe impl<T: Pod> Sync for PinnedBuffer<T> {}

impl<T: Pod> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("len", &self.len)
            .field("gpu", &self.gpu)
            .finish()
    }
}

impl Gpu {
    /// Page-locked host memory for `len` elements, zeroed.
    pub fn pinned<T: Pod>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        let mut ptr = std::ptr::NonNull::<T>::dangling().as_ptr();
        if bytes > 0 {
            self.bind()?;
            let mut raw: *mut c_void = std::ptr::null_mut();
            // SAFETY: out-pointer to a local; non-zero size.
            check("cuMemAllocHost", unsafe {
                driver_code!(cuMemAllocHost_v2(&mut raw, bytes))
            })?;
            #[cfg(feature = "fault-injection")]
            crate::fault_injection::track_pinned(bytes as i64);
            // SAFETY: fresh allocation of `bytes` bytes; zeroing makes every element a value.
            unsafe { std::ptr::write_bytes(raw as *mut u8, 0, bytes) };
            ptr = raw as *mut T;
        }
        Ok(PinnedBuffer {
            ptr,
            len,
            pending: Mutex::new(None),
            gpu: self.clone(),
        })
    }

    /// Page-locked copy of a host slice.
    pub fn pinned_from<T: Pod>(&self, data: &[T]) -> Result<PinnedBuffer<T>> {
        let mut b = self.pinned::<T>(data.len())?;
        b.as_mut_slice()?.copy_from_slice(data);
        Ok(b)
    }
}

impl<T: Pod> PinnedBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn wait(&self) -> Result<()> {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(event) = pending.as_ref() {
            event.synchronize()?;
            *pending = None;
        }
        Ok(())
    }

    fn mark_in_flight(&self, gpu: &Gpu, stream: &Stream) -> Result<()> {
        let event = gpu.new_event(false)?;
        event.record(stream)?;
        *self.pending.lock().unwrap_or_else(|p| p.into_inner()) = Some(event);
        Ok(())
    }

    /// The contents, after any copy in flight has finished.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait()?;
        // SAFETY: `ptr` is valid for `len` initialised elements (zeroed at allocation, any bytes
        // are a `T: Pod`), and no device copy is in flight after `wait`.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The contents, mutable, after any copy in flight has finished.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        // SAFETY: as in `as_slice`; `&mut self` guarantees exclusive access.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }
}

impl<T: Pod> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // The device may still be copying: wait before freeing.
        let _ = self.wait();
        if self.len > 0 && std::mem::size_of::<T>() > 0 {
            let _ = self.gpu.bind();
            // SAFETY: allocated by cuMemAllocHost, freed once, no copy in flight.
            unsafe {
                cu::cuMemFreeHost(self.ptr as *mut c_void);
            }
            #[cfg(feature = "fault-injection")]
            crate::fault_injection::track_pinned(-((self.len * std::mem::size_of::<T>()) as i64));
        }
    }
}
