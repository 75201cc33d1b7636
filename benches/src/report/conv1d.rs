//! gpu-conv1d's rows: every strategy × mask width × float type × size, `same` output, zero
//! boundary, cross-correlation (the chapter's `P[i] = Σ_j N[i − r + j]·M[j]`), timed through
//! `Conv1d::run_into` on the timed stream (enqueued only); the serial (the reference, where `n·w` is small enough;
//! otherwise rayon is the reference) and rayon correlations of `gpu_conv1d::cpu`. The model
//! moves `2·n·size` bytes (read the signal, write the output).

use std::cell::RefCell;

use gpu_conv1d::{cpu, Boundary, Mode, Real, Strategy};

use super::{check, Case, Config, DType, Env, Group, Row, Verdict};
use crate::data;

/// The variant label of every row.
pub const VARIANT: &str = "same, zero";

/// One group per (float type, size).
pub fn groups(cfg: &Config, gpu: bool, notes: &mut Vec<String>) -> Vec<Group> {
    let mut out = Vec::new();
    // Every float type, the 16-bit ones too (summed in f32).
    let floats: Vec<DType> = cfg.types.iter().copied().filter(|d| d.is_float()).collect();
    if floats.is_empty() {
        notes.push("conv1d: runs on float types only; none in --types".into());
    }
    for d in floats {
        for &n in &cfg.sizes {
            let widths = cfg.widths.clone();
            let limit = cfg.serial_conv_limit;
            let serial = widths.iter().filter(|&&w| n * w <= limit).count();
            let tensor = usize::from(d != DType::F64);
            // + 1: the FFT path; + 4: host to host (pipelined and one-shot, pageable and
            // pinned), Auto, unless --device-only.
            let host = if cfg.device_only { 0 } else { 4 };
            let gpu_cases = if gpu {
                Strategy::ALL.len() + tensor + 1 + host
            } else {
                0
            };
            out.push(Group {
                label: format!("conv1d {} {}", d.name(), crate::size_label(n)),
                cases: serial + widths.len() * (1 + gpu_cases),
                run: Box::new(move |env: &mut Env| match d {
                    DType::F32 => run::<f32>(env, d, n, &widths),
                    DType::F64 => run::<f64>(env, d, n, &widths),
                    DType::F16 => run::<gpu_core::f16>(env, d, n, &widths),
                    DType::BF16 => run::<gpu_core::bf16>(env, d, n, &widths),
                    _ => Vec::new(),
                }),
            });
        }
    }
    out
}

fn run<T: Real>(env: &mut Env, d: DType, n: usize, widths: &[usize]) -> Vec<Row> {
    let host = env.generate::<T>(d, n);
    let bytes = 2 * (n * d.size()) as u64;
    let reps = env.cfg.cpu_reps_for(n);
    #[cfg(feature = "cuda")]
    let mut device = if env.has_gpu() {
        gpu::Device::new(env, &host)
    } else {
        None
    };
    let mut rows = Vec::new();
    for &w in widths {
        let mask = data::mask::<T>(w, env.cfg.seed ^ w as u64);
        let reference = RefCell::new(Vec::<T>::new());
        let rayon_out = RefCell::new(Vec::<T>::new());
        let limit = env.cfg.serial_conv_limit;
        let serial = n * w <= limit;
        let (host, mask_ref) = (&host, &mask);
        let mut cases = Vec::new();
        if serial {
            cases.push(
                Case::new("conv1d", "serial", VARIANT, d.name(), n)
                    .param("w", w as u64)
                    .bytes(bytes, None)
                    .reps(1)
                    .cpu(|| {
                        *reference.borrow_mut() =
                            cpu::correlate(host, mask_ref, Mode::Same, Boundary::Zero)
                                .unwrap_or_default();
                    })
                    .check(|| Verdict::Unchecked("the reference".into())),
            );
        }
        cases.push(
            Case::new("conv1d", "rayon", VARIANT, d.name(), n)
                .param("w", w as u64)
                .bytes(bytes, None)
                .reps(reps)
                .cpu(|| {
                    *rayon_out.borrow_mut() =
                        cpu::par_correlate(host, mask_ref, Mode::Same, Boundary::Zero)
                            .unwrap_or_default();
                })
                .check(|| {
                    if serial {
                        check::slices(&rayon_out.borrow(), &reference.borrow())
                    } else {
                        Verdict::Unchecked(format!("the reference (serial skipped: n·w > {limit})"))
                    }
                }),
        );
        rows.extend(env.run_cases(cases));
        if !serial {
            *reference.borrow_mut() = std::mem::take(&mut *rayon_out.borrow_mut());
        }
        drop(rayon_out);
        #[cfg(feature = "cuda")]
        if let Some(dev) = device.as_mut() {
            rows.extend(dev.run(env, d, host, &mask, &reference.borrow()));
        }
    }
    rows
}

#[cfg(feature = "cuda")]
mod gpu {
    use std::cell::RefCell;

    use gpu_conv1d::{Conv1d, Options, Real, Strategy};
    use gpu_core::{DeviceArray, Stream};

    use super::super::host_io::{HostIo, PATHS};
    use super::super::{check, classify, Case, DType, Env, Row, Verdict};
    use super::VARIANT;

    /// The signal on the device and the output array, shared by every width, and the host
    /// memory of the host-to-host rows.
    pub(super) struct Device<T: Real> {
        x: DeviceArray<T>,
        y: RefCell<DeviceArray<T>>,
        host_io: HostIo<T>,
    }

    impl<T: Real> Device<T> {
        pub(super) fn new(env: &mut Env, host: &[T]) -> Option<Self> {
            let n = host.len();
            let label = format!("conv1d {} {}", T::NAME, crate::size_label(n));
            if !env.fits(4 * n * std::mem::size_of::<T>()) {
                env.note(format!("{label}: skipped, does not fit in device memory"));
                return None;
            }
            let gpu = env.gpu.clone()?;
            let setup = || -> gpu_core::Result<Self> {
                Ok(Device {
                    x: gpu.upload(host)?,
                    y: RefCell::new(gpu.alloc::<T>(n)?),
                    host_io: HostIo::new(&gpu, host, n)?,
                })
            };
            match setup() {
                Ok(d) => Some(d),
                Err(e) => {
                    env.note(format!("{label}: {}", classify(&e).1));
                    None
                }
            }
        }

        pub(super) fn run(
            &mut self,
            env: &mut Env,
            d: DType,
            host: &[T],
            mask: &[T],
            reference: &[T],
        ) -> Vec<Row> {
            let n = self.x.len();
            let w = mask.len();
            let array = n * d.size();
            let gpu = env.gpu.clone().expect("has_gpu");
            let (x, y) = (&self.x, &self.y);
            // Tensor cores for f16, bf16 and f32 (an error row where the GPU has none).
            let mut strategies = Strategy::ALL.to_vec();
            if T::NAME != "f64" {
                strategies.push(Strategy::TensorCore);
            }
            // Warpgroup products for f16 and bf16 (an error row off compute capability 9.0).
            if T::NAME == "f16" || T::NAME == "bf16" {
                strategies.push(Strategy::Warpgroup);
            }
            strategies.push(Strategy::FFT);
            let cases: Vec<Case<'_>> = strategies
                .into_iter()
                .map(|strategy| {
                    let case = Case::new("conv1d", strategy.name(), VARIANT, d.name(), n)
                        .param("w", w as u64)
                        .bytes(2 * array as u64, Some(array));
                    match Conv1d::correlation(&gpu, mask, Options::new().strategy(strategy)) {
                        Err(e) => case.absent(classify(&e).1),
                        Ok(conv) => {
                            let slack = fft_slack(conv.path(n).ok(), host, mask);
                            // On the stream the report times: only enqueued.
                            let conv = conv.stream(gpu.stream());
                            let c2 = conv.clone();
                            case.gpu(move |s: &Stream| {
                                debug_assert!(std::ptr::eq(s, conv.gpu().stream()));
                                conv.run_into(x, &mut y.borrow_mut())
                            })
                            .check(move || {
                                if reference.len() != n {
                                    return Verdict::Unchecked("no CPU reference".into());
                                }
                                // Once more into a poisoned output, so stale data cannot pass.
                                let s = c2.gpu().stream();
                                let once = || -> gpu_core::Result<Vec<T>> {
                                    let mut o = y.borrow_mut();
                                    o.memset_bytes(0xFF, s)?;
                                    c2.run_into(x, &mut o)?;
                                    s.synchronize()?;
                                    o.to_vec()
                                };
                                match once() {
                                    Ok(v) => check::slices_within(&v, reference, slack),
                                    Err(e) => Verdict::error(&e),
                                }
                            })
                        }
                    }
                })
                .collect();
            let mut rows = env.run_cases(cases);
            if !env.cfg.device_only {
                rows.extend(self.host_to_host(env, d, host, mask, reference));
            }
            rows
        }

        /// `Conv1d::run_to_slice` (Auto) from a host signal to a host result made beforehand,
        /// pageable and page-locked: the host pipeline against the one-shot path (upload all,
        /// convolve, download all); the time is host in, result out.
        fn host_to_host(
            &self,
            env: &mut Env,
            d: DType,
            host: &[T],
            mask: &[T],
            reference: &[T],
        ) -> Vec<Row> {
            let n = host.len();
            let array = n * d.size();
            let gpu = env.gpu.clone().expect("has_gpu");
            let Ok(conv) = Conv1d::correlation(&gpu, mask, Options::new()) else {
                return Vec::new();
            };
            let mut cases = Vec::new();
            let slack = fft_slack(conv.path(n).ok(), host, mask);
            let h = &self.host_io;
            for (name, p) in PATHS {
                for pinned in [false, true] {
                    let conv = conv.clone().pipelining(p);
                    let variant = format!(
                        "{VARIANT}, host to host, {}",
                        if pinned { "pinned" } else { "pageable" }
                    );
                    let run = move || h.run(host, pinned, |x, y| conv.run_to_slice(x, y));
                    let run2 = run.clone();
                    cases.push(
                        Case::new("conv1d", name, variant, d.name(), n)
                            .param("w", mask.len() as u64)
                            .bytes(2 * array as u64, Some(array))
                            .reps(5)
                            .gpu(move |_: &Stream| run())
                            .check(move || {
                                if reference.len() != n {
                                    return Verdict::Unchecked("no CPU reference".into());
                                }
                                if let Err(e) = run2() {
                                    return Verdict::error(&e);
                                }
                                h.check_within(pinned, reference, slack)
                            }),
                    );
                }
            }
            // Rows of 4096 from a pageable host array into a new one (`Conv1d::run_rows`):
            // chunks of whole rows through the pipeline against the one-shot path. Then along
            // the middle axis of (n / 2^14) × 256 × 64 (a batch of 64-channel signals of 256
            // samples, C order: `Conv1d::run_axis` along axis 1): chunks of whole outer slices
            // gathered into rows on the device. Both checked against the CPU.
            let axis = ndarray::Axis(1);
            if !d.is_half() && n % ROW == 0 && n >= 2 * ROW {
                let rows = ndarray::ArrayView2::from_shape((n / ROW, ROW), host)
                    .expect("n is a multiple of the row");
                let variant = format!("{VARIANT} along rows of {ROW}, host to new array, pageable");
                for (name, p) in PATHS {
                    let c = conv.clone().pipelining(p);
                    let run = move || c.run_rows(rows).map(|a| a.into_dyn());
                    let want = move || same_zero_along(rows.into_dyn(), axis, mask);
                    let case = Case::new("conv1d", name, &variant, d.name(), n);
                    let slack = fft_slack(conv.path(ROW).ok(), host, mask);
                    cases.push(host_to_new_array(case, mask.len(), array, slack, run, want));
                }
            }
            if !d.is_half() && n % (MIDDLE * 64) == 0 && n >= 2 * MIDDLE * 64 {
                let x = ndarray::ArrayView3::from_shape((n / (MIDDLE * 64), MIDDLE, 64), host)
                    .expect("n is a multiple of the slice");
                let variant = format!(
                    "{VARIANT} along the middle axis of slices of {MIDDLE} × 64, host to new array, pageable"
                );
                for (name, p) in PATHS {
                    let c = conv.clone().pipelining(p);
                    let run = move || c.run_axis(&x, axis);
                    let want = move || same_zero_along(x.into_dyn(), axis, mask);
                    let case = Case::new("conv1d", name, &variant, d.name(), n);
                    let slack = fft_slack(conv.path(MIDDLE).ok(), host, mask);
                    cases.push(host_to_new_array(case, mask.len(), array, slack, run, want));
                }
            }
            // Down the columns of (n / 64) × 64 (64 channels of n / 64 samples, C order:
            // `Conv1d::run_axis` along axis 0, the outer memory axis): chunks of slices with
            // the mask's reach before them, gathered into rows on the device.
            if !d.is_half() && n % 64 == 0 && n >= 2 * 64 * mask.len() {
                let x = ndarray::ArrayView2::from_shape((n / 64, 64), host)
                    .expect("n is a multiple of 64");
                let (axis, lane) = (ndarray::Axis(0), n / 64);
                let variant = format!(
                    "{VARIANT} down the columns of rows of 64, host to new array, pageable"
                );
                for (name, p) in PATHS {
                    let c = conv.clone().pipelining(p);
                    let run = move || c.run_axis(&x, axis);
                    let want = move || same_zero_along(x.into_dyn(), axis, mask);
                    let case = Case::new("conv1d", name, &variant, d.name(), n);
                    let slack = fft_slack(conv.path(lane).ok(), host, mask);
                    cases.push(host_to_new_array(case, mask.len(), array, slack, run, want));
                }
            }
            env.run_cases(cases)
        }
    }

    /// The CPU's `same`, zero-ghost correlation of `x` along `axis` with `mask`.
    fn same_zero_along<T: Real>(
        x: ndarray::ArrayViewD<'_, T>,
        axis: ndarray::Axis,
        mask: &[T],
    ) -> gpu_core::Result<ndarray::ArrayD<T>> {
        gpu_conv1d::cpu::apply_axis(
            gpu_conv1d::Operation::Correlation,
            x,
            axis,
            mask,
            gpu_conv1d::Mode::Same,
            gpu_conv1d::Boundary::Zero,
            true,
        )
    }

    /// `case` of a host array convolved into a new one by `run` (a mask of `w` taps over
    /// `array` bytes), timed five times and checked against `want` element by element in
    /// logical order.
    fn host_to_new_array<'a, T: Real>(
        case: Case<'a>,
        w: usize,
        array: usize,
        slack: f64,
        run: impl Fn() -> gpu_core::Result<ndarray::ArrayD<T>> + 'a,
        want: impl Fn() -> gpu_core::Result<ndarray::ArrayD<T>> + 'a,
    ) -> Case<'a> {
        let run = std::rc::Rc::new(run);
        let timed = run.clone();
        case.param("w", w as u64)
            .bytes(2 * array as u64, Some(array))
            .reps(5)
            .gpu(move |_: &Stream| timed().map(drop))
            .check(move || match (run(), want()) {
                (Ok(got), Ok(want)) => {
                    let g: Vec<T> = got.iter().copied().collect();
                    let w: Vec<T> = want.iter().copied().collect();
                    check::slices_within(&g, &w, slack)
                }
                (Err(e), _) | (_, Err(e)) => Verdict::error(&e),
            })
    }

    /// The absolute slack of an FFT path's results (0 for the direct paths, exact on the
    /// report's small-integer data): 2^-20 (1e-6) of `max|x| · Σ|m|`, which bounds every
    /// window's `‖x‖₂·‖m‖₂`; the FFT's errors against f64 are about 1e-7 of that product
    /// (docs/conv1d.md, Accuracy).
    fn fft_slack<T: Real>(path: Option<gpu_conv1d::Path>, x: &[T], mask: &[T]) -> f64 {
        use rayon::prelude::*;
        if !matches!(
            path,
            Some(
                gpu_conv1d::Path::Fft { .. }
                    | gpu_conv1d::Path::FftEvenOdd { .. }
                    | gpu_conv1d::Path::FftEvenOddParts { .. }
                    | gpu_conv1d::Path::CuFft { .. }
            )
        ) {
            return 0.0;
        }
        let xmax = x
            .par_iter()
            .map(|v| v.to_f64().abs())
            .reduce(|| 0.0, f64::max);
        let norm: f64 = mask.iter().map(|v| v.to_f64().abs()).sum();
        xmax * norm / (1u64 << 20) as f64
    }

    /// Lane length along the middle axis of the 3-D arrays from host memory.
    const MIDDLE: usize = 256;
    /// Row length of the rows from host memory.
    const ROW: usize = 4096;
}
