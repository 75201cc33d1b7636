//! Convolution along any axis of an N-D array on the GPU. The batched-rows kernels do the
//! work: lanes along the axis that already lie as packed rows (the axis innermost and
//! contiguous, the other axes dense in some order) are read in place; other layouts are first
//! copied into that form on the device (one pass, coalesced: `DeviceArrayD::assign_staged`),
//! and results are written straight into the output when its layout allows, copied otherwise.

use ndarray::{ArrayD, Axis};

use gpu_core::{check_axis, DeviceArrayD, Error, Result, ShapedInput, StagedNd};

use crate::gpu::Conv1d;
use crate::{Path, Real};

/// The axes of `strides` in memory order, largest stride first, with `axis` moved last: the
/// order in which the lanes become packed rows.
pub(crate) fn rows_order(strides: &[isize], axis: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..strides.len()).filter(|&d| d != axis).collect();
    order.sort_by_key(|&d| std::cmp::Reverse(strides[d].unsigned_abs()));
    order.push(axis);
    order
}

/// Strides (in the original axis order) of the dense row-major layout of `shape` taken in
/// `order` (outermost first).
pub(crate) fn packed_strides(shape: &[usize], order: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut s = 1isize;
    for &d in order.iter().rev() {
        strides[d] = s;
        s = s.saturating_mul(shape[d].max(1) as isize);
    }
    strides
}

/// Whether `strides` are the packed layout of `shape` in `order` (axes of length 1 ignored).
fn is_packed(shape: &[usize], strides: &[isize], order: &[usize]) -> bool {
    let packed = packed_strides(shape, order);
    shape
        .iter()
        .zip(strides.iter().zip(&packed))
        .all(|(&n, (&s, &p))| n <= 1 || s == p)
}

impl<T: Real> Conv1d<'_, T> {
    /// The shape of the result along `axis` of an array of `shape`: the axis's length replaced
    /// by [`output_len`](Conv1d::output_len).
    pub fn axis_output_shape(&self, shape: &[usize], axis: Axis) -> Result<Vec<usize>> {
        check_axis(axis.0, shape.len())?;
        let mut out = shape.to_vec();
        out[axis.0] = self.output_len(shape[axis.0])?;
        Ok(out)
    }

    /// The correlation or convolution of every lane of `x` along `axis`, on the host: `x`'s
    /// shape with that axis's length replaced by the mode's output length. `x` is any ndarray
    /// array or view (any layout, strides of any sign) or a [`DeviceArrayD`]. Lane for lane
    /// the same as [`run`](Conv1d::run) of the lane, and as
    /// [`cpu::apply_axis`](crate::cpu::apply_axis). A host array (any order of its axes; a
    /// strided or backwards view is first gathered into C order, as the one-shot path
    /// gathers it) streams through the host pipeline as [`pipelining`](Conv1d::pipelining)
    /// says, along its
    /// innermost memory axis (chunks of whole rows), a middle one (chunks of whole outer
    /// slices, gathered into rows on the device) or the outer one (chunks of slices with the
    /// mask's reach before them, the direct kernels only), with the one-shot call's results
    /// bit for bit, in the input's order.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_conv1d::{Conv1d, Mode, Options};
    /// use ndarray::{array, Axis};
    /// let gpu = gpu_core::Gpu::default_device()?;
    /// let x = array![[1.0f32, 2.0, 3.0], [10.0, 20.0, 30.0]];
    /// let pair_sums = Conv1d::correlation(&gpu, &[1.0, 1.0], Options::new().mode(Mode::Valid))?;
    /// assert_eq!(pair_sums.run_axis(&x, Axis(0))?, array![[11.0f32, 22.0, 33.0]].into_dyn());
    /// assert_eq!(pair_sums.run_axis(&x, Axis(1))?, array![[3.0f32, 5.0], [30.0, 50.0]].into_dyn());
    /// # Ok(()) }
    /// ```
    pub fn run_axis<I: ShapedInput<T> + ?Sized>(&self, x: &I, axis: Axis) -> Result<ArrayD<T>> {
        if let Some(a) = self.axis_rows_pipelined(x, axis)? {
            return Ok(a);
        }
        let staged = x.stage_nd(self.gpu())?;
        let shape = self.axis_output_shape(staged.shape(), axis)?;
        // The result in the rows' own layout: written in place, no copy.
        let order = rows_order(staged.strides(), axis.0);
        let strides = packed_strides(&shape, &order);
        let len = shape.iter().product();
        let mut out = DeviceArrayD::from_parts(self.gpu().alloc::<T>(len)?, 0, &shape, &strides)?;
        self.axis_staged(&staged, axis, &mut out)?;
        self.run_stream_sync()?;
        out.to_array()
    }

    /// [`run_axis`](Conv1d::run_axis) of a host array through the host pipeline: along the
    /// innermost memory axis (the last in C order, the first in Fortran order: lanes that are
    /// rows one after the other), a middle one (chunks of whole outer slices gathered into
    /// rows on the device, `slices_host.rs`) or the outer one (`outer_host.rs`). The result in
    /// the input's order, or `None` where it does not apply.
    fn axis_rows_pipelined<I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<Option<ArrayD<T>>> {
        let worth = |bytes| !self.has_stream() && self.options().pipelining.applies(bytes);
        let Some(host) = x.host_for_pipeline(&worth) else {
            return Ok(None);
        };
        if !worth(std::mem::size_of_val(&*host.data)) {
            return Ok(None);
        }
        let shape = self.axis_output_shape(&host.shape, axis)?;
        let Some(innermost) = host.innermost_axis() else {
            return Ok(None);
        };
        let n = host.shape[axis.0];
        if n == 0 {
            return Ok(None);
        }
        let out = if axis.0 == innermost {
            self.rows_host_pipelined(&host.data, host.data.len() / n)?
        } else {
            let len = shape.iter().product();
            let mut out = gpu_core::host_output_vec::<T>(len);
            let spare = &mut out.spare_capacity_mut()[..len];
            if self.axis_outer_pipelined(&host, axis.0, spare)?
                || self.axis_slices_pipelined(&host, axis.0, spare)?
            {
                // SAFETY: the pipeline wrote all `len` elements of the spare capacity when it
                // returned true; `T: Pod` accepts the bytes it copied.
                unsafe { out.set_len(len) };
                Some(out)
            } else {
                None
            }
        };
        let Some(out) = out else {
            return Ok(None);
        };
        host.array_in_order(&shape, None, out).map(Some)
    }

    /// [`run_axis`](Conv1d::run_axis) into a device array of the result's shape
    /// ([`axis_output_shape`](Conv1d::axis_output_shape)), any layout that does not alias;
    /// returns the kernel that ran. With a [`stream`](Conv1d::stream) set, device-resident
    /// `x` whose lanes are packed rows and `out` of the matching layout, it only enqueues;
    /// otherwise (an upload or a layout copy through a temporary) it waits.
    pub fn run_axis_into<I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        out: &mut DeviceArrayD<T>,
    ) -> Result<Path> {
        self.gpu().check_same_device(out.gpu(), "out")?;
        let staged = x.stage_nd(self.gpu())?;
        let (path, temporaries) = self.axis_staged(&staged, axis, out)?;
        if temporaries || staged.is_uploaded() || !self.has_stream() {
            self.run_stream_sync()?;
        }
        Ok(path)
    }

    /// Enqueues the convolution of `staged` along `axis` into `out`; returns the path and
    /// whether temporaries were used (then the stream has been waited for before they are
    /// freed).
    fn axis_staged(
        &self,
        staged: &StagedNd<'_, T>,
        axis: Axis,
        out: &mut DeviceArrayD<T>,
    ) -> Result<(Path, bool)> {
        let expected = self.axis_output_shape(staged.shape(), axis)?;
        if out.shape() != expected.as_slice() {
            return Err(Error::invalid(
                "out",
                format!("has shape {:?}, expected {expected:?}", out.shape()),
            ));
        }
        let n = staged.shape()[axis.0];
        let path = self.path(n)?;
        if out.is_empty() {
            return Ok((path, false));
        }
        let stream = self.run_stream();
        let gpu = self.gpu();
        let order = rows_order(staged.strides(), axis.0);
        let mut temporaries = false;
        // Input rows: in place when packed, else gathered into the packed layout.
        let gathered;
        let input = if is_packed(staged.shape(), staged.strides(), &order) {
            staged.device_ptr()
        } else {
            let strides = packed_strides(staged.shape(), &order);
            let mut tmp = DeviceArrayD::from_parts(
                gpu.alloc::<T>(staged.len())?,
                0,
                staged.shape(),
                &strides,
            )?;
            tmp.assign_staged(staged, stream)?;
            temporaries = true;
            gathered = tmp;
            gathered.device_ptr()
        };
        let rows = staged.len() / n;
        // Results: in place when `out` is packed the same way, else through a temporary
        // copied into `out`. Temporaries live until the wait below.
        let _scattered;
        if is_packed(out.shape(), out.strides(), &order) {
            let (ptr, len) = (out.device_ptr(), out.len());
            self.enqueue_rows_at(input, staged.len(), rows, ptr, len, stream)?;
        } else {
            let strides = packed_strides(out.shape(), &order);
            let tmp =
                DeviceArrayD::from_parts(gpu.alloc::<T>(out.len())?, 0, out.shape(), &strides)?;
            self.enqueue_rows_at(
                input,
                staged.len(),
                rows,
                tmp.device_ptr(),
                tmp.len(),
                stream,
            )?;
            out.assign_staged(&tmp.stage_nd(gpu)?, stream)?;
            temporaries = true;
            _scattered = tmp;
        }
        if temporaries {
            stream.synchronize()?;
        }
        Ok((path, temporaries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_rows_are_recognised() {
        // C order, axis 1: rows in place. Axis 0: the columns must be gathered.
        let (shape, c) = ([4, 5], [5isize, 1]);
        assert!(is_packed(&shape, &c, &rows_order(&c, 1)));
        assert!(!is_packed(&shape, &c, &rows_order(&c, 0)));
        // F order, axis 0: in place.
        let f = [1isize, 4];
        assert!(is_packed(&shape, &f, &rows_order(&f, 0)));
        // A 3-D array in (2, 0, 1) memory order along its innermost axis 1.
        let (s3, st3) = ([2, 3, 4], [3isize, 1, 6]);
        assert_eq!(rows_order(&st3, 1), vec![2, 0, 1]);
        assert!(is_packed(&s3, &st3, &rows_order(&st3, 1)));
        // Reversed rows are not packed.
        assert!(!is_packed(&shape, &[5, -1], &rows_order(&[5, -1], 1)));
        assert_eq!(packed_strides(&[2, 3, 4], &[2, 0, 1]), vec![3, 1, 6]);
    }
}
