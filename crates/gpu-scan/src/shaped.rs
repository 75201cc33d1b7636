//! Scans of shaped data on the GPU: along any axis of an N-D array (every lane scanned on its
//! own, kernels over `gpu_prims/lanes.cuh`) and within segments (segment tiles,
//! `gpu_prims/segment_tiles.cuh`); the plan ([`LanePlan`]) that ran is returned by the `_into`
//! forms and shown by [`Scan::axis_plan`].

#![allow(deprecated)] // Scanner is the engine Scan drives.

use std::mem::MaybeUninit;

use gpu_core::{
    axis_lanes_pair, DeviceArray, DeviceArrayD, Element, Error, Input, LanePlan, Op, Pod, Result,
    SegmentOffsets, Segments, ShapedInput, StagedNd,
};
use ndarray::{ArrayD, Axis};

/// The lanes along `axis` of an input and an output of `shape` (`gpu_core::axis_lanes_pair`),
/// with the other axes taken in the input's memory order (largest stride first), so that they
/// merge as far as memory allows whatever the order of the axes (Fortran order, a
/// permutation): a scan pairs lane `l` of the input with lane `l` of the output, so their
/// numbering is free. C order keeps its axes as they are.
pub(crate) fn scan_lanes_pair(
    shape: &[usize],
    in_strides: &[isize],
    out_strides: &[isize],
    axis: usize,
) -> Result<(gpu_core::LaneBatches, gpu_core::LaneBatches)> {
    gpu_core::check_axis(axis, shape.len())?;
    if in_strides.len() != shape.len() || out_strides.len() != shape.len() {
        return axis_lanes_pair(shape, in_strides, out_strides, axis);
    }
    let mut order: Vec<usize> = (0..shape.len()).collect();
    order.sort_by_key(|&d| std::cmp::Reverse(in_strides[d].unsigned_abs()));
    let pick = |v: &[isize]| order.iter().map(|&d| v[d]).collect::<Vec<_>>();
    let shape: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
    let at = order
        .iter()
        .position(|&d| d == axis)
        .expect("a permutation");
    axis_lanes_pair(&shape, &pick(in_strides), &pick(out_strides), at)
}

/// [`scan_lanes_pair`] of one array.
pub(crate) fn scan_lanes(
    shape: &[usize],
    strides: &[isize],
    axis: usize,
) -> Result<gpu_core::LaneBatches> {
    Ok(scan_lanes_pair(shape, strides, strides, axis)?.0)
}

use crate::gpu::{LaneKind, Scanner};
use crate::{Scan, ScanKind, ScanMonoid};

fn op_suffix<T: Element>(op: Op) -> Result<String> {
    crate::check_op_shaped::<T>(op)?;
    Ok(format!("{}_{}", op.name(), T::NAME))
}

impl Scan<'_> {
    fn exclusive_kind(&self) -> bool {
        self.scan_options().kind == ScanKind::Exclusive
    }

    fn check_gpu_algorithm(&self) -> Result<()> {
        if !self.scan_options().algorithm.is_gpu() {
            return Err(Error::invalid(
                "algorithm",
                format!(
                    "{:?} is a CPU algorithm; shaped scans run on the GPU (use gpu_scan::cpu::scan_axis / segmented_scan for the CPU)",
                    self.scan_options().algorithm
                ),
            ));
        }
        Ok(())
    }

    /// Scans `x` along `axis` into `out` (same shape, any non-aliasing strides); returns the
    /// plan. Enqueued on this object's stream; waited for unless a stream was set and the
    /// input lives on the device.
    fn axis_run<T: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        suffix: &str,
        out: &mut DeviceArrayD<T>,
    ) -> Result<LanePlan> {
        self.check_gpu_algorithm()?;
        self.gpu().check_same_device(out.gpu(), "out")?;
        let staged = x.stage_nd(self.gpu())?;
        self.axis_run_staged(&staged, axis, suffix, out)
    }

    /// [`axis_run`](Self::axis_run) of an input already staged (checked algorithm and
    /// devices).
    fn axis_run_staged<T: Pod>(
        &self,
        staged: &StagedNd<'_, T>,
        axis: Axis,
        suffix: &str,
        out: &mut DeviceArrayD<T>,
    ) -> Result<LanePlan> {
        if out.shape() != staged.shape() {
            return Err(Error::invalid(
                "out",
                format!(
                    "has shape {:?}, the input {:?}",
                    out.shape(),
                    staged.shape()
                ),
            ));
        }
        let (in_lb, out_lb) =
            scan_lanes_pair(staged.shape(), staged.strides(), out.strides(), axis.0)?;
        let kind = LaneKind {
            suffix,
            value_size: std::mem::size_of::<T>(),
        };
        let exclusive = self.exclusive_kind();
        let (input, output) = (staged.device_ptr(), out.device_ptr());
        let wait = !self.has_stream() || staged.is_uploaded();
        self.with_scanner(|s, stream| {
            let plan = s.enqueue_axis(&kind, input, &in_lb, output, &out_lb, exclusive, stream)?;
            if wait {
                stream.synchronize()?;
            }
            Ok(plan)
        })
    }

    /// A new device array for the scan of `x` (the input's memory order) and the scan into it;
    /// `x` is staged (uploaded, for host data) once.
    fn axis_new<T: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        suffix: &str,
    ) -> Result<DeviceArrayD<T>> {
        self.check_gpu_algorithm()?;
        let staged = x.stage_nd(self.gpu())?;
        gpu_core::check_axis(axis.0, staged.shape().len())?;
        let mut out = DeviceArrayD::zeros_like_order(self.gpu(), staged.shape(), staged.strides())?;
        self.axis_run_staged(&staged, axis, suffix, &mut out)?;
        Ok(out)
    }

    /// The scan of a host array along `axis` through the host pipeline, into a new host array
    /// of the input's order, where [`ScanOptions::pipelining`](crate::ScanOptions::pipelining)
    /// takes it and it applies (see `Scanner::scan_axis_host_pipelined`); `None` otherwise.
    fn axis_pipelined<T: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        suffix: &str,
        exact: bool,
    ) -> Result<Option<ArrayD<T>>> {
        let options = self.scan_options();
        let worth = |bytes| options.pipelining.applies(bytes) && !self.has_stream();
        let Some(host) = x.host_for_pipeline(&worth) else {
            return Ok(None);
        };
        if self.has_stream()
            || !options.algorithm.is_gpu()
            || !options
                .pipelining
                .applies(std::mem::size_of_val(&*host.data))
        {
            return Ok(None);
        }
        gpu_core::check_axis(axis.0, host.shape.len())?;
        let kind = LaneKind {
            suffix,
            value_size: std::mem::size_of::<T>(),
        };
        let exclusive = self.exclusive_kind();
        let mut out = gpu_core::host_output_vec::<T>(host.data.len());
        let spare: &mut [MaybeUninit<T>] = &mut out.spare_capacity_mut()[..host.data.len()];
        if !self.with_scanner(|s, _| {
            s.scan_axis_host_pipelined(&kind, &host, axis.0, exclusive, exact, spare)
        })? {
            return Ok(None);
        }
        // SAFETY: the pipeline wrote every element of the spare capacity when it returned true;
        // `T: Pod` accepts the bytes it copied.
        unsafe { out.set_len(host.data.len()) };
        host.array_in_order(&host.shape, None, out).map(Some)
    }

    /// The scan with `op` of every lane of `x` along `axis` (inclusive or exclusive as this
    /// object is set), on the host: an array of `x`'s shape. `x` is any ndarray array or view
    /// (any layout and strides) or a [`DeviceArrayD`]. Same semantics as
    /// [`cpu::scan_axis`](crate::cpu::scan_axis). A host array (any order of its axes; a
    /// strided or backwards view is first gathered into C order, as the one-shot path
    /// gathers it) scanned along any axis but its outer memory axis streams through the host
    /// pipeline in chunks of whole outer slices as
    /// [`ScanOptions::pipelining`](crate::ScanOptions::pipelining) says (same results bit for
    /// bit: each chunk runs with the whole array's plan, checked before it starts, or the call
    /// goes one-shot). Along the outer memory axis (axis 0 of a C-order array) the one-shot
    /// launch runs chunk by chunk at its own boundaries (vector columns: spans; look-back
    /// rows: tiles; generic lanes: splits, their seeds scanned as the one-shot launch scans
    /// them, or rounds of lanes of one split), the one-shot bits for every operator; where
    /// no such cut fits a chunk, integer scans carry each lane's running value from chunk to
    /// chunk, and float scans go one-shot.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// use gpu_scan::Scan;
    /// use ndarray::{array, Axis};
    /// let gpu = Gpu::default_device()?;
    /// let x = array![[1, 2, 3], [4, 5, 6]];
    /// let s = Scan::new(&gpu);
    /// assert_eq!(s.scan_axis(&x, Axis(1), Op::Sum)?, array![[1, 3, 6], [4, 9, 15]].into_dyn());
    /// assert_eq!(s.exclusive().scan_axis(&x, Axis(0), Op::Sum)?, array![[0, 0, 0], [1, 2, 3]].into_dyn());
    /// # Ok(()) }
    /// ```
    pub fn scan_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
    ) -> Result<ArrayD<T>> {
        let suffix = op_suffix::<T>(op)?;
        if let Some(a) = self.axis_pipelined(x, axis, &suffix, !T::IS_FLOAT)? {
            return Ok(a);
        }
        self.axis_new(x, axis, &suffix)?.to_array()
    }

    /// The cumulative sums along `axis` (PyTorch's `cumsum(dim)`, inclusive or exclusive as
    /// this object is set).
    pub fn cumsum_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<T>> {
        self.scan_axis(x, axis, Op::Sum)
    }

    /// [`scan_axis`](Scan::scan_axis) for [`gpu_core::Mat2`] / [`gpu_core::Affine`] values, in
    /// lane order. An [`Affine`](gpu_core::Affine) scan along the time axis runs many
    /// independent linear recurrences (IIR filters) in one call.
    pub fn scan_axis_monoid<M: ScanMonoid, I: ShapedInput<M> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
    ) -> Result<ArrayD<M>> {
        if let Some(a) = self.axis_pipelined(x, axis, M::NAME, M::EXACT)? {
            return Ok(a);
        }
        self.axis_new(x, axis, M::NAME)?.to_array()
    }

    /// [`scan_axis`](Scan::scan_axis) into a device array of `x`'s shape (any strides that do
    /// not alias). Returns the plan that ran. With a [`stream`](Scan::stream) set and
    /// device-resident `x` it only enqueues; otherwise it waits.
    pub fn scan_axis_into<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
        out: &mut DeviceArrayD<T>,
    ) -> Result<LanePlan> {
        self.axis_run(x, axis, &op_suffix::<T>(op)?, out)
    }

    /// [`scan_axis_monoid`](Scan::scan_axis_monoid) into a device array.
    pub fn scan_axis_monoid_into<M: ScanMonoid, I: ShapedInput<M> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        out: &mut DeviceArrayD<M>,
    ) -> Result<LanePlan> {
        self.axis_run(x, axis, M::NAME, out)
    }

    /// The plan a scan with `op` along `axis` of an array of `shape` and element `strides`
    /// would run.
    pub fn axis_plan<T: Element>(
        &self,
        shape: &[usize],
        strides: &[isize],
        axis: Axis,
        op: Op,
    ) -> Result<LanePlan> {
        let suffix = op_suffix::<T>(op)?;
        let lb = scan_lanes(shape, strides, axis.0)?;
        let kind = LaneKind {
            suffix: &suffix,
            value_size: std::mem::size_of::<T>(),
        };
        // A new output keeps the input's order (device allocations are aligned for every plan).
        self.with_scanner(|s: &mut Scanner, _| Ok(s.choose_axis(&kind, 0, &lb, 0, &lb)?.plan()))
    }

    // ---- Segments ------------------------------------------------------------------------

    /// Scans the `n` values at `input` within `segments` into `out`; returns the plan.
    fn segments_run<T: Pod>(
        &self,
        input: u64,
        n: usize,
        wait: bool,
        segments: &(impl SegmentOffsets + ?Sized),
        suffix: &str,
        out: &DeviceArray<T>,
    ) -> Result<LanePlan> {
        self.check_gpu_algorithm()?;
        self.gpu().check_same_device(out.gpu(), "out")?;
        let segments = segments.segments(self.gpu(), n)?;
        if out.len() != n {
            return Err(Error::invalid(
                "out",
                format!("holds {} values for {n} inputs", out.len()),
            ));
        }
        let kind = LaneKind {
            suffix,
            value_size: std::mem::size_of::<T>(),
        };
        let exclusive = self.exclusive_kind();
        let staging = self.scan_options().staging;
        let output = out.device_ptr();
        self.with_scanner(|s, stream| {
            let plan =
                s.enqueue_segments(&kind, input, &segments, output, exclusive, staging, stream)?;
            if wait {
                stream.synchronize()?;
            }
            Ok(plan)
        })
    }

    /// The segmented scan of host `values` through the host pipeline into a new vector, where
    /// [`pipelining`](Scan::pipelining) takes it; `None` with nothing done otherwise.
    fn segments_pipelined<T: Pod, I: Input<T> + ?Sized>(
        &self,
        values: &I,
        offsets: &(impl SegmentOffsets + ?Sized),
        suffix: &str,
    ) -> Result<Option<Vec<T>>> {
        let Some(host) = values.host_slice() else {
            return Ok(None);
        };
        let options = self.scan_options();
        if self.has_stream()
            || !options.algorithm.is_gpu()
            || !options.pipelining.applies(std::mem::size_of_val(host))
        {
            return Ok(None);
        }
        let segments = offsets.segments(self.gpu(), host.len())?;
        let kind = LaneKind {
            suffix,
            value_size: std::mem::size_of::<T>(),
        };
        let exclusive = self.exclusive_kind();
        let mut out = gpu_core::host_output_vec::<T>(host.len());
        let spare = &mut out.spare_capacity_mut()[..host.len()];
        if !self.with_scanner(|s, _| {
            s.segments_host_pipelined(&kind, host, &segments, exclusive, options.staging, spare)
        })? {
            return Ok(None);
        }
        // SAFETY: the pipeline wrote every element of the spare capacity when it returned true;
        // `T: Pod` accepts the bytes it copied.
        unsafe { out.set_len(host.len()) };
        Ok(Some(out))
    }

    /// A new device array with the segmented scan of `values`.
    fn segments_new<T: Pod, I: Input<T> + ?Sized>(
        &self,
        values: &I,
        offsets: &(impl SegmentOffsets + ?Sized),
        suffix: &str,
    ) -> Result<Vec<T>> {
        if let Some(v) = self.segments_pipelined(values, offsets, suffix)? {
            return Ok(v);
        }
        let staged = values.stage(self.gpu())?;
        let out = self.gpu().alloc::<T>(staged.len())?;
        self.segments_run(
            staged.device_ptr(),
            staged.len(),
            true,
            offsets,
            suffix,
            &out,
        )?;
        out.to_vec()
    }

    /// The scan with `op` within each segment of `values` (`offsets[i]..offsets[i + 1]` is
    /// segment `i`; a checked [`Segments`] or host offsets), on the host: every segment starts
    /// afresh. Same semantics as [`cpu::segmented_scan`](crate::cpu::segmented_scan).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// let gpu = Gpu::default_device()?;
    /// let s = gpu_scan::Scan::new(&gpu);
    /// assert_eq!(s.segmented_scan(&[1, 2, 3, 4, 5], &[0, 2, 2, 5], Op::Sum)?, vec![1, 3, 3, 7, 12]);
    /// # Ok(()) }
    /// ```
    pub fn segmented_scan<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
        op: Op,
    ) -> Result<Vec<T>> {
        self.segments_new(values, offsets, &op_suffix::<T>(op)?)
    }

    /// [`segmented_scan`](Scan::segmented_scan) for monoid values.
    pub fn segmented_scan_monoid<
        M: ScanMonoid,
        I: Input<M> + ?Sized,
        S: SegmentOffsets + ?Sized,
    >(
        &self,
        values: &I,
        offsets: &S,
    ) -> Result<Vec<M>> {
        self.segments_new(values, offsets, M::NAME)
    }

    /// [`segmented_scan`](Scan::segmented_scan) into `out` (as long as `values`); returns the
    /// plan that ran. With a [`stream`](Scan::stream) set and device-resident `values` it only
    /// enqueues; otherwise it waits.
    pub fn segmented_scan_into<T: Element, I: Input<T> + ?Sized>(
        &self,
        values: &I,
        segments: &Segments,
        op: Op,
        out: &mut DeviceArray<T>,
    ) -> Result<LanePlan> {
        let suffix = op_suffix::<T>(op)?;
        let staged = values.stage(self.gpu())?;
        let wait = !self.has_stream() || staged.is_uploaded();
        self.segments_run(
            staged.device_ptr(),
            staged.len(),
            wait,
            segments,
            &suffix,
            out,
        )
    }
}
