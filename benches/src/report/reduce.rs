//! gpu-reduce's rows: every algorithm × {sum, max} × type × size, timed through
//! `Reduce::reduce_into` (device-side result, no host synchronisation inside the timed runs),
//! checked after the timing with a poisoned result slot; the serial (the reference) and rayon
//! reductions of `gpu_reduce::cpu`. The model moves `n·size` bytes (a read).

use std::cell::Cell;

use gpu_core::{Element, Op};
use gpu_reduce::cpu;

use super::{check, Case, Config, DType, Env, Group, Row, Verdict};

/// The operators of the report (the peers' `sum` and `max`).
pub const OPS: [Op; 2] = [Op::Sum, Op::Max];

/// One group per (type, size).
pub fn groups(cfg: &Config, gpu: bool, _notes: &mut Vec<String>) -> Vec<Group> {
    let mut out = Vec::new();
    // + 4: the default reduction from pageable and from pinned host memory, pipelined and
    // one-shot, unless --device-only.
    let host = if cfg.device_only { 0 } else { 4 };
    let per_op = 2 + if gpu {
        gpu_reduce::Algorithm::ALL.len() + host
    } else {
        0
    };
    for &d in &cfg.types {
        for &n in &cfg.sizes {
            out.push(Group {
                label: format!("reduce {} {}", d.name(), crate::size_label(n)),
                cases: OPS.len() * per_op,
                run: Box::new(move |env: &mut Env| crate::with_dtype!(d, T => run::<T>(env, d, n))),
            });
        }
    }
    out
}

fn run<T: Element>(env: &mut Env, d: DType, n: usize) -> Vec<Row> {
    let host = env.generate::<T>(d, n);
    let bytes = (n * d.size()) as u64;
    let reps = env.cfg.cpu_reps_for(n);
    let mut rows = Vec::new();
    for op in OPS {
        let reference = Cell::new(None::<T::Accumulator>);
        let rayon_out = Cell::new(None::<T::Accumulator>);
        let host = &host;
        let cases = vec![
            Case::new("reduce", "serial", op.name(), d.name(), n)
                .bytes(bytes, None)
                .reps(1)
                .cpu(|| reference.set(cpu::reduce(host, op).ok()))
                .check(|| Verdict::Unchecked("the reference".into())),
            Case::new("reduce", "rayon", op.name(), d.name(), n)
                .bytes(bytes, None)
                .reps(reps)
                .cpu(|| rayon_out.set(cpu::par_reduce(host, op).ok()))
                .check(|| match (rayon_out.get(), reference.get()) {
                    (Some(g), Some(w)) => check::scalar(g, w),
                    _ => Verdict::Wrong("the CPU reduction failed".into()),
                }),
        ];
        rows.extend(env.run_cases(cases));
        #[cfg(feature = "cuda")]
        if env.has_gpu() {
            rows.extend(gpu::run::<T>(env, d, host, op, reference.get()));
        }
    }
    rows
}

#[cfg(feature = "cuda")]
mod gpu {
    use std::cell::RefCell;

    use gpu_core::{Element, Op, Stream};
    use gpu_reduce::{Algorithm, Reduce, Workspace};

    use super::super::host_io::PATHS;
    use super::super::{check, classify, Case, DType, Env, Row, Verdict};

    pub(super) fn run<T: Element>(
        env: &mut Env,
        d: DType,
        host: &[T],
        op: Op,
        reference: Option<T::Accumulator>,
    ) -> Vec<Row> {
        let n = host.len();
        let array = n * d.size();
        let label = format!("reduce {} {}", d.name(), crate::size_label(n));
        // The input, the unrolled algorithm's scratch copy, and the copy reference's two arrays.
        if !env.fits(2 * array) {
            env.note(format!("{label}: skipped, does not fit in device memory"));
            return Vec::new();
        }
        let gpu = env.gpu.clone().expect("has_gpu");
        let setup = || -> gpu_core::Result<_> {
            Ok((
                gpu.upload(host)?,
                RefCell::new(gpu.alloc::<T::Accumulator>(1)?),
                RefCell::new(Workspace::new(&gpu)?),
            ))
        };
        let (x, out, ws) = match setup() {
            Ok(v) => v,
            Err(e) => {
                env.note(format!("{label}: {}", classify(&e).1));
                return Vec::new();
            }
        };
        let (x, out, ws, gpu) = (&x, &out, &ws, &gpu);
        let cases: Vec<Case<'_>> = Algorithm::ALL
            .into_iter()
            .map(|a| {
                Case::new("reduce", a.name(), op.name(), d.name(), n)
                    .bytes(array as u64, Some(array))
                    .gpu(move |s: &Stream| {
                        Reduce::new(gpu).algorithm(a).stream(s).reduce_into(
                            x,
                            op,
                            &mut out.borrow_mut(),
                            &mut ws.borrow_mut(),
                        )
                    })
                    .check(move || {
                        let Some(want) = reference else {
                            return Verdict::Unchecked("no CPU reference".into());
                        };
                        // Once more after a poisoned result slot, so a stale value cannot pass.
                        let s = gpu.stream();
                        let once = || -> gpu_core::Result<T::Accumulator> {
                            let mut o = out.borrow_mut();
                            o.memset_bytes(0xA5, s)?;
                            Reduce::new(gpu).algorithm(a).stream(s).reduce_into(
                                x,
                                op,
                                &mut o,
                                &mut ws.borrow_mut(),
                            )?;
                            s.synchronize()?;
                            Ok(o.to_vec()?[0])
                        };
                        match once() {
                            Ok(got) => check::scalar(got, want),
                            Err(e) => Verdict::error(&e),
                        }
                    })
            })
            .collect();
        let mut rows = env.run_cases(cases);
        if !env.cfg.device_only {
            rows.extend(from_host(env, d, host, op, reference));
        }
        rows
    }

    /// The default reduction of host data from pageable and from pinned memory, host in,
    /// value out: through the upload-only host pipeline (chunks reduced in a device ring while
    /// the next ones upload) and one-shot (uploaded whole, by the staging ring or straight
    /// from page-locked memory, then reduced once).
    fn from_host<T: Element>(
        env: &mut Env,
        d: DType,
        host: &[T],
        op: Op,
        reference: Option<T::Accumulator>,
    ) -> Vec<Row> {
        let n = host.len();
        let array = n * d.size();
        let gpu = env.gpu.clone().expect("has_gpu");
        let pinned = match gpu.pinned_from(host) {
            Ok(p) => p,
            Err(e) => {
                env.note(format!("reduce {} from host: {}", d.name(), classify(&e).1));
                return Vec::new();
            }
        };
        let (gpu, pinned) = (&gpu, &pinned);
        // Segments of 1000-3000 values for the host rows below (a fixed seed).
        let long_segments = gpu_core::data::offsets_over(n, 1000..3001, 3000);
        let mut cases: Vec<Case<'_>> = Vec::new();
        for (name, p) in PATHS {
            for is_pinned in [false, true] {
                let variant = format!(
                    "{}, from host, {}",
                    op.name(),
                    if is_pinned { "pinned" } else { "pageable" }
                );
                let run = move || -> gpu_core::Result<T::Accumulator> {
                    let r = Reduce::new(gpu).pipelining(p);
                    if is_pinned {
                        r.reduce(pinned.as_slice()?, op)
                    } else {
                        r.reduce(host, op)
                    }
                };
                cases.push(
                    Case::new("reduce", name, &variant, d.name(), n)
                        .bytes(array as u64, Some(array))
                        .reps(5)
                        .gpu(move |_: &Stream| run().map(|_| ()))
                        .check(move || {
                            let Some(want) = reference else {
                                return Verdict::Unchecked("no CPU reference".into());
                            };
                            match run() {
                                Ok(got) => check::scalar(got, want),
                                Err(e) => Verdict::error(&e),
                            }
                        }),
                );
            }
        }
        // argmin of the same host data (once, beside the sums): the chunks' (value, index)
        // pairs made global and folded on the device, checked against the CPU's index.
        if op == Op::Sum {
            for (name, p) in PATHS {
                for is_pinned in [false, true] {
                    let variant = if is_pinned {
                        HOST_ARGMIN_PINNED
                    } else {
                        HOST_ARGMIN_PAGEABLE
                    };
                    let run = move || -> gpu_core::Result<Option<usize>> {
                        let r = Reduce::new(gpu).pipelining(p);
                        if is_pinned {
                            r.argmin(pinned.as_slice()?)
                        } else {
                            r.argmin(host)
                        }
                    };
                    cases.push(
                        Case::new("reduce", name, variant, d.name(), n)
                            .bytes(array as u64, Some(array))
                            .reps(5)
                            .gpu(move |_: &Stream| run().map(drop))
                            .check(move || match run() {
                                Ok(got) => {
                                    let want = gpu_reduce::cpu::argmin(host);
                                    Verdict::from_bool(got == want, || {
                                        format!("index {got:?}, the CPU's {want:?}")
                                    })
                                }
                                Err(e) => Verdict::error(&e),
                            }),
                    );
                }
            }
        }
        // Sums along rows of 4096 of a pageable host array and down its columns
        // (`Reduce::sum_axis` along axes 1 and 0): chunks of whole rows through the pipeline
        // against the one-shot path, checked against the CPU's sums.
        if op == Op::Sum && !d.is_half() && n % ROW == 0 && n >= 2 * ROW {
            let rows = ndarray::ArrayView2::from_shape((n / ROW, ROW), host)
                .expect("n is a multiple of the row");
            for (variant, axis) in [(HOST_ROWS, 1), (HOST_COLUMNS, 0)] {
                let axis = ndarray::Axis(axis);
                for (name, p) in PATHS {
                    let (r, r2) = (
                        Reduce::new(gpu).pipelining(p),
                        Reduce::new(gpu).pipelining(p),
                    );
                    cases.push(
                        Case::new("reduce", name, variant, d.name(), n)
                            .bytes(array as u64, Some(array))
                            .reps(5)
                            .gpu(move |_: &Stream| r.sum_axis(&rows, axis).map(drop))
                            .check(move || {
                                let got = match r2.sum_axis(&rows, axis) {
                                    Ok(a) => a,
                                    Err(e) => return Verdict::error(&e),
                                };
                                match gpu_reduce::cpu::par_reduce_axis(rows, axis, op) {
                                    Ok(want) => match (got.as_slice(), want.as_slice()) {
                                        (Some(g), Some(w)) => check::slices(g, w),
                                        _ => Verdict::Unchecked("not in C order".into()),
                                    },
                                    Err(e) => Verdict::error(&e),
                                }
                            }),
                    );
                }
            }
        }
        // Sums over segments of 1000-3000 values of a pageable host vector
        // (`Reduce::segmented_sum`: segment tiles at every length for host values), through the
        // pipeline against the one-shot path, checked against the CPU.
        if op == Op::Sum && !d.is_half() && n >= 2 * ROW {
            let offsets = &long_segments[..];
            for (name, p) in PATHS {
                let (r, r2) = (
                    Reduce::new(gpu).pipelining(p),
                    Reduce::new(gpu).pipelining(p),
                );
                cases.push(
                    Case::new("reduce", name, HOST_LONG_SEGMENTS, d.name(), n)
                        .bytes(array as u64, Some(array))
                        .reps(5)
                        .gpu(move |_: &Stream| r.segmented_sum(host, offsets).map(drop))
                        .check(move || {
                            let got = match r2.segmented_sum(host, offsets) {
                                Ok(v) => v,
                                Err(e) => return Verdict::error(&e),
                            };
                            match gpu_reduce::cpu::segmented_reduce(host, offsets, op) {
                                Ok(want) => check::slices(&got, &want),
                                Err(e) => Verdict::error(&e),
                            }
                        }),
                );
            }
        }
        env.run_cases(cases)
    }

    const HOST_ARGMIN_PAGEABLE: &str = "argmin, from host, pageable";
    const HOST_ARGMIN_PINNED: &str = "argmin, from host, pinned";
    const HOST_LONG_SEGMENTS: &str = "sum in segments of 1000-3000, from host, pageable";
    const HOST_ROWS: &str = "sum along rows of 4096, from host, pageable";
    const HOST_COLUMNS: &str = "sum down the columns of rows of 4096, from host, pageable";
    /// Row length of the axis rows.
    const ROW: usize = 4096;
}
