//! gpu-scan's rows: every GPU algorithm × inclusive sum × type × size, kernel only
//! (`Scan::scan_into` on device arrays, enqueued on the timed stream) and with the host↔device copies (pageable upload,
//! scan, download: the prefix-scan report's second timing); the block-size sweep of the
//! block-configurable algorithms at `--sweep-n`; the serial scan (the reference) and the rayon
//! scan of `gpu_scan::cpu`.

use std::cell::RefCell;

use gpu_core::{Element, Op};
use gpu_scan::{cpu, Algorithm, ScanKind};

use super::{check, Case, Config, DType, Env, Group, Row, Verdict};

/// The sweep's algorithms: the per-block scans of the report (block size is their parameter)
/// and the plain look-back.
pub const SWEEP: [Algorithm; 4] = [
    Algorithm::HillisSteele,
    Algorithm::Blelloch,
    Algorithm::BlellochPadded,
    Algorithm::LookBack,
];

/// Rows of the look-back tile comparison (plain and deterministic × registers and staged).
const TILE_ROWS: usize = 4;

const OP: Op = Op::Sum;

/// The algorithms built for f16/bf16 scans.
const HALF_ALGORITHMS: [Algorithm; 3] = [
    Algorithm::Auto,
    Algorithm::LookBack,
    Algorithm::LookBackDeterministic,
];
const VARIANT: &str = "inclusive sum";

/// One group per (type, size), then one for the sweep (first type of `--types`).
pub fn groups(cfg: &Config, gpu: bool, _notes: &mut Vec<String>) -> Vec<Group> {
    let mut out = Vec::new();
    // + 4: host to host, pipelined and one-shot, pageable and pinned; + 2: rows along axis 1
    // (neither with --device-only).
    let (host, host_rows) = if cfg.device_only { (0, 0) } else { (4, 2) };
    let per_gpu = 2 * Algorithm::GPU.len() + TILE_ROWS + host + host_rows;
    // f16/bf16: the look-back algorithms, the only ones built for them (both tile kinds), and
    // the scan into f32 results (the default and three block sizes).
    let per_gpu_half = 2 * HALF_ALGORITHMS.len() + TILE_ROWS + host + 4;
    for &d in &cfg.types {
        for &n in &cfg.sizes {
            let gpu_cases = if d.is_half() { per_gpu_half } else { per_gpu };
            out.push(Group {
                label: format!("scan {} {}", d.name(), crate::size_label(n)),
                cases: 2 + if gpu { gpu_cases } else { 0 },
                run: Box::new(move |env: &mut Env| {
                    crate::with_dtype!(d, T => run::<T>(env, d, n, None, true))
                }),
            });
        }
    }
    // The sweep: GPU only; its CPU rows (for ×rayon) unless the main groups already have them.
    // The sweep runs on the first type (f16/bf16: the look-back algorithms only).
    if let (Some(&d), true) = (cfg.types.first(), gpu) {
        let n = cfg.sweep_n;
        let blocks = cfg.sweep_blocks.clone();
        let cpu_rows = !cfg.sizes.contains(&n);
        out.push(Group {
            label: format!("scan block-size sweep {} {}", d.name(), crate::size_label(n)),
            cases: if cpu_rows { 2 } else { 0 } + (SWEEP.len() + 1) * blocks.len(),
            run: Box::new(move |env: &mut Env| {
                crate::with_dtype!(d, T => run::<T>(env, d, n, Some(&blocks), cpu_rows))
            }),
        });
    }
    out
}

fn run<T: Element>(
    env: &mut Env,
    d: DType,
    n: usize,
    sweep: Option<&[u32]>,
    cpu_rows: bool,
) -> Vec<Row> {
    let host = env.generate::<T>(d, n);
    let bytes = 2 * (n * d.size()) as u64;
    let reps = env.cfg.cpu_reps_for(n);
    let reference = RefCell::new(Vec::<T>::new());
    let rayon_out = RefCell::new(vec![T::default(); n]);
    let mut cases = vec![
        Case::new("scan", "serial", VARIANT, d.name(), n)
            .bytes(bytes, None)
            .reps(1)
            .cpu(|| {
                let mut r = reference.borrow_mut();
                r.resize(n, T::default());
                if let Err(e) = cpu::serial(&host, &mut r, OP, ScanKind::Inclusive) {
                    r.clear();
                    eprintln!("scan serial: {e}");
                }
            })
            .check(|| Verdict::Unchecked("the reference".into())),
        Case::new("scan", "rayon", VARIANT, d.name(), n)
            .bytes(bytes, None)
            .reps(reps)
            .cpu(|| {
                let _ = cpu::parallel(&host, &mut rayon_out.borrow_mut(), OP, ScanKind::Inclusive);
            })
            .check(|| check::slices(&rayon_out.borrow(), &reference.borrow())),
    ];
    if !cpu_rows {
        // The serial scan still runs (it is the reference), but is not a row.
        cases.clear();
        let mut r = reference.borrow_mut();
        r.resize(n, T::default());
        if cpu::serial(&host, &mut r, OP, ScanKind::Inclusive).is_err() {
            r.clear();
        }
    }
    #[allow(unused_mut)]
    let mut rows = env.run_cases(cases);
    drop(rayon_out);
    #[cfg(feature = "cuda")]
    if env.has_gpu() {
        rows.extend(gpu::run::<T>(env, d, &host, &reference.borrow(), sweep));
    }
    let _ = sweep;
    rows
}

#[cfg(feature = "cuda")]
mod gpu {
    use std::cell::RefCell;

    use gpu_core::{Element, Stream};
    use gpu_scan::{plan, Algorithm, Scan, ScanOptions, TileStaging};

    use super::super::host_io::{HostIo, PATHS};
    use super::super::{check, classify, Case, DType, Env, Row, Verdict};
    use super::{HALF_ALGORITHMS, OP, SWEEP, VARIANT};

    const WITH_COPIES: &str = "inclusive sum, with copies";
    const HOST_PAGEABLE: &str = "inclusive sum, host to host, pageable";
    const HOST_PINNED: &str = "inclusive sum, host to host, pinned";
    const HOST_ROWS: &str = "inclusive sum along rows of 4096, host to new array, pageable";
    const HOST_SEGMENTS: &str = "inclusive sum in segments of 1-2000, host to new vector, pageable";
    const HOST_COLUMNS: &str =
        "inclusive sum down the columns of rows of 4096, host to new array, pageable";
    /// Row length of the axis rows.
    const ROW: usize = 4096;

    pub(super) fn run<T: Element>(
        env: &mut Env,
        d: DType,
        host: &[T],
        reference: &[T],
        sweep: Option<&[u32]>,
    ) -> Vec<Row> {
        let n = host.len();
        let array = n * d.size();
        let label = format!("scan {} {}", d.name(), crate::size_label(n));
        if !env.fits(4 * array) {
            env.note(format!("{label}: skipped, does not fit in device memory"));
            return Vec::new();
        }
        let gpu = env.gpu.clone().expect("has_gpu");
        let setup = || -> gpu_core::Result<_> {
            Ok((
                RefCell::new(gpu.upload(host)?),
                RefCell::new(gpu.alloc::<T>(n)?),
            ))
        };
        let (x, y) = match setup() {
            Ok(v) => v,
            Err(e) => {
                env.note(format!("{label}: {}", classify(&e).1));
                return Vec::new();
            }
        };
        let host_out = RefCell::new(vec![T::default(); n]);
        let (x, y, host_out, gpu) = (&x, &y, &host_out, &gpu);
        // Every algorithm writes the same output arrays, so each check first poisons them and
        // runs its algorithm once more: a run that writes nothing cannot pass on stale data.
        let poisoned = T::from_f64(-12345.0);
        // One `Scan` per case, on the stream the report times (its scratch is made once).
        let kernel = move |o: ScanOptions| {
            let scan = Scan::new(gpu).options(o).stream(gpu.stream());
            move |s: &Stream| {
                debug_assert!(std::ptr::eq(s, gpu.stream()), "the report times one stream");
                scan.scan_into(&*x.borrow(), &mut y.borrow_mut(), OP)
            }
        };
        let check_kernel = move |o: ScanOptions| {
            move || {
                if reference.len() != n {
                    return Verdict::Unchecked("no serial reference".into());
                }
                let s = gpu.stream();
                let again = || -> gpu_core::Result<Vec<T>> {
                    y.borrow_mut().fill(poisoned, s)?;
                    kernel(o)(s)?;
                    s.synchronize()?;
                    y.borrow().to_vec()
                };
                match again() {
                    Ok(v) => check::slices(&v, reference),
                    Err(e) => Verdict::error(&e),
                }
            }
        };
        // Pageable upload and download, as a plain cudaMemcpy does; both wait for the device,
        // so the events around the three cover all of them.
        let with_copies = move |o: ScanOptions| {
            let run = kernel(o);
            move |s: &Stream| {
                x.borrow_mut().copy_from(host)?;
                run(s)?;
                y.borrow().copy_to(&mut host_out.borrow_mut())
            }
        };
        let check_with_copies = move |o: ScanOptions| {
            move || {
                if reference.len() != n {
                    return Verdict::Unchecked("no serial reference".into());
                }
                host_out.borrow_mut().fill(poisoned);
                let s = gpu.stream();
                if let Err(e) = y.borrow_mut().fill(poisoned, s) {
                    return Verdict::error(&e);
                }
                match with_copies(o)(s) {
                    Ok(()) => check::slices(&host_out.borrow(), reference),
                    Err(e) => Verdict::error(&e),
                }
            }
        };
        let bytes = 2 * array as u64;
        let host_io = match sweep {
            None if !env.cfg.device_only => HostIo::new(gpu, host, n).ok(),
            _ => None,
        };
        let host_io = &host_io;
        let accumulated = if d.is_half() && sweep.is_none() {
            Accumulated::new(gpu, host)
        } else {
            None
        };
        let segment_offsets = match sweep {
            // Segments of 1-2000 values (a fixed seed: the same in every run); host-link rows.
            None if !env.cfg.device_only => gpu_core::data::offsets_over(n, 1..2001, 2000),
            _ => Vec::new(),
        };
        let mut cases = Vec::new();
        let algorithms: Vec<Algorithm> = if d.is_half() {
            HALF_ALGORITHMS.to_vec()
        } else {
            Algorithm::GPU.to_vec()
        };
        let tile_kinds = tiles(gpu);
        match sweep {
            None => {
                for &a in &algorithms {
                    let o = ScanOptions::inclusive().algorithm(a);
                    cases.push(
                        Case::new("scan", a.name(), VARIANT, d.name(), n)
                            .bytes(bytes, Some(array))
                            .gpu(kernel(o))
                            .check(check_kernel(o)),
                    );
                }
                // The look-back tiles side by side: all in registers (compute_70 kernels) and
                // staged through shared memory (sm_80+), whatever the default picks at this n.
                for a in [Algorithm::LookBack, Algorithm::LookBackDeterministic] {
                    for &t in &tile_kinds {
                        let o = ScanOptions::inclusive().algorithm(a).staging(t);
                        let name = format!("{}_{}", a.name(), t.name());
                        cases.push(
                            Case::new("scan", name, VARIANT, d.name(), n)
                                .bytes(bytes, Some(array))
                                .gpu(kernel(o))
                                .check(check_kernel(o)),
                        );
                    }
                }
                if let Some(a) = &accumulated {
                    cases.push(a.case(gpu, x, None));
                    for b in [256, 512, 1024] {
                        cases.push(a.case(gpu, x, Some(b)));
                    }
                }
                for &a in &algorithms {
                    let o = ScanOptions::inclusive().algorithm(a);
                    cases.push(
                        Case::new("scan", a.name(), WITH_COPIES, d.name(), n)
                            .bytes(bytes, Some(array))
                            .reps(5)
                            .gpu(with_copies(o))
                            .check(check_with_copies(o)),
                    );
                }
                // Host slice to host slice (`Scan::scan_to_slice`), pageable (a Vec made
                // beforehand) and page-locked (PinnedBuffers) memory: the host pipeline against
                // the one-shot path (upload all, scan, download all), the default algorithm.
                if let Some(h) = &host_io {
                    for (name, p) in PATHS {
                        for pinned in [false, true] {
                            let scan = Scan::new(gpu).pipelining(p);
                            let variant = if pinned { HOST_PINNED } else { HOST_PAGEABLE };
                            let run =
                                move || h.run(host, pinned, |x, y| scan.scan_to_slice(x, y, OP));
                            let run2 = run.clone();
                            cases.push(
                                Case::new("scan", name, variant, d.name(), n)
                                    .bytes(bytes, Some(array))
                                    .reps(5)
                                    .gpu(move |_: &Stream| run())
                                    .check(move || {
                                        if reference.len() != n {
                                            return Verdict::Unchecked(
                                                "no serial reference".into(),
                                            );
                                        }
                                        if let Err(e) = run2() {
                                            return Verdict::error(&e);
                                        }
                                        h.check(pinned, reference)
                                    }),
                            );
                        }
                    }
                }
                // Rows of 4096 scanned along axis 1 (`Scan::scan_axis`), from a pageable host
                // array into a new one: chunks of whole rows through the pipeline against the
                // one-shot path; and down the columns (axis 0: the one-shot launch's vector
                // columns run chunk by chunk, whole spans each). Checked against the CPU's scan
                // (the small-integer data keep float sums exact).
                let axes = [(1usize, HOST_ROWS), (0, HOST_COLUMNS)];
                if !env.cfg.device_only && !d.is_half() && n % ROW == 0 && n >= 2 * ROW {
                    let rows = ndarray::ArrayView2::from_shape((n / ROW, ROW), host)
                        .expect("n is a multiple of the row");
                    for ((name, p), (axis, what)) in PATHS
                        .into_iter()
                        .flat_map(|path| axes.iter().map(move |&a| (path, a)))
                    {
                        let axis = ndarray::Axis(axis);
                        let scan = Scan::new(gpu).pipelining(p);
                        let scan2 = scan.clone();
                        cases.push(
                            Case::new("scan", name, what, d.name(), n)
                                .bytes(bytes, Some(array))
                                .reps(5)
                                .gpu(move |_: &Stream| scan.scan_axis(&rows, axis, OP).map(drop))
                                .check(move || {
                                    let got = match scan2.scan_axis(&rows, axis, OP) {
                                        Ok(a) => a,
                                        Err(e) => return Verdict::error(&e),
                                    };
                                    let kind = gpu_scan::ScanKind::Inclusive;
                                    match gpu_scan::cpu::par_scan_axis(rows, axis, OP, kind) {
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
                // Segments of 1-2000 values (`Scan::segmented_scan`), from a pageable host
                // vector into a new one: chunks of whole tiles through the pipeline against the
                // one-shot path. Checked against the CPU's segmented scan. Host-link rows:
                // `--device-only` leaves them out, as the other host rows.
                if !env.cfg.device_only && !d.is_half() && n >= 2 * ROW {
                    let offsets = &segment_offsets[..];
                    for (name, p) in PATHS {
                        let (scan, scan2) =
                            (Scan::new(gpu).pipelining(p), Scan::new(gpu).pipelining(p));
                        cases.push(
                            Case::new("scan", name, HOST_SEGMENTS, d.name(), n)
                                .bytes(bytes, Some(array))
                                .reps(5)
                                .gpu(move |_: &Stream| {
                                    scan.segmented_scan(host, offsets, OP).map(drop)
                                })
                                .check(move || {
                                    let got = match scan2.segmented_scan(host, offsets, OP) {
                                        Ok(v) => v,
                                        Err(e) => return Verdict::error(&e),
                                    };
                                    let kind = gpu_scan::ScanKind::Inclusive;
                                    match gpu_scan::cpu::segmented_scan(host, offsets, OP, kind) {
                                        Ok(want) => check::slices(&got, &want),
                                        Err(e) => Verdict::error(&e),
                                    }
                                }),
                        );
                    }
                }
            }
            Some(blocks) => {
                let sweep: Vec<Algorithm> = if d.is_half() {
                    vec![Algorithm::LookBack, Algorithm::LookBackDeterministic]
                } else {
                    SWEEP.to_vec()
                };
                for a in sweep {
                    for &b in blocks {
                        // The sweep's look-back keeps its tiles in registers, as the report's
                        // block-size parameter is about; the staged tiles follow below.
                        let o = ScanOptions::inclusive()
                            .algorithm(a)
                            .block_size(b)
                            .staging(TileStaging::Registers);
                        cases.push(
                            Case::new("scan", a.name(), VARIANT, d.name(), n)
                                .param("block", b as u64)
                                .bytes(bytes, Some(array))
                                .gpu(kernel(o))
                                .check(check_kernel(o)),
                        );
                    }
                }
                if tile_kinds.contains(&TileStaging::Staged) {
                    for &b in blocks {
                        let o = ScanOptions::inclusive()
                            .algorithm(Algorithm::LookBack)
                            .block_size(b)
                            .staging(TileStaging::Staged);
                        cases.push(
                            Case::new("scan", "lookback_staged", VARIANT, d.name(), n)
                                .param("block", b as u64)
                                .bytes(bytes, Some(array))
                                .gpu(kernel(o))
                                .check(check_kernel(o)),
                        );
                    }
                }
            }
        }
        env.run_cases(cases)
    }

    /// f16/bf16 scanned into f32 results (`scan_accumulated`, PyTorch's
    /// `cumsum(dtype=float32)`): the output array and the f32 reference of the case.
    struct Accumulated<A: Element> {
        out: RefCell<gpu_core::DeviceArray<A>>,
        reference: Vec<A>,
    }

    impl<A: Element> Accumulated<A> {
        fn new<T: Element<Accumulator = A>>(gpu: &gpu_core::Gpu, host: &[T]) -> Option<Self> {
            Some(Accumulated {
                out: RefCell::new(gpu.alloc::<A>(host.len()).ok()?),
                reference: gpu_scan::cpu::scan_accumulated(host, OP, gpu_scan::ScanKind::Inclusive)
                    .ok()?,
            })
        }

        /// The case (`auto_to_f32`, or with a block size `lookback_to_f32` with that
        /// parameter): 2 bytes read and 4 written per value.
        fn case<'a, T: Element<Accumulator = A>>(
            &'a self,
            gpu: &'a gpu_core::Gpu,
            x: &'a RefCell<gpu_core::DeviceArray<T>>,
            block: Option<u32>,
        ) -> Case<'a> {
            let n = self.reference.len();
            let mut o = ScanOptions::inclusive();
            if let Some(b) = block {
                o = o.algorithm(Algorithm::LookBack).block_size(b);
            }
            let scan = Scan::new(gpu).options(o).stream(gpu.stream());
            let scan2 = scan.clone();
            let run = move |_: &Stream| {
                scan.scan_accumulated_into(&*x.borrow(), &mut self.out.borrow_mut(), OP)
            };
            let check = move || {
                let s = gpu.stream();
                let again = || -> gpu_core::Result<Vec<A>> {
                    self.out.borrow_mut().fill(A::from_f64(-12345.0), s)?;
                    scan2.scan_accumulated_into(&*x.borrow(), &mut self.out.borrow_mut(), OP)?;
                    s.synchronize()?;
                    self.out.borrow().to_vec()
                };
                match again() {
                    Ok(v) => check::slices(&v, &self.reference),
                    Err(e) => Verdict::error(&e),
                }
            };
            let bytes = (n * (std::mem::size_of::<T>() + std::mem::size_of::<A>())) as u64;
            let name = if block.is_some() {
                "lookback_to_f32"
            } else {
                "auto_to_f32"
            };
            let case = Case::new("scan", name, VARIANT, T::NAME, n)
                .bytes(bytes, Some(n * std::mem::size_of::<T>()))
                .gpu(run)
                .check(check);
            match block {
                Some(b) => case.param("block", b as u64),
                None => case,
            }
        }
    }

    /// The look-back tile kinds this GPU runs.
    fn tiles(gpu: &gpu_core::Gpu) -> Vec<TileStaging> {
        let mut t = vec![TileStaging::Registers];
        if plan::staged_tiles_available(gpu.properties().compute_capability) {
            t.push(TileStaging::Staged);
        }
        t
    }
}
