//! The GPU side: [`Conv1d`] (a mask on the device with its options) and the launches.

use std::sync::{Arc, Mutex, PoisonError};

use ndarray::{Array2, ArrayView2};

use gpu_core::{kernel_args, DeviceArray, Error, Gpu, Input, LaunchConfig, Result, Stream};

use crate::constant::with_constant_mask;
use crate::kernels::{PTX, PTX_SM80, PTX_SM90A};
use crate::plan::{
    auto_fixed_tiles_per_row, auto_fixed_wide_tiles_per_row, auto_tiles_per_row, offset,
    output_len, Path, AUTO_BLOCK, AUTO_FIXED_BLOCK,
};
use crate::tensor::{self, TENSOR_BLOCK, TENSOR_MAX_WIDTH, WARPGROUP_BLOCK};
use crate::{Boundary, Mode, Operation, Options, Real, Strategy};

/// Threads per block of the per-output kernels (basic, constant).
const DIRECT_BLOCK: u32 = 256;

/// Spans of outputs launched on their own ([`Conv1d::enqueue_span`]) start on multiples of
/// this: a multiple of every kernel's tile and vector width, so that each output is computed
/// by the same arithmetic as in a launch over the whole result, and stores stay aligned.
pub(crate) const SPAN_ALIGN: usize = 1 << 16;

/// A correlation or convolution with one mask, ready to run on the device: the mask (reversed
/// for a convolution) lives in device memory, the options are checked.
///
/// [`run`](Conv1d::run) and [`run_rows`](Conv1d::run_rows) return host results and wait;
/// [`run_into`](Conv1d::run_into) and [`run_rows_into`](Conv1d::run_rows_into) write device
/// arrays, and with [`stream`](Conv1d::stream) set only enqueue (no host synchronisation), for
/// timing with events.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_conv1d::{Conv1d, Mode, Options, Strategy};
/// let gpu = gpu_core::Gpu::default_device()?;
/// let mask = vec![1.0f32 / 31.0; 31];
/// let conv = Conv1d::correlation(&gpu, &mask, Options::new().strategy(Strategy::TILED_HALO))?;
/// let x = gpu.upload(&vec![1.0f32; 1 << 24])?;
/// let mut y = gpu.alloc::<f32>(conv.output_len(x.len())?)?;
/// let stream = gpu.new_stream()?;
/// let on_stream = conv.clone().stream(&stream);
/// let timer = gpu_core::GpuTimer::new(&gpu)?;
/// timer.start(&stream)?;
/// on_stream.run_into(&x, &mut y)?; // enqueued only
/// timer.stop(&stream)?;
/// println!("{:.3} ms", timer.elapsed_ms()?);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Conv1d<'s, T: Real> {
    gpu: Gpu,
    /// Where [`run_into`](Conv1d::run_into) enqueues without waiting; `None`: the device's
    /// default stream, waited for.
    stream: Option<&'s Stream>,
    /// The effective mask (reversed for a convolution) in the type the sums run in
    /// ([`Real::Wide`]: f32 for 16-bit signals). Shared by clones: cloning a `Conv1d` uploads
    /// nothing.
    mask: Arc<DeviceArray<T::Wide>>,
    /// The same mask on the host: the fixed-width kernels take it by value as a kernel
    /// parameter.
    mask_host: Arc<[T::Wide]>,
    /// Whether the tensor-core kernels take this mask ([`tensor::accepts`]).
    tensor_ok: bool,
    /// The mask's Toeplitz fragments for the tensor-core kernels, built and uploaded by the
    /// first tensor-core launch (up to 2 MiB for f32: most convolutions never need them).
    /// Shared by clones.
    fragments: Arc<Mutex<Option<Arc<DeviceArray<u32>>>>>,
    /// The mask's rows for the warpgroup kernels ([`tensor::warpgroup_rows`]), built and
    /// uploaded by the first warpgroup launch. Shared by clones.
    warpgroup_rows: Arc<Mutex<Option<Arc<DeviceArray<T>>>>>,
    /// The FFT path's tables (the mask's spectrum and the twiddles, [`crate::fft::tables`]) for
    /// each transform size used so far, built and uploaded by its first launch. Shared by
    /// clones.
    fft_tables: FftTables<T::Wide>,
    /// The cuFFT path's plans, scratch and mask spectra per segment size, made by its first
    /// run of each size. Shared by clones (their cuFFT runs take turns).
    cufft: crate::cufft::Cache<T::Wide>,
    operation: Operation,
    options: Options,
}

impl<T: Real> std::fmt::Debug for Conv1d<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conv1d")
            .field("type", &T::NAME)
            .field("mask_len", &self.mask.len())
            .field("operation", &self.operation)
            .field("options", &self.options)
            .field("stream", &self.stream.is_some())
            .finish()
    }
}

impl<T: Real> Conv1d<'static, T> {
    /// `operation` with `mask` on `gpu`. Fails on an empty mask or on a strategy that cannot
    /// take it (tile size, constant-memory capacity).
    pub fn new(gpu: &Gpu, operation: Operation, mask: &[T], options: Options) -> Result<Self> {
        let effective = operation.effective_mask(mask)?;
        options.strategy.validate::<T>(effective.len())?;
        // An explicit FFT past one block's transform needs cuFFT: refused here, nothing run.
        if let Strategy::Fft { size } = options.strategy {
            if size as usize > crate::fft_max_size::<T>()
                || (size == 0 && effective.len() > crate::fft_max_width::<T>())
            {
                crate::cufft::require("strategy")?;
            }
        }
        let tensor_ok = tensor::accepts(&effective);
        let m: Vec<T::Wide> = effective.into_iter().map(Real::widen).collect();
        Ok(Conv1d {
            gpu: gpu.clone(),
            stream: None,
            mask: Arc::new(gpu.upload(&m)?),
            mask_host: m.into(),
            tensor_ok,
            fragments: Arc::default(),
            warpgroup_rows: Arc::default(),
            fft_tables: Arc::default(),
            cufft: Arc::default(),
            operation,
            options,
        })
    }

    /// Cross-correlation with `mask` (`numpy.correlate`).
    pub fn correlation(gpu: &Gpu, mask: &[T], options: Options) -> Result<Self> {
        Self::new(gpu, Operation::Correlation, mask, options)
    }

    /// Convolution with `mask` (`numpy.convolve`: the mask reversed).
    pub fn convolution(gpu: &Gpu, mask: &[T], options: Options) -> Result<Self> {
        Self::new(gpu, Operation::Convolution, mask, options)
    }
}

impl<'s, T: Real> Conv1d<'s, T> {
    /// The same convolution with another output mode (builder).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.options.mode = mode;
        self
    }

    /// The same convolution with another boundary rule (builder).
    pub fn boundary(mut self, boundary: Boundary) -> Self {
        self.options.boundary = boundary;
        self
    }

    /// The same convolution with another kernel (builder; checked against the mask when it
    /// runs).
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.options.strategy = strategy;
        self
    }

    /// The same convolution with another choice of host pipeline for host signals with host
    /// results ([`run`](Conv1d::run) of a host slice, [`run_to_slice`](Conv1d::run_to_slice)):
    /// [`Pipelining::Auto`](gpu_core::Pipelining::Auto) by default (from
    /// [`gpu_core::PIPELINE_MIN_BYTES`] of signal on).
    pub fn pipelining(mut self, pipelining: gpu_core::Pipelining) -> Self {
        self.options.pipelining = pipelining;
        self
    }

    /// The same convolution on `stream`: [`run_into`](Conv1d::run_into) then only enqueues.
    /// Host-result methods still wait.
    pub fn stream<'t>(self, stream: &'t Stream) -> Conv1d<'t, T> {
        Conv1d {
            gpu: self.gpu,
            stream: Some(stream),
            mask: self.mask,
            mask_host: self.mask_host,
            tensor_ok: self.tensor_ok,
            fragments: self.fragments,
            warpgroup_rows: self.warpgroup_rows,
            fft_tables: self.fft_tables,
            cufft: self.cufft,
            operation: self.operation,
            options: self.options,
        }
    }

    /// Writes the result for the signal `x` (any [`Input`]) into `out`, which must hold exactly
    /// [`output_len`](Conv1d::output_len)`(n)` elements. Waits, unless a
    /// [`stream`](Conv1d::stream) was set: then only enqueues, and `x`'s device memory and `out`
    /// must stay alive until the stream has run (host inputs are uploaded into a temporary
    /// that does).
    pub fn run_into(&self, x: &(impl Input<T> + ?Sized), out: &mut DeviceArray<T>) -> Result<()> {
        let x = x.stage(&self.gpu)?;
        let rows = usize::from(!x.is_empty() || !out.is_empty());
        self.enqueue_rows(x.device_ptr(), x.len(), rows, out, self.run_stream())?;
        self.finish()
    }

    /// The stream work runs on: the one given to [`stream`](Conv1d::stream), else the
    /// device's default stream.
    pub(crate) fn run_stream(&self) -> &Stream {
        self.stream.unwrap_or(self.gpu.stream())
    }

    /// Waits for the stream the work was enqueued on.
    pub(crate) fn run_stream_sync(&self) -> Result<()> {
        self.run_stream().synchronize()
    }

    /// Whether a caller's stream was set (work is then only enqueued where possible).
    pub(crate) fn has_stream(&self) -> bool {
        self.stream.is_some()
    }

    /// After `_into` work: waits, unless a stream was given (then the caller does).
    fn finish(&self) -> Result<()> {
        match self.stream {
            Some(_) => Ok(()),
            None => self.gpu.stream().synchronize(),
        }
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Mask length `w`.
    pub fn mask_len(&self) -> usize {
        self.mask.len()
    }

    /// Correlation or convolution.
    pub fn operation(&self) -> Operation {
        self.operation
    }

    /// Mode, boundary and strategy.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Outputs for a signal (row) of `n` elements (see [`output_len`]).
    pub fn output_len(&self, n: usize) -> Result<usize> {
        output_len(n, self.mask.len(), self.options.mode)
    }

    /// The kernel that runs for signals (rows) of `n` elements on this device.
    pub fn path(&self, n: usize) -> Result<Path> {
        Ok(self.resolve(self.output_len(n)?))
    }

    pub(crate) fn resolve(&self, n_out: usize) -> Path {
        let w = self.mask.len();
        let at = crate::plan::Crossovers::from_keys(|k| self.gpu.tuned(k));
        // Only asked (a library load, once) where the block FFT cannot take the mask or this
        // device's crossover sends the mask to cuFFT.
        let cufft = (w > crate::fft_max_width::<T>() || w >= at.cufft_min::<T>())
            && crate::cufft::cufft_available();
        crate::plan::resolve::<T>(
            self.options.strategy,
            n_out,
            w,
            tensor_cores(&self.gpu) && self.tensor_ok,
            warpgroup_cores(&self.gpu),
            cufft,
            &at,
        )
    }

    /// The tensor-core A fragments of the mask on the device: built and uploaded on first use,
    /// then shared by every clone.
    fn tensor_fragments(&self) -> Result<Arc<DeviceArray<u32>>> {
        self.built_once(&self.fragments, |m| {
            tensor::fragments(m).ok_or_else(|| {
                Error::invalid(
                    "mask",
                    format!(
                        "Strategy::TensorCore takes {} masks of at most {TENSOR_MAX_WIDTH} \
                         elements, f32 ones only of finite values below 2^127 in magnitude (the \
                         TF32 split would turn the others into NaN); use Strategy::Auto",
                        T::NAME
                    ),
                )
            })
        })
    }

    /// The warpgroup kernels' mask rows on the device: built and uploaded on first use, then
    /// shared by every clone.
    fn warpgroup_mask_rows(&self) -> Result<Arc<DeviceArray<T>>> {
        self.built_once(&self.warpgroup_rows, |m| Ok(tensor::warpgroup_rows(m)))
    }

    /// The array in `slot`, or else `build` of the effective mask (back in T: exact, as widening
    /// was) uploaded and kept there for every clone.
    fn built_once<U: gpu_core::Pod>(
        &self,
        slot: &Mutex<Option<Arc<DeviceArray<U>>>>,
        build: impl FnOnce(&[T]) -> Result<Vec<U>>,
    ) -> Result<Arc<DeviceArray<U>>> {
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(a) = slot.as_ref() {
            return Ok(Arc::clone(a));
        }
        let m: Vec<T> = self.mask_host.iter().map(|&v| T::narrow(v)).collect();
        let a = Arc::new(self.gpu.upload(&build(&m)?)?);
        *slot = Some(Arc::clone(&a));
        Ok(a)
    }

    /// The FFT tables for a size of `size` points (`even_odd`: packed as a tile's even and odd
    /// points) of the mask behind `pad` zeros ([`fft_pad`](crate::fft::fft_pad)), or (where
    /// `parts` is not 0, even and odd points) of its parts each behind `pad` zeros, on the
    /// device: built and uploaded on first use, then shared by every clone.
    fn fft_tables(
        &self,
        size: usize,
        even_odd: bool,
        pad: usize,
        parts: usize,
    ) -> Result<Arc<DeviceArray<T::Wide>>> {
        let mut cache = self
            .fft_tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let key = (size, even_odd, pad, parts);
        if let Some((_, t)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(t));
        }
        let taps = || self.mask_host.iter().map(|&v| gpu_core::Element::to_f64(v));
        let mask: Vec<f64> = std::iter::repeat(0.0).take(pad).chain(taps()).collect();
        let tables = if parts > 0 {
            crate::fft::parts_tables::<T::Wide>(&taps().collect::<Vec<_>>(), size, parts, pad)
        } else if even_odd {
            crate::fft::even_odd_tables::<T::Wide>(&mask, size)
        } else {
            crate::fft::tables::<T::Wide>(&mask, size)
        };
        let t = Arc::new(self.gpu.upload(&tables)?);
        cache.push((key, Arc::clone(&t)));
        Ok(t)
    }

    /// Runs on any [`Input`] signal — a host slice, `Vec`, array or ndarray (copied in), a
    /// [`DeviceArray`] or [`gpu_core::DeviceSlice`] (read in place) — and copies the result
    /// out (waits, on this object's stream too).
    pub fn run(&self, signal: &(impl Input<T> + ?Sized)) -> Result<Vec<T>> {
        if let Some(host) = signal.host_slice() {
            if let Some(out) = self.run_host_pipelined(host)? {
                return Ok(out);
            }
        }
        let x = signal.stage(&self.gpu)?;
        let n_out = self.output_len(x.len())?;
        if n_out == 0 {
            return Ok(Vec::new());
        }
        let mut y = self.gpu.alloc::<T>(n_out)?;
        let rows = usize::from(!x.is_empty());
        let stream = self.run_stream();
        self.enqueue_rows(x.device_ptr(), x.len(), rows, &mut y, stream)?;
        if self.stream.is_some() {
            stream.synchronize()?;
        }
        y.to_vec()
    }

    /// Runs on every row of `signals` in one launch: a `rows × n_out` array.
    pub fn run_rows(&self, signals: ArrayView2<'_, T>) -> Result<Array2<T>> {
        let (rows, n) = signals.dim();
        let n_out = self.output_len(n)?;
        if rows == 0 || n_out == 0 {
            return Ok(Array2::from_elem((rows, n_out), T::ZERO));
        }
        if let Some(x) = signals.as_slice() {
            if let Some(y) = self.rows_host_pipelined(x, rows)? {
                return Array2::from_shape_vec((rows, n_out), y)
                    .map_err(|e| Error::invalid("signals", e.to_string()));
            }
        }
        let x = self.gpu.upload_array(&signals)?;
        let mut y = self.gpu.alloc::<T>(rows * n_out)?;
        let stream = self.run_stream();
        self.enqueue_rows(x.device_ptr(), x.len(), rows, &mut y, stream)?;
        if self.stream.is_some() {
            stream.synchronize()?;
        }
        Array2::from_shape_vec((rows, n_out), y.to_vec()?)
            .map_err(|e| Error::invalid("signals", e.to_string()))
    }

    /// Writes the results for `rows` signals stored one after the other in `signals` (any
    /// [`Input`] of `rows × n` elements in logical order; an `Array2` of `rows` rows, a device
    /// array) into `out` (`rows × n_out`, rows one after the other), in one launch. Waits,
    /// unless a [`stream`](Conv1d::stream) was set: then only enqueues, as
    /// [`run_into`](Conv1d::run_into).
    pub fn run_rows_into(
        &self,
        signals: &(impl Input<T> + ?Sized),
        rows: usize,
        out: &mut DeviceArray<T>,
    ) -> Result<()> {
        let x = signals.stage(&self.gpu)?;
        self.enqueue_rows(x.device_ptr(), x.len(), rows, out, self.run_stream())?;
        self.finish()
    }

    /// Enqueues the convolution of the signal `input` into `output` (exactly
    /// [`output_len`](Conv1d::output_len)`(input.len())` elements) on `stream`; returns without
    /// waiting. Both arrays must stay alive until the stream has run it (dropping device memory
    /// waits for the device).
    #[deprecated(
        since = "0.2.0",
        note = "use `conv.stream(s).run_into(input, output)` (docs/api.md)"
    )]
    pub fn run_device(
        &self,
        input: &DeviceArray<T>,
        output: &mut DeviceArray<T>,
        stream: &Stream,
    ) -> Result<()> {
        let rows = usize::from(!input.is_empty() || !output.is_empty());
        #[allow(deprecated)]
        self.run_device_rows(input, rows, output, stream)
    }

    /// Enqueues the convolution of `rows` signals stored one after the other in `input`
    /// (`rows × n` elements) into `output` (`rows × n_out`, rows one after the other) on
    /// `stream`, in one launch; returns without waiting.
    #[deprecated(
        since = "0.2.0",
        note = "use `conv.stream(s).run_rows_into(input, rows, output)` (docs/api.md)"
    )]
    pub fn run_device_rows(
        &self,
        input: &DeviceArray<T>,
        rows: usize,
        output: &mut DeviceArray<T>,
        stream: &Stream,
    ) -> Result<()> {
        if !input.gpu().same_device(&self.gpu) {
            return Err(Error::invalid(
                "input",
                "the arrays and the convolution live on different devices",
            ));
        }
        self.enqueue_rows(input.device_ptr(), input.len(), rows, output, stream)
    }

    /// [`run_device_rows`](Conv1d::run_device_rows) over `len` elements of this device's
    /// memory at `input`, which the caller keeps alive until the stream has run.
    fn enqueue_rows(
        &self,
        input: u64,
        len: usize,
        rows: usize,
        output: &mut DeviceArray<T>,
        stream: &Stream,
    ) -> Result<()> {
        if !output.gpu().same_device(&self.gpu) {
            return Err(Error::invalid(
                "input",
                "the arrays and the convolution live on different devices",
            ));
        }
        self.enqueue_rows_at(input, len, rows, output.device_ptr(), output.len(), stream)
    }

    /// [`enqueue_rows`](Self::enqueue_rows) into `output_len` elements of this device's memory
    /// at `output`, which the caller keeps alive until the stream has run.
    pub(crate) fn enqueue_rows_at(
        &self,
        input: u64,
        len: usize,
        rows: usize,
        output: u64,
        output_len: usize,
        stream: &Stream,
    ) -> Result<()> {
        // The builder may have changed the strategy since `new` checked it.
        self.options.strategy.validate::<T>(self.mask.len())?;
        if rows == 0 {
            if len != 0 || output_len != 0 {
                return Err(Error::invalid(
                    "rows",
                    "0 rows, but the input or output array is not empty",
                ));
            }
            return Ok(());
        }
        if len % rows != 0 {
            return Err(Error::invalid(
                "rows",
                format!("an input of {len} elements does not split into {rows} rows"),
            ));
        }
        let n = len / rows;
        let n_out = self.output_len(n)?;
        let expected = rows
            .checked_mul(n_out)
            .ok_or_else(|| Error::invalid("rows", "output size overflows"))?;
        if output_len != expected {
            return Err(Error::invalid(
                "output",
                format!(
                    "{output_len} elements, expected {rows} rows × {n_out} outputs = {expected}"
                ),
            ));
        }
        if expected == 0 {
            return Ok(());
        }
        let shape = Shape {
            rows: rows as u64,
            n: n as u64,
            n_out: n_out as u64,
            off: offset(self.options.mode, self.mask.len()),
            w: self.mask.len() as u64,
            boundary: self.options.boundary.code(),
            span_start: 0,
        };
        self.launch(input, output, shape, self.resolve(n_out), stream)
    }

    /// Enqueues outputs `span` of the one-row result for a signal of `n` elements at `input`
    /// into the result's memory at `output` (all `output_len(n)` outputs), with `path` (the
    /// full result's: an output comes out the same bit for bit whatever span it is launched
    /// in, the span starting on a multiple of [`SPAN_ALIGN`]; the FFT path's tile pairs are
    /// the whole row's). The caller keeps both alive until the stream has run and guarantees
    /// that the inputs the span reads have arrived on the device: its outputs' windows, and
    /// the [`span_rule`](crate::host::span_rule)'s reach of outputs' windows more on each side.
    pub(crate) fn enqueue_span(
        &self,
        input: u64,
        n: usize,
        output: u64,
        span: std::ops::Range<usize>,
        path: Path,
        stream: &Stream,
    ) -> Result<()> {
        let n_out = self.output_len(n)?;
        if span.end > n_out || span.start > span.end || span.start % SPAN_ALIGN != 0 {
            return Err(Error::invalid(
                "span",
                format!("{span:?} of {n_out} outputs (starts must be multiples of {SPAN_ALIGN})"),
            ));
        }
        if span.is_empty() {
            return Ok(());
        }
        if let Path::CuFft { .. } = path {
            // cuFFT's segments are planned over whole rows.
            return Err(Error::invalid(
                "span",
                "the cuFFT path runs over whole rows only",
            ));
        }
        let shape = Shape {
            rows: 1,
            n: n as u64,
            n_out: span.len() as u64,
            off: offset(self.options.mode, self.mask.len()) + span.start as i64,
            w: self.mask.len() as u64,
            boundary: self.options.boundary.code(),
            span_start: span.start as u64,
        };
        let at = output + (span.start * std::mem::size_of::<T>()) as u64;
        self.launch(input, at, shape, path, stream)
    }

    /// Enqueues outputs `span` of `rows` signals of `n` elements each, whose positions
    /// `first .. first + m` lie on the device as packed rows of `m` at `input`, into packed
    /// rows of `span.len()` outputs at `output` (16-byte aligned), with `path` (the whole
    /// signals' path, one with a [`span_rule`](crate::host::span_rule)). The rows' ends stand
    /// for the signal's ends. The caller guarantees the rule: `span.start` a multiple of its
    /// quantum (or the end of the result), `first` and `m − n` multiples of its alignment; that
    /// every position the launch reads (the windows of `span`, and those of the rule's reach of
    /// outputs more on each side) lies inside `first .. first + m`, past the left end only
    /// where `first == 0` and past the right end only where `first + m == n`, so the boundary
    /// rule applied at the rows' ends is the signal's; and keeps both arrays alive until the
    /// stream has run.
    // The window's place in the signal and the two arrays: each argument is one fact.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_rows_window(
        &self,
        input: u64,
        rows: usize,
        (first, m, n): (usize, usize, usize),
        output: u64,
        span: std::ops::Range<usize>,
        path: Path,
        stream: &Stream,
    ) -> Result<()> {
        self.options.strategy.validate::<T>(self.mask.len())?;
        let n_out = self.output_len(n)?;
        if span.end > n_out || span.start > span.end || first + m > n {
            return Err(Error::invalid(
                "span",
                format!("{span:?} of {n_out} outputs, positions {first}+{m} of {n}"),
            ));
        }
        let Some(rule) = crate::host::span_rule::<T>(path, self.mask.len()) else {
            return Err(Error::invalid(
                "path",
                format!("{path:?} runs over whole rows only"),
            ));
        };
        let aligned = |v: usize| v % rule.align == 0;
        if !(span.start % rule.quantum == 0 || span.start == n_out)
            || !aligned(first)
            || !aligned(m.abs_diff(n))
        {
            return Err(Error::invalid(
                "span",
                format!(
                    "{span:?} from position {first}, rows of {m} of {n}: {path:?} needs spans \
                     on multiples of {} outputs and windows aligned to {} elements",
                    rule.quantum, rule.align
                ),
            ));
        }
        if span.is_empty() || rows == 0 {
            return Ok(());
        }
        let shape = Shape {
            rows: rows as u64,
            n: m as u64,
            n_out: span.len() as u64,
            off: offset(self.options.mode, self.mask.len()) + span.start as i64 - first as i64,
            w: self.mask.len() as u64,
            boundary: self.options.boundary.code(),
            span_start: span.start as u64,
        };
        self.launch(input, output, shape, path, stream)
    }

    /// Launches `path` over `shape` (checked by the caller: `input` holds `rows · n` elements
    /// and `output` `rows · n_out`, this context's memory, alive until the stream has run,
    /// `output` 16-byte aligned).
    fn launch(
        &self,
        input: u64,
        output: u64,
        shape: Shape,
        path: Path,
        stream: &Stream,
    ) -> Result<()> {
        if path == Path::TensorCore && !tensor_cores(&self.gpu) {
            let (major, minor) = self.gpu.properties().compute_capability;
            return Err(Error::invalid(
                "strategy",
                format!(
                    "Strategy::TensorCore needs a GPU of compute capability 8.0 or later; this \
                     one is {major}.{minor}"
                ),
            ));
        }
        if path == Path::Warpgroup && !warpgroup_cores(&self.gpu) {
            let (major, minor) = self.gpu.properties().compute_capability;
            return Err(Error::invalid(
                "strategy",
                format!(
                    "Strategy::Warpgroup needs a GPU of compute capability 9.0 (H100, H200: its \
                     wgmma instructions exist there only); this one is {major}.{minor}; use \
                     Strategy::TensorCore or Strategy::Auto"
                ),
            ));
        }
        if let Path::CuFft { size } = path {
            return crate::cufft::run::<T>(
                &self.cufft,
                &self.mask,
                input,
                output,
                shape,
                size as usize,
                stream,
            );
        }
        let pack = if path.needs_sm90a() {
            &PTX_SM90A
        } else if path.prefers_sm80::<T>() && tensor_cores(&self.gpu) {
            &PTX_SM80
        } else {
            &PTX
        };
        let name = match path {
            Path::FftEvenOdd { size } => {
                crate::fft::even_odd_kernel_name::<T>(size as usize, shape.w as usize)
            }
            _ => path.kernel_name::<T>(),
        };
        let kernel = self.gpu.kernel(pack, &name)?;
        let (x, y, m) = (input, output, self.mask.device_ptr());
        let Shape {
            rows,
            n,
            n_out,
            off,
            w,
            boundary,
            span_start,
        } = shape;
        match path {
            Path::Basic => {
                let config = kernel.grid_stride_config(rows * n_out, DIRECT_BLOCK, 1, 0)?;
                // SAFETY: conv1d_basic_T(const T* x, const A* mask, T* y, u64 rows, u64 n,
                // u64 n_out, i64 off, u64 w, int boundary), A = T::Wide: x holds rows·n
                // elements, mask w, y rows·n_out (checked above); all three are device arrays
                // of this context.
                unsafe {
                    kernel.launch(
                        config,
                        stream,
                        &kernel_args![x, m, y, rows, n, n_out, off, w, boundary],
                    )
                }
            }
            Path::Constant => {
                let config = kernel.grid_stride_config(rows * n_out, DIRECT_BLOCK, 1, 0)?;
                with_constant_mask(&self.gpu, &kernel, &self.mask, stream, || {
                    // SAFETY: conv1d_constant_T(const T* x, T* y, u64 rows, u64 n, u64 n_out,
                    // i64 off, u64 w, int boundary): sizes as for the basic kernel; the w-element
                    // mask was copied into conv1d_mask on this stream just before.
                    unsafe {
                        kernel.launch(
                            config,
                            stream,
                            &kernel_args![x, y, rows, n, n_out, off, w, boundary],
                        )
                    }
                })
            }
            Path::TiledHalo { tile } | Path::TiledCached { tile } => {
                let halo = matches!(path, Path::TiledHalo { .. });
                let staged = if halo {
                    tile as u64 + w - 1
                } else {
                    tile as u64
                };
                let shared = staged as usize * std::mem::size_of::<T>();
                let props = self.gpu.properties();
                if shared > props.shared_memory_per_block_optin {
                    return Err(Error::invalid(
                        "mask",
                        format!(
                            "tile {tile} + halo {} needs {shared} bytes of shared memory, the \
                             device allows {} per block",
                            w - 1,
                            props.shared_memory_per_block_optin
                        ),
                    ));
                }
                if tile > kernel.max_threads_per_block()? {
                    return Err(Error::invalid(
                        "tile",
                        format!(
                            "{tile} threads per block exceed what `{}` can launch ({})",
                            kernel.name(),
                            kernel.max_threads_per_block()?
                        ),
                    ));
                }
                let tiles_per_row = n_out.div_ceil(tile as u64);
                let config = LaunchConfig::new(grid(rows * tiles_per_row, &self.gpu), tile)
                    .with_shared_bytes(shared as u32);
                with_constant_mask(&self.gpu, &kernel, &self.mask, stream, || {
                    // Inside the constant-mask lock, so no other launch changes the limit
                    // between setting it and launching.
                    if shared > props.shared_memory_per_block {
                        kernel.set_max_dynamic_shared(shared)?;
                    }
                    // SAFETY: conv1d_tiled_{halo,cached}_T(const T* x, T* y, u64 rows, u64 n,
                    // u64 n_out, i64 off, u64 w, int boundary, u64 tiles_per_row): sizes as for
                    // the basic kernel; block = tile threads with `shared` bytes of dynamic shared
                    // memory, what the kernel stages (tile + w − 1 or tile elements); the mask
                    // was copied into conv1d_mask on this stream just before.
                    unsafe {
                        kernel.launch(
                            config,
                            stream,
                            &kernel_args![x, y, rows, n, n_out, off, w, boundary, tiles_per_row],
                        )
                    }
                })
            }
            Path::RegisterTiled => {
                let tiles_per_row = auto_tiles_per_row::<T>(n_out as usize);
                let config = LaunchConfig::new(grid(rows * tiles_per_row, &self.gpu), AUTO_BLOCK);
                // SAFETY: conv1d_auto_T(const T* x, const A* mask, T* y, u64 rows, u64 n,
                // u64 n_out, i64 off, u64 w, int boundary, u64 tiles_per_row): sizes as for the
                // basic kernel; x and y are whole allocations (16-byte aligned, as the vector
                // loads need); AUTO_BLOCK threads as compiled (static shared memory only);
                // tiles_per_row covers n_out outputs for every alignment shift.
                unsafe {
                    kernel.launch(
                        config,
                        stream,
                        &kernel_args![x, m, y, rows, n, n_out, off, w, boundary, tiles_per_row],
                    )
                }
            }
            Path::TensorCore | Path::Warpgroup => {
                // The mask's operand (mma.sync A fragments, or the warpgroup kernels' rows),
                // chunks of t, tiles and shared memory of the kernel that runs.
                let (operand, kt, tiles_per_row, shared, block, on) = if path == Path::TensorCore {
                    let f = self.tensor_fragments()?;
                    debug_assert_eq!(f.len(), tensor::fragment_len::<T>(w as usize));
                    (
                        f.device_ptr(),
                        tensor::chunks::<T>(w as usize),
                        tensor::tiles_per_row::<T>(n_out as usize),
                        tensor::shared_bytes::<T>(w as usize),
                        TENSOR_BLOCK,
                        "on tensor cores",
                    )
                } else {
                    let r = self.warpgroup_mask_rows()?;
                    let kt = tensor::warpgroup_chunks(w as usize);
                    debug_assert_eq!(r.len(), (2 * kt + 7) * 64);
                    (
                        r.device_ptr(),
                        kt,
                        tensor::warpgroup_tiles_per_row(n_out as usize),
                        tensor::warpgroup_shared_bytes(w as usize),
                        WARPGROUP_BLOCK,
                        "on the warpgroup kernel",
                    )
                };
                let kt = kt as i32;
                admit_dynamic_shared(&self.gpu, &kernel, shared, "mask", |max| {
                    format!(
                        "a {w}-element mask needs {shared} bytes of shared memory {on}, the \
                         device allows {max} per block; use Strategy::Auto"
                    )
                })?;
                let config = LaunchConfig::new(grid(rows * tiles_per_row, &self.gpu), block)
                    .with_shared_bytes(shared as u32);
                // SAFETY: conv1d_tensor_T and conv1d_wgmma_T(const T* x, const f32* mask,
                // const uint4* operand, T* y, u64 rows, u64 n, u64 n_out, i64 off, u64 w,
                // int boundary, u64 tiles_per_row, int kt): sizes as for the basic kernel; the
                // mask is w f32 values (T::Wide); the operand is a device allocation (16-byte
                // aligned for the 16-byte loads and copies) built for this w: kt · 32 lanes ·
                // 4 (16-bit) or 8 (f32) u32 A fragments, or the warpgroup kernels' (2 kt + 7) ·
                // 64 values of T (checked above); x and y are whole allocations (16-byte
                // aligned, as the vector loads, copies and stores need); `block` threads as
                // compiled (TENSOR_BLOCK; WARPGROUP_BLOCK, one warpgroup) with `shared` bytes of
                // dynamic shared memory, what the kernel stages for this kt (its limit raised
                // above where needed); tiles_per_row covers n_out outputs for every alignment
                // shift; the sm90a module was loaded on compute capability 9.0 only (checked
                // above).
                unsafe {
                    kernel.launch(
                        config,
                        stream,
                        &kernel_args![
                            x,
                            m,
                            operand,
                            y,
                            rows,
                            n,
                            n_out,
                            off,
                            w,
                            boundary,
                            tiles_per_row,
                            kt
                        ],
                    )
                }
            }
            Path::Fft { size } | Path::FftEvenOdd { size } => {
                let size = size as usize;
                let even_odd = matches!(path, Path::FftEvenOdd { .. });
                crate::fft::validate::<T>(size as u32, w as usize)?;
                // From the whole row's offset, not this launch's (a span's or a window's start
                // moves it): every part of a row keeps the row's tiles.
                let pad =
                    crate::fft::fft_pad(size, w as usize, offset(self.options.mode, w as usize));
                let tables = self.fft_tables(size, even_odd, pad, 0)?;
                let spectrum = tables.device_ptr();
                let twiddles = spectrum + (2 * size * std::mem::size_of::<T::Wide>()) as u64;
                let tile = crate::fft::fft_tile(size, w as usize + pad) as u64;
                // Pairs of tiles within each row, as the whole row's launch pairs them: a span
                // from output `span_start` starts `lead` outputs into its first pair (origin −lead).
                let lead = span_start % (2 * tile);
                let tiles_per_row = (n_out + lead).div_ceil(tile);
                // A block per transform: a pair of tiles, or one tile of the even-and-odd packing.
                let transforms = rows
                    * if even_odd {
                        tiles_per_row
                    } else {
                        tiles_per_row.div_ceil(2)
                    };
                let origin = -(lead as i64);
                let points = crate::fft::fft_points(size, even_odd);
                let shared = crate::fft::shared_bytes::<T>(points);
                admit_dynamic_shared(&self.gpu, &kernel, shared, "strategy", |max| {
                    format!(
                        "an FFT of {size} points needs {shared} bytes of shared memory, the \
                         device allows {max} per block; use a smaller size or Strategy::Auto"
                    )
                })?;
                let threads = (points / crate::fft::fft_points_per_thread::<T>(points)) as u32;
                check_fft_block(&kernel, threads)?;
                let config = LaunchConfig::new(grid(transforms, &self.gpu), threads)
                    .with_shared_bytes(shared as u32);
                // SAFETY: conv1d_fft<N>_T and conv1d_fft_eo<N>_T(const T* x, const Complex<A>*
                // spectrum, const Complex<A>* twiddles, const A* mask, T* y, u64 rows, u64 n, u64
                // n_out, i64 off, u64 w, int boundary, u64 tiles_per_row, i64 origin, int pad), A =
                // T::Wide: x holds rows·n elements, y rows·n_out, mask w (checked above; device
                // arrays of this context; a span's reads are the caller's to have uploaded: the
                // windows of every tile pair it touches and the position before them where pad
                // is 1, crate::host::span_rule); `tables` holds the spectrum (2·size A values:
                // size complex values, or size / 2 pairs of them for the even-and-odd packing)
                // of the mask behind `pad` zeros, then the twiddles of the `points`-point
                // transform (16-byte aligned: 2·size·size_of::<A>() is a multiple of 16), kept
                // alive by the cache after this call; w + pad < size (validated, fft_pad), so
                // tiles have fft_tile(size, w + pad) ≥ 1 outputs and tiles_per_row covers n_out;
                // points / E threads as compiled (checked above), with the `shared` bytes of
                // dynamic shared memory the kernel indexes (FftSlots<points> complex values; the
                // limit raised above where needed).
                unsafe {
                    kernel.launch(
                        config,
                        stream,
                        &kernel_args![
                            x,
                            spectrum,
                            twiddles,
                            m,
                            y,
                            rows,
                            n,
                            n_out,
                            off,
                            w,
                            boundary,
                            tiles_per_row,
                            origin,
                            pad as i32
                        ],
                    )
                }
            }
            Path::FftEvenOddParts { size, parts } => {
                let (size, parts) = (size as usize, parts as usize);
                crate::fft::validate_parts::<T>(parts as u32, w as usize)?;
                let part_w = crate::fft::fft_part_width(w as usize, parts);
                // The parts' spans start where the whole mask's would, one part's width apart:
                // the pad (from the whole row's offset) aligns them all alike (part_w is even).
                let pad = crate::fft::fft_pad(size, part_w, offset(self.options.mode, w as usize));
                let tables = self.fft_tables(size, true, pad, parts)?;
                let spectrum = tables.device_ptr();
                let twiddles =
                    spectrum + (parts * 2 * size * std::mem::size_of::<T::Wide>()) as u64;
                let tile = crate::fft::fft_tile(size, part_w + pad) as u64;
                // One tile a block, tiled from the whole row's origin (as Path::FftEvenOdd).
                let lead = span_start % (2 * tile);
                let tiles_per_row = (n_out + lead).div_ceil(tile);
                let transforms = rows * tiles_per_row;
                let origin = -(lead as i64);
                let points = size / 2;
                let shared = crate::fft::shared_bytes::<T>(points);
                admit_dynamic_shared(&self.gpu, &kernel, shared, "strategy", |max| {
                    format!(
                        "an FFT of {size} span points needs {shared} bytes of shared memory, the \
                         device allows {max} per block; use Strategy::Auto"
                    )
                })?;
                let threads = (points / crate::fft::fft_points_per_thread::<T>(points)) as u32;
                check_fft_block(&kernel, threads)?;
                let config = LaunchConfig::new(grid(transforms, &self.gpu), threads)
                    .with_shared_bytes(shared as u32);
                // SAFETY: conv1d_fft_eo<size>_parts_T(the arguments of conv1d_fft_eo<size>_T,
                // then int parts, u64 part_w): as that launch above, with `tables` holding the
                // `parts` parts' pairs (2·size A values each) then the twiddles of the
                // `points`-point transform (16-byte aligned); validate_parts has checked
                // 1 ≤ parts ≤ FFT_MAX_PARTS and part_w + 1 < size, so part_w + pad < size and
                // tiles have fft_tile(size, part_w + pad) ≥ 1 outputs; a tile's parts read the
                // windows of its outputs (`w` wide: part q from q·part_w on), every point through
                // the boundary rule.
                unsafe {
                    kernel.launch(
                        config,
                        stream,
                        &kernel_args![
                            x,
                            spectrum,
                            twiddles,
                            m,
                            y,
                            rows,
                            n,
                            n_out,
                            off,
                            w,
                            boundary,
                            tiles_per_row,
                            origin,
                            pad as i32,
                            parts as i32,
                            part_w as u64
                        ],
                    )
                }
            }
            Path::CuFft { .. } => unreachable!("run by crate::cufft above"),
            Path::RegisterTiledFixed { width } | Path::RegisterTiledFixedWide { width } => {
                debug_assert_eq!(width as u64, w);
                debug_assert_eq!(self.mask_host.len() as u64, w);
                let tiles_per_row = if matches!(path, Path::RegisterTiledFixedWide { .. }) {
                    auto_fixed_wide_tiles_per_row::<T>(n_out as usize)
                } else {
                    auto_fixed_tiles_per_row::<T>(n_out as usize)
                };
                let config =
                    LaunchConfig::new(grid(rows * tiles_per_row, &self.gpu), AUTO_FIXED_BLOCK);
                let args = kernel_args![x, y, rows, n, n_out, off, boundary, tiles_per_row];
                // The last parameter is the mask itself, by value: the driver copies its
                // w · size_of::<T::Wide>() bytes from this pointer at launch.
                let mask_param = self.mask_host.as_ptr() as *mut std::ffi::c_void;
                let [a0, a1, a2, a3, a4, a5, a6, a7] = args;
                // SAFETY: conv1d_auto_w<W>_T and conv1d_auto_wide_w<W>_f32 (the plan takes it
                // for T = f32 only) are both (const T* x, T* y, u64 rows, u64 n, u64 n_out,
                // i64 off, int boundary, u64 tiles_per_row, Conv1dFixedMask<A, W> mask): sizes as
                // for the basic kernel; x and y are whole allocations (16-byte aligned, as the
                // vector loads need); the path was chosen for W = w, and mask_host holds exactly
                // w elements of A = T::Wide, the by-value struct `{ A m[W]; }` the driver copies;
                // AUTO_FIXED_BLOCK threads as compiled (static shared memory only); tiles_per_row
                // covers n_out outputs for every alignment shift.
                unsafe {
                    kernel.launch(
                        config,
                        stream,
                        &[a0, a1, a2, a3, a4, a5, a6, a7, mask_param],
                    )
                }
            }
        }
    }
}

/// The FFT tables of a `Conv1d`, per size and packing (a few at most).
/// Device tables by (size, even and odd points, pad, parts: 0 for a whole mask).
type FftTables<W> = Arc<Mutex<Vec<((usize, bool, usize, usize), Arc<DeviceArray<W>>)>>>;

pub(crate) struct Shape {
    pub(crate) rows: u64,
    pub(crate) n: u64,
    pub(crate) n_out: u64,
    pub(crate) off: i64,
    pub(crate) w: u64,
    pub(crate) boundary: i32,
    /// The launch's first output's index in the whole result (a span's start; 0 over whole
    /// rows): the FFT path pairs its tiles as the whole row's launch does from there.
    pub(crate) span_start: u64,
}

/// Checks that `kernel` may have `shared` bytes of dynamic shared memory per block on `gpu`
/// (else `InvalidArgument` on `name`, with `message(device maximum)`), raising its limit where
/// `shared` passes the default: always to the device's maximum, so concurrent launches never
/// lower it.
fn admit_dynamic_shared(
    gpu: &Gpu,
    kernel: &gpu_core::Kernel,
    shared: usize,
    name: &'static str,
    message: impl FnOnce(usize) -> String,
) -> Result<()> {
    let props = gpu.properties();
    if shared > props.shared_memory_per_block_optin {
        return Err(Error::invalid(
            name,
            message(props.shared_memory_per_block_optin),
        ));
    }
    if shared > props.shared_memory_per_block {
        kernel.set_max_dynamic_shared(props.shared_memory_per_block_optin)?;
    }
    Ok(())
}

/// An FFT kernel's launch bound is its block (Conv1dFftPolicy): a block of any other size would
/// leave points out of the transform, so a plan whose block differs is refused.
fn check_fft_block(kernel: &gpu_core::Kernel, threads: u32) -> Result<()> {
    let built = kernel.max_threads_per_block()?;
    if built != threads {
        return Err(Error::invalid(
            "strategy",
            format!(
                "`{}` is built for blocks of {built} threads, the plan has {threads}: the \
                 kernels and this crate do not match",
                kernel.name()
            ),
        ));
    }
    Ok(())
}

/// Whether `gpu` has the tensor-core instructions of the sm80 kernels.
fn tensor_cores(gpu: &Gpu) -> bool {
    gpu.properties().compute_capability >= (8, 0)
}

/// Whether `gpu` runs the sm90a (architecture-specific) kernels: compute capability 9.0 only.
pub(crate) fn warpgroup_cores(gpu: &Gpu) -> bool {
    gpu.properties().compute_capability == (9, 0)
}

/// One block per tile, up to the device's grid limit (kernels grid-stride over the rest).
fn grid(tiles: u64, gpu: &Gpu) -> u32 {
    gpu_core::grid_for(tiles, 1, gpu.properties().max_grid_x)
}

/// Cross-correlation of `signal` with `mask` on `gpu` (`numpy.correlate` / `scipy.signal.correlate`
/// semantics; see the crate docs), waiting for the result.
pub fn correlate<T: Real>(
    gpu: &Gpu,
    signal: &(impl Input<T> + ?Sized),
    mask: &[T],
    options: Options,
) -> Result<Vec<T>> {
    Conv1d::correlation(gpu, mask, options)?.run(signal)
}

/// Convolution of `signal` with `mask` on `gpu` (`numpy.convolve` / `scipy.signal.convolve`: the
/// mask reversed), waiting for the result.
pub fn convolve<T: Real>(
    gpu: &Gpu,
    signal: &(impl Input<T> + ?Sized),
    mask: &[T],
    options: Options,
) -> Result<Vec<T>> {
    Conv1d::convolution(gpu, mask, options)?.run(signal)
}

/// [`correlate`] of every row of `signals` with one mask, in one launch.
pub fn correlate_rows<T: Real>(
    gpu: &Gpu,
    signals: ArrayView2<'_, T>,
    mask: &[T],
    options: Options,
) -> Result<Array2<T>> {
    Conv1d::correlation(gpu, mask, options)?.run_rows(signals)
}

/// [`convolve`] of every row of `signals` with one mask, in one launch.
pub fn convolve_rows<T: Real>(
    gpu: &Gpu,
    signals: ArrayView2<'_, T>,
    mask: &[T],
    options: Options,
) -> Result<Array2<T>> {
    Conv1d::convolution(gpu, mask, options)?.run_rows(signals)
}
