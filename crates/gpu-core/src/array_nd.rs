//! Device-resident N-D arrays: a buffer with a shape and element strides, so that a result
//! along one axis feeds an operation along another without a trip through the host.

use std::borrow::Cow;

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
        let Some((lo, hi)) = extent(self.offset, &self.shape, &self.strides) else {
            return ArrayD::from_shape_vec(IxDyn(&self.shape), Vec::new())
                .map_err(|e| Error::invalid("shape", e.to_string()));
        };
        let ustrides: Vec<usize> = self.strides.iter().map(|s| s.unsigned_abs()).collect();
        // Non-negative strides spanning the whole buffer from its first element (the arrays
        // this crate makes, C or Fortran order): the downloaded buffer becomes the array as it
        // is. A second copy into a fresh allocation cost ~0.5 s per GiB on the H100 host
        // (first-touch page faults, one thread).
        if lo == 0 && hi + 1 == host.len() as i128 && self.strides.iter().all(|&s| s >= 0) {
            return ArrayD::from_shape_vec(IxDyn(&self.shape).strides(IxDyn(&ustrides)), host)
                .map_err(|e| Error::invalid("shape", e.to_string()));
        }
        // ndarray views take non-negative strides: start at the lowest element, then reverse
        // the axes whose strides are negative.
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

    /// The input's host memory when it is a host array whose elements fill one block of
    /// memory with positive strides, in any order of its axes (C, Fortran, or a permutation:
    /// the host pipeline streams such arrays in memory order); `None` otherwise.
    fn host_contiguous(&self) -> Option<HostNd<'_, T>> {
        None
    }

    /// The input's host memory for the host pipeline: as [`host_contiguous`](Self::host_contiguous)
    /// where its elements fill one block, else, for a host array whose elements are spread
    /// out (a strided view) and where `worth(bytes)` says the pipeline takes that many bytes,
    /// its elements gathered into a new C-order buffer, as the one-shot path gathers them for
    /// its upload (so the results are the same); a view with a negative stride is gathered
    /// too, as the one-shot path gathers it. `None` otherwise.
    fn host_for_pipeline(&self, worth: &dyn Fn(usize) -> bool) -> Option<HostNd<'_, T>> {
        let _ = worth;
        self.host_contiguous()
    }
}

/// A host array whose elements fill one block of memory (C order, Fortran order, or any other
/// order of its axes, strides positive): its elements in memory order, its shape, the order of
/// its axes in memory and its element strides (computed from the shape and the order: size-1
/// axes get the stride the order gives them).
#[derive(Debug, Clone)]
pub struct HostNd<'a, T: Clone> {
    /// The elements, in memory order (borrowed from the array, or gathered into a new buffer
    /// for a strided view: [`ShapedInput::host_for_pipeline`]).
    pub data: Cow<'a, [T]>,
    /// The shape.
    pub shape: Vec<usize>,
    /// The strides in elements.
    pub strides: Vec<isize>,
    /// The axes from the outermost in memory (largest stride) to the innermost: `0, 1, …` in
    /// C order, reversed in Fortran order.
    pub order: Vec<usize>,
}

impl<T: Clone> HostNd<'_, T> {
    /// The axis whose stride is largest: the array is a sequence of slices along it (the first
    /// axis in C order, the last in Fortran order; `None` for 0-D).
    pub fn outer_axis(&self) -> Option<usize> {
        self.order.first().copied()
    }

    /// The axis whose stride is 1 (the last in C order, the first in Fortran order; `None`
    /// for 0-D).
    pub fn innermost_axis(&self) -> Option<usize> {
        self.order.last().copied()
    }

    /// Whether the layout is Fortran's (of more than one axis): the first axis varies fastest.
    pub fn is_fortran(&self) -> bool {
        self.order.len() > 1 && self.order.iter().rev().copied().eq(0..self.order.len())
    }

    /// The array seen in C order with `axis` followed: shape, strides and the axis, its axes
    /// permuted into memory order (reversed for Fortran order: axis `a` becomes
    /// `ndim − 1 − a`), so that the slices along axis 0 are consecutive in memory and a
    /// row-major result of the view is the result of the array in its own order
    /// ([`array_in_order`](Self::array_in_order)).
    pub fn c_order_view(&self, axis: usize) -> (Vec<usize>, Vec<isize>, usize) {
        let shape = self.order.iter().map(|&a| self.shape[a]).collect();
        let strides = self.order.iter().map(|&a| self.strides[a]).collect();
        let at = self.order.iter().position(|&a| a == axis).unwrap_or(axis);
        (shape, strides, at)
    }

    /// An array of `shape` from `data` in the memory order of this array's layout: the same
    /// shape and order for a scan or a convolution (`removed` `None`), or this array's with axis
    /// `removed` taken out, for a reduction along it. C order gives a standard-layout array,
    /// Fortran order a Fortran-layout one, another order the permutation of its axes.
    pub fn array_in_order<V>(
        &self,
        shape: &[usize],
        removed: Option<usize>,
        data: Vec<V>,
    ) -> Result<ArrayD<V>> {
        let order: Vec<usize> = self
            .order
            .iter()
            .filter(|&&a| Some(a) != removed)
            .map(|&a| match removed {
                Some(r) if a > r => a - 1,
                _ => a,
            })
            .collect();
        if order.len() != shape.len() {
            return Err(Error::invalid(
                "shape",
                format!("{shape:?} for an array of {} axes", order.len()),
            ));
        }
        let memory_shape: Vec<usize> = order.iter().map(|&a| shape[a]).collect();
        let array = ArrayD::from_shape_vec(IxDyn(&memory_shape), data)
            .map_err(|e| Error::invalid("shape", format!("{shape:?}: {e}")))?;
        // Axis k of `array` is axis order[k] of the result.
        let mut axes = vec![0usize; order.len()];
        for (k, &a) in order.iter().enumerate() {
            axes[a] = k;
        }
        Ok(array.permuted_axes(IxDyn(&axes)))
    }
}

/// The order of `strides`' axes in memory, outermost first, where `shape` with those strides
/// fills one block of memory with positive strides; `None` otherwise. Size-1 axes (any stride)
/// stay where `fallback` has them.
fn memory_order(shape: &[usize], strides: &[isize], fallback: &[usize]) -> Option<Vec<usize>> {
    // The axes of more than one element, by decreasing stride.
    let mut sized: Vec<usize> = fallback.iter().copied().filter(|&a| shape[a] > 1).collect();
    sized.sort_by_key(|&a| std::cmp::Reverse(strides[a]));
    let mut want = 1isize;
    for &a in sized.iter().rev() {
        if strides[a] != want {
            return None;
        }
        want = want.checked_mul(shape[a] as isize)?;
    }
    let mut next = sized.into_iter();
    Some(
        fallback
            .iter()
            .map(|&a| match shape[a] > 1 {
                true => next.next().expect("one per sized axis"),
                false => a,
            })
            .collect(),
    )
}

/// Whether an axis of more than one element has a negative stride.
fn runs_backwards(shape: &[usize], strides: &[isize]) -> bool {
    shape.iter().zip(strides).any(|(&n, &s)| n > 1 && s < 0)
}

/// Strides of `shape` with its axes in memory in `order` (outermost first).
fn order_strides(shape: &[usize], order: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut step = 1isize;
    for &a in order.iter().rev() {
        strides[a] = step;
        step = step.saturating_mul(shape[a].max(1) as isize);
    }
    strides
}

impl<T: Pod, S: Data<Elem = T>, D: Dimension> ShapedInput<T> for ArrayBase<S, D> {
    fn stage_nd(&self, gpu: &Gpu) -> Result<StagedNd<'_, T>> {
        // A view running backwards through memory is gathered into C order, as the pipeline
        // gathers it (`host_for_pipeline`), so that both give the same bits.
        let a = match runs_backwards(self.shape(), self.strides()) {
            true => DeviceArrayD::from_device(gpu.upload_array(self)?, self.shape())?,
            false => DeviceArrayD::from_array(gpu, self)?,
        };
        Ok(StagedNd {
            offset: a.offset,
            shape: a.shape,
            strides: a.strides,
            staged: Staged::uploaded(a.data),
        })
    }

    fn host_contiguous(&self) -> Option<HostNd<'_, T>> {
        let shape = self.shape().to_vec();
        let nd = shape.len();
        let c: Vec<usize> = (0..nd).collect();
        let order = if self.is_standard_layout() {
            c
        } else if self.t().is_standard_layout() {
            c.into_iter().rev().collect()
        } else {
            // Another order of the axes: the strides must fill one block, all positive (a
            // negative stride would run that axis backwards through memory).
            let strides: Vec<isize> = self.strides().to_vec();
            memory_order(&shape, &strides, &c)?
        };
        let data = Cow::Borrowed(self.as_slice_memory_order()?);
        let strides = order_strides(&shape, &order);
        Some(HostNd {
            data,
            shape,
            strides,
            order,
        })
    }

    fn host_for_pipeline(&self, worth: &dyn Fn(usize) -> bool) -> Option<HostNd<'_, T>> {
        if let Some(host) = self.host_contiguous() {
            return Some(host);
        }
        let one_block = self.as_slice_memory_order().is_some();
        if one_block && !runs_backwards(self.shape(), self.strides())
            || !worth(std::mem::size_of::<T>() * self.len())
        {
            return None;
        }
        // In logical (C) order, as `Gpu::upload_array` gathers it for the one-shot path (a
        // strided view, or one running backwards: `stage_nd`).
        let data: Vec<T> = self.iter().copied().collect();
        let shape = self.shape().to_vec();
        let order: Vec<usize> = (0..shape.len()).collect();
        Some(HostNd {
            data: Cow::Owned(data),
            strides: order_strides(&shape, &order),
            shape,
            order,
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

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array3, ShapeBuilder};

    #[test]
    fn host_contiguous_finds_every_order_of_one_block() {
        let c = Array3::<u32>::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 12 + j * 4 + k) as u32);
        let h = ShapedInput::host_contiguous(&c).expect("C order");
        assert_eq!(
            (&h.order[..], h.strides.as_slice(), h.outer_axis()),
            (&[0usize, 1, 2][..], &[12isize, 4, 1][..], Some(0))
        );
        assert!(!h.is_fortran());
        assert_eq!(h.data[5], c[[0, 1, 1]]);
        let f =
            Array3::<u32>::from_shape_fn((2, 3, 4).f(), |(i, j, k)| (i * 12 + j * 4 + k) as u32);
        let h = ShapedInput::host_contiguous(&f).expect("Fortran order");
        assert_eq!(
            (&h.order[..], h.strides.as_slice(), h.outer_axis()),
            (&[2usize, 1, 0][..], &[1isize, 2, 6][..], Some(2))
        );
        assert!(h.is_fortran());
        assert_eq!(h.data[5], f[[1, 2, 0]]);
        // A permuted view: axis 1 outermost, then 0, then 2 (stride 1).
        let p = c.view().permuted_axes([1, 0, 2]);
        let h = ShapedInput::host_contiguous(&p).expect("permuted");
        assert_eq!(
            (&h.order[..], h.strides.as_slice(), h.innermost_axis()),
            (&[1usize, 0, 2][..], &[4isize, 12, 1][..], Some(2))
        );
        assert_eq!(h.data[13], p[[0, 1, 1]]);
        let (shape, strides, axis) = h.c_order_view(0);
        assert_eq!((shape, strides, axis), (vec![2, 3, 4], vec![12, 4, 1], 1));
        // A strided view and a reversed view are not one block in order.
        assert!(ShapedInput::host_contiguous(&c.slice(s![.., ..;2, ..])).is_none());
        assert!(ShapedInput::host_contiguous(&c.slice(s![..;-1, .., ..])).is_none());
        // Size-1 axes take the stride their order gives them.
        let one = Array3::<u32>::zeros((1, 5, 1));
        assert_eq!(
            ShapedInput::host_contiguous(&one).unwrap().strides,
            vec![5, 1, 1]
        );
        let q = Array3::<u32>::zeros((3, 1, 4).f());
        let q = q.view().permuted_axes([2, 1, 0]);
        let h = ShapedInput::host_contiguous(&q).expect("size-1 axis");
        assert_eq!(h.order, vec![0, 1, 2]);
    }

    #[test]
    fn arrays_in_order_follow_the_layout() {
        let c = Array3::<u32>::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 12 + j * 4 + k) as u32);
        for (what, x) in [
            ("C", c.view()),
            ("Fortran", c.view().reversed_axes()),
            ("permuted", c.view().permuted_axes([2, 0, 1])),
        ] {
            let h = ShapedInput::host_contiguous(&x).expect(what);
            // The elements in memory order come back as the same array, in the same layout.
            let same = h.array_in_order(x.shape(), None, h.data.to_vec()).unwrap();
            assert_eq!(same, x.into_dyn(), "{what}");
            assert_eq!(same.strides(), x.strides(), "{what}: layout");
            // Sums along each axis, computed in the memory order of the C-order view.
            for axis in 0..3 {
                let (shape, _, a) = h.c_order_view(axis);
                let view = ArrayView::from_shape(IxDyn(&shape), &h.data).unwrap();
                let sums = view.sum_axis(ndarray::Axis(a));
                let mut out_shape = x.shape().to_vec();
                out_shape.remove(axis);
                let data: Vec<u32> = sums.iter().copied().collect();
                let got = h.array_in_order(&out_shape, Some(axis), data).unwrap();
                assert_eq!(
                    got,
                    x.sum_axis(ndarray::Axis(axis)).into_dyn(),
                    "{what} axis {axis}"
                );
            }
        }
        let h = ShapedInput::host_contiguous(&c).unwrap();
        assert!(h.array_in_order(&[2, 3], None, vec![0u32; 6]).is_err());
    }

    #[test]
    fn strided_views_are_gathered_for_the_pipeline_only_where_it_runs() {
        let c = Array3::<u32>::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 12 + j * 4 + k) as u32);
        let yes = |_: usize| true;
        // One block: borrowed, as host_contiguous.
        let h = c.host_for_pipeline(&yes).unwrap();
        assert!(matches!(h.data, Cow::Borrowed(_)));
        // A strided view: its elements gathered in C order, when the pipeline takes them.
        let v = c.slice(s![.., ..;2, 1..]);
        let h = v
            .host_for_pipeline(&|bytes| bytes == 2 * 2 * 3 * 4)
            .unwrap();
        assert!(matches!(h.data, Cow::Owned(_)));
        assert_eq!(&*h.data, v.iter().copied().collect::<Vec<_>>().as_slice());
        assert_eq!(
            (h.order.clone(), h.strides.clone()),
            (vec![0, 1, 2], vec![6, 3, 1])
        );
        assert!(v.host_for_pipeline(&|_| false).is_none());
        // One block with a negative stride: gathered in C order, as the one-shot path
        // gathers it.
        let r = c.slice(s![..;-1, .., ..]);
        let h = r.host_for_pipeline(&yes).unwrap();
        assert!(matches!(h.data, Cow::Owned(_)));
        assert_eq!(&*h.data, r.iter().copied().collect::<Vec<_>>().as_slice());
        assert!(r.host_for_pipeline(&|_| false).is_none());
        // A negative stride on an axis of one element runs nowhere: borrowed.
        let one = c.slice(s![..1;-1, .., ..]);
        assert!(matches!(
            one.host_for_pipeline(&yes).unwrap().data,
            Cow::Borrowed(_)
        ));
    }
}
