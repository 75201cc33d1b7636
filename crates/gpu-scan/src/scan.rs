//! [`Scan`]: gpu-scan in the workspace's one API shape (docs/api.md) — a prepared object built
//! from a `&Gpu`, builder options, any [`Input`], host results or `_into` device results, and
//! `.stream(&s)` for work that only enqueues.

// `Scanner` is the engine this object drives; it is deprecated only as a public entry point.
#![allow(deprecated)]

use std::mem::MaybeUninit;
use std::sync::Mutex;

use gpu_core::{
    Affine, DeviceArray, Element, Error, Gpu, Input, Op, Pipelining, Pod, Result, Stream,
};

use crate::gpu::Scanner;
use crate::{cpu, Algorithm, Real, ScanKind, ScanMonoid, ScanOptions, TileStaging};

/// One enqueue of the [`Scanner`]: (scanner, input, output, n, stream).
type Launch<'a> = dyn Fn(&mut Scanner, u64, u64, usize, &Stream) -> Result<()> + 'a;

/// A configured scan on one GPU: form, algorithm, block size, tile staging and stream.
///
/// Methods take any [`Input`] (host slices, `Vec`s, arrays, ndarrays of any layout, device
/// arrays and [`gpu_core::DeviceSlice`]s; device inputs are read in place and left as they
/// were). [`scan`](Scan::scan) returns the result on the host and waits;
/// [`scan_into`](Scan::scan_into) writes a device array — and with [`stream`](Scan::stream)
/// set only enqueues on that stream. A `Scan` keeps its scratch memory between calls and may be
/// shared by threads (`&self`; calls take turns at enqueueing). A clone has scratch of its own.
/// Keep one `Scan` for repeated calls: besides allocating nothing, its flat look-back scans
/// reuse the tile status the previous ones left instead of zeroing it with a launch of its own
/// (3.5–4 µs a call on an H200; docs/scan.md).
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{Gpu, Op};
/// use gpu_scan::{Algorithm, Scan};
/// let gpu = Gpu::default_device()?;
/// let sums = Scan::new(&gpu).scan(&[3i32, 1, 4, 1, 5], Op::Sum)?;
/// assert_eq!(sums, vec![3, 4, 8, 9, 14]);
/// let x = gpu.upload(&[2.0f32, 7.0, 1.0, 8.0])?;
/// let mut y = gpu.alloc::<f32>(x.len())?;
/// let maxima = Scan::new(&gpu).exclusive().algorithm(Algorithm::Blelloch).block_size(256);
/// maxima.scan_into(&x, &mut y, Op::Max)?;
/// assert_eq!(y.to_vec()?, vec![f32::NEG_INFINITY, 2.0, 7.0, 7.0]);
/// let stream = gpu.new_stream()?;
/// Scan::new(&gpu).stream(&stream).scan_into(&x, &mut y, Op::Sum)?; // enqueued only
/// stream.synchronize()?;
/// # Ok(()) }
/// ```
pub struct Scan<'s> {
    gpu: Gpu,
    options: ScanOptions,
    stream: Option<&'s Stream>,
    /// Made on first use; its scratch is reused by later calls.
    scanner: Mutex<Option<Scanner>>,
}

impl Clone for Scan<'_> {
    fn clone(&self) -> Self {
        Scan {
            gpu: self.gpu.clone(),
            options: self.options,
            stream: self.stream,
            scanner: Mutex::new(None),
        }
    }
}

impl std::fmt::Debug for Scan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scan")
            .field("gpu", &self.gpu)
            .field("options", &self.options)
            .field("stream", &self.stream.is_some())
            .finish()
    }
}

impl Scan<'static> {
    /// An inclusive scan with the default algorithm on `gpu`'s default stream (allocates
    /// nothing yet).
    pub fn new(gpu: &Gpu) -> Self {
        Scan {
            gpu: gpu.clone(),
            options: ScanOptions::default(),
            stream: None,
            scanner: Mutex::new(None),
        }
    }
}

impl<'s> Scan<'s> {
    /// Every option at once.
    pub fn options(mut self, options: ScanOptions) -> Self {
        self.options = options;
        self
    }

    /// Inclusive: `y[i] = x[0] ∘ … ∘ x[i]` (the default).
    pub fn inclusive(self) -> Self {
        self.kind(ScanKind::Inclusive)
    }

    /// Exclusive: `y[0]` is the identity, `y[i] = x[0] ∘ … ∘ x[i−1]`.
    pub fn exclusive(self) -> Self {
        self.kind(ScanKind::Exclusive)
    }

    /// Inclusive or exclusive.
    pub fn kind(mut self, kind: ScanKind) -> Self {
        self.options = self.options.kind(kind);
        self
    }

    /// The algorithm ([`Algorithm::Auto`] by default; `Serial` and `Rayon` run on the host).
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.options = self.options.algorithm(algorithm);
        self
    }

    /// Threads per block of the GPU algorithms (checked when the scan runs).
    pub fn block_size(mut self, threads: u32) -> Self {
        self.options = self.options.block_size(threads);
        self
    }

    /// Where the look-back scan and the segmented scans keep their tiles (checked when the
    /// scan runs).
    pub fn staging(mut self, staging: TileStaging) -> Self {
        self.options = self.options.staging(staging);
        self
    }

    /// Whether host-to-host scans ([`scan`](Scan::scan) of a host slice,
    /// [`scan_to_slice`](Scan::scan_to_slice)) stream through the device in overlapped chunks,
    /// with the same results bit for bit: [`Pipelining::Auto`] by default (from
    /// [`gpu_core::PIPELINE_MIN_BYTES`] of input on), `Never` or `Always`.
    pub fn pipelining(mut self, pipelining: Pipelining) -> Self {
        self.options = self.options.pipelining(pipelining);
        self
    }

    /// The same scan on `stream`: [`scan_into`](Scan::scan_into) and
    /// [`scan_in_place`](Scan::scan_in_place) then only enqueue. Host-result methods still
    /// wait. The new object has scratch of its own.
    pub fn stream<'t>(self, stream: &'t Stream) -> Scan<'t> {
        Scan {
            gpu: self.gpu,
            options: self.options,
            stream: Some(stream),
            scanner: Mutex::new(None),
        }
    }

    /// The device it runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The options it runs with.
    pub fn scan_options(&self) -> ScanOptions {
        self.options
    }

    /// The look-back launch a scan of `n` values of `T` with `op` makes on this device (block,
    /// values per thread, staged or register tiles), `None` where the algorithm is not a
    /// look-back one: what the options ask, else what the device's tuning gives
    /// (`gpu_core::tuning`'s `scan.*` keys).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// let gpu = gpu_core::Gpu::default_device()?;
    /// let plan = gpu_scan::Scan::new(&gpu).lookback_plan::<f32>(1 << 28, gpu_core::Op::Sum)?;
    /// println!("{:?}", plan.map(|p| (p.block, p.staged)));
    /// # Ok(()) }
    /// ```
    pub fn lookback_plan<T: Element>(
        &self,
        n: usize,
        op: Op,
    ) -> Result<Option<crate::plan::LookbackPlan>> {
        self.plan_for(crate::gpu::Combo::op::<T>(op)?, n)
    }

    /// [`lookback_plan`](Self::lookback_plan) for results in `T::Accumulator`
    /// ([`scan_accumulated`](Self::scan_accumulated): f32 for f16 and bf16), whose staged tiles
    /// have another shape.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// let gpu = gpu_core::Gpu::default_device()?;
    /// let scan = gpu_scan::Scan::new(&gpu);
    /// let plan = scan.lookback_plan_accumulated::<gpu_core::f16>(1 << 28, gpu_core::Op::Sum)?;
    /// println!("{:?}", plan.map(|p| (p.block, p.tile)));
    /// # Ok(()) }
    /// ```
    pub fn lookback_plan_accumulated<T: Element>(
        &self,
        n: usize,
        op: Op,
    ) -> Result<Option<crate::plan::LookbackPlan>> {
        self.plan_for(crate::gpu::Combo::op_accumulated::<T>(op)?, n)
    }

    /// Whether a flat scan of `n` values of `T` with `op` runs the warp-specialised kernel on
    /// this device, for input and output on 16-byte boundaries (as every allocation of this
    /// crate's is): sum, prod, min and max of 4- and 8-byte values, the look-back algorithms
    /// (float sums and products with either look-back; the fixed-order one, `Auto`'s for them,
    /// keeps its bits run after run and through the host pipeline), block and staging left to
    /// the device, and the device's tuning taking it at `n`
    /// (`scan.warp_specialized_from`, compute capability 9.0+: docs/scan.md).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// let gpu = gpu_core::Gpu::default_device()?;
    /// let ws = gpu_scan::Scan::new(&gpu).warp_specialized::<f32>(1 << 28, gpu_core::Op::Sum)?;
    /// println!("warp-specialised: {ws}");
    /// # Ok(()) }
    /// ```
    pub fn warp_specialized<T: Element>(&self, n: usize, op: Op) -> Result<bool> {
        let combo = crate::gpu::Combo::op::<T>(op)?;
        Ok(crate::gpu::warp_specialized_on(
            &self.gpu,
            &combo,
            &self.options,
            n,
        ))
    }

    fn plan_for(
        &self,
        combo: crate::gpu::Combo,
        n: usize,
    ) -> Result<Option<crate::plan::LookbackPlan>> {
        let algorithm = self.options.algorithm.resolve(combo.exact);
        if !matches!(
            algorithm,
            Algorithm::LookBack | Algorithm::LookBackDeterministic
        ) {
            return Ok(None);
        }
        let (plan, _) =
            crate::gpu::lookback_plan_on(&self.gpu, &combo, algorithm, &self.options, n)?;
        Ok(Some(plan))
    }

    pub(crate) fn with_scanner<R>(
        &self,
        f: impl FnOnce(&mut Scanner, &Stream) -> Result<R>,
    ) -> Result<R> {
        let mut slot = self.scanner.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(Scanner::new(&self.gpu)?);
        }
        let scanner = slot.as_mut().expect("made above");
        f(scanner, self.stream.unwrap_or(self.gpu.stream()))
    }

    /// Whether a stream of the caller's was set.
    pub(crate) fn has_stream(&self) -> bool {
        self.stream.is_some()
    }

    /// Waits for the stream unless one was given (then the caller does).
    fn finish(&self) -> Result<()> {
        match self.stream {
            Some(_) => Ok(()),
            None => self.gpu.stream().synchronize(),
        }
    }

    /// The scan of `x` with `op`, on the host.
    pub fn scan<T: Element>(&self, x: &(impl Input<T> + ?Sized), op: Op) -> Result<Vec<T>> {
        crate::check_op::<T>(op)?;
        if !self.options.algorithm.is_gpu() {
            return match x.host_slice() {
                Some(host) => cpu::scan_with(host, op, &self.options),
                None => cpu::scan_with(&x.stage(&self.gpu)?.to_vec()?, op, &self.options),
            };
        }
        if let Some(host) = x.host_slice() {
            if let Some(out) = self.scan_host_pipelined(host, op)? {
                return Ok(out);
            }
        }
        self.to_host(x, &self.op_launch::<T>(op))
    }

    /// The scan of the host slice `x` with `op` into the host slice `out` (the same length):
    /// through the device's host pipeline where [`ScanOptions::pipelining`] takes it (chunks
    /// uploaded, scanned and downloaded at once, the same results bit for bit), otherwise
    /// uploaded, scanned and downloaded whole. Page-locked memory (a
    /// [`PinnedBuffer`](gpu_core::PinnedBuffer)'s slices) is read and written by the DMA
    /// engines directly. Waits, like [`scan`](Scan::scan). On an error `out` is untouched when
    /// the failure came before the first results came back (every allocation and setup
    /// failure, out of memory included); after that (only a fault of the device itself stops
    /// a pipeline there) each element holds its result or is untouched.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// let gpu = Gpu::default_device()?;
    /// let x = vec![1u32; 1 << 26];
    /// let mut y = vec![0u32; x.len()];
    /// gpu_scan::Scan::new(&gpu).scan_to_slice(&x, &mut y, Op::Sum)?;
    /// assert_eq!(y[(1 << 26) - 1], 1 << 26);
    /// # Ok(()) }
    /// ```
    pub fn scan_to_slice<T: Element>(&self, x: &[T], out: &mut [T], op: Op) -> Result<()> {
        crate::check_op::<T>(op)?;
        if out.len() != x.len() {
            return Err(Error::invalid(
                "out",
                format!("holds {} elements; the input has {}", out.len(), x.len()),
            ));
        }
        if !self.options.algorithm.is_gpu() {
            out.copy_from_slice(&cpu::scan_with(x, op, &self.options)?);
            return Ok(());
        }
        // SAFETY: the pipeline only ever writes whole elements' bytes copied from device
        // memory holding `T` values (`T: Pod`), so `out` stays initialised.
        let uninit = unsafe { &mut *(out as *mut [T] as *mut [MaybeUninit<T>]) };
        if self.pipelined(x, uninit, op)? {
            return Ok(());
        }
        self.on_device(x, &self.op_launch::<T>(op))?.copy_to(out)
    }

    /// The host-to-host scan of `host` into `out` through the device's host pipeline, where
    /// [`ScanOptions::pipelining`] takes it and it applies (a GPU look-back algorithm, no
    /// stream of the caller's, the staging free): `Ok(true)` with every element of `out`
    /// written, `Ok(false)` with nothing done.
    fn pipelined<T: Element>(
        &self,
        host: &[T],
        out: &mut [MaybeUninit<T>],
        op: Op,
    ) -> Result<bool> {
        if !self.takes_pipeline(host) {
            return Ok(false);
        }
        self.with_scanner(|s, _| s.scan_host_pipelined(host, out, op, &self.options))
    }

    /// Whether [`ScanOptions::pipelining`] sends `host` through the pipeline here.
    fn takes_pipeline<T>(&self, host: &[T]) -> bool {
        self.stream.is_none()
            && self.options.algorithm.is_gpu()
            && self.options.pipelining.applies(std::mem::size_of_val(host))
    }

    /// [`pipelined`](Self::pipelined) into a new `Vec`; `None` where it does not apply.
    fn scan_host_pipelined<T: Element>(&self, host: &[T], op: Op) -> Result<Option<Vec<T>>> {
        if !self.takes_pipeline(host) {
            return Ok(None); // before allocating the output
        }
        let mut out = gpu_core::host_output_vec::<T>(host.len());
        if !self.pipelined(host, out.spare_capacity_mut(), op)? {
            return Ok(None);
        }
        // SAFETY: the pipeline wrote all `host.len()` elements of the spare capacity when it
        // returned Ok(true); `T: Pod` accepts the bytes it copied.
        unsafe { out.set_len(host.len()) };
        Ok(Some(out))
    }

    /// Writes the scan of `x` into `out` (at least as long; the rest is left alone). Waits,
    /// unless a [`stream`](Scan::stream) was set: then only enqueues, and `x`'s device memory
    /// and `out` must stay alive until the stream has run (host inputs are uploaded into a
    /// temporary that does).
    pub fn scan_into<T: Element>(
        &self,
        x: &(impl Input<T> + ?Sized),
        out: &mut DeviceArray<T>,
        op: Op,
    ) -> Result<()> {
        crate::check_op::<T>(op)?;
        let staged = x.stage(&self.gpu)?;
        self.enqueue(
            staged.device_ptr(),
            staged.len(),
            out,
            &self.op_launch::<T>(op),
        )?;
        self.finish()
    }

    /// The scan of `x` with `op` in the accumulator type ([`Element::Accumulator`]): f16 and
    /// bf16 are scanned in f32 and the f32 running values returned (PyTorch's
    /// `cumsum(x, dtype=torch.float32)`; [`scan`](Scan::scan) rounds each to the element type).
    /// For the other types the same as `scan`.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{bf16, Gpu, Op};
    /// let gpu = Gpu::default_device()?;
    /// let x = vec![bf16::ONE; 1000];
    /// let scan = gpu_scan::Scan::new(&gpu);
    /// assert_eq!(scan.scan_accumulated(&x, Op::Sum)?[999], 1000.0);      // f32
    /// assert_eq!(scan.scan(&x, Op::Sum)?[999], bf16::from_f32(1000.0));  // rounded: 1000
    /// # Ok(()) }
    /// ```
    pub fn scan_accumulated<T: Element>(
        &self,
        x: &(impl Input<T> + ?Sized),
        op: Op,
    ) -> Result<Vec<T::Accumulator>> {
        crate::check_op::<T>(op)?;
        if !self.options.algorithm.is_gpu() {
            return match x.host_slice() {
                Some(host) => cpu::scan_accumulated_with(host, op, &self.options),
                None => {
                    cpu::scan_accumulated_with(&x.stage(&self.gpu)?.to_vec()?, op, &self.options)
                }
            };
        }
        let staged = x.stage(&self.gpu)?;
        let out = self.gpu.alloc::<T::Accumulator>(staged.len())?;
        self.enqueue(
            staged.device_ptr(),
            staged.len(),
            &out,
            &self.accumulated_launch::<T>(op),
        )?;
        if let Some(stream) = self.stream {
            stream.synchronize()?;
        }
        out.to_vec()
    }

    /// [`scan_accumulated`](Scan::scan_accumulated) into `out` (at least as long), waiting as
    /// [`scan_into`](Scan::scan_into) does.
    pub fn scan_accumulated_into<T: Element>(
        &self,
        x: &(impl Input<T> + ?Sized),
        out: &mut DeviceArray<T::Accumulator>,
        op: Op,
    ) -> Result<()> {
        crate::check_op::<T>(op)?;
        let staged = x.stage(&self.gpu)?;
        self.enqueue(
            staged.device_ptr(),
            staged.len(),
            out,
            &self.accumulated_launch::<T>(op),
        )?;
        self.finish()
    }

    /// Scans `data` in place. Waits, unless a [`stream`](Scan::stream) was set.
    pub fn scan_in_place<T: Element>(&self, data: &mut DeviceArray<T>, op: Op) -> Result<()> {
        crate::check_op::<T>(op)?;
        self.gpu.check_same_device(data.gpu(), "data")?;
        self.enqueue(
            data.device_ptr(),
            data.len(),
            data,
            &self.op_launch::<T>(op),
        )?;
        self.finish()
    }

    /// The scan of the [`gpu_core::Mat2`] or [`Affine`] values of `x`, in sequence order, on
    /// the host.
    pub fn scan_monoid<M: ScanMonoid>(&self, x: &(impl Input<M> + ?Sized)) -> Result<Vec<M>> {
        if !self.options.algorithm.is_gpu() {
            let host = match x.host_slice() {
                Some(h) => h.to_vec(),
                None => x.stage(&self.gpu)?.to_vec()?,
            };
            return Ok(match self.options.algorithm {
                Algorithm::Rayon => cpu::par_scan_monoid(&host, self.options.kind),
                _ => cpu::scan_monoid(&host, self.options.kind),
            });
        }
        self.to_host(x, &self.monoid_launch::<M>())
    }

    /// [`scan_into`](Scan::scan_into) for monoid values.
    pub fn scan_monoid_into<M: ScanMonoid>(
        &self,
        x: &(impl Input<M> + ?Sized),
        out: &mut DeviceArray<M>,
    ) -> Result<()> {
        let staged = x.stage(&self.gpu)?;
        self.enqueue(
            staged.device_ptr(),
            staged.len(),
            out,
            &self.monoid_launch::<M>(),
        )?;
        self.finish()
    }

    /// Scans the monoid values of `data` in place. Waits, unless a [`stream`](Scan::stream)
    /// was set.
    pub fn scan_monoid_in_place<M: ScanMonoid>(&self, data: &mut DeviceArray<M>) -> Result<()> {
        self.gpu.check_same_device(data.gpu(), "data")?;
        let launch = self.monoid_launch::<M>();
        self.enqueue(data.device_ptr(), data.len(), data, &launch)?;
        self.finish()
    }

    /// The launch of a scan with `op` over `T` values.
    fn op_launch<T: Element>(
        &self,
        op: Op,
    ) -> impl Fn(&mut Scanner, u64, u64, usize, &Stream) -> Result<()> + '_ {
        move |s, input, output, n, stream| {
            s.enqueue_op::<T>(input, output, n, op, &self.options, stream)
        }
    }

    /// The launch of a scan with `op` over `T` values, results in the accumulator type.
    fn accumulated_launch<T: Element>(
        &self,
        op: Op,
    ) -> impl Fn(&mut Scanner, u64, u64, usize, &Stream) -> Result<()> + '_ {
        move |s, input, output, n, stream| {
            s.enqueue_op_accumulated::<T>(input, output, n, op, &self.options, stream)
        }
    }

    /// The launch of a scan of monoid values.
    fn monoid_launch<M: ScanMonoid>(
        &self,
    ) -> impl Fn(&mut Scanner, u64, u64, usize, &Stream) -> Result<()> + '_ {
        move |s, input, output, n, stream| {
            s.enqueue_monoid::<M>(input, output, n, &self.options, stream)
        }
    }

    /// Enqueues `launch` of `n` values at `input` into `out` on this object's stream, after
    /// the checks every device result needs; does not wait.
    fn enqueue<V: Pod>(
        &self,
        input: u64,
        n: usize,
        out: &DeviceArray<V>,
        launch: &Launch<'_>,
    ) -> Result<()> {
        self.gpu.check_same_device(out.gpu(), "out")?;
        check_out_len(n, out.len())?;
        if !self.options.algorithm.is_gpu() {
            return Err(cpu_algorithm_into(self.options.algorithm));
        }
        self.with_scanner(|s, stream| launch(s, input, out.device_ptr(), n, stream))
    }

    /// `launch` over `x`, the result on the host: a host input's upload is scanned in place
    /// (no second array of n values), device data into a new array. One wait: the download
    /// is ordered after the work on the default stream, and a stream of the caller's is
    /// waited for first.
    fn to_host<V: Pod>(&self, x: &(impl Input<V> + ?Sized), launch: &Launch<'_>) -> Result<Vec<V>> {
        self.on_device(x, launch)?.to_vec()
    }

    /// `launch` over `x` into a device array, for a download that follows on the default
    /// stream (a stream of the caller's is waited for here): a host input's upload is scanned
    /// in place, device data into a new array.
    fn on_device<V: Pod>(
        &self,
        x: &(impl Input<V> + ?Sized),
        launch: &Launch<'_>,
    ) -> Result<DeviceArray<V>> {
        let staged = x.stage(&self.gpu)?;
        let (input, n) = (staged.device_ptr(), staged.len());
        let out = match staged.into_upload() {
            Some(upload) => upload,
            None => self.gpu.alloc::<V>(n)?,
        };
        self.enqueue(input, n, &out, launch)?;
        if let Some(stream) = self.stream {
            stream.synchronize()?;
        }
        Ok(out)
    }

    /// Solves `x[t] = a[t]·x[t−1] + b[t]` with `x[−1] = x_init` (an inclusive scan of affine
    /// maps with this object's algorithm), on the host.
    pub fn linear_recurrence<T: Real>(
        &self,
        a: &(impl Input<T> + ?Sized),
        b: &(impl Input<T> + ?Sized),
        x_init: T,
    ) -> Result<Vec<T>>
    where
        Affine<T>: ScanMonoid,
    {
        let (a, b) = (a.stage(&self.gpu)?, b.stage(&self.gpu)?);
        crate::cpu::check_recurrence(a.len(), b.len())?;
        let (da, db) = (a.into_device_array()?, b.into_device_array()?);
        let mut x = self.gpu.alloc::<T>(da.len())?;
        self.with_scanner(|s, _| s.linear_recurrence(&da, &db, x_init, &mut x, &self.options))?;
        x.to_vec()
    }

    /// [`linear_recurrence`](Scan::linear_recurrence) into `out` (at least as long as `a`; the
    /// rest is left alone), with a GPU algorithm. Waits, unless a [`stream`](Scan::stream) was
    /// set: then it returns once the work is enqueued and its temporary freed, which may wait
    /// for the device.
    pub fn linear_recurrence_into<T: Real>(
        &self,
        a: &(impl Input<T> + ?Sized),
        b: &(impl Input<T> + ?Sized),
        x_init: T,
        out: &mut DeviceArray<T>,
    ) -> Result<()>
    where
        Affine<T>: ScanMonoid,
    {
        let (a, b) = (a.stage(&self.gpu)?, b.stage(&self.gpu)?);
        crate::cpu::check_recurrence(a.len(), b.len())?;
        self.gpu.check_same_device(out.gpu(), "out")?;
        check_out_len(a.len(), out.len())?;
        if !self.options.algorithm.is_gpu() {
            return Err(cpu_algorithm_into(self.options.algorithm));
        }
        if a.is_empty() {
            return Ok(());
        }
        let options = self.options.kind(ScanKind::Inclusive);
        let (pa, pb, n, px) = (a.device_ptr(), b.device_ptr(), a.len(), out.device_ptr());
        self.with_scanner(|s, stream| {
            s.enqueue_recurrence(pa, pb, n, x_init, px, &options, stream)
        })?;
        self.finish()
    }
}

fn check_out_len(n: usize, out: usize) -> Result<()> {
    if out < n {
        return Err(Error::invalid(
            "out",
            format!("holds {out} elements, the scan writes {n}"),
        ));
    }
    Ok(())
}

fn cpu_algorithm_into(a: Algorithm) -> Error {
    Error::invalid(
        "algorithm",
        format!(
            "{a:?} runs on the host: use Scan::scan (host result) or gpu_scan::cpu for it, or a \
             GPU algorithm for device results"
        ),
    )
}
