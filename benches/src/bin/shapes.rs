//! The shapes benchmark (issue 12): reductions and scans along each axis of matrices of many
//! shapes, in C and Fortran order, and over segments of three length distributions — each
//! checked against the CPU reference (segments in full; axes on every lane of small results
//! and 4096 evenly spread lanes of large ones, so a 2^28 run fits in a few minutes) and timed
//! with CUDA events, quoted as a fraction of a
//! device-to-device copy of the same input measured in the same run; with `--peers FILE`
//! (from `scripts/peers_shapes.py`, same GPU) PyTorch and CuPy beside ours.
//!
//! ```text
//! shapes [--log2 28] [--types i32,f32,f16,bf16 (also u32, i64, u64, f64)] [--peers peers-shapes.json] [--out DIR] [--quick] [--no-conv] [--segments-only] [--scans-only] [--reductions-only] [--cases NAME,...] [--segment-staging registers|staged|auto] [--segment-kinds 1-8,1-2000,16x2^24] [--scan-op sum|min|max|product]
//! ```
//! Writes `DIR/shapes.md` (the table), `DIR/shapes.json` and `DIR/shapes.svg` (×copy per case).
//!
//! Byte model: a reduction reads the input and writes one value per lane; a scan reads and
//! writes the input's size; segmented operations also read the offsets (8 bytes per segment).
//! ×copy = (bytes / time) / (2 · input bytes / copy time).

use std::process::ExitCode;

#[cfg(feature = "cuda")]
fn main() -> ExitCode {
    match run::main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("shapes: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn main() -> ExitCode {
    eprintln!("shapes: built without the `cuda` feature");
    ExitCode::from(2)
}

#[cfg(feature = "cuda")]
mod run {
    use std::collections::HashMap;
    use std::fmt::Write as _;

    use gpu_core::data::SplitMix64;
    use gpu_core::{DeviceArrayD, Element, Gpu, LanePlan, Op, Segments};
    use gpu_prims_benches::gpu::{time_copy, time_gpu, GpuTiming};
    use gpu_prims_benches::svg::{Chart, Series, XAxis};
    use gpu_reduce::{cpu as rcpu, Reduce, Workspace};
    use gpu_scan::{cpu as scpu, Scan, ScanKind, TileStaging};
    use ndarray::{ArrayView2, Axis, ShapeBuilder};
    use rayon::prelude::*;
    use serde_json::{json, Value};

    struct Args {
        log2: u32,
        types: Vec<String>,
        peers: Option<String>,
        out: String,
        quick: bool,
        /// Skip conv1d along axes (f32).
        no_conv: bool,
        /// Only the segment cases (and the copy), no axes.
        segments_only: bool,
        /// Only the scans (cumsum along axes and segments), no reductions.
        scans_only: bool,
        /// Only the reductions along axes (and the segment cases), no axis scans.
        reductions_only: bool,
        /// Only the cases whose name contains one of these (empty: every case).
        cases: Vec<String>,
        /// Tiles of the segmented scans (`--segment-staging registers|staged|auto`).
        segment_staging: TileStaging,
        /// The axis scans' operator (`--scan-op sum|min|max|product`; the records say cumsum,
        /// cummin, cummax or cumprod). Products are checked exactly: integer types only.
        scan_op: Op,
        /// Segment-length distributions (`--segment-kinds 1-8,1-2000,16x2^24`: "lo-hi" uniform,
        /// "lo-hi+L/E" with every E-th segment L long, or 16 segments of 2^24).
        segment_kinds: Vec<String>,
    }

    impl Args {
        fn wants(&self, case: &str) -> bool {
            self.cases.is_empty() || self.cases.iter().any(|c| case.contains(c.as_str()))
        }
    }

    fn args() -> Result<Args, String> {
        let mut a = Args {
            log2: 28,
            types: vec!["i32".into(), "f32".into()],
            peers: None,
            out: "shapes-out".into(),
            quick: false,
            no_conv: false,
            segments_only: false,
            scans_only: false,
            reductions_only: false,
            cases: Vec::new(),
            segment_staging: TileStaging::Auto,
            segment_kinds: ["1-8", "1-2000", "16x2^24"].map(String::from).to_vec(),
            scan_op: Op::Sum,
        };
        let mut it = std::env::args().skip(1);
        while let Some(k) = it.next() {
            let mut val = || it.next().ok_or(format!("{k} needs a value"));
            match k.as_str() {
                "--log2" => a.log2 = val()?.parse().map_err(|e| format!("--log2: {e}"))?,
                "--types" => a.types = val()?.split(',').map(String::from).collect(),
                "--peers" => a.peers = Some(val()?),
                "--out" => a.out = val()?,
                "--quick" => a.quick = true,
                "--no-conv" => a.no_conv = true,
                "--segments-only" => a.segments_only = true,
                "--scans-only" => a.scans_only = true,
                "--reductions-only" => a.reductions_only = true,
                "--cases" => a.cases = val()?.split(',').map(String::from).collect(),
                "--scan-op" => {
                    a.scan_op = match val()?.as_str() {
                        "sum" => Op::Sum,
                        "min" => Op::Min,
                        "max" => Op::Max,
                        "product" => Op::Product,
                        v => return Err(format!("--scan-op: {v} is not sum, min, max or product")),
                    }
                }
                "--segment-kinds" => {
                    a.segment_kinds = val()?.split(',').map(String::from).collect();
                    if let Some(k) = a
                        .segment_kinds
                        .iter()
                        .find(|k| *k != "16x2^24" && parse_kind(k).is_none())
                    {
                        return Err(format!(
                            "--segment-kinds: {k} is not lo-hi, lo-hi+L/E or 16x2^24"
                        ));
                    }
                }
                "--segment-staging" => {
                    a.segment_staging = match val()?.as_str() {
                        "registers" => TileStaging::Registers,
                        "staged" => TileStaging::Staged,
                        "auto" => TileStaging::Auto,
                        v => return Err(format!("--segment-staging: unknown {v}")),
                    }
                }
                other => return Err(format!("unknown argument {other}")),
            }
        }
        Ok(a)
    }

    /// One measured case.
    struct Rec {
        op: &'static str,
        dtype: String,
        case: String,
        key: String,
        ms: f64,
        frac: f64,
        plan: String,
        /// `None`: not checked here (max: checked against the CPU by the GPU tests).
        correct: Option<bool>,
    }

    /// Prints one measured case (`shapes: <op> <dtype> <case>: <ms> ms <×copy> <verdict>`) and
    /// keeps its record.
    fn record(recs: &mut Vec<Rec>, rec: Rec) {
        eprintln!(
            "shapes: {} {} {}: {:.4} ms {:.3}x copy {}",
            rec.op,
            rec.dtype,
            rec.case,
            rec.ms,
            rec.frac,
            verdict(rec.correct)
        );
        recs.push(rec);
    }

    fn shapes(log2: u32) -> Vec<(usize, usize)> {
        let n = 1usize << log2;
        [1usize << (log2 / 2), 64, 4, 2, n / 64, 1024]
            .iter()
            .map(|&c| (n / c, c))
            .collect()
    }

    fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
        let mut r = SplitMix64::new(seed);
        (0..n)
            .map(|_| T::from_f64((r.next_u64() % 41) as f64 - 20.0))
            .collect()
    }

    /// A segment-length distribution "lo-hi" (uniform, 1 <= lo <= hi), optionally "+L/E":
    /// every E-th segment L values long instead. Returns (lo, hi, L, E); E = 0 without one.
    fn parse_kind(kind: &str) -> Option<(u64, u64, u64, u64)> {
        let (range, long) = match kind.split_once('+') {
            Some((r, l)) => (r, Some(l)),
            None => (kind, None),
        };
        let (lo, hi) = range.split_once('-')?;
        let (lo, hi): (u64, u64) = (lo.parse().ok()?, hi.parse().ok()?);
        let (len, every) = match long {
            Some(l) => {
                let (len, every) = l.split_once('/')?;
                (len.parse().ok()?, every.parse().ok()?)
            }
            None => (0, 0),
        };
        (1 <= lo && lo <= hi && (long.is_none() || every > 0)).then_some((lo, hi, len, every))
    }

    fn segment_offsets(kind: &str, n: usize) -> Vec<u64> {
        let mut r = SplitMix64::new(7);
        let mut o = vec![0u64];
        if kind == "16x2^24" {
            return (0..=16).map(|i| (i * (n / 16)) as u64).collect();
        }
        // "lo-hi[+L/E]" (checked by `args`).
        let (lo, hi, long, every) = parse_kind(kind).unwrap_or((1, 2000, 0, 0));
        while (*o.last().unwrap() as usize) < n {
            let l = if every > 0 && o.len() as u64 % every == 0 {
                long
            } else {
                lo + r.next_u64() % (hi - lo + 1)
            };
            o.push((*o.last().unwrap() + l).min(n as u64));
        }
        o
    }

    pub fn main() -> Result<bool, String> {
        let a = args()?;
        let gpu = Gpu::default_device().map_err(|e| e.to_string())?;
        let timing = GpuTiming {
            reps: if a.quick { 5 } else { 15 },
            budget_ms: 300.0,
            ..GpuTiming::default()
        };
        let mut recs = Vec::new();
        let peers = match &a.peers {
            Some(p) => load_peers(p)?,
            None => HashMap::new(),
        };
        for t in a.types.clone() {
            match t.as_str() {
                "i32" => bench::<i32>(&gpu, &a, &timing, &mut recs)?,
                "u32" => bench::<u32>(&gpu, &a, &timing, &mut recs)?,
                "i64" => bench::<i64>(&gpu, &a, &timing, &mut recs)?,
                "u64" => bench::<u64>(&gpu, &a, &timing, &mut recs)?,
                "f64" => bench::<f64>(&gpu, &a, &timing, &mut recs)?,
                "f32" => {
                    bench::<f32>(&gpu, &a, &timing, &mut recs)?;
                    if !a.no_conv && !a.segments_only {
                        bench_conv(&gpu, &a, &timing, &mut recs)?;
                    }
                }
                "f16" => bench_half::<gpu_core::f16>(&gpu, &a, &timing, &mut recs)?,
                "bf16" => bench_half::<gpu_core::bf16>(&gpu, &a, &timing, &mut recs)?,
                other => {
                    return Err(format!(
                        "type {other}: i32, u32, i64, u64, f32, f64, f16 or bf16"
                    ))
                }
            }
            write(&a, &gpu, &recs, &peers)?; // what is measured so far survives a cut-off run
        }
        Ok(recs.iter().all(|r| r.correct != Some(false)))
    }

    /// Lanes checked against the CPU per case: every lane of small results, else this many
    /// spread evenly (first and last included), each compared in full, on every core (a strided
    /// lane's gather and scan took seconds a case serially at 2^28: device time); the GPU tests
    /// compare every lane of every mapping at smaller sizes.
    const CHECKED_LANES: usize = 4096;

    fn sampled(lanes: usize) -> Vec<usize> {
        if lanes <= CHECKED_LANES {
            return (0..lanes).collect();
        }
        (0..CHECKED_LANES)
            .map(|k| k * (lanes - 1) / (CHECKED_LANES - 1))
            .collect()
    }

    /// The reduction along `axis` of `view` matches `got` on the sampled lanes.
    fn check_reduce<T: Element>(
        view: ArrayView2<'_, T>,
        axis: usize,
        op: Op,
        got: &ndarray::ArrayD<T::Accumulator>,
    ) -> bool {
        let lanes = view.len_of(Axis(1 - axis));
        got.len() == lanes
            && sampled(lanes).into_par_iter().all(|l| {
                let lane = view.index_axis(Axis(1 - axis), l).to_vec();
                rcpu::reduce(&lane, op).ok() == Some(got[[l]])
            })
    }

    /// The inclusive sum scan along `axis` of `view` matches `got` on the sampled lanes.
    fn check_scan<T: Element>(
        view: ArrayView2<'_, T>,
        axis: usize,
        op: Op,
        got: &ndarray::ArrayD<T>,
    ) -> bool {
        let lanes = view.len_of(Axis(1 - axis));
        got.shape() == view.shape()
            && sampled(lanes).into_par_iter().all(|l| {
                let lane = view.index_axis(Axis(1 - axis), l).to_vec();
                let want = scpu::scan(&lane, op, ScanKind::Inclusive).unwrap();
                got.index_axis(Axis(1 - axis), l).iter().copied().eq(want)
            })
    }

    /// Width of the mask of the conv1d-along-an-axis cases.
    const CONV_MASK: [f32; 7] = [1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0];

    /// conv1d (`same`, zero boundary, the 7-wide mask) along each axis of each C-order shape,
    /// f32: checked on the sampled lanes, timed like the scans (input + output bytes).
    fn bench_conv(
        gpu: &Gpu,
        a: &Args,
        timing: &GpuTiming,
        recs: &mut Vec<Rec>,
    ) -> Result<(), String> {
        use gpu_conv1d::{cpu as ccpu, Boundary, Conv1d, Mode, Operation, Options};
        let e = |e: gpu_core::Error| e.to_string();
        let n = 1usize << a.log2;
        let host = values::<f32>(n, 1);
        let copy = time_copy(gpu, n * 4, timing).map_err(e)?.median_ms;
        eprintln!("shapes: copy of {n} f32 for conv1d: {copy:.4} ms");
        let frac = |ms: f64| copy / ms;
        let stream = gpu.new_stream().map_err(e)?;
        let conv = Conv1d::correlation(gpu, &CONV_MASK, Options::new()).map_err(e)?;
        let on_stream = conv.clone().stream(&stream);
        let mut buf = Some(gpu.upload(&host).map_err(e)?);
        for (rows, cols) in shapes(a.log2) {
            let xd = DeviceArrayD::from_device(buf.take().unwrap(), &[rows, cols]).map_err(e)?;
            let view = ArrayView2::from_shape((rows, cols), &host).unwrap();
            for axis in 0..2 {
                let case = format!("{rows}x{cols} C axis {axis}");
                let mut out = DeviceArrayD::<f32>::zeros(gpu, &[rows, cols]).map_err(e)?;
                let mut path = None;
                let st = time_gpu(gpu, &stream, timing, |_| {
                    path = Some(on_stream.run_axis_into(&xd, Axis(axis), &mut out)?);
                    Ok(())
                })
                .map_err(e)?;
                stream.synchronize().map_err(e)?;
                let got = out.to_array().map_err(e)?;
                let lanes = view.len_of(Axis(1 - axis));
                let correct = sampled(lanes).into_par_iter().all(|l| {
                    let lane = view.index_axis(Axis(1 - axis), l).to_vec();
                    let want = ccpu::apply(
                        Operation::Correlation,
                        &lane,
                        &CONV_MASK,
                        Mode::Same,
                        Boundary::Zero,
                        false,
                    )
                    .unwrap();
                    got.index_axis(Axis(1 - axis), l).iter().copied().eq(want)
                });
                record(
                    recs,
                    Rec {
                        op: "conv1d_w7",
                        dtype: "f32".into(),
                        key: key("conv1d_w7", "f32", &case),
                        case,
                        ms: st.median_ms,
                        frac: frac(st.median_ms),
                        plan: path.map(|p| format!("{p:?}")).unwrap_or_default(),
                        correct: Some(correct),
                    },
                );
            }
            buf = Some(xd.into_data());
        }
        Ok(())
    }

    fn verdict(c: Option<bool>) -> &'static str {
        match c {
            Some(true) => "ok",
            Some(false) => "WRONG",
            None => "not checked",
        }
    }

    fn key(op: &str, dtype: &str, case: &str) -> String {
        format!("{op}|{dtype}|{case}")
    }

    /// The benchmark's 2^log2 values on the host and the device, and the same-run copy time of
    /// them (ms).
    fn upload_and_copy<T: Element>(
        gpu: &Gpu,
        n: usize,
        timing: &GpuTiming,
    ) -> Result<(Vec<T>, gpu_core::DeviceArray<T>, f64), String> {
        let e = |e: gpu_core::Error| e.to_string();
        let size = std::mem::size_of::<T>();
        let host = values::<T>(n, 1);
        let buf = gpu.upload(&host).map_err(e)?;
        let copy = time_copy(gpu, n * size, timing).map_err(e)?.median_ms;
        eprintln!(
            "shapes: copy of {n} {} ({} bytes): {copy:.4} ms",
            T::NAME,
            n * size
        );
        Ok((host, buf, copy))
    }

    /// `data` (and its host copy) as a rows × cols matrix in C or F `order`.
    fn layout<'h, T: Element>(
        data: gpu_core::DeviceArray<T>,
        host: &'h [T],
        rows: usize,
        cols: usize,
        order: &str,
    ) -> Result<(DeviceArrayD<T>, ArrayView2<'h, T>), String> {
        let (strides, view): ([isize; 2], _) = if order == "C" {
            (
                [cols as isize, 1],
                ArrayView2::from_shape((rows, cols), host),
            )
        } else {
            (
                [1, rows as isize],
                ArrayView2::from_shape((rows, cols).f(), host),
            )
        };
        let xd = DeviceArrayD::from_parts(data, 0, &[rows, cols], &strides)
            .map_err(|e| e.to_string())?;
        Ok((xd, view.map_err(|e| e.to_string())?))
    }

    fn bench<T: Element<Accumulator = T>>(
        gpu: &Gpu,
        a: &Args,
        timing: &GpuTiming,
        recs: &mut Vec<Rec>,
    ) -> Result<(), String> {
        let e = |e: gpu_core::Error| e.to_string();
        let n = 1usize << a.log2;
        let size = std::mem::size_of::<T>();
        let (host, buf, copy) = upload_and_copy::<T>(gpu, n, timing)?;
        let stream = gpu.new_stream().map_err(e)?;
        let mut ws = Workspace::new(gpu).map_err(e)?;
        let frac = |bytes: usize, ms: f64| (bytes as f64 / ms) / ((2 * n * size) as f64 / copy);
        let mut x = Some(DeviceArrayD::from_device(buf, &[n]).map_err(e)?);
        let axis_shapes = if a.segments_only {
            Vec::new()
        } else {
            shapes(a.log2)
        };
        for (rows, cols) in axis_shapes {
            for order in ["C", "F"] {
                let (xd, view) = layout(x.take().unwrap().into_data(), &host, rows, cols, order)?;
                for axis in 0..2 {
                    let case = format!("{rows}x{cols} {order} axis {axis}");
                    if !a.wants(&case) {
                        continue;
                    }
                    if !a.scans_only {
                        for op in [Op::Sum, Op::Max] {
                            reduce_axis_case(
                                gpu, &stream, timing, &xd, view, axis, op, &case, frac, &mut ws,
                                recs,
                            )?;
                        }
                    }
                    if a.reductions_only {
                        continue;
                    }
                    scan_axis_case(
                        gpu, &stream, timing, &xd, view, axis, a.scan_op, &case, frac, recs,
                    )?;
                }
                x = Some(DeviceArrayD::from_device(xd.into_data(), &[n]).map_err(e)?);
            }
        }
        let values = x.take().unwrap().into_data();
        for kind in a.segment_kinds.clone() {
            let kind = kind.as_str();
            if !a.wants(&format!("segments {kind} ")) {
                continue;
            }
            let offsets = segment_offsets(kind, n);
            let segs = Segments::new(gpu, &offsets, n).map_err(e)?;
            let count = segs.count();
            let case = format!("segments {kind} ({count})");
            let mut out = gpu.alloc::<T>(count).map_err(e)?;
            let mut plan = None;
            let st = time_gpu(gpu, &stream, timing, |s| {
                plan = Some(Reduce::new(gpu).stream(s).segmented_reduce_into(
                    &values,
                    &segs,
                    Op::Sum,
                    &mut out,
                    &mut ws,
                )?);
                Ok(())
            })
            .map_err(e)?;
            stream.synchronize().map_err(e)?;
            let want = rcpu::par_segmented_reduce(&host, &offsets, Op::Sum).map_err(e)?;
            let correct = Some(out.to_vec().map_err(e)? == want);
            record(
                recs,
                Rec {
                    op: "segment_sum",
                    dtype: T::NAME.into(),
                    key: key("segment_sum", T::NAME, kind),
                    case: case.clone(),
                    ms: st.median_ms,
                    frac: frac(n * size + count * (size + 8), st.median_ms),
                    plan: plan.map(|p| p.to_string()).unwrap_or_default(),
                    correct,
                },
            );
            segment_scan_case(
                gpu,
                a,
                &stream,
                timing,
                (&values, &host),
                (&offsets, &segs),
                kind,
                frac,
                recs,
            )?;
        }
        Ok(())
    }

    /// The reduction by `op` (sum or max) along `axis` of `xd` (its host copy `view`) into a
    /// device array of the accumulator type, timed and checked: one record.
    #[allow(clippy::too_many_arguments)]
    fn reduce_axis_case<T: Element>(
        gpu: &Gpu,
        stream: &gpu_core::Stream,
        timing: &GpuTiming,
        xd: &DeviceArrayD<T>,
        view: ArrayView2<'_, T>,
        axis: usize,
        op: Op,
        case: &str,
        frac: impl Fn(usize, f64) -> f64,
        ws: &mut Workspace,
        recs: &mut Vec<Rec>,
    ) -> Result<(), String> {
        let e = |e: gpu_core::Error| e.to_string();
        let name = if op == Op::Sum { "sum" } else { "max" };
        let lanes = view.len_of(Axis(1 - axis));
        let mut out = DeviceArrayD::<T::Accumulator>::zeros(gpu, &[lanes]).map_err(e)?;
        let mut plan: Option<LanePlan> = None;
        let st = time_gpu(gpu, stream, timing, |s| {
            plan = Some(Reduce::new(gpu).stream(s).reduce_axis_into(
                xd,
                Axis(axis),
                op,
                &mut out,
                ws,
            )?);
            Ok(())
        })
        .map_err(e)?;
        stream.synchronize().map_err(e)?;
        let correct = Some(check_reduce(view, axis, op, &out.to_array().map_err(e)?));
        let bytes =
            view.len() * std::mem::size_of::<T>() + lanes * std::mem::size_of::<T::Accumulator>();
        record(
            recs,
            Rec {
                op: name,
                dtype: T::NAME.into(),
                key: key(name, T::NAME, case),
                case: case.to_string(),
                ms: st.median_ms,
                frac: frac(bytes, st.median_ms),
                plan: plan.map(|p| p.to_string()).unwrap_or_default(),
                correct,
            },
        );
        Ok(())
    }

    /// The inclusive scan by `op` (sum, min, max or product) along `axis` of `xd` (its host copy
    /// `view`), timed and checked: one record.
    #[allow(clippy::too_many_arguments)]
    fn scan_axis_case<T: Element>(
        gpu: &Gpu,
        stream: &gpu_core::Stream,
        timing: &GpuTiming,
        xd: &DeviceArrayD<T>,
        view: ArrayView2<'_, T>,
        axis: usize,
        op: Op,
        case: &str,
        frac: impl Fn(usize, f64) -> f64,
        recs: &mut Vec<Rec>,
    ) -> Result<(), String> {
        let e = |e: gpu_core::Error| e.to_string();
        let (n, size) = (xd.len(), std::mem::size_of::<T>());
        let name = match op {
            Op::Min => "cummin",
            Op::Max => "cummax",
            Op::Product => "cumprod",
            _ => "cumsum",
        };
        let scan = Scan::new(gpu).stream(stream);
        let out_strides: Vec<isize> = xd.strides().to_vec();
        let mut out =
            DeviceArrayD::<T>::zeros_like_order(gpu, xd.shape(), &out_strides).map_err(e)?;
        let mut plan = None;
        let st = time_gpu(gpu, stream, timing, |_| {
            plan = Some(scan.scan_axis_into(xd, Axis(axis), op, &mut out)?);
            Ok(())
        })
        .map_err(e)?;
        stream.synchronize().map_err(e)?;
        let correct = Some(check_scan(view, axis, op, &out.to_array().map_err(e)?));
        record(
            recs,
            Rec {
                op: name,
                dtype: T::NAME.into(),
                key: key(name, T::NAME, case),
                case: case.to_string(),
                ms: st.median_ms,
                frac: frac(2 * n * size, st.median_ms),
                plan: plan.map(|p| p.to_string()).unwrap_or_default(),
                correct,
            },
        );
        Ok(())
    }

    /// The inclusive sum scan of `values` (host copy `host`) over `segments`, timed and
    /// checked in full: one record.
    #[allow(clippy::too_many_arguments)]
    fn segment_scan_case<T: Element>(
        gpu: &Gpu,
        a: &Args,
        stream: &gpu_core::Stream,
        timing: &GpuTiming,
        (values, host): (&gpu_core::DeviceArray<T>, &[T]),
        (offsets, segs): (&[u64], &Segments),
        kind: &str,
        frac: impl Fn(usize, f64) -> f64,
        recs: &mut Vec<Rec>,
    ) -> Result<(), String> {
        let e = |e: gpu_core::Error| e.to_string();
        let (n, size, count) = (host.len(), std::mem::size_of::<T>(), segs.count());
        let case = format!("segments {kind} ({count})");
        let scan = Scan::new(gpu).staging(a.segment_staging).stream(stream);
        let mut sout = gpu.alloc::<T>(n).map_err(e)?;
        let mut plan = None;
        let st = time_gpu(gpu, stream, timing, |_| {
            plan = Some(scan.segmented_scan_into(values, segs, Op::Sum, &mut sout)?);
            Ok(())
        })
        .map_err(e)?;
        stream.synchronize().map_err(e)?;
        let want =
            scpu::par_segmented_scan(host, offsets, Op::Sum, ScanKind::Inclusive).map_err(e)?;
        let got = sout.to_vec().map_err(e)?;
        let correct = Some(got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| g == w));
        record(
            recs,
            Rec {
                op: "segment_cumsum",
                dtype: T::NAME.into(),
                key: key("segment_cumsum", T::NAME, kind),
                case,
                ms: st.median_ms,
                frac: frac(2 * n * size + count * 8, st.median_ms),
                plan: plan.map(|p| p.to_string()).unwrap_or_default(),
                correct,
            },
        );
        Ok(())
    }

    /// The 16-bit floats (`--types f16,bf16`): sum and max (in f32) and cumsum along each axis
    /// of each shape (C and F order), and cumsum over segments, the sums in f32 rounded once to
    /// the type.
    fn bench_half<T: Element<Accumulator = f32>>(
        gpu: &Gpu,
        a: &Args,
        timing: &GpuTiming,
        recs: &mut Vec<Rec>,
    ) -> Result<(), String> {
        let e = |e: gpu_core::Error| e.to_string();
        let n = 1usize << a.log2;
        let size = std::mem::size_of::<T>();
        let (host, buf, copy) = upload_and_copy::<T>(gpu, n, timing)?;
        let stream = gpu.new_stream().map_err(e)?;
        let frac = |bytes: usize, ms: f64| (bytes as f64 / ms) / ((2 * n * size) as f64 / copy);
        let mut ws = Workspace::new(gpu).map_err(e)?;
        let mut data = Some(buf);
        let axis_shapes = if a.segments_only {
            Vec::new()
        } else {
            shapes(a.log2)
        };
        for (rows, cols) in axis_shapes {
            for order in ["C", "F"] {
                let (xd, view) = layout(data.take().unwrap(), &host, rows, cols, order)?;
                for axis in 0..2 {
                    let case = format!("{rows}x{cols} {order} axis {axis}");
                    if !a.wants(&case) {
                        continue;
                    }
                    if !a.scans_only {
                        for op in [Op::Sum, Op::Max] {
                            reduce_axis_case(
                                gpu, &stream, timing, &xd, view, axis, op, &case, frac, &mut ws,
                                recs,
                            )?;
                        }
                    }
                    if !a.reductions_only {
                        scan_axis_case(
                            gpu, &stream, timing, &xd, view, axis, a.scan_op, &case, frac, recs,
                        )?;
                    }
                }
                data = Some(xd.into_data());
            }
        }
        let values = data.take().unwrap();
        // Segmented reductions of 16-bit values are the GPU tests'; their scans are timed here.
        let kinds = if a.reductions_only {
            Vec::new()
        } else {
            a.segment_kinds.clone()
        };
        for kind in kinds {
            let kind = kind.as_str();
            if !a.wants(&format!("segments {kind} ")) {
                continue;
            }
            let offsets = segment_offsets(kind, n);
            let segs = Segments::new(gpu, &offsets, n).map_err(e)?;
            segment_scan_case(
                gpu,
                a,
                &stream,
                timing,
                (&values, &host),
                (&offsets, &segs),
                kind,
                frac,
                recs,
            )?;
        }
        Ok(())
    }

    /// (library, key) → ×copy from peers_shapes.py's JSON.
    fn load_peers(path: &str) -> Result<HashMap<(String, String), Value>, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        let mut out = HashMap::new();
        for r in v["results"].as_array().into_iter().flatten() {
            let lib = r["library"].as_str().unwrap_or("").to_string();
            let op = r["op"].as_str().unwrap_or("");
            let dtype = r["dtype"].as_str().unwrap_or("");
            let case = match r["segments"].as_str() {
                Some(kind) => kind.to_string(),
                None => {
                    let s = &r["shape"];
                    format!(
                        "{}x{} {} axis {}",
                        s[0].as_u64().unwrap_or(0),
                        s[1].as_u64().unwrap_or(0),
                        r["order"].as_str().unwrap_or(""),
                        r["axis"].as_u64().unwrap_or(0)
                    )
                }
            };
            out.insert((lib, key(op, dtype, &case)), r.clone());
        }
        Ok(out)
    }

    fn peer_cell(
        peers: &HashMap<(String, String), Value>,
        lib: &str,
        key: &str,
    ) -> (String, Option<f64>) {
        match peers.get(&(lib.to_string(), key.to_string())) {
            Some(r) if r["status"] == "ok" => {
                let f = r["copy_fraction"].as_f64();
                (f.map_or("–".into(), |f| format!("{f:.3}")), f)
            }
            Some(r) => (
                format!(
                    "{} ({})",
                    r["status"].as_str().unwrap_or("?"),
                    r["note"].as_str().unwrap_or("")
                ),
                None,
            ),
            None => ("–".into(), None),
        }
    }

    fn write(
        a: &Args,
        gpu: &Gpu,
        recs: &[Rec],
        peers: &HashMap<(String, String), Value>,
    ) -> Result<(), String> {
        std::fs::create_dir_all(&a.out).map_err(|e| e.to_string())?;
        let mut md = String::new();
        let _ = writeln!(
            md,
            "# Shapes: {} values per case on {}\n",
            1u64 << a.log2,
            gpu.properties().name
        );
        let _ = writeln!(md, "×copy = bytes moved per second over a device-to-device copy's (same run); reductions: input + one value per lane; scans: input + output; segments: + 8 bytes per offset.\n");
        let _ = writeln!(md, "| op | dtype | case | ours ms | ours ×copy | PyTorch ×copy | CuPy ×copy | plan | checked |");
        let _ = writeln!(
            md,
            "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |"
        );
        let mut json_rows = Vec::new();
        let mut series: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
        for (i, r) in recs.iter().enumerate() {
            let (torch, tf) = peer_cell(peers, "torch", &r.key);
            let (cupy, cf) = peer_cell(peers, "cupy", &r.key);
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:.3} | {:.3} | {torch} | {cupy} | {} | {} |",
                r.op,
                r.dtype,
                r.case,
                r.ms,
                r.frac,
                r.plan,
                verdict(r.correct)
            );
            json_rows.push(json!({"op": r.op, "dtype": r.dtype, "case": r.case, "ms": r.ms, "copy_fraction": r.frac,
                "torch": tf, "cupy": cf, "plan": r.plan, "correct": r.correct}));
            let x = i as f64;
            series
                .entry(format!("ours {}", r.dtype))
                .or_default()
                .push((x, r.frac));
            if let Some(f) = tf {
                series
                    .entry(format!("PyTorch {}", r.dtype))
                    .or_default()
                    .push((x, f));
            }
            if let Some(f) = cf {
                series
                    .entry(format!("CuPy {}", r.dtype))
                    .or_default()
                    .push((x, f));
            }
        }
        let mut worst: HashMap<&str, &Rec> = HashMap::new();
        for r in recs {
            let w = worst.entry(r.op).or_insert(r);
            if r.frac < w.frac {
                *w = r;
            }
        }
        let _ = writeln!(md, "\nWorst case of each operation (ours):\n");
        let mut ops: Vec<_> = worst.into_iter().collect();
        ops.sort_by_key(|(k, _)| *k);
        for (op, r) in ops {
            let _ = writeln!(
                md,
                "- {op}: {:.3}× copy, {} {} ({})",
                r.frac, r.dtype, r.case, r.plan
            );
        }
        std::fs::write(format!("{}/shapes.md", a.out), md).map_err(|e| e.to_string())?;
        std::fs::write(
            format!("{}/shapes.json", a.out),
            serde_json::to_string_pretty(
                &json!({"schema": "gpu-prims-shapes/1", "rows": json_rows}),
            )
            .unwrap(),
        )
        .map_err(|e| e.to_string())?;
        let mut names: Vec<_> = series.keys().cloned().collect();
        names.sort();
        let chart = Chart {
            title: "×copy per case (index in shapes.md order)".into(),
            x_label: "case".into(),
            y_label: "× device-to-device copy".into(),
            x_axis: XAxis::Linear,
            series: names
                .into_iter()
                .map(|k| Series::new(k.clone(), series[&k].clone()))
                .collect(),
        };
        std::fs::write(format!("{}/shapes.svg", a.out), chart.to_svg())
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}
