//! GPU launches (feature `cuda`): the scan engine ([`Scanner`], which [`crate::Scan`] drives)
//! and the one-off convenience functions.

// `Scanner` is deprecated as a public entry point, not as the engine behind `Scan`.
#![allow(deprecated)]

use gpu_core::{
    grid_for, kernel_args, Affine, DeviceArray, Element, Error, Event, Gpu, Input, LaunchConfig,
    Op, Pod, Result, Stream,
};
use ndarray::{Array1, ArrayView1};

mod axis_host;
mod lanes;
mod launch;
mod segments_host;
mod status_epochs;

pub(crate) use lanes::{LaneIo, LaneKind};
pub(crate) use launch::{lookback_plan_on, warp_specialized_on, Combo, SeedValue};

use crate::cpu::{self, check_output, check_recurrence};
use crate::kernels::SCAN_PTX;
use crate::{Algorithm, Real, ScanKind, ScanMonoid, ScanOptions};

/// Threads per block of the small helper kernels (status reset, recurrence pack/apply).
const HELPER_BLOCK: u32 = 256;

/// A reusable GPU scanner: loads the kernels once and keeps its scratch memory (tile status,
/// block sums) between calls.
///
/// * `scan*` methods without `_async` run on the device's default stream and return when the
///   result is there.
/// * `scan_async` and `scan_in_place_async` only enqueue work on the given stream (for timing
///   with CUDA events); the first call at a given size may allocate scratch memory, which
///   synchronises, so warm up once before timing.
/// * The scratch is shared by all calls of one scanner: calls on one stream are ordered; when a
///   call comes on a different stream than the previous one, the scanner first waits (on the
///   host) for the previous call to finish. Use one scanner per stream for overlapping scans.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{Gpu, GpuTimer, Op};
/// use gpu_scan::{Algorithm, ScanOptions, Scanner};
///
/// let gpu = Gpu::default_device()?;
/// let x = gpu.upload(&vec![1u32; 1 << 24])?;
/// let mut y = gpu.alloc::<u32>(x.len())?;
/// let mut scanner = Scanner::new(&gpu)?;
/// let stream = gpu.new_stream()?;
/// let options = ScanOptions::inclusive().algorithm(Algorithm::BlellochPadded).block_size(512);
/// scanner.scan_async(&x, &mut y, Op::Sum, &options, &stream)?; // warm-up (allocates scratch)
/// let timer = GpuTimer::new(&gpu)?;
/// timer.start(&stream)?;
/// scanner.scan_async(&x, &mut y, Op::Sum, &options, &stream)?;
/// timer.stop(&stream)?;
/// println!("{:.3} ms", timer.elapsed_ms()?);
/// # Ok(()) }
/// ```
#[deprecated(
    since = "0.2.0",
    note = "use gpu_scan::Scan: builder options, any Input, `_into` device results and \
            `.stream(&s)` (docs/api.md); `scan_async(x, y, op, &o, s)` is \
            `Scan::new(&gpu).options(o).stream(s).scan_into(x, y, op)`"
)]
pub struct Scanner {
    gpu: Gpu,
    scratch: Option<DeviceArray<u64>>,
    /// What the flat look-back runs left in `scratch`, so the next one need not zero it.
    epochs: status_epochs::StatusEpochs,
    last_stream: Option<usize>,
    done: Event,
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("gpu", &self.gpu)
            .field(
                "scratch_bytes",
                &self.scratch.as_ref().map_or(0, |s| s.size_bytes()),
            )
            .finish()
    }
}

pub(super) fn cpu_algorithm_async(a: Algorithm) -> Error {
    Error::invalid(
        "algorithm",
        format!(
            "{a:?} is a CPU algorithm and cannot be enqueued on a stream; use gpu_scan::cpu or \
             the synchronous Scanner::scan"
        ),
    )
}

impl Scanner {
    /// A scanner for `gpu` (allocates nothing yet).
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(Scanner {
            gpu: gpu.clone(),
            scratch: None,
            epochs: Default::default(),
            last_stream: None,
            done: gpu.new_event(false)?,
        })
    }

    /// The device this scanner runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Scratch bytes currently held.
    pub fn scratch_bytes(&self) -> usize {
        self.scratch.as_ref().map_or(0, |s| s.size_bytes())
    }

    // ---- element types and operators --------------------------------------------------------

    /// Enqueues the scan of `input` into `output` (at least as long) on `stream`; returns without
    /// waiting. Any GPU algorithm of `options`; CPU algorithms are an error here.
    pub fn scan_async<T: Element>(
        &mut self,
        input: &DeviceArray<T>,
        output: &mut DeviceArray<T>,
        op: Op,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        let combo = Combo::op::<T>(op)?;
        check_output(input.len(), output.len())?;
        self.check_arrays(input.gpu())?;
        self.check_arrays(output.gpu())?;
        self.enqueue(
            &combo,
            input.device_ptr(),
            output.device_ptr(),
            input.len(),
            options,
            stream,
        )
    }

    /// Enqueues the scan of `data` in place on `stream`; returns without waiting.
    pub fn scan_in_place_async<T: Element>(
        &mut self,
        data: &mut DeviceArray<T>,
        op: Op,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        let combo = Combo::op::<T>(op)?;
        self.check_arrays(data.gpu())?;
        let p = data.device_ptr();
        self.enqueue(&combo, p, p, data.len(), options, stream)
    }

    /// Scans `input` into `output` (at least as long) and waits for the result. CPU algorithms
    /// copy to the host and back.
    pub fn scan<T: Element>(
        &mut self,
        input: &DeviceArray<T>,
        output: &mut DeviceArray<T>,
        op: Op,
        options: &ScanOptions,
    ) -> Result<()> {
        if !options.algorithm.is_gpu() {
            crate::check_op::<T>(op)?;
            check_output(input.len(), output.len())?;
            let y = cpu::scan_with(&input.to_vec()?, op, options)?;
            return write_prefix(output, &y);
        }
        let gpu = self.gpu.clone();
        self.scan_async(input, output, op, options, gpu.stream())?;
        gpu.stream().synchronize()
    }

    /// Scans `data` in place and waits for the result.
    pub fn scan_in_place<T: Element>(
        &mut self,
        data: &mut DeviceArray<T>,
        op: Op,
        options: &ScanOptions,
    ) -> Result<()> {
        if !options.algorithm.is_gpu() {
            let y = cpu::scan_with(&data.to_vec()?, op, options)?;
            return data.copy_from(&y);
        }
        let gpu = self.gpu.clone();
        self.scan_in_place_async(data, op, options, gpu.stream())?;
        gpu.stream().synchronize()
    }

    /// Scans any [`Input`] — a host slice, `Vec`, array or ndarray array/view (uploaded and
    /// scanned in place), a [`DeviceArray`] or [`gpu_core::DeviceSlice`] (scanned into a new
    /// device array) — and returns the result on the host. CPU algorithms read host inputs
    /// where they are.
    pub fn scan_slice<T: Element>(
        &mut self,
        input: &(impl Input<T> + ?Sized),
        op: Op,
        options: &ScanOptions,
    ) -> Result<Vec<T>> {
        crate::check_op::<T>(op)?;
        if !options.algorithm.is_gpu() {
            return match input.host_slice() {
                Some(x) => cpu::scan_with(x, op, options),
                None => cpu::scan_with(&input.stage(&self.gpu)?.to_vec()?, op, options),
            };
        }
        let staged = input.stage(&self.gpu)?;
        let (ptr, n) = (staged.device_ptr(), staged.len());
        let mut d = match staged.into_upload() {
            Some(d) => d,
            None => {
                let out = self.gpu.alloc::<T>(n)?;
                let combo = Combo::op::<T>(op)?;
                let gpu = self.gpu.clone();
                self.enqueue(&combo, ptr, out.device_ptr(), n, options, gpu.stream())?;
                gpu.stream().synchronize()?;
                return out.to_vec();
            }
        };
        self.scan_in_place(&mut d, op, options)?;
        d.to_vec()
    }

    /// Scans a 1-D ndarray view (any strides; gathered in logical order).
    pub fn scan_view<T: Element>(
        &mut self,
        input: ArrayView1<'_, T>,
        op: Op,
        options: &ScanOptions,
    ) -> Result<Array1<T>> {
        if !options.algorithm.is_gpu() {
            let x: Vec<T> = input.iter().copied().collect();
            return cpu::scan_with(&x, op, options).map(Array1::from_vec);
        }
        crate::check_op::<T>(op)?;
        let mut d = self.gpu.upload_view(input)?;
        self.scan_in_place(&mut d, op, options)?;
        d.to_array1()
    }

    // ---- non-commutative monoids ------------------------------------------------------------

    /// [`scan_async`](Self::scan_async) for [`gpu_core::Mat2`] / [`gpu_core::Affine`] values,
    /// in sequence order.
    pub fn scan_monoid_async<M: ScanMonoid>(
        &mut self,
        input: &DeviceArray<M>,
        output: &mut DeviceArray<M>,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        check_output(input.len(), output.len())?;
        self.check_arrays(input.gpu())?;
        self.check_arrays(output.gpu())?;
        self.enqueue(
            &Combo::monoid::<M>(),
            input.device_ptr(),
            output.device_ptr(),
            input.len(),
            options,
            stream,
        )
    }

    /// [`scan_in_place_async`](Self::scan_in_place_async) for monoid values.
    pub fn scan_monoid_in_place_async<M: ScanMonoid>(
        &mut self,
        data: &mut DeviceArray<M>,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        self.check_arrays(data.gpu())?;
        let p = data.device_ptr();
        self.enqueue(&Combo::monoid::<M>(), p, p, data.len(), options, stream)
    }

    /// [`scan`](Self::scan) for monoid values.
    pub fn scan_monoid<M: ScanMonoid>(
        &mut self,
        input: &DeviceArray<M>,
        output: &mut DeviceArray<M>,
        options: &ScanOptions,
    ) -> Result<()> {
        if !options.algorithm.is_gpu() {
            check_output(input.len(), output.len())?;
            let y = cpu_monoid(&input.to_vec()?, options);
            return write_prefix(output, &y);
        }
        let gpu = self.gpu.clone();
        self.scan_monoid_async(input, output, options, gpu.stream())?;
        gpu.stream().synchronize()
    }

    /// [`scan_in_place`](Self::scan_in_place) for monoid values.
    pub fn scan_monoid_in_place<M: ScanMonoid>(
        &mut self,
        data: &mut DeviceArray<M>,
        options: &ScanOptions,
    ) -> Result<()> {
        if !options.algorithm.is_gpu() {
            let y = cpu_monoid(&data.to_vec()?, options);
            return data.copy_from(&y);
        }
        let gpu = self.gpu.clone();
        self.scan_monoid_in_place_async(data, options, gpu.stream())?;
        gpu.stream().synchronize()
    }

    /// [`scan_slice`](Self::scan_slice) for monoid values.
    pub fn scan_monoid_slice<M: ScanMonoid>(
        &mut self,
        input: &(impl Input<M> + ?Sized),
        options: &ScanOptions,
    ) -> Result<Vec<M>> {
        if !options.algorithm.is_gpu() {
            return Ok(match input.host_slice() {
                Some(x) => cpu_monoid(x, options),
                None => cpu_monoid(&input.stage(&self.gpu)?.to_vec()?, options),
            });
        }
        // Device data is scanned in a copy (the input stays as it was).
        let mut d = input.stage(&self.gpu)?.into_device_array()?;
        self.scan_monoid_in_place(&mut d, options)?;
        d.to_vec()
    }

    // ---- linear recurrence ------------------------------------------------------------------

    /// Solves `x[t] = a[t]·x[t−1] + b[t]` with `x[−1] = x_init` into `x` (at least as long as
    /// `a`; `a` and `b` of equal length) with an inclusive scan of the affine maps
    /// `f_t(x) = a[t]·x + b[t]`, then `x[t] = (f_0 then … then f_t)(x_init)`; waits for the
    /// result. `options.kind` is ignored; the algorithm and block size apply to the scan.
    pub fn linear_recurrence<T: Real>(
        &mut self,
        a: &DeviceArray<T>,
        b: &DeviceArray<T>,
        x_init: T,
        x: &mut DeviceArray<T>,
        options: &ScanOptions,
    ) -> Result<()>
    where
        Affine<T>: ScanMonoid,
    {
        check_recurrence(a.len(), b.len())?;
        check_output(a.len(), x.len())?;
        for g in [a.gpu(), b.gpu(), x.gpu()] {
            self.check_arrays(g)?;
        }
        let n = a.len();
        if n == 0 {
            return Ok(());
        }
        let options = options.kind(ScanKind::Inclusive);
        if !options.algorithm.is_gpu() {
            let (a, b) = (a.to_vec()?, b.to_vec()?);
            let y = match options.algorithm {
                Algorithm::Serial => cpu::linear_recurrence(&a, &b, x_init)?,
                _ => cpu::linear_recurrence_scan(&a, &b, x_init)?,
            };
            return write_prefix(x, &y);
        }
        let gpu = self.gpu.clone();
        let stream = gpu.stream();
        let (pa, pb, px) = (a.device_ptr(), b.device_ptr(), x.device_ptr());
        self.enqueue_recurrence(pa, pb, n, x_init, px, &options, stream)?;
        stream.synchronize()
    }

    /// Enqueues the GPU recurrence over `n` values at `a` and `b` into `x` (this device's
    /// memory, kept alive by the caller; `options` inclusive and a GPU algorithm). The packed
    /// maps are freed on return, which waits for the device: callers need not.
    // Raw pointers and their length, as the kernels take them: grouping them would only hide it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_recurrence<T: Real>(
        &mut self,
        a: u64,
        b: u64,
        n: usize,
        x_init: T,
        x: u64,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()>
    where
        Affine<T>: ScanMonoid,
    {
        let gpu = self.gpu.clone();
        let maps = gpu.alloc::<Affine<T>>(n)?;
        let config = LaunchConfig::new(
            grid_for(n as u64, HELPER_BLOCK as u64 * 4, 65_535),
            HELPER_BLOCK,
        );
        let pack = gpu.kernel(&SCAN_PTX, &format!("scan_recurrence_pack_{}", T::NAME))?;
        // SAFETY: scan_recurrence_pack_T(const T* a, const T* b, Affine<T>* maps, u64 n) reads
        // a[0..n), b[0..n) and writes maps[0..n); all three arrays hold n elements.
        unsafe {
            pack.launch(
                config,
                stream,
                &kernel_args![a, b, maps.device_ptr(), n as u64],
            )?;
        }
        let p = maps.device_ptr();
        self.enqueue(&Combo::monoid::<Affine<T>>(), p, p, n, options, stream)?;
        let apply = gpu.kernel(&SCAN_PTX, &format!("scan_recurrence_apply_{}", T::NAME))?;
        // SAFETY: scan_recurrence_apply_T(const Affine<T>* maps, T x_init, T* x, u64 n) reads
        // maps[0..n) and writes x[0..n); the caller's `x` holds at least n elements.
        unsafe {
            apply.launch(
                config,
                stream,
                &kernel_args![maps.device_ptr(), x_init, x, n as u64],
            )?;
        }
        Ok(())
    }
}

fn cpu_monoid<M: ScanMonoid>(x: &[M], options: &ScanOptions) -> Vec<M> {
    match options.algorithm {
        Algorithm::Serial => cpu::scan_monoid(x, options.kind),
        _ => cpu::par_scan_monoid(x, options.kind),
    }
}

/// Writes `y` over the first `y.len()` elements of `out` (waits).
fn write_prefix<V: Pod>(out: &mut DeviceArray<V>, y: &[V]) -> Result<()> {
    if out.len() == y.len() {
        return out.copy_from(y);
    }
    let mut all = out.to_vec()?;
    all[..y.len()].copy_from_slice(y);
    out.copy_from(&all)
}

/// Scans any [`Input`] (host slice, `Vec`, array, ndarray, device array or slice) on `gpu` with
/// a temporary [`Scanner`]; the result comes back to the host.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{Gpu, Op};
/// use gpu_scan::{Algorithm, ScanOptions};
/// let gpu = Gpu::default_device()?;
/// let x: Vec<u64> = (1..=1_000_000).collect();
/// let y = gpu_scan::scan(&gpu, &x, Op::Sum, &ScanOptions::default())?;
/// assert_eq!(y[999_999], 500_000_500_000);
/// let z = gpu_scan::scan(&gpu, &x, Op::Sum, &ScanOptions::exclusive().algorithm(Algorithm::HillisSteele))?;
/// assert_eq!(z[1], 1);
/// # Ok(()) }
/// ```
pub fn scan<T: Element>(
    gpu: &Gpu,
    input: &(impl Input<T> + ?Sized),
    op: Op,
    options: &ScanOptions,
) -> Result<Vec<T>> {
    crate::Scan::new(gpu).options(*options).scan(input, op)
}

/// Scans a host slice of [`gpu_core::Mat2`] or [`gpu_core::Affine`] values on `gpu`, in
/// sequence order.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{Gpu, Mat2};
/// use gpu_scan::ScanOptions;
/// let gpu = Gpu::default_device()?;
/// // Fibonacci numbers as powers of [[1, 1], [1, 0]].
/// let m = vec![Mat2([1u64, 1, 1, 0]); 90];
/// let powers = gpu_scan::scan_monoid(&gpu, &m, &ScanOptions::default())?;
/// assert_eq!(powers[89].0[1], 2_880_067_194_370_816_120); // F(90)
/// # Ok(()) }
/// ```
pub fn scan_monoid<M: ScanMonoid>(
    gpu: &Gpu,
    input: &(impl Input<M> + ?Sized),
    options: &ScanOptions,
) -> Result<Vec<M>> {
    crate::Scan::new(gpu).options(*options).scan_monoid(input)
}

/// Solves `x[t] = a[t]·x[t−1] + b[t]` (`x[−1] = x_init`) on `gpu` with the default scan.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// let gpu = gpu_core::Gpu::default_device()?;
/// let (a, b) = (vec![0.9f64; 1000], vec![1.0f64; 1000]);
/// let x = gpu_scan::linear_recurrence(&gpu, &a, &b, 0.0)?;
/// let reference = gpu_scan::cpu::linear_recurrence(&a, &b, 0.0)?;
/// assert!((x[999] - reference[999]).abs() < 1e-9);
/// # Ok(()) }
/// ```
pub fn linear_recurrence<T: Real>(
    gpu: &Gpu,
    a: &(impl Input<T> + ?Sized),
    b: &(impl Input<T> + ?Sized),
    x_init: T,
) -> Result<Vec<T>>
where
    Affine<T>: ScanMonoid,
{
    crate::Scan::new(gpu).linear_recurrence(a, b, x_init)
}
