//! Inputs: what every primitive accepts ([`Input`]), device slices, and inputs staged on the
//! device for the length of one operation.

use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

use std::ffi::c_void;

use crate::driver_code;
use ndarray::{ArrayBase, Data, Dimension};

use crate::device::Gpu;
use crate::driver::check;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::memory::DeviceArray;

/// A contiguous range of a [`DeviceArray`], read in place by every primitive (an [`Input`]).
///
/// Indices a primitive returns for it (argmin/argmax) are relative to the start of the slice.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{DeviceSlice, Input};
/// let gpu = gpu_core::Gpu::default_device()?;
/// let x = gpu.upload(&[5i32, 1, 4, 2, 3])?;
/// let tail = DeviceSlice::new(&x, 2..)?;
/// assert_eq!(tail.len(), 3);
/// assert_eq!(tail.stage(&gpu)?.to_vec()?, vec![4, 2, 3]); // no copy until to_vec
/// assert!(DeviceSlice::new(&x, 4..9).is_err());
/// # Ok(()) }
/// ```
pub struct DeviceSlice<'a, T: Pod> {
    array: &'a DeviceArray<T>,
    offset: usize,
    len: usize,
}

impl<T: Pod> Clone for DeviceSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Pod> Copy for DeviceSlice<'_, T> {}

impl<'a, T: Pod> DeviceSlice<'a, T> {
    /// The elements of `array` in `range`; an error when the range is out of bounds.
    pub fn new(array: &'a DeviceArray<T>, range: impl RangeBounds<usize>) -> Result<Self> {
        let len = array.len();
        let start = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s.saturating_add(1),
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(&e) => e.saturating_add(1),
            Bound::Excluded(&e) => e,
            Bound::Unbounded => len,
        };
        if start > end || end > len {
            return Err(Error::invalid(
                "range",
                format!("{start}..{end} is out of bounds for a device array of {len}"),
            ));
        }
        Ok(DeviceSlice {
            array,
            offset: start,
            len: end - start,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the slice is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the first element.
    pub fn device_ptr(&self) -> u64 {
        self.array.device_ptr() + (self.offset * std::mem::size_of::<T>()) as u64
    }

    /// The device the elements live on.
    pub fn gpu(&self) -> &Gpu {
        self.array.gpu()
    }
}

impl<'a, T: Pod> From<&'a DeviceArray<T>> for DeviceSlice<'a, T> {
    fn from(array: &'a DeviceArray<T>) -> Self {
        DeviceSlice {
            array,
            offset: 0,
            len: array.len(),
        }
    }
}

impl<T: Pod> std::fmt::Debug for DeviceSlice<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceSlice")
            .field("offset", &self.offset)
            .field("len", &self.len)
            .finish()
    }
}

/// An input made ready on the device: borrowed (device arrays and slices) or uploaded (host
/// data), alive until the operation reading it has finished.
pub struct Staged<'a, T: Pod> {
    ptr: u64,
    len: usize,
    gpu: Gpu,
    _owned: Option<DeviceArray<T>>,
    _borrowed: PhantomData<&'a DeviceArray<T>>,
}

impl<T: Pod> Staged<'_, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the first element.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// Whether the input was uploaded for this staging (host data) rather than borrowed.
    pub fn is_uploaded(&self) -> bool {
        self._owned.is_some()
    }

    /// The elements, copied to the host (waits for the device).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.gpu.bind()?;
        let mut v = crate::host_output_vec::<T>(self.len);
        let bytes = self.len * std::mem::size_of::<T>();
        if bytes > 0 {
            let stream = self.gpu.stream();
            // SAFETY: `ptr` addresses `len` elements of device memory kept alive by this
            // staging (borrowed or owned); the vector's capacity holds them. The copy is
            // ordered after the work on the device's default stream (like every download) and
            // waited for before `set_len` exposes the elements; `T: Pod` accepts any bytes.
            unsafe {
                check(
                    "cuMemcpyDtoHAsync",
                    driver_code!(cuMemcpyDtoHAsync_v2(
                        v.as_mut_ptr() as *mut c_void,
                        self.ptr,
                        bytes,
                        stream.as_raw(),
                    )),
                )?;
                stream.synchronize()?;
                v.set_len(self.len);
            }
        }
        Ok(v)
    }

    /// A device array of its own with these elements: the upload itself for host data, a
    /// device-to-device copy of borrowed device data (waits for the copy).
    pub fn into_device_array(self) -> Result<DeviceArray<T>> {
        if let Some(array) = self._owned {
            return Ok(array);
        }
        let copy = self.gpu.alloc::<T>(self.len)?;
        let bytes = self.len * std::mem::size_of::<T>();
        if bytes > 0 {
            self.gpu.bind()?;
            let stream = self.gpu.stream();
            // SAFETY: both ranges hold `bytes` bytes of device memory of this context (`ptr`
            // kept alive by the borrow, `copy` just allocated); they do not overlap. Ordered on
            // the default stream and waited for.
            check("cuMemcpyDtoDAsync", unsafe {
                driver_code!(cuMemcpyDtoDAsync_v2(
                    copy.device_ptr(),
                    self.ptr,
                    bytes,
                    stream.as_raw()
                ))
            })?;
            stream.synchronize()?;
        }
        Ok(copy)
    }

    /// The device array holding an uploaded host input (to work on it in place), or `None`
    /// when the input was borrowed from device memory.
    pub fn into_upload(self) -> Option<DeviceArray<T>> {
        self._owned
    }

    /// Borrows `array` (which lives on `gpu`; the caller checked).
    pub(crate) fn borrowed<'b>(array: &'b DeviceArray<T>, gpu: &Gpu) -> Staged<'b, T> {
        Staged {
            ptr: array.device_ptr(),
            len: array.len(),
            gpu: gpu.clone(),
            _owned: None,
            _borrowed: PhantomData,
        }
    }

    pub(crate) fn uploaded(array: DeviceArray<T>) -> Self {
        Staged {
            ptr: array.device_ptr(),
            len: array.len(),
            gpu: array.gpu().clone(),
            _owned: Some(array),
            _borrowed: PhantomData,
        }
    }
}

/// What every primitive accepts as input: device arrays and slices of them as they are; host
/// slices, `Vec`s, fixed-size arrays and ndarray arrays or views (any dimension and layout, in
/// logical row-major order) after an upload.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{DeviceSlice, Gpu, Input};
/// let gpu = Gpu::default_device()?;
/// let on_device = gpu.upload(&[1u32, 2, 3, 4])?;
/// let host = vec![1u32, 2, 3];
/// let from_host = host.stage(&gpu)?;                          // uploaded
/// let part = DeviceSlice::new(&on_device, 1..)?;
/// let borrowed = part.stage(&gpu)?;                           // no copy
/// assert_eq!((from_host.len(), borrowed.len()), (3, 3));
/// # Ok(()) }
/// ```
pub trait Input<T: Pod> {
    /// The input on `gpu`: borrowed if it already lives there, uploaded otherwise. Device data
    /// on another device is an error.
    fn stage(&self, gpu: &Gpu) -> Result<Staged<'_, T>>;

    /// The elements as one host slice, in logical order, when they are host data laid out so
    /// (CPU algorithms read them without a copy); `None` for device data and strided views.
    fn host_slice(&self) -> Option<&[T]> {
        None
    }
}

impl Gpu {
    /// `Ok` when `other` is this device; otherwise an [`Error::InvalidArgument`] naming `what`
    /// (data on one device handed to an operation on another).
    pub fn check_same_device(&self, other: &Gpu, what: &'static str) -> Result<()> {
        if self.same_device(other) {
            Ok(())
        } else {
            Err(Error::invalid(
                what,
                format!(
                    "lives on device {} but the operation runs on device {}",
                    other.properties().ordinal,
                    self.properties().ordinal
                ),
            ))
        }
    }
}

impl<T: Pod> Input<T> for DeviceArray<T> {
    fn stage(&self, gpu: &Gpu) -> Result<Staged<'_, T>> {
        gpu.check_same_device(self.gpu(), "x")?;
        Ok(Staged {
            ptr: self.device_ptr(),
            len: self.len(),
            gpu: gpu.clone(),
            _owned: None,
            _borrowed: PhantomData,
        })
    }
}

impl<T: Pod> Input<T> for DeviceSlice<'_, T> {
    fn stage(&self, gpu: &Gpu) -> Result<Staged<'_, T>> {
        gpu.check_same_device(self.gpu(), "x")?;
        Ok(Staged {
            ptr: self.device_ptr(),
            len: self.len,
            gpu: gpu.clone(),
            _owned: None,
            _borrowed: PhantomData,
        })
    }
}

impl<T: Pod> Input<T> for [T] {
    fn stage(&self, gpu: &Gpu) -> Result<Staged<'_, T>> {
        Ok(Staged::uploaded(gpu.upload(self)?))
    }

    fn host_slice(&self) -> Option<&[T]> {
        Some(self)
    }
}

impl<T: Pod> Input<T> for Vec<T> {
    fn stage(&self, gpu: &Gpu) -> Result<Staged<'_, T>> {
        self.as_slice().stage(gpu)
    }

    fn host_slice(&self) -> Option<&[T]> {
        Some(self)
    }
}

impl<T: Pod, const N: usize> Input<T> for [T; N] {
    fn stage(&self, gpu: &Gpu) -> Result<Staged<'_, T>> {
        self.as_slice().stage(gpu)
    }

    fn host_slice(&self) -> Option<&[T]> {
        Some(self)
    }
}

impl<T: Pod, S: Data<Elem = T>, D: Dimension> Input<T> for ArrayBase<S, D> {
    fn stage(&self, gpu: &Gpu) -> Result<Staged<'_, T>> {
        Ok(Staged::uploaded(gpu.upload_array(self)?))
    }

    fn host_slice(&self) -> Option<&[T]> {
        self.as_slice()
    }
}
