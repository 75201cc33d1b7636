//! The GPU entry points: the [`Reduce`] builder, the inputs it accepts, and shortcuts.

mod axis_host;
mod engine;
mod host;
mod host_async;
mod segments_host;
mod shaped;
mod workspace;

use gpu_core::{
    DeviceArray, DeviceSlice, Element, Error, Gpu, Input, LaunchConfig, Op, Pipelining, Pod,
    Result, Stream,
};

use crate::algorithm::{Algorithm, Operation};
use crate::plan::{Kinds, DEFAULT_UNROLL};
use crate::value::{DeviceMonoid, Extreme, Widen};
use engine::{Desc, Engine, Settings};
pub use shaped::DeviceReduceAxis;
pub use workspace::Workspace;

// ---- Value kinds -------------------------------------------------------------------------

fn desc(operation: Operation, kinds: Kinds, input_size: usize, value_size: usize) -> Desc {
    Desc {
        operation,
        kind: kinds.first,
        partials_kind: kinds.partials,
        input_size,
        value_size,
    }
}

fn desc_op<T: Element>(op: Op) -> Result<Desc> {
    op.check::<T>()?;
    let kinds = if T::computes_wider() {
        Kinds::wide(op, T::NAME, T::Accumulator::NAME)
    } else {
        Kinds::op(op, T::NAME)
    };
    Ok(desc(
        Operation::Op(op),
        kinds,
        std::mem::size_of::<T>(),
        std::mem::size_of::<T::Accumulator>(),
    ))
}

/// Bytes of the kernels' (value, index) pair: value at 0, index at 8.
const ARG_PAIR_BYTES: usize = 16;

fn desc_arg<T: Element>(which: Extreme) -> Desc {
    let operation = match which {
        Extreme::Min => Operation::ArgMin,
        Extreme::Max => Operation::ArgMax,
    };
    let kinds = Kinds::arg_in(which, T::NAME, T::Accumulator::NAME);
    desc(operation, kinds, std::mem::size_of::<T>(), ARG_PAIR_BYTES)
}

fn desc_wide<T: Widen>(op: Op) -> Desc {
    desc(
        Operation::Widened(op),
        Kinds::wide(op, T::NAME, T::Wide::NAME),
        std::mem::size_of::<T>(),
        std::mem::size_of::<T::Wide>(),
    )
}

fn desc_monoid<M: DeviceMonoid>() -> Desc {
    let size = std::mem::size_of::<M>();
    desc(Operation::Monoid, Kinds::monoid(M::NAME), size, size)
}

/// A `V` from the first bytes of `bytes`.
fn read_value<V: Pod>(bytes: &[u8]) -> Result<V> {
    if bytes.len() < std::mem::size_of::<V>() {
        return Err(Error::invalid(
            "result",
            "result slot shorter than the value",
        ));
    }
    // SAFETY: at least size_of::<V>() readable bytes (checked); `V: Pod` accepts any bit
    // pattern; read_unaligned has no alignment requirement.
    Ok(unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const V) })
}

/// The index of an argmin/argmax (`which`) result pair's bytes (value, then the index at byte
/// 8) over `len` elements; an index past them is an internal error, never a panic.
pub(crate) fn arg_index(which: Extreme, pair: &[u8], len: usize) -> Result<usize> {
    let index: u64 = read_value(pair.get(8..).unwrap_or_default())?;
    if index >= len as u64 {
        return Err(Error::invalid(
            "x",
            format!(
                "internal error: {} returned index {index} for {len} elements",
                which.kernel_op()
            ),
        ));
    }
    Ok(index as usize)
}

// ---- The builder ---------------------------------------------------------------------------

/// A configured reduction on one GPU: algorithm, block size, unroll factor and stream, with
/// one method per kind of result.
///
/// Every method takes any [`Input`] (a [`DeviceArray`], a [`DeviceSlice`], a slice, a `Vec`,
/// an ndarray array or view), returns the result on the host, and waits for it. Empty inputs
/// give the identity ([`reduce`](Reduce::reduce), [`sum`](Reduce::sum), …) or `None`
/// ([`min`](Reduce::min), [`argmin`](Reduce::argmin), …) without launching anything. For
/// device-side results without waiting (benchmarks), see [`reduce_into`](Reduce::reduce_into).
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{Gpu, Op};
/// use gpu_reduce::{Algorithm, Reduce};
/// let gpu = Gpu::default_device()?;
/// let x = gpu.upload(&(1..=1000).collect::<Vec<i32>>())?;
/// assert_eq!(Reduce::new(&gpu).sum(&x)?, 500_500);
/// let two_pass = Reduce::new(&gpu).algorithm(Algorithm::TwoPass).block_size(512);
/// assert_eq!(two_pass.reduce(&x, Op::Max)?, 1000);
/// assert_eq!(Reduce::new(&gpu).argmin(&vec![3.0f32, f32::NAN, -1.0])?, Some(1));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Reduce<'s> {
    gpu: Gpu,
    algorithm: Algorithm,
    block_size: Option<u32>,
    unroll: u32,
    stream: Option<&'s Stream>,
    pipelining: Pipelining,
}

impl std::fmt::Debug for Reduce<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reduce")
            .field("gpu", &self.gpu)
            .field("algorithm", &self.algorithm)
            .field("block_size", &self.block_size)
            .field("unroll", &self.unroll)
            .field("own_stream", &self.stream.is_some())
            .field("pipelining", &self.pipelining)
            .finish()
    }
}

impl Reduce<'static> {
    /// The default reduction on `gpu`: [`Algorithm::Auto`], default block size, unroll factor
    /// 7, the device's default stream.
    pub fn new(gpu: &Gpu) -> Self {
        Reduce {
            gpu: gpu.clone(),
            algorithm: Algorithm::Auto,
            block_size: None,
            unroll: DEFAULT_UNROLL,
            stream: None,
            pipelining: Pipelining::default(),
        }
    }
}

impl<'s> Reduce<'s> {
    /// Uses `algorithm`.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Uses blocks of `threads` threads (a power of two from 32 to 1024, and at most what the
    /// kernel can run on the device; checked when a reduction runs). Unset, each algorithm
    /// picks its own: 1024 for the single-block ones, 512 for `Auto`'s default kernel, 256
    /// otherwise, lowered when the kernel or its shared memory do not allow it.
    pub fn block_size(mut self, threads: u32) -> Self {
        self.block_size = Some(threads);
        self
    }

    /// Sets the unroll factor of [`Algorithm::Unrolled`] and [`reduce_in_place`]
    /// (2 ..= 1024, checked when a reduction runs; default 7).
    ///
    /// [`reduce_in_place`]: Reduce::reduce_in_place
    pub fn unroll(mut self, uf: u32) -> Self {
        self.unroll = uf;
        self
    }

    /// Runs on `stream` instead of the device's default stream.
    pub fn stream<'t>(self, stream: &'t Stream) -> Reduce<'t> {
        Reduce {
            gpu: self.gpu,
            algorithm: self.algorithm,
            block_size: self.block_size,
            unroll: self.unroll,
            stream: Some(stream),
            pipelining: self.pipelining,
        }
    }

    /// Whether host data go through the device's upload-only host pipeline (chunks uploaded
    /// into a small device ring and reduced while the next ones upload, the partials folded
    /// on the device in order; see the crate's host-link guide): [`Pipelining::Auto`] by
    /// default (from [`gpu_core::PIPELINE_MIN_BYTES`] of input on). Float sums and products are then associated by 8 MiB chunks, deterministic
    /// but not always the same last bits as the one-launch reduction; argmin and argmax give
    /// the one-launch index (each chunk's pair comes down and the pairs are folded in order).
    pub fn pipelining(mut self, pipelining: Pipelining) -> Self {
        self.pipelining = pipelining;
        self
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The algorithm in use.
    pub fn selected_algorithm(&self) -> Algorithm {
        self.algorithm
    }

    fn settings(&self) -> Settings {
        Settings {
            algorithm: self.algorithm,
            block: self.block_size,
            unroll: self.unroll,
        }
    }

    fn launch_stream(&self) -> &Stream {
        self.stream.unwrap_or_else(|| self.gpu.stream())
    }

    /// Runs `desc` on `n` elements at `ptr` into the pooled workspace's result slot and
    /// returns its bytes (`None` for an empty input, nothing launched).
    fn run_host(&self, desc: &Desc, ptr: u64, n: usize, in_place: bool) -> Result<Option<Vec<u8>>> {
        let mut settings = self.settings();
        if in_place {
            settings.algorithm = Algorithm::Unrolled;
        }
        settings.validate(desc.operation)?;
        if n == 0 {
            return Ok(None);
        }
        let stream = self.launch_stream();
        workspace::with_pooled(&self.gpu, |ws| {
            let out = ws.result_ptr();
            // Poisoned, so a result the kernels failed to write cannot pass for a stale one.
            ws.poison_bytes(out, desc.value_size, stream)?;
            Engine {
                gpu: &self.gpu,
                desc,
                settings,
                ws,
                stream,
            }
            .enqueue(ptr, n as u64, out, in_place)?;
            stream.synchronize()?;
            let mut bytes = ws.read_result()?;
            bytes.truncate(desc.value_size);
            Ok(Some(bytes))
        })
    }

    fn value<T: Pod, V: Pod, I: Input<T> + ?Sized>(&self, x: &I, desc: &Desc) -> Result<Option<V>> {
        if let Some(host) = x.host_slice() {
            if !host.is_empty() && self.takes_pipeline(std::mem::size_of_val(host)) {
                return Ok(Some(read_value(&self.run_pipelined(desc, host)?)?));
            }
        }
        let staged = x.stage(&self.gpu)?;
        match self.run_host(desc, staged.device_ptr(), staged.len(), false)? {
            Some(bytes) => Ok(Some(read_value(&bytes)?)),
            None => Ok(None),
        }
    }

    /// `x[0] op x[1] op …` (the identity when `x` is empty), in the accumulator type
    /// ([`Element::Accumulator`]: `T` itself, f32 for f16 and bf16). Errors when `op` does not
    /// apply to `T` (bitwise on floats) or the algorithm and settings cannot run it.
    pub fn reduce<T: Element, I: Input<T> + ?Sized>(
        &self,
        x: &I,
        op: Op,
    ) -> Result<T::Accumulator> {
        let desc = desc_op::<T>(op)?;
        Ok(self
            .value(x, &desc)?
            .unwrap_or(op.identity::<T::Accumulator>()?))
    }

    /// The sum (wrapping for integers; 0 when empty). f16 and bf16 are summed in f32 and the
    /// f32 sum returned (PyTorch's `sum(dtype=torch.float32)`).
    pub fn sum<T: Element, I: Input<T> + ?Sized>(&self, x: &I) -> Result<T::Accumulator> {
        self.reduce(x, Op::Sum)
    }

    /// The product (wrapping for integers; 1 when empty); f32 for f16 and bf16.
    pub fn product<T: Element, I: Input<T> + ?Sized>(&self, x: &I) -> Result<T::Accumulator> {
        self.reduce(x, Op::Product)
    }

    fn extreme<T: Element, I: Input<T> + ?Sized>(&self, x: &I, op: Op) -> Result<Option<T>> {
        let v: Option<T::Accumulator> = self.value(x, &desc_op::<T>(op)?)?;
        Ok(v.map(T::from_accumulator))
    }

    /// The smallest element (NaN if there is a NaN), `None` when empty.
    pub fn min<T: Element, I: Input<T> + ?Sized>(&self, x: &I) -> Result<Option<T>> {
        self.extreme(x, Op::Min)
    }

    /// The largest element (NaN if there is a NaN), `None` when empty.
    pub fn max<T: Element, I: Input<T> + ?Sized>(&self, x: &I) -> Result<Option<T>> {
        self.extreme(x, Op::Max)
    }

    fn arg<T: Element, I: Input<T> + ?Sized>(
        &self,
        x: &I,
        which: Extreme,
    ) -> Result<Option<usize>> {
        let desc = desc_arg::<T>(which);
        if let Some(host) = x.host_slice() {
            if !host.is_empty() && self.takes_pipeline(std::mem::size_of_val(host)) {
                return self.arg_pipelined(&desc, which, host).map(Some);
            }
        }
        let staged = x.stage(&self.gpu)?;
        let Some(bytes) = self.run_host(&desc, staged.device_ptr(), staged.len(), false)? else {
            return Ok(None);
        };
        arg_index(which, &bytes, staged.len()).map(Some)
    }

    /// Index of the first smallest element, or of the first NaN if there is one (PyTorch's
    /// rule); `None` when empty.
    pub fn argmin<T: Element, I: Input<T> + ?Sized>(&self, x: &I) -> Result<Option<usize>> {
        self.arg(x, Extreme::Min)
    }

    /// Index of the first largest element, or of the first NaN if there is one (PyTorch's
    /// rule); `None` when empty.
    pub fn argmax<T: Element, I: Input<T> + ?Sized>(&self, x: &I) -> Result<Option<usize>> {
        self.arg(x, Extreme::Max)
    }

    /// `op` (sum or product) accumulated in the wider type (`i32 → i64`, `u32 → u64`,
    /// `f32 → f64`); the identity when empty.
    pub fn reduce_wide<T: Widen, I: Input<T> + ?Sized>(&self, x: &I, op: Op) -> Result<T::Wide> {
        let desc = desc_wide::<T>(op);
        self.settings().validate(desc.operation)?;
        Ok(self.value(x, &desc)?.unwrap_or(op.identity::<T::Wide>()?))
    }

    /// The sum accumulated in the wider type.
    pub fn sum_wide<T: Widen, I: Input<T> + ?Sized>(&self, x: &I) -> Result<T::Wide> {
        self.reduce_wide(x, Op::Sum)
    }

    /// `x[0] ∘ x[1] ∘ …` of a non-commutative monoid ([`gpu_core::Mat2`], [`gpu_core::Affine`])
    /// in sequence order; the identity when empty. Needs an order-keeping algorithm
    /// ([`Algorithm::keeps_order`]); `Auto` is one.
    pub fn reduce_monoid<M: DeviceMonoid, I: Input<M> + ?Sized>(&self, x: &I) -> Result<M> {
        Ok(self.value(x, &desc_monoid::<M>())?.unwrap_or(M::identity()))
    }

    /// The unrolled reduction ([`Algorithm::Unrolled`], with this builder's unroll factor and
    /// block size, whatever algorithm is selected) run in place: `x` itself is the scratch,
    /// so no memory is allocated, and **its contents are unspecified afterwards**. The other
    /// methods never modify their input. Not for f16 and bf16 (their f32 partials do not fit
    /// in place): an [`Error::InvalidArgument`].
    pub fn reduce_in_place<T: Element>(&self, x: &mut DeviceArray<T>, op: Op) -> Result<T> {
        self.gpu.check_same_device(x.gpu(), "x")?;
        if T::computes_wider() {
            return Err(Error::invalid(
                "x",
                format!(
                    "{} accumulates in {}, whose partials do not fit in place; use `reduce`",
                    T::NAME,
                    T::Accumulator::NAME
                ),
            ));
        }
        let desc = desc_op::<T>(op)?;
        match self.run_host(&desc, x.device_ptr(), x.len(), true)? {
            Some(bytes) => read_value(&bytes),
            None => op.identity::<T>(),
        }
    }

    fn prepare<'a, T: Pod, V: Pod>(
        &self,
        x: DeviceSlice<'a, T>,
        desc: &Desc,
        out: &'a mut DeviceArray<V>,
        ws: &'a mut Workspace,
    ) -> Result<Prepared<'a>>
    where
        's: 'a,
    {
        self.gpu.check_same_device(x.gpu(), "x")?;
        self.gpu.check_same_device(out.gpu(), "out")?;
        self.gpu.check_same_device(ws.gpu(), "ws")?;
        if out.is_empty() {
            return Err(Error::invalid("out", "needs room for one value"));
        }
        let stream = self.launch_stream();
        ws.begin(stream)?;
        let launches = Engine {
            gpu: &self.gpu,
            desc,
            settings: self.settings(),
            ws,
            stream,
        }
        .plan(x.device_ptr(), x.len() as u64, out.device_ptr(), false)?;
        Ok(Prepared {
            launches,
            gpu: self.gpu.clone(),
            stream: self.stream,
            ws,
        })
    }

    /// Plans the reduction of `x` into `out[0]` once — kernels, block sizes, grid, workspace
    /// scratch — for [`Prepared::launch`] to enqueue any number of times with nothing but the
    /// kernel launches (no allocation, no lookups, no host waits): for timing loops. `x`,
    /// `out` and `ws` stay borrowed while the plan lives.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, GpuTimer, Op};
    /// use gpu_reduce::{Algorithm, Reduce, Workspace};
    /// let gpu = Gpu::default_device()?;
    /// let stream = gpu.new_stream()?;
    /// let x = gpu.upload(&vec![1i32; 1 << 20])?;
    /// let (mut out, mut ws) = (gpu.alloc::<i32>(1)?, Workspace::new(&gpu)?);
    /// let r = Reduce::new(&gpu).algorithm(Algorithm::Auto).stream(&stream);
    /// let mut plan = r.prepare_into(&x, Op::Sum, &mut out, &mut ws)?;
    /// plan.launch()?; // warm-up
    /// let timer = GpuTimer::new(&gpu)?;
    /// timer.start(&stream)?;
    /// for _ in 0..100 {
    ///     plan.launch()?;
    /// }
    /// timer.stop(&stream)?;
    /// println!("{:.2} µs per reduction, {:?}", timer.elapsed_ms()? * 10.0, plan.kernels());
    /// # Ok(()) }
    /// ```
    pub fn prepare_into<'a, T: Element>(
        &self,
        x: impl Into<DeviceSlice<'a, T>>,
        op: Op,
        out: &'a mut DeviceArray<T::Accumulator>,
        ws: &'a mut Workspace,
    ) -> Result<Prepared<'a>>
    where
        's: 'a,
    {
        self.prepare(x.into(), &desc_op::<T>(op)?, out, ws)
    }

    /// [`prepare_into`](Reduce::prepare_into) accumulating in the wider type.
    pub fn prepare_wide_into<'a, T: Widen>(
        &self,
        x: impl Into<DeviceSlice<'a, T>>,
        op: Op,
        out: &'a mut DeviceArray<T::Wide>,
        ws: &'a mut Workspace,
    ) -> Result<Prepared<'a>>
    where
        's: 'a,
    {
        self.prepare(x.into(), &desc_wide::<T>(op), out, ws)
    }

    /// [`prepare_into`](Reduce::prepare_into) for a non-commutative monoid.
    pub fn prepare_monoid_into<'a, M: DeviceMonoid>(
        &self,
        x: impl Into<DeviceSlice<'a, M>>,
        out: &'a mut DeviceArray<M>,
        ws: &'a mut Workspace,
    ) -> Result<Prepared<'a>>
    where
        's: 'a,
    {
        self.prepare(x.into(), &desc_monoid::<M>(), out, ws)
    }

    /// Enqueues the reduction of `x` on this builder's stream and returns at once: the result
    /// lands in `out[0]` when the stream gets there; nothing is allocated once `ws` has grown
    /// to the largest grid (or unrolled scratch) asked of it, and the host never waits (unless
    /// `ws` was last used on another stream). An empty `x` writes the identity. For timing
    /// loops and for chaining device work. Each call plans again (kernel lookup, grid); to
    /// launch the same reduction repeatedly with nothing but the launches, use
    /// [`prepare_into`](Reduce::prepare_into).
    ///
    /// `x`, `out` and `ws` must stay alive until the stream has finished the work (dropping a
    /// device array waits for the device, so this holds for safe code).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, GpuTimer, Op};
    /// use gpu_reduce::{Algorithm, Reduce, Workspace};
    /// let gpu = Gpu::default_device()?;
    /// let stream = gpu.new_stream()?;
    /// let x = gpu.upload(&vec![1.0f32; 1 << 24])?;
    /// let mut out = gpu.alloc::<f32>(1)?;
    /// let mut ws = Workspace::new(&gpu)?;
    /// let r = Reduce::new(&gpu).algorithm(Algorithm::LastBlock).stream(&stream);
    /// r.reduce_into(&x, Op::Sum, &mut out, &mut ws)?; // warm-up: loads the kernel, sizes ws
    /// let timer = GpuTimer::new(&gpu)?;
    /// timer.start(&stream)?;
    /// for _ in 0..10 {
    ///     r.reduce_into(&x, Op::Sum, &mut out, &mut ws)?;
    /// }
    /// timer.stop(&stream)?;
    /// println!("{:.1} µs per reduction", timer.elapsed_ms()? * 100.0);
    /// stream.synchronize()?;
    /// assert_eq!(out.to_vec()?[0], (1 << 24) as f32);
    /// # Ok(()) }
    /// ```
    pub fn reduce_into<'a, T: Element>(
        &self,
        x: impl Into<DeviceSlice<'a, T>>,
        op: Op,
        out: &mut DeviceArray<T::Accumulator>,
        ws: &mut Workspace,
    ) -> Result<()> {
        self.prepare(x.into(), &desc_op::<T>(op)?, out, ws)?
            .launch()
    }

    /// [`reduce_into`](Reduce::reduce_into) accumulating in the wider type.
    pub fn reduce_wide_into<'a, T: Widen>(
        &self,
        x: impl Into<DeviceSlice<'a, T>>,
        op: Op,
        out: &mut DeviceArray<T::Wide>,
        ws: &mut Workspace,
    ) -> Result<()> {
        self.prepare(x.into(), &desc_wide::<T>(op), out, ws)?
            .launch()
    }

    /// [`reduce_into`](Reduce::reduce_into) for a non-commutative monoid.
    pub fn reduce_monoid_into<'a, M: DeviceMonoid>(
        &self,
        x: impl Into<DeviceSlice<'a, M>>,
        out: &mut DeviceArray<M>,
        ws: &mut Workspace,
    ) -> Result<()> {
        self.prepare(x.into(), &desc_monoid::<M>(), out, ws)?
            .launch()
    }
}

/// A reduction planned by [`Reduce::prepare_into`]: launch it any number of times.
///
/// Holds the input, the output and the workspace borrowed; when dropped, marks the
/// workspace's use on the stream (so a later use on another stream waits for this work).
pub struct Prepared<'a> {
    launches: Vec<engine::Launch>,
    gpu: Gpu,
    stream: Option<&'a Stream>,
    ws: &'a mut Workspace,
}

impl Prepared<'_> {
    fn stream(&self) -> &Stream {
        self.stream.unwrap_or_else(|| self.gpu.stream())
    }

    /// Enqueues the planned kernel launches on the stream and returns at once: the result is
    /// in `out[0]` when the stream gets there.
    pub fn launch(&mut self) -> Result<()> {
        let stream = self.stream();
        self.launches.iter().try_for_each(|l| l.enqueue(stream))
    }

    /// The planned launches, in order: entry point name and configuration.
    pub fn kernels(&self) -> Vec<(String, LaunchConfig)> {
        self.launches
            .iter()
            .map(|l| (l.kernel_name().to_string(), l.config()))
            .collect()
    }
}

impl Drop for Prepared<'_> {
    fn drop(&mut self) {
        let stream = self.stream.unwrap_or_else(|| self.gpu.stream());
        let _ = self.ws.end(stream);
    }
}

impl std::fmt::Debug for Prepared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("kernels", &self.kernels())
            .finish()
    }
}

// ---- Shortcuts -------------------------------------------------------------------------------

/// `x[0] op x[1] op …` with the default algorithm on `x`'s device (the identity when empty),
/// in the accumulator type.
pub fn reduce<T: Element>(x: &DeviceArray<T>, op: Op) -> Result<T::Accumulator> {
    Reduce::new(x.gpu()).reduce(x, op)
}

/// The sum of a device array (wrapping for integers; f32 for f16 and bf16).
pub fn sum<T: Element>(x: &DeviceArray<T>) -> Result<T::Accumulator> {
    Reduce::new(x.gpu()).sum(x)
}

/// The product of a device array (wrapping for integers; f32 for f16 and bf16).
pub fn product<T: Element>(x: &DeviceArray<T>) -> Result<T::Accumulator> {
    Reduce::new(x.gpu()).product(x)
}

/// The smallest element of a device array (NaN if there is one), `None` when empty.
pub fn min<T: Element>(x: &DeviceArray<T>) -> Result<Option<T>> {
    Reduce::new(x.gpu()).min(x)
}

/// The largest element of a device array (NaN if there is one), `None` when empty.
pub fn max<T: Element>(x: &DeviceArray<T>) -> Result<Option<T>> {
    Reduce::new(x.gpu()).max(x)
}

/// Index of the first smallest element (first NaN if any), `None` when empty.
pub fn argmin<T: Element>(x: &DeviceArray<T>) -> Result<Option<usize>> {
    Reduce::new(x.gpu()).argmin(x)
}

/// Index of the first largest element (first NaN if any), `None` when empty.
pub fn argmax<T: Element>(x: &DeviceArray<T>) -> Result<Option<usize>> {
    Reduce::new(x.gpu()).argmax(x)
}

/// The sum of a device array accumulated in the wider type.
pub fn sum_wide<T: Widen>(x: &DeviceArray<T>) -> Result<T::Wide> {
    Reduce::new(x.gpu()).sum_wide(x)
}

/// The in-order product of a device array of a non-commutative monoid.
pub fn reduce_monoid<M: DeviceMonoid>(x: &DeviceArray<M>) -> Result<M> {
    Reduce::new(x.gpu()).reduce_monoid(x)
}

/// Method syntax for device arrays: `x.sum()?`, `x.argmax()?`, … with the default algorithm.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_reduce::DeviceReduce;
/// let gpu = gpu_core::Gpu::default_device()?;
/// let x = gpu.upload(&[2u64, 9, 4])?;
/// assert_eq!(x.sum()?, 15);
/// assert_eq!(x.max()?, Some(9));
/// assert_eq!(x.argmax()?, Some(1));
/// # Ok(()) }
/// ```
pub trait DeviceReduce<T: Element> {
    /// See [`Reduce::reduce`].
    fn reduce(&self, op: Op) -> Result<T::Accumulator>;
    /// See [`Reduce::sum`].
    fn sum(&self) -> Result<T::Accumulator>;
    /// See [`Reduce::product`].
    fn product(&self) -> Result<T::Accumulator>;
    /// See [`Reduce::min`].
    fn min(&self) -> Result<Option<T>>;
    /// See [`Reduce::max`].
    fn max(&self) -> Result<Option<T>>;
    /// See [`Reduce::argmin`].
    fn argmin(&self) -> Result<Option<usize>>;
    /// See [`Reduce::argmax`].
    fn argmax(&self) -> Result<Option<usize>>;
}

impl<T: Element> DeviceReduce<T> for DeviceArray<T> {
    fn reduce(&self, op: Op) -> Result<T::Accumulator> {
        reduce(self, op)
    }
    fn sum(&self) -> Result<T::Accumulator> {
        sum(self)
    }
    fn product(&self) -> Result<T::Accumulator> {
        product(self)
    }
    fn min(&self) -> Result<Option<T>> {
        min(self)
    }
    fn max(&self) -> Result<Option<T>> {
        max(self)
    }
    fn argmin(&self) -> Result<Option<usize>> {
        argmin(self)
    }
    fn argmax(&self) -> Result<Option<usize>> {
        argmax(self)
    }
}
