//! The cuFFT path: masks longer than one block's transform ([`crate::fft_max_width`]), up to the
//! signal's own length (the full correlation of two long signals). Overlap-save on segments of
//! `N` points ([`crate::cufft_size`]), as the block FFT kernel does it, but with the transforms
//! run by cuFFT (cudarc's `cufft` module, libcufft loaded at run time): per batch of segments,
//! `conv1d_cufft_gather_T` reads their spans through the boundary rule into a scratch buffer,
//! a batched real-to-complex transform runs in place, `conv1d_cufft_multiply_A` multiplies by
//! the conjugate of the mask's spectrum (scaled by `1/N`), the transform back runs in place,
//! and `conv1d_cufft_scatter_T` writes each segment's first `N − w + 1` points as outputs. With
//! zero ghosts, a row whose whole linear correlation (`n + w − 1` lags) fits one transform of
//! no more points than its segments would take runs as one circular correlation of the row
//! padded with zeros instead (its outputs a rotation of the result's first points): no input
//! read twice, one transform pair, the full correlation of two long signals as scipy's
//! `fftconvolve` does it, without transforming the mask again on every call.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cudarc::cufft::sys;
use gpu_core::{kernel_args, DeviceArray, Error, Gpu, Pod, Result, Stream};

use crate::gpu::Shape;
use crate::kernels::PTX;
use crate::Real;

/// What to install when libcufft is missing.
const MISSING: &str = "libcufft was not found (needed for masks longer than one block's \
     transform): install cuFFT (the CUDA toolkit's libcufft.so, or the `nvidia-cufft-cu12` / \
     `nvidia-cufft-cu13` Python package with its lib directory on LD_LIBRARY_PATH)";

/// Reals of scratch a batch of segments may take (the segments per transform call follow):
/// 512 MiB of f32, 1 GiB of f64.
const BATCH_REALS: usize = 1 << 27;

/// Threads per block of the three kernels (`__launch_bounds__(256)`).
const BLOCK: u32 = 256;

/// Whether libcufft loads in this process (checked once). `GPU_PRIMS_NO_CUFFT` set makes it
/// report `false`, so that the missing-library paths can be tested where cuFFT is installed.
pub fn cufft_available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        // SAFETY: loads (and drops) the library by name; no symbol is called.
        std::env::var_os("GPU_PRIMS_NO_CUFFT").is_none() && unsafe { sys::is_culib_present() }
    })
}

/// `Ok` where cuFFT loads, else the error naming what to install (`what`: the argument that
/// asked for it).
pub(crate) fn require(what: &'static str) -> Result<()> {
    if cufft_available() {
        Ok(())
    } else {
        Err(Error::invalid(what, MISSING))
    }
}

/// `Ok` for `CUFFT_SUCCESS`; otherwise the error naming `call` (out of memory as
/// [`Error::OutOfMemory`], with what the device has free).
fn check(gpu: &Gpu, call: &'static str, code: sys::cufftResult, requested: usize) -> Result<()> {
    match code {
        sys::cufftResult::CUFFT_SUCCESS => Ok(()),
        sys::cufftResult::CUFFT_ALLOC_FAILED => Err(Error::OutOfMemory {
            requested,
            free: gpu.memory_info().map_or(0, |(free, _)| free),
        }),
        code => Err(Error::Library {
            call,
            error: format!("{code:?}"),
        }),
    }
}

/// One cuFFT plan, destroyed with it.
struct Plan {
    gpu: Gpu,
    handle: sys::cufftHandle,
}

impl Drop for Plan {
    fn drop(&mut self) {
        let _ = self.gpu.bind();
        // SAFETY: a plan made by cufftCreate, destroyed once; no call of it is in flight (its
        // users wait for their stream before giving it up).
        unsafe {
            sys::cufftDestroy(self.handle);
        }
    }
}

impl Plan {
    /// A 1-D plan of `batch` transforms of `n` points in place, forward (real to complex) or
    /// back, in `W`'s precision: reals at a pitch of `n + 2`, complex values at `n/2 + 1`.
    fn new<W: Pod>(gpu: &Gpu, n: usize, batch: usize, forward: bool) -> Result<Self> {
        gpu.bind()?;
        let mut handle: sys::cufftHandle = 0;
        // SAFETY: out-pointer to a local.
        let code = unsafe { sys::cufftCreate(&mut handle) };
        check(gpu, "cufftCreate", code, 0)?;
        let plan = Plan {
            gpu: gpu.clone(),
            handle,
        };
        let double = std::mem::size_of::<W>() == 8;
        let ty = match (forward, double) {
            (true, false) => sys::cufftType::CUFFT_R2C,
            (false, false) => sys::cufftType::CUFFT_C2R,
            (true, true) => sys::cufftType::CUFFT_D2Z,
            (false, true) => sys::cufftType::CUFFT_Z2D,
        };
        let (reals, complexes) = ((n + 2) as i64, (n / 2 + 1) as i64);
        let (idist, odist) = if forward {
            (reals, complexes)
        } else {
            (complexes, reals)
        };
        let mut dims = [n as i64];
        let (mut inembed, mut onembed) = ([idist], [odist]);
        let mut work = 0usize;
        // SAFETY: a created plan; the arrays hold `rank` = 1 entries; out-pointer to a local.
        let code = unsafe {
            sys::cufftMakePlanMany64(
                handle,
                1,
                dims.as_mut_ptr(),
                inembed.as_mut_ptr(),
                1,
                idist,
                onembed.as_mut_ptr(),
                1,
                odist,
                ty,
                batch as i64,
                &mut work,
            )
        };
        let scratch = batch * (n + 2) * std::mem::size_of::<W>();
        check(gpu, "cufftMakePlanMany64", code, scratch)?;
        Ok(plan)
    }

    /// Runs the plan in place over `data` (a device address of this context holding the
    /// plan's batch at its layout), on `stream`.
    ///
    /// # Safety
    /// `data` must hold `batch · (n + 2)` reals of the plan's precision and stay alive until
    /// the stream has run.
    unsafe fn exec<W: Pod>(&self, data: u64, forward: bool, stream: &Stream) -> Result<()> {
        let gpu = &self.gpu;
        gpu.bind()?;
        let code = sys::cufftSetStream(self.handle, stream.as_raw() as sys::cudaStream_t);
        check(gpu, "cufftSetStream", code, 0)?;
        let double = std::mem::size_of::<W>() == 8;
        let (call, code) = match (forward, double) {
            (true, false) => (
                "cufftExecR2C",
                sys::cufftExecR2C(
                    self.handle,
                    data as *mut f32,
                    data as *mut sys::cufftComplex,
                ),
            ),
            (false, false) => (
                "cufftExecC2R",
                sys::cufftExecC2R(
                    self.handle,
                    data as *mut sys::cufftComplex,
                    data as *mut f32,
                ),
            ),
            (true, true) => (
                "cufftExecD2Z",
                sys::cufftExecD2Z(
                    self.handle,
                    data as *mut f64,
                    data as *mut sys::cufftDoubleComplex,
                ),
            ),
            (false, true) => (
                "cufftExecZ2D",
                sys::cufftExecZ2D(
                    self.handle,
                    data as *mut sys::cufftDoubleComplex,
                    data as *mut f64,
                ),
            ),
        };
        check(gpu, call, code, 0)
    }
}

/// What one segment size needs, made by its first run and kept by the `Conv1d` (its clones
/// share it): the mask's spectrum, the two plans and the batch's scratch.
pub(crate) struct Segments<W: Pod> {
    n: usize,
    batch: usize,
    forward: Plan,
    back: Plan,
    spectrum: DeviceArray<W>,
    scratch: DeviceArray<W>,
}

/// The kept segment sizes of one mask. Runs hold the lock throughout: a plan and its scratch
/// serve one run at a time.
pub(crate) type Cache<W> = Arc<Mutex<Vec<Segments<W>>>>;

impl<W: Pod> Segments<W> {
    /// Plans and scratch for segments of `n` points, and the spectrum of `mask` (a device
    /// array of this context, `w ≤ n` values).
    fn new(gpu: &Gpu, mask: &DeviceArray<W>, n: usize, batch: usize) -> Result<Self> {
        let mut spectrum = gpu.zeros::<W>(n + 2)?;
        let stream = gpu.stream();
        spectrum.copy_range_from(0, mask, 0..mask.len(), stream)?;
        let one = Plan::new::<W>(gpu, n, 1, true)?;
        // SAFETY: `spectrum` holds n + 2 reals, alive past the wait below.
        unsafe { one.exec::<W>(spectrum.device_ptr(), true, stream)? };
        stream.synchronize()?;
        Ok(Segments {
            n,
            batch,
            forward: Plan::new::<W>(gpu, n, batch, true)?,
            back: Plan::new::<W>(gpu, n, batch, false)?,
            spectrum,
            scratch: gpu.alloc::<W>(batch * (n + 2))?,
        })
    }
}

/// Runs the cuFFT path over `shape` (`x` and `y` device addresses of `mask`'s context holding
/// `rows · n` and `rows · n_out` elements of `T`, alive until `stream` has run; `stream` is
/// waited for before returning, the scratch being reused) with segments of `size` points.
pub(crate) fn run<T: Real>(
    cache: &Cache<T::Wide>,
    mask: &DeviceArray<T::Wide>,
    x: u64,
    y: u64,
    shape: Shape,
    size: usize,
    stream: &Stream,
) -> Result<()> {
    require("strategy")?;
    let gpu = mask.gpu();
    let Shape {
        rows,
        n,
        n_out,
        off,
        w,
        boundary,
        ..
    } = shape;
    if rows == 0 || n_out == 0 {
        return Ok(());
    }
    if !size.is_power_of_two() || (size as u64) < w {
        return Err(Error::invalid(
            "strategy",
            format!("cuFFT segments of {size} points for a {w}-element mask"),
        ));
    }
    let mut tile = size as u64 - w + 1;
    let mut segments = n_out.div_ceil(tile);
    // Zero ghosts: a row whose whole linear correlation (n + w − 1 lags) fits one transform of
    // no more points than its segments take is one circular correlation of the row padded with
    // zeros (the outputs a rotation of its first points): no span read twice, one transform
    // pair (the full correlation of two long signals).
    let linear = (n + w - 1).next_power_of_two();
    let circular =
        boundary == 0 && linear <= segments * size as u64 && linear as usize + 2 <= BATCH_REALS;
    let size = if circular { linear as usize } else { size };
    if circular {
        (tile, segments) = (size as u64, 1);
    }
    // Segments in even batches (a batch's plan transforms all of its slots, filled or not).
    let most = (BATCH_REALS / (size + 2)).max(1) as u64;
    let batch = segments.div_ceil(segments.div_ceil(most));
    let mut kept = cache.lock().unwrap_or_else(PoisonError::into_inner);
    let at = match kept
        .iter()
        .position(|s| s.n == size && s.batch as u64 == batch)
    {
        Some(at) => at,
        None => {
            kept.push(Segments::new(gpu, mask, size, batch as usize)?);
            kept.len() - 1
        }
    };
    let seg = &kept[at];
    let wide = std::mem::size_of::<T::Wide>() == 8;
    let gather = gpu.kernel(&PTX, &format!("conv1d_cufft_gather_{}", T::NAME))?;
    let scatter = gpu.kernel(&PTX, &format!("conv1d_cufft_scatter_{}", T::NAME))?;
    let multiply = gpu.kernel(
        &PTX,
        if wide {
            "conv1d_cufft_multiply_f64"
        } else {
            "conv1d_cufft_multiply_f32"
        },
    )?;
    let log_n = size.trailing_zeros();
    let half = (size / 2 + 1) as u64;
    let scale = 1.0 / size as f64;
    let (scale32, scale64) = (scale as f32, scale);
    let scale_arg = if wide {
        &scale64 as *const f64 as *mut std::ffi::c_void
    } else {
        &scale32 as *const f32 as *mut std::ffi::c_void
    };
    let scratch = seg.scratch.device_ptr();
    let spectrum = seg.spectrum.device_ptr();
    let size_t = std::mem::size_of::<T>() as u64;
    // One batch of segments of one row: the gather, the transform, the product, the transform
    // back and the scatter, enqueued in order on `stream`.
    let a_size = std::mem::size_of::<T::Wide>() as u64;
    let batch_of = |row: u64, out: u64, first: u64, segs: u64| -> Result<()> {
        let points = segs << log_n;
        // The circular case reads the row itself (position k at k), its outputs rotated.
        let gather_off = if circular { 0 } else { off };
        let config = gather.grid_stride_config(points, BLOCK, 1, 0)?;
        // SAFETY: conv1d_cufft_gather_T(const T* row, u64 n, i64 off, u64 L, u32 log_n,
        // u64 first, u64 segs, int boundary, A* batch): `row` holds n elements (the caller's),
        // `scratch` batch · (N + 2) ≥ segs · (N + 2) A values (kept under the lock); every read
        // goes through the boundary rule.
        unsafe {
            gather.launch(
                config,
                stream,
                &kernel_args![row, n, gather_off, tile, log_n, first, segs, boundary, scratch],
            )?;
        }
        // SAFETY: `scratch` holds the plan's whole batch, alive under the lock.
        unsafe { seg.forward.exec::<T::Wide>(scratch, true, stream)? };
        let config = multiply.grid_stride_config(segs * half, BLOCK, 1, 0)?;
        let [a0, a1, a2, a3] = kernel_args![scratch, spectrum, half, segs];
        // SAFETY: conv1d_cufft_multiply_A(A* z, const A* mask, u64 half, u64 segs, A scale):
        // `scratch` holds segs · half complex values (of its batch), `spectrum` half of them;
        // `scale_arg` points at an A.
        unsafe { multiply.launch(config, stream, &[a0, a1, a2, a3, scale_arg])? };
        // SAFETY: as the forward transform.
        unsafe { seg.back.exec::<T::Wide>(scratch, false, stream)? };
        // (source, outputs, count): the segments' first points; or, circular, lag o + off at
        // point (o + off) mod N: outputs from max(−off, 0) from point max(off, 0), and the
        // first −off outputs (negative lags) from point N + off.
        let mut parts = vec![(scratch, out, n_out)];
        if circular {
            let head = (-off).max(0) as u64;
            let from = off.max(0) as u64;
            parts = vec![(
                scratch + from * a_size,
                out + head * size_t,
                n_out.saturating_sub(head),
            )];
            if head > 0 {
                let at = (size as i64 + off) as u64;
                parts.push((scratch + at * a_size, out, head.min(n_out)));
            }
        }
        for (src, dst, count) in parts {
            let config = scatter.grid_stride_config(points, BLOCK, 1, 0)?;
            // SAFETY: conv1d_cufft_scatter_T(const A* batch, u64 n_out, u64 L, u32 log_n,
            // u64 first, u64 segs, T* y): `dst` holds `count` elements of the caller's output
            // (only those are written); every point read lies inside the batch: segment b's
            // first L, or, circular (one segment, L = N), point from + j < N for j < count.
            unsafe {
                scatter.launch(
                    config,
                    stream,
                    &kernel_args![src, count, tile, log_n, first, segs, dst],
                )?;
            }
        }
        Ok(())
    };
    let mut result = Ok(());
    'rows: for r in 0..rows {
        let (row, out) = (x + r * n * size_t, y + r * n_out * size_t);
        let mut first = 0u64;
        while first < segments {
            let segs = batch.min(segments - first);
            if let Err(e) = batch_of(row, out, first, segs) {
                result = Err(e);
                break 'rows;
            }
            first += segs;
        }
    }
    // The scratch and plans serve the next run once this one is done with them.
    let done = stream.synchronize();
    result.and(done)
}
