//! The FFT path of gpu-conv1d against the direct kernels, by mask width: a `same` correlation
//! (zero boundary) of a 2^k-element signal (k = 26 unless `--log2 k`) with masks of
//! `--widths` (default 3 … 16383), f32 and f64 (`--types`), timed with CUDA events on one
//! stream (median of 10 after 3 warm-ups) beside a device-to-device copy of the signal in the
//! same run. Rows: `Auto` (and the path it took), the direct FMA kernels (`RegisterTiled`), the
//! FFT path at its automatic size and at every size that takes the mask (only those of
//! `--sizes` where given; and cuFFT segments of 2^20 from w = 2047 on, unless `--sizes` leaves
//! out 1048576). Each FFT result is
//! compared with the direct one (largest difference over the largest |direct output|), or past
//! `--no-direct-above` with cuFFT's segments of 2^20 where libcufft loads. From a
//! quarter of the largest span's width on, `Strategy::FftParts` too (`--parts`: the counts, 0
//! the automatic one, the default).
//! Prints one tab-separated line per row: type, width, path, µs, ×copy, difference. Masks past
//! the block FFT's widest (65535 in the default list; 16383 for f64) run through cuFFT.
//!
//! `--full k` instead: the full correlation of two f32 signals of 2^k elements each (the mask
//! as long as the signal, scipy's `fftconvolve` case), timed the same way, beside a copy of
//! the output's length.
//!
//! `--plot OURS[,OURS…] --svg OUT [--peers PEERS] [--title T]` instead (no GPU, any build):
//! draws saved sweeps (this tool's output, and `scripts/peers_fft.py`'s) as one chart of ×copy
//! against the width ([`gpu_prims_benches::fft_sweep`]).
//!
//! ```text
//! cargo run --release -p gpu-prims-benches --features cuda --bin conv1d-fft -- [--log2 26]
//!     [--widths 3,31,127,1023] [--types f32,f64] [--no-direct-above W] [--sizes 4096,8192]
//!     [--parts 0,2,3] [--full 24]
//! cargo run -p gpu-prims-benches --bin conv1d-fft -- --plot f32.out,f64.out --peers peers.out
//!     --svg sweep.svg
//! ```

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let result = if args.iter().any(|a| a == "--plot") {
        plot(&args)
    } else {
        run().map_err(|e| e.to_string())
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conv1d-fft: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `--plot`: the saved sweeps and peers as one SVG chart.
fn plot(args: &[String]) -> Result<(), String> {
    use gpu_prims_benches::fft_sweep::{chart, parse_ours, parse_peers};
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("--plot/--peers {p}: {e}"));
    let ours_arg: String =
        arg(args, "--plot").ok_or("--plot needs a comma-separated list of files")?;
    let svg: String = arg(args, "--svg").ok_or("--plot needs --svg OUT")?;
    let mut ours = Vec::new();
    for p in ours_arg.split(',') {
        ours.extend(parse_ours(&read(p)?));
    }
    let peers = match arg::<String>(args, "--peers") {
        Some(p) => parse_peers(&read(&p)?),
        None => Vec::new(),
    };
    if ours.is_empty() && peers.is_empty() {
        return Err("--plot: no rows in the files given".into());
    }
    let title: String = arg(args, "--title")
        .unwrap_or_else(|| "conv1d same, zero boundary: ×copy against mask width".into());
    std::fs::write(&svg, chart(&title, &ours, &peers).to_svg())
        .map_err(|e| format!("--svg {svg}: {e}"))?;
    println!(
        "wrote {svg} ({} rows, {} peer rows)",
        ours.len(),
        peers.len()
    );
    Ok(())
}

#[cfg(not(feature = "cuda"))]
fn run() -> Result<(), String> {
    Err("built without the `cuda` feature (only --plot works)".into())
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

#[cfg(feature = "cuda")]
fn run() -> gpu_core::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let log2: u32 = arg(&args, "--log2").unwrap_or(26);
    let widths: Vec<usize> = arg::<String>(&args, "--widths")
        .map(|s| s.split(',').filter_map(|v| v.parse().ok()).collect())
        .unwrap_or_else(|| {
            vec![
                3, 7, 15, 31, 63, 95, 127, 191, 255, 383, 511, 767, 1023, 2047, 4095, 8191, 15361,
                16383, 65535,
            ]
        });
    let types: String = arg(&args, "--types").unwrap_or_else(|| "f32,f64".into());
    // The direct kernels past this width take seconds per call at 2^26 and more: skipped.
    let direct_max: usize = arg(&args, "--no-direct-above").unwrap_or(16383);
    let sizes: Option<Vec<usize>> = arg::<String>(&args, "--sizes")
        .map(|s| s.split(',').filter_map(|v| v.parse().ok()).collect());
    let parts: Vec<u32> = arg::<String>(&args, "--parts")
        .map(|s| s.split(',').filter_map(|v| v.parse().ok()).collect())
        .unwrap_or_else(|| vec![0]);
    let sweep_args = SweepArgs {
        log2,
        direct_max,
        sizes,
        parts,
    };
    let gpu = gpu_core::Gpu::default_device()?;
    if let Some(k) = arg::<u32>(&args, "--full") {
        return full(&gpu, k);
    }
    println!(
        "# {} ({:?}), 2^{log2} elements, same, zero boundary",
        gpu.properties().name,
        gpu.properties().compute_capability
    );
    println!("type\tw\tpath\tus\txcopy\tdiff");
    for t in types.split(',') {
        match t {
            "f32" => sweep::<f32>(&gpu, &widths, &sweep_args)?,
            "f64" => sweep::<f64>(&gpu, &widths, &sweep_args)?,
            "f16" => sweep::<gpu_core::f16>(&gpu, &widths, &sweep_args)?,
            "bf16" => sweep::<gpu_core::bf16>(&gpu, &widths, &sweep_args)?,
            other => eprintln!("conv1d-fft: unknown type {other}"),
        }
    }
    Ok(())
}

/// Median time in µs of `f` on the default stream (3 warm-ups, 10 timed calls).
#[cfg(feature = "cuda")]
fn time(gpu: &gpu_core::Gpu, mut f: impl FnMut() -> gpu_core::Result<()>) -> gpu_core::Result<f64> {
    let timer = gpu_core::GpuTimer::new(gpu)?;
    for _ in 0..3 {
        f()?;
    }
    gpu.stream().synchronize()?;
    let mut t = Vec::new();
    for _ in 0..10 {
        timer.start(gpu.stream())?;
        f()?;
        timer.stop(gpu.stream())?;
        t.push(timer.elapsed_ms()? as f64 * 1e3);
    }
    t.sort_by(f64::total_cmp);
    Ok(t[t.len() / 2])
}

/// The sweep's settings: signal length 2^log2, the direct rows up to `direct_max`, the FFT
/// sizes (all where `None`).
#[cfg(feature = "cuda")]
struct SweepArgs {
    log2: u32,
    direct_max: usize,
    sizes: Option<Vec<usize>>,
    /// Parts counts of `Strategy::FftParts` timed from a quarter of the largest span's width
    /// on (0: the automatic count; empty: none).
    parts: Vec<u32>,
}

#[cfg(feature = "cuda")]
fn sweep<T: gpu_conv1d::Real>(
    gpu: &gpu_core::Gpu,
    widths: &[usize],
    args: &SweepArgs,
) -> gpu_core::Result<()> {
    use gpu_conv1d::{fft_max_size, Conv1d, Options, Path, Strategy, FFT_SIZES};

    let n = 1usize << args.log2;
    let listed = |s: usize| args.sizes.as_ref().map_or(true, |l| l.contains(&s));
    let host = gpu_core::data::typical::<T>(n, 1);
    let x = gpu.upload(&host)?;
    let mut y = gpu.alloc::<T>(n)?;
    let mut reference = gpu.alloc::<T>(n)?;
    let mut copy = gpu.alloc::<T>(n)?;
    let stream = gpu.stream();
    let copy_us = time(gpu, || copy.copy_from_device(&x, stream))?;
    println!("{}\t-\tcopy\t{copy_us:.1}\t1.000\t-", T::NAME);
    for &w in widths {
        let mask = gpu_core::data::typical::<T>(w, 2 + w as u64);
        let conv = |strategy: Strategy| {
            Conv1d::correlation(gpu, &mask, Options::new().strategy(strategy))
                .map(|c| c.stream(stream))
        };
        let row = |label: String, us: f64, diff: String| {
            println!(
                "{}\t{w}\t{label}\t{us:.1}\t{:.3}\t{diff}",
                T::NAME,
                copy_us / us
            );
        };
        // The direct result, the reference of the FFT rows.
        let have_direct = w <= args.direct_max;
        if have_direct {
            let direct = conv(Strategy::RegisterTiled)?;
            let us = time(gpu, || direct.run_into(&x, &mut reference))?;
            row("direct".into(), us, "-".into());
        }
        // Past the direct rows, cuFFT's segments of 2^20 (where libcufft loads) are the
        // reference: the parts' and the block FFT's rows are still checked, against a result
        // with errors of its own (FFT-sized, not the direct sums' exactness).
        let have_cufft = !have_direct
            && w <= n
            && gpu_conv1d::cufft_available()
            && match conv(Strategy::Fft { size: 1 << 20 }) {
                Ok(c) => c.run_into(&x, &mut reference).is_ok(),
                Err(_) => false,
            };
        let reference_host: Vec<f64> = if have_direct || have_cufft {
            stream.synchronize()?;
            reference.to_vec()?.iter().map(|v| v.to_f64()).collect()
        } else {
            Vec::new()
        };
        let peak = reference_host.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let diff = |y: &gpu_core::DeviceArray<T>| -> gpu_core::Result<String> {
            if reference_host.is_empty() {
                return Ok("-".into());
            }
            stream.synchronize()?;
            let got = y.to_vec()?;
            let d = got
                .iter()
                .zip(&reference_host)
                .map(|(g, r)| (g.to_f64() - r).abs())
                .fold(
                    0.0f64,
                    |m, v| if v.is_nan() { f64::INFINITY } else { m.max(v) },
                );
            Ok(format!("{:.2e}", d / peak))
        };
        if T::computes_wider() && w <= gpu_conv1d::TENSOR_MAX_WIDTH {
            if let Ok(tc) = conv(Strategy::TensorCore) {
                let us = time(gpu, || tc.run_into(&x, &mut y))?;
                row("tensor_core".into(), us, diff(&y)?);
            }
        }
        let auto = conv(Strategy::Auto)?;
        let path = auto.path(n)?;
        let us = time(gpu, || auto.run_into(&x, &mut y))?;
        row(format!("auto:{path:?}"), us, diff(&y)?);
        let mut sizes: Vec<Option<usize>> = vec![None];
        sizes.extend(
            FFT_SIZES
                .iter()
                .copied()
                .filter(|&s| s <= fft_max_size::<T>() && s > w && s >= 2 * w.min(s / 2))
                .filter(|&s| listed(s))
                .map(Some),
        );
        // cuFFT segments of 2^20 beside the block transforms from w = 2047 on (where they may
        // cross), where libcufft loads.
        if w >= 2047 && listed(1 << 20) && gpu_conv1d::cufft_available() {
            sizes.push(Some(1 << 20));
        }
        for size in sizes {
            let strategy = Strategy::Fft {
                size: size.unwrap_or(0) as u32,
            };
            let Ok(fft) = conv(strategy) else { continue };
            let us = time(gpu, || fft.run_into(&x, &mut y))?;
            let label = match size {
                // The size this device chose (its `conv1d.fft_span_from` may move the table's).
                None => match fft.path(n)? {
                    Path::Fft { size } | Path::FftEvenOdd { size } => format!("fft:auto={size}"),
                    p => format!("fft:auto={p:?}"),
                },
                Some(s) => format!("fft:{s}"),
            };
            row(label, us, diff(&y)?);
        }
        // The block FFT with the mask in parts, from a quarter of the largest span on.
        if w >= fft_max_size::<T>() / 4 {
            for &parts in &args.parts {
                let Ok(fft) = conv(Strategy::FftParts { parts }) else {
                    continue;
                };
                let us = time(gpu, || fft.run_into(&x, &mut y))?;
                let label = match fft.path(n)? {
                    Path::FftEvenOddParts { size, parts } => format!("fft_parts:{size}x{parts}"),
                    p => format!("fft_parts:{p:?}"),
                };
                row(label, us, diff(&y)?);
            }
        }
    }
    Ok(())
}

/// The full correlation of two f32 signals of 2^k elements (2^(k+1) − 1 outputs), beside a
/// device-to-device copy of as many elements.
#[cfg(feature = "cuda")]
fn full(gpu: &gpu_core::Gpu, k: u32) -> gpu_core::Result<()> {
    use gpu_conv1d::{Conv1d, Mode, Options};
    let n = 1usize << k;
    let a = gpu.upload(&gpu_core::data::typical::<f32>(n, 1))?;
    let b = gpu_core::data::typical::<f32>(n, 2);
    let stream = gpu.stream();
    let conv = Conv1d::correlation(gpu, &b, Options::new().mode(Mode::Full))?.stream(stream);
    let n_out = conv.output_len(n)?;
    let mut y = gpu.alloc::<f32>(n_out)?;
    let src = gpu.zeros::<f32>(n_out)?;
    let mut copy = gpu.alloc::<f32>(n_out)?;
    let copy_us = time(gpu, || copy.copy_from_device(&src, stream))?;
    let us = time(gpu, || conv.run_into(&a, &mut y))?;
    println!(
        "# {}: full correlation of two f32 signals of 2^{k}",
        gpu.properties().name
    );
    println!("type\tn\tpath\tus\txcopy");
    println!("f32\t{n}\tcopy of {n_out}\t{copy_us:.1}\t1.000");
    println!(
        "f32\t{n}\t{:?}\t{us:.1}\t{:.3}",
        conv.path(n)?,
        copy_us / us
    );
    Ok(())
}
