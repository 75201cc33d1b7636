//! Scans of shaped data on the GPU: along any axis of an N-D array (every lane scanned on its
//! own, kernels over `gpu_prims/lanes.cuh`) and within segments (segment tiles,
//! `gpu_prims/segment_tiles.cuh`); the plan ([`LanePlan`]) that ran is returned by the `_into`
//! forms and shown by [`Scan::axis_plan`].

#![allow(deprecated)] // Scanner is the engine Scan drives.

use std::mem::{size_of, MaybeUninit};

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

use crate::gpu::{LaneIo, LaneKind, Scanner};
use crate::{Scan, ScanKind, ScanMonoid};

/// The kernels of a shaped scan: their name suffix and the size of the values they compute
/// in, and for f16 and bf16 (computed in f32, written as themselves or as f32) the elements'
/// sizes and the suffixes of the totals and seed kernels ([`LaneIo`]).
struct OpKind {
    suffix: String,
    value_size: usize,
    io: Option<OpIo>,
}

/// [`LaneIo`], owned.
struct OpIo {
    in_size: usize,
    out_size: usize,
    totals: String,
    seeds: String,
}

impl OpKind {
    /// A scan with `op` of `T` elements written as `O` (`T`, or `T::Accumulator` for the
    /// `_accumulated` forms).
    fn of<T: Element, O: Element>(op: Op) -> Result<Self> {
        crate::check_op::<T>(op)?;
        if !T::computes_wider() {
            return Ok(OpKind::plain(
                format!("{}_{}", op.name(), T::NAME),
                size_of::<T>(),
            ));
        }
        let acc = T::Accumulator::NAME;
        Ok(OpKind {
            suffix: format!("{}_{}_to_{}", op.name(), T::NAME, O::NAME),
            value_size: size_of::<T::Accumulator>(),
            io: Some(OpIo {
                in_size: size_of::<T>(),
                out_size: size_of::<O>(),
                totals: format!("{}_{}", op.name(), T::NAME),
                seeds: format!("{}_{acc}", op.name()),
            }),
        })
    }

    /// Elements that are the values computed (the monoids, and `of` for every type but the
    /// 16-bit floats).
    fn plain(suffix: impl Into<String>, value_size: usize) -> Self {
        OpKind {
            suffix: suffix.into(),
            value_size,
            io: None,
        }
    }

    fn lane_kind(&self) -> LaneKind<'_> {
        LaneKind {
            suffix: &self.suffix,
            value_size: self.value_size,
            io: self.io.as_ref().map(|io| LaneIo {
                in_size: io.in_size,
                out_size: io.out_size,
                totals: &io.totals,
                seeds: &io.seeds,
            }),
        }
    }
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
    fn axis_run<T: Pod, O: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        kind: &OpKind,
        out: &mut DeviceArrayD<O>,
    ) -> Result<LanePlan> {
        self.check_gpu_algorithm()?;
        self.gpu().check_same_device(out.gpu(), "out")?;
        let staged = x.stage_nd(self.gpu())?;
        self.axis_run_staged(&staged, axis, kind, out)
    }

    /// [`axis_run`](Self::axis_run) of an input already staged (checked algorithm and
    /// devices).
    fn axis_run_staged<T: Pod, O: Pod>(
        &self,
        staged: &StagedNd<'_, T>,
        axis: Axis,
        kind: &OpKind,
        out: &mut DeviceArrayD<O>,
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
        let kind = kind.lane_kind();
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
    fn axis_new<T: Pod, O: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        kind: &OpKind,
    ) -> Result<DeviceArrayD<O>> {
        self.check_gpu_algorithm()?;
        let staged = x.stage_nd(self.gpu())?;
        gpu_core::check_axis(axis.0, staged.shape().len())?;
        let mut out = DeviceArrayD::zeros_like_order(self.gpu(), staged.shape(), staged.strides())?;
        self.axis_run_staged(&staged, axis, kind, &mut out)?;
        Ok(out)
    }

    /// The scan of a host array along `axis` through the host pipeline, into a new host array
    /// of the input's order, where [`ScanOptions::pipelining`](crate::ScanOptions::pipelining)
    /// takes it and it applies (see `Scanner::scan_axis_host_pipelined`); `None` otherwise.
    fn axis_pipelined<T: Pod, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        kind: &OpKind,
        exact: bool,
    ) -> Result<Option<ArrayD<T>>> {
        // The pipeline's chunks carry values of the element type: not for converting scans.
        if kind.io.is_some() {
            return Ok(None);
        }
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
        let kind = kind.lane_kind();
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
    ///
    /// f16 and bf16 scan sums, minima and maxima in f32, each result rounded once to the
    /// element type ([`scan_axis_accumulated`](Scan::scan_axis_accumulated) keeps the f32
    /// values), as the flat [`scan`](Scan::scan) does; they take the generic lane and
    /// look-back-rows kernels (no packed rows, vector columns or host pipeline).
    pub fn scan_axis<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
    ) -> Result<ArrayD<T>> {
        let kind = OpKind::of::<T, T>(op)?;
        if let Some(a) = self.axis_pipelined(x, axis, &kind, !T::IS_FLOAT)? {
            return Ok(a);
        }
        self.axis_new::<T, T, I>(x, axis, &kind)?.to_array()
    }

    /// [`scan_axis`](Scan::scan_axis) with the results in the accumulator type
    /// (`T::Accumulator`: f32 for f16 and bf16, as PyTorch's `cumsum(dim, dtype=float32)`;
    /// `T` itself for the other types, where it is `scan_axis`).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{f16, Gpu, Op};
    /// use ndarray::{Array2, Axis};
    /// let gpu = Gpu::default_device()?;
    /// let x = Array2::from_elem((2, 4096), f16::ONE);
    /// let s = gpu_scan::Scan::new(&gpu);
    /// assert_eq!(s.scan_axis_accumulated(&x, Axis(1), Op::Sum)?[[1, 4095]], 4096.0f32);
    /// assert_eq!(s.scan_axis(&x, Axis(1), Op::Sum)?[[1, 4095]], f16::from_f32(4096.0));
    /// # Ok(()) }
    /// ```
    pub fn scan_axis_accumulated<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
    ) -> Result<ArrayD<T::Accumulator>> {
        let kind = OpKind::of::<T, T::Accumulator>(op)?;
        self.axis_new::<T, T::Accumulator, I>(x, axis, &kind)?
            .to_array()
    }

    /// [`scan_axis_accumulated`](Scan::scan_axis_accumulated) into a device array of `x`'s
    /// shape; returns the plan that ran (waiting as [`scan_axis_into`](Scan::scan_axis_into)).
    pub fn scan_axis_accumulated_into<T: Element, I: ShapedInput<T> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        op: Op,
        out: &mut DeviceArrayD<T::Accumulator>,
    ) -> Result<LanePlan> {
        self.axis_run(x, axis, &OpKind::of::<T, T::Accumulator>(op)?, out)
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
        let kind = OpKind::plain(M::NAME, size_of::<M>());
        if let Some(a) = self.axis_pipelined(x, axis, &kind, M::EXACT)? {
            return Ok(a);
        }
        self.axis_new::<M, M, I>(x, axis, &kind)?.to_array()
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
        self.axis_run(x, axis, &OpKind::of::<T, T>(op)?, out)
    }

    /// [`scan_axis_monoid`](Scan::scan_axis_monoid) into a device array.
    pub fn scan_axis_monoid_into<M: ScanMonoid, I: ShapedInput<M> + ?Sized>(
        &self,
        x: &I,
        axis: Axis,
        out: &mut DeviceArrayD<M>,
    ) -> Result<LanePlan> {
        self.axis_run(x, axis, &OpKind::plain(M::NAME, size_of::<M>()), out)
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
        let kind = OpKind::of::<T, T>(op)?;
        let lb = scan_lanes(shape, strides, axis.0)?;
        let kind = kind.lane_kind();
        // A new output keeps the input's order (device allocations are aligned for every plan).
        self.with_scanner(|s: &mut Scanner, _| Ok(s.choose_axis(&kind, 0, &lb, 0, &lb)?.plan()))
    }

    // ---- Segments ------------------------------------------------------------------------

    /// Scans the `n` values at `input` within `segments` into `out`; returns the plan.
    fn segments_run<O: Pod>(
        &self,
        input: u64,
        n: usize,
        wait: bool,
        segments: &(impl SegmentOffsets + ?Sized),
        kind: &OpKind,
        out: &DeviceArray<O>,
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
        let kind = kind.lane_kind();
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
    /// [`pipelining`](Scan::pipelining) takes it; `None` with nothing done otherwise (and for
    /// converting scans, whose chunks would carry another type).
    fn segments_pipelined<T: Pod, I: Input<T> + ?Sized>(
        &self,
        values: &I,
        offsets: &(impl SegmentOffsets + ?Sized),
        kind: &OpKind,
    ) -> Result<Option<Vec<T>>> {
        let Some(host) = values.host_slice() else {
            return Ok(None);
        };
        let options = self.scan_options();
        if kind.io.is_some()
            || self.has_stream()
            || !options.algorithm.is_gpu()
            || !options.pipelining.applies(std::mem::size_of_val(host))
        {
            return Ok(None);
        }
        let segments = offsets.segments(self.gpu(), host.len())?;
        let kind = kind.lane_kind();
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

    /// A new device array with the segmented scan of `values` (elements `T`, results `O`),
    /// its contents on the host.
    fn segments_new<T: Pod, O: Pod, I: Input<T> + ?Sized>(
        &self,
        values: &I,
        offsets: &(impl SegmentOffsets + ?Sized),
        kind: &OpKind,
    ) -> Result<Vec<O>> {
        let staged = values.stage(self.gpu())?;
        let out = self.gpu().alloc::<O>(staged.len())?;
        self.segments_run(staged.device_ptr(), staged.len(), true, offsets, kind, &out)?;
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
    ///
    /// f16 and bf16 scan sums, minima and maxima in f32, each result rounded once
    /// ([`segmented_scan_accumulated`](Scan::segmented_scan_accumulated) keeps the f32 values).
    pub fn segmented_scan<T: Element, I: Input<T> + ?Sized, S: SegmentOffsets + ?Sized>(
        &self,
        values: &I,
        offsets: &S,
        op: Op,
    ) -> Result<Vec<T>> {
        let kind = OpKind::of::<T, T>(op)?;
        if let Some(v) = self.segments_pipelined(values, offsets, &kind)? {
            return Ok(v);
        }
        self.segments_new::<T, T, I>(values, offsets, &kind)
    }

    /// [`segmented_scan`](Scan::segmented_scan) with the results in the accumulator type
    /// (f32 for f16 and bf16; `T` itself for the other types).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{bf16, Gpu, Op};
    /// let gpu = Gpu::default_device()?;
    /// let x = [bf16::from_f32(1.5), bf16::from_f32(2.0), bf16::from_f32(4.0)];
    /// let y = gpu_scan::Scan::new(&gpu).segmented_scan_accumulated(&x, &[0, 1, 3], Op::Sum)?;
    /// assert_eq!(y, vec![1.5f32, 2.0, 6.0]);
    /// # Ok(()) }
    /// ```
    pub fn segmented_scan_accumulated<
        T: Element,
        I: Input<T> + ?Sized,
        S: SegmentOffsets + ?Sized,
    >(
        &self,
        values: &I,
        offsets: &S,
        op: Op,
    ) -> Result<Vec<T::Accumulator>> {
        let kind = OpKind::of::<T, T::Accumulator>(op)?;
        self.segments_new::<T, T::Accumulator, I>(values, offsets, &kind)
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
        let kind = OpKind::plain(M::NAME, size_of::<M>());
        if let Some(v) = self.segments_pipelined(values, offsets, &kind)? {
            return Ok(v);
        }
        self.segments_new::<M, M, I>(values, offsets, &kind)
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
        self.segments_into(values, segments, &OpKind::of::<T, T>(op)?, out)
    }

    /// [`segmented_scan_accumulated`](Scan::segmented_scan_accumulated) into `out` (as long
    /// as `values`), waiting as [`segmented_scan_into`](Scan::segmented_scan_into).
    pub fn segmented_scan_accumulated_into<T: Element, I: Input<T> + ?Sized>(
        &self,
        values: &I,
        segments: &Segments,
        op: Op,
        out: &mut DeviceArray<T::Accumulator>,
    ) -> Result<LanePlan> {
        self.segments_into(values, segments, &OpKind::of::<T, T::Accumulator>(op)?, out)
    }

    fn segments_into<T: Pod, O: Pod, I: Input<T> + ?Sized>(
        &self,
        values: &I,
        segments: &Segments,
        kind: &OpKind,
        out: &mut DeviceArray<O>,
    ) -> Result<LanePlan> {
        let staged = values.stage(self.gpu())?;
        let wait = !self.has_stream() || staged.is_uploaded();
        self.segments_run(staged.device_ptr(), staged.len(), wait, segments, kind, out)
    }
}
