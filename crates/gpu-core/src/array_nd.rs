//! Device-resident N-D arrays: a buffer with a shape and element strides, so that a result
//! along one axis feeds an operation along another without a trip through the host.

use ndarray::{ArrayBase, ArrayD, ArrayView, Data, Dimension, IxDyn, ShapeBuilder};

use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::input::Staged;
use crate::lanes::check_no_alias;
use crate::memory::DeviceArray;
use crate::Pod;

/// An N-D array on the device: a [`DeviceArray`] buffer, the position of the element at index
/// `[0, 0, …]` in it, a shape, and strides in elements (any signs, never aliasing).
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{DeviceArrayD, Gpu};
/// let gpu = Gpu::default_device()?;
/// let host = ndarray::array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// let x = DeviceArrayD::from_array(&gpu, &host.t())?;   // kept column-major: no transpose
/// assert_eq!(x.shape(), &[3, 2]);
/// assert_eq!(x.strides(), &[1, 3]);
/// assert_eq!(x.to_array()?, host.t().into_dyn());
/// # Ok(()) }
/// ```
pub struct DeviceArrayD<T: Pod> {
    data: DeviceArray<T>,
    offset: usize,
    shape: Vec<usize>,
    strides: Vec<isize>,
}

impl<T: Pod> std::fmt::Debug for DeviceArrayD<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceArrayD")
            .field("shape", &self.shape)
            .field("strides", &self.strides)
            .field("offset", &self.offset)
            .finish()
    }
}

/// Row-major (C order) strides of `shape`.
pub(crate) fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut s = 1isize;
    for d in (0..shape.len()).rev() {
        strides[d] = s;
        s = s.saturating_mul(shape[d].max(1) as isize);
    }
    strides
}

/// (lowest, highest) element position an array of `shape` and `strides` reaches from
/// `offset`, or `None` when it has no elements.
fn extent(offset: usize, shape: &[usize], strides: &[isize]) -> Option<(i128, i128)> {
    if shape.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&n, &s) in shape.iter().zip(strides) {
        let reach = (n as i128 - 1) * s as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    Some((lo, hi))
}

impl<T: Pod> DeviceArrayD<T> {
    /// `data` as a row-major array of `shape` (its length must be the shape's product).
    pub fn from_device(data: DeviceArray<T>, shape: &[usize]) -> Result<Self> {
        let strides = c_strides(shape);
        Self::from_parts(data, 0, shape, &strides)
    }

    /// `data` seen through `shape` and element `strides` from element `offset`: every index
    /// must land inside the buffer, and no two indices on the same element.
    pub fn from_parts(
        data: DeviceArray<T>,
        offset: usize,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<Self> {
        if strides.len() != shape.len() {
            return Err(Error::invalid(
                "strides",
                format!("{} strides for {} dimensions", strides.len(), shape.len()),
            ));
        }
        check_no_alias(shape, strides, "strides")?;
        if let Some((lo, hi)) = extent(offset, shape, strides) {
            if lo < 0 || hi >= data.len() as i128 {
                return Err(Error::invalid(
                    "shape",
                    format!(
                        "shape {shape:?} with strides {strides:?} from offset {offset} reaches \
                         elements {lo}..={hi}, outside the buffer of {}",
                        data.len()
                    ),
                ));
            }
        }
        Ok(DeviceArrayD {
            data,
            offset,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
        })
    }

    /// A zeroed row-major array of `shape` on `gpu`.
    pub fn zeros(gpu: &Gpu, shape: &[usize]) -> Result<Self> {
        Self::from_device(gpu.zeros::<T>(shape.iter().product())?, shape)
    }

    /// A zeroed array of `shape` whose strides follow the same axis order
    /// as `like_strides` (the densest layout of that order): a scan's output keeps its input's
    /// memory order.
    pub fn zeros_like_order(gpu: &Gpu, shape: &[usize], like_strides: &[isize]) -> Result<Self> {
        let mut order: Vec<usize> = (0..shape.len()).collect();
        order.sort_by_key(|&d| std::cmp::Reverse(like_strides[d].unsigned_abs()));
        let mut strides = vec![0isize; shape.len()];
        let mut s = 1isize;
        for &d in order.iter().rev() {
            strides[d] = s;
            s = s.saturating_mul(shape[d].max(1) as isize);
        }
        Self::from_parts(gpu.zeros::<T>(shape.iter().product())?, 0, shape, &strides)
    }

    /// Uploads `array`, keeping its memory order when it is contiguous in any order (a
    /// transposed or reversed view is not rearranged); other views are gathered in row-major
    /// order first.
    pub fn from_array<S: Data<Elem = T>, D: Dimension>(
        gpu: &Gpu,
        array: &ArrayBase<S, D>,
    ) -> Result<Self> {
        let shape = array.shape().to_vec();
        if let Some(slice) = array.as_slice_memory_order() {
            let strides = array.strides().to_vec();
            let offset: usize = shape
                .iter()
                .zip(&strides)
                .filter(|(_, &s)| s < 0)
                .map(|(&n, &s)| (n.saturating_sub(1)) * s.unsigned_abs())
                .sum();
            return Self::from_parts(gpu.upload(slice)?, offset, &shape, &strides);
        }
        Self::from_device(gpu.upload_array(array)?, &shape)
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Strides in elements.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        self.data.gpu()
    }

    /// The buffer.
    pub fn data(&self) -> &DeviceArray<T> {
        &self.data
    }

    /// The buffer, giving up the shape.
    pub fn into_data(self) -> DeviceArray<T> {
        self.data
    }

    /// Position of the element at index `[0, 0, …]` in the buffer.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether the array is row-major and starts at the buffer's first element.
    pub fn is_standard_layout(&self) -> bool {
        self.offset == 0
            && self.len() == self.data.len()
            && self
                .shape
                .iter()
                .zip(self.strides.iter().zip(c_strides(&self.shape)))
                .all(|(&n, (&s, c))| n <= 1 || s == c)
    }

    /// The same elements with the axes reordered: axis `i` of the result is axis `perm[i]`
    /// (a transpose is `[1, 0]`). Nothing moves on the device.
    pub fn permuted_axes(self, perm: &[usize]) -> Result<Self> {
        let mut seen = vec![false; self.ndim()];
        if perm.len() != self.ndim()
            || perm
                .iter()
                .any(|&a| a >= seen.len() || std::mem::replace(&mut seen[a], true))
        {
            return Err(Error::invalid(
                "perm",
                format!("{perm:?} is not a permutation of the {} axes", self.ndim()),
            ));
        }
        let shape: Vec<usize> = perm.iter().map(|&a| self.shape[a]).collect();
        let strides: Vec<isize> = perm.iter().map(|&a| self.strides[a]).collect();
        Ok(DeviceArrayD {
            shape,
            strides,
            ..self
        })
    }

    /// The elements, downloaded into a host array of the same shape (waits for the device).
    pub fn to_array(&self) -> Result<ArrayD<T>> {
        let host = self.data.to_vec()?;
        let Some((lo, _)) = extent(self.offset, &self.shape, &self.strides) else {
            return ArrayD::from_shape_vec(IxDyn(&self.shape), Vec::new())
                .map_err(|e| Error::invalid("shape", e.to_string()));
        };
        // ndarray views take non-negative strides: start at the lowest element, then reverse
        // the axes whose strides are negative.
        let ustrides: Vec<usize> = self.strides.iter().map(|s| s.unsigned_abs()).collect();
        let mut view = ArrayView::from_shape(
            IxDyn(&self.shape).strides(IxDyn(&ustrides)),
            &host[lo as usize..],
        )
        .map_err(|e| Error::invalid("shape", e.to_string()))?;
        for (d, &s) in self.strides.iter().enumerate() {
            if s < 0 {
                view.invert_axis(ndarray::Axis(d));
            }
        }
        Ok(view.to_owned())
    }

    /// The device address of the element at index `[0, 0, …]`.
    pub fn device_ptr(&self) -> u64 {
        self.data.device_ptr() + (self.offset * std::mem::size_of::<T>()) as u64
    }
}

/// An N-D input made ready on the device: shape and strides (elements) around a staged buffer,
/// whose base address is the element at index `[0, 0, …]`.
pub struct StagedNd<'a, T: Pod> {
    staged: Staged<'a, T>,
    offset: usize,
    shape: Vec<usize>,
    strides: Vec<isize>,
}

impl<T: Pod> StagedNd<'_, T> {
    /// The device address of the element at index `[0, 0, …]`.
    pub fn device_ptr(&self) -> u64 {
        self.staged.device_ptr() + (self.offset * std::mem::size_of::<T>()) as u64
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Strides in elements.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the input was uploaded for this staging (host data), rather than borrowed: an
    /// upload lives only as long as the staging, so work reading it must be waited for first.
    pub fn is_uploaded(&self) -> bool {
        self.staged.is_uploaded()
    }
}

/// What the shaped entry points accept: ndarray arrays and views of any dimension and layout
/// (uploaded in their memory order when contiguous), [`DeviceArrayD`] as it is, and a
/// [`DeviceArray`] as a 1-D array.
pub trait ShapedInput<T: Pod> {
    /// The input on `gpu` with its shape: borrowed if it already lives there, uploaded
    /// otherwise. Device data on another device is an error.
    fn stage_nd(&self, gpu: &Gpu) -> Result<StagedNd<'_, T>>;
}

impl<T: Pod, S: Data<Elem = T>, D: Dimension> ShapedInput<T> for ArrayBase<S, D> {
    fn stage_nd(&self, gpu: &Gpu) -> Result<StagedNd<'_, T>> {
        let a = DeviceArrayD::from_array(gpu, self)?;
        Ok(StagedNd {
            offset: a.offset,
            shape: a.shape,
            strides: a.strides,
            staged: Staged::uploaded(a.data),
        })
    }
}

impl<T: Pod> ShapedInput<T> for DeviceArrayD<T> {
    fn stage_nd(&self, gpu: &Gpu) -> Result<StagedNd<'_, T>> {
        gpu.check_same_device(self.gpu(), "x")?;
        Ok(StagedNd {
            staged: Staged::borrowed(&self.data, gpu),
            offset: self.offset,
            shape: self.shape.clone(),
            strides: self.strides.clone(),
        })
    }
}

impl<T: Pod> ShapedInput<T> for DeviceArray<T> {
    fn stage_nd(&self, gpu: &Gpu) -> Result<StagedNd<'_, T>> {
        gpu.check_same_device(self.gpu(), "x")?;
        Ok(StagedNd {
            staged: Staged::borrowed(self, gpu),
            offset: 0,
            shape: vec![self.len()],
            strides: vec![1],
        })
    }
}
