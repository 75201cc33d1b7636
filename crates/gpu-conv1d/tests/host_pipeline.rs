//! Host-to-host convolutions through the device's host pipeline
//! (`gpu_core::Gpu::host_pipeline_between`): the same results as the one-shot path, bit for
//! bit, for signals around the chunk size, every mode and boundary, short and long masks (the
//! tensor-core and FFT paths included), f32, f64 and f16, from pageable and from page-locked
//! memory;
//! and the pipeline's own faults (outputs announced out of order, left unwritten).
//! Skipped visibly without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

mod common;

use std::mem::MaybeUninit;

use common::{check, data};
use gpu_conv1d::{Boundary, Conv1d, Mode, Operation, Options, Real, Strategy};
use gpu_core::testing::{gpu_or_skip, one_pipeline_at_a_time, ran_pipeline};
use gpu_core::{bf16, f16, Gpu, Pipelining, ShapedInput, PIPELINE_CHUNK_BYTES};

fn same_bits<T: Real>(a: &[T], b: &[T]) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()));
    }
    a.iter()
        .zip(b)
        .position(|(x, y)| bytemuck_bits(*x) != bytemuck_bits(*y))
}

fn bytemuck_bits<T: Real>(v: T) -> Vec<u8> {
    let size = std::mem::size_of::<T>();
    // SAFETY: `T: Pod` (no padding); `v` lives on the stack for the read.
    unsafe { std::slice::from_raw_parts(&v as *const T as *const u8, size) }.to_vec()
}

/// Pipelined (`run` and `run_to_slice`) against one-shot, bit for bit, and against the f64
/// reference at sampled outputs.
fn compare<T: Real>(gpu: &Gpu, n: usize, w: usize, options: Options, what: &str) {
    let x: Vec<T> = data(n, (n + w) as u64);
    let mask: Vec<T> = data(w, w as u64 + 1);
    let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
    let once = conv.clone().pipelining(Pipelining::Never).run(&x).unwrap();
    let piped = conv.clone().pipelining(Pipelining::Always);
    let got = piped.run(&x).unwrap();
    let ctx = format!(
        "{} n={n} w={w} {:?} {:?} {:?} ({what})",
        T::NAME,
        options.mode,
        options.boundary,
        options.strategy
    );
    if let Some(i) = same_bits(&got, &once) {
        panic!("{ctx}: run differs from one-shot at output {i}");
    }
    let mut into = vec![T::from_f64(f64::NAN); once.len()];
    piped.run_to_slice(&x, &mut into).unwrap();
    if let Some(i) = same_bits(&into, &once) {
        panic!("{ctx}: run_to_slice differs from one-shot at output {i}");
    }
    if n > 0 {
        let r = check(
            &got,
            Operation::Correlation,
            &x,
            &mask,
            options.mode,
            options.boundary,
            2048,
        );
        if let Err(e) = r {
            panic!("{ctx}: {e}");
        }
    }
}

fn chunk_of<T>() -> usize {
    PIPELINE_CHUNK_BYTES / std::mem::size_of::<T>()
}

/// Pipelined against one-shot `run` of `x`, bit for bit (NaN payloads included), with the
/// pipeline taken or not as `piped` says; the pipelined result.
fn flat_bits<T: Real>(conv: &Conv1d<'_, T>, x: &[T], piped: bool, ctx: &str) -> Vec<T> {
    let always = conv.clone().pipelining(Pipelining::Always);
    let (got, ran) = ran_pipeline(|| always.run(x).unwrap());
    if let Some(ran) = ran {
        assert_eq!(ran, piped, "{ctx}: pipeline taken");
    }
    let once = conv.clone().pipelining(Pipelining::Never).run(x).unwrap();
    if let Some(i) = same_bits(&got, &once) {
        panic!("{ctx}: differs from one-shot at output {i}");
    }
    got
}

/// Pipelined against one-shot `run_axis` of `x` along `axis`, bit for bit (NaN payloads
/// included), with the pipeline taken or not as `piped` says; the pipelined result.
fn axis_bits<T: Real, I: ShapedInput<T> + ?Sized>(
    conv: &Conv1d<'_, T>,
    x: &I,
    axis: usize,
    piped: bool,
    ctx: &str,
) -> ndarray::ArrayD<T> {
    use ndarray::Axis;
    let always = conv.clone().pipelining(Pipelining::Always);
    let (got, ran) = ran_pipeline(|| always.run_axis(x, Axis(axis)).unwrap());
    if let Some(ran) = ran {
        assert_eq!(ran, piped, "{ctx}: pipeline taken");
    }
    let once = conv
        .clone()
        .pipelining(Pipelining::Never)
        .run_axis(x, Axis(axis))
        .unwrap();
    let (g, o): (Vec<T>, Vec<T>) = (
        got.iter().copied().collect(),
        once.iter().copied().collect(),
    );
    if let Some(i) = same_bits(&g, &o) {
        panic!("{ctx}: differs from one-shot at output {i} (logical order)");
    }
    got
}

#[test]
fn pipelined_runs_equal_one_shot_around_chunks() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let c = chunk_of::<f32>();
    for n in [0, 1, 1000, c - 1, c, c + 1, 3 * c + 5] {
        for mode in [Mode::Same, Mode::Full, Mode::Valid] {
            for w in [3, 31] {
                if mode == Mode::Valid && n < w {
                    continue;
                }
                compare::<f32>(&gpu, n, w, Options::new().mode(mode), "sizes");
            }
        }
    }
}

#[test]
fn every_boundary_and_long_masks() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 2 * chunk_of::<f32>() + 12_345;
    for b in Boundary::ALL {
        for w in [7, 127, 1000] {
            compare::<f32>(&gpu, n, w, Options::new().boundary(b), "boundaries");
        }
    }
    // Tensor cores (3×TF32 for f32) and the other kernels, chosen explicitly.
    for strategy in [
        Strategy::TensorCore,
        Strategy::Basic,
        Strategy::TILED_HALO,
        Strategy::RegisterTiled,
    ] {
        let w = if strategy == Strategy::RegisterTiled {
            7
        } else {
            63
        };
        compare::<f32>(
            &gpu,
            n,
            w,
            Options::new().strategy(strategy).mode(Mode::Full),
            "strategies",
        );
    }
    // The warpgroup kernel (compute capability 9.0: tiles of 4096 outputs) over 16-bit chunks.
    if gpu.properties().compute_capability == (9, 0) {
        let n16 = 2 * chunk_of::<f16>() + 12_345;
        let options = Options::new().strategy(Strategy::Warpgroup);
        for (w, mode) in [(200, Mode::Full), (1000, Mode::Same)] {
            compare::<f16>(&gpu, n16, w, options.mode(mode), "warpgroup");
        }
    }
}

#[test]
fn other_types() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 3 * chunk_of::<f16>() + 7;
    for w in [5, 31, 127] {
        compare::<f16>(&gpu, n, w, Options::new(), "f16");
    }
    compare::<f64>(&gpu, 2 * chunk_of::<f64>() + 3, 9, Options::new(), "f64");
}

/// The FFT path through the pipeline: each span launched with the whole row's pairs of tiles
/// and a halo widened by their reach, so every output equals the one-shot call's bit for bit
/// (sizes around the chunk, every mode and boundary, small and large transforms, f32, f64 and
/// f16), checked against the f64 reference with the FFT's tolerance; `Wrap` stays one-shot.
#[test]
fn fft_path_streams() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    fn fft_case<T: Real>(gpu: &Gpu, n: usize, w: usize, size: usize, options: Options) {
        let x: Vec<T> = data(n, (n + w) as u64);
        let mask: Vec<T> = data(w, w as u64 + 3);
        let options = options.strategy(Strategy::Fft { size: size as u32 });
        let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
        let ctx = format!(
            "{} n={n} w={w} size={size} {:?} {:?}",
            T::NAME,
            options.mode,
            options.boundary
        );
        let n_out = conv.output_len(n).unwrap();
        let size = match conv.path(n_out).unwrap() {
            gpu_conv1d::Path::Fft { size } | gpu_conv1d::Path::FftEvenOdd { size } => size as usize,
            p => panic!("{ctx}: path {p:?}"),
        };
        let got = flat_bits(&conv, &x, options.boundary != Boundary::Wrap, &ctx);
        let mut into = vec![T::from_f64(f64::NAN); got.len()];
        let piped = conv.clone().pipelining(Pipelining::Always);
        piped.run_to_slice(&x, &mut into).unwrap();
        if let Some(i) = same_bits(&into, &got) {
            panic!("{ctx}: run_to_slice differs from one-shot at output {i}");
        }
        let (mode, boundary) = (options.mode, options.boundary);
        if let Err(e) = common::check_fft(&got, &x, &mask, mode, boundary, size, 1024) {
            panic!("{ctx}: {e}");
        }
    }
    let c = chunk_of::<f32>();
    for n in [1, 1000, c - 1, c, c + 1, 3 * c + 5] {
        for mode in [Mode::Same, Mode::Full, Mode::Valid] {
            if mode == Mode::Valid && n < 127 {
                continue;
            }
            fft_case::<f32>(&gpu, n, 127, 0, Options::new().mode(mode));
        }
    }
    let n = 2 * c + 12_345;
    for b in Boundary::ALL {
        fft_case::<f32>(&gpu, n, 127, 0, Options::new().boundary(b));
    }
    // Small and large transforms: pairs of 2 · 482 and of 2 · 12385 outputs.
    fft_case::<f32>(&gpu, n, 31, 512, Options::new().boundary(Boundary::Reflect));
    fft_case::<f32>(&gpu, n, 4000, 16384, Options::new().mode(Mode::Full));
    fft_case::<f32>(&gpu, n, 15361, 0, Options::new());
    fft_case::<f64>(&gpu, 2 * chunk_of::<f64>() + 3, 200, 0, Options::new());
    let h = 3 * chunk_of::<f16>() + 7;
    fft_case::<f16>(&gpu, h, 500, 0, Options::new().boundary(Boundary::Nearest));
}

/// The FFT path's span launches on three chunks, small enough for compute-sanitizer.
#[test]
fn fft_path_for_the_sanitizers() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let x: Vec<f32> = data(2 * chunk_of::<f32>() + 12_345, 5);
    for (w, options) in [
        (127, Options::new().boundary(Boundary::Reflect)),
        (31, Options::new().mode(Mode::Full)),
    ] {
        let options = options.strategy(Strategy::FFT);
        let conv = Conv1d::correlation(&gpu, &data::<f32>(w, 6), options).unwrap();
        flat_bits(&conv, &x, true, &format!("w={w}"));
    }
}

/// Page-locked input and output go through the DMA engines directly, with the same results.
#[test]
fn pinned_signal_and_result() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 2 * chunk_of::<f32>() + 999;
    let x: Vec<f32> = data(n, 5);
    let mask: Vec<f32> = data(31, 6);
    let conv = Conv1d::correlation(&gpu, &mask, Options::new()).unwrap();
    let once = conv.run(&x).unwrap();
    let pinned_in = gpu.pinned_from(&x).unwrap();
    let mut pinned_out = gpu.pinned::<f32>(once.len()).unwrap();
    let piped = conv.pipelining(Pipelining::Always);
    piped
        .run_to_slice(
            pinned_in.as_slice().unwrap(),
            pinned_out.as_mut_slice().unwrap(),
        )
        .unwrap();
    assert_eq!(same_bits(pinned_out.as_slice().unwrap(), &once), None);
    let mut pageable = vec![0.0f32; once.len()];
    piped
        .run_to_slice(pinned_in.as_slice().unwrap(), &mut pageable)
        .unwrap();
    assert_eq!(same_bits(&pageable, &once), None);
}

/// A wrong output length is an error naming it; the pipeline refuses work that announces
/// outputs out of order or leaves some unwritten, after draining its streams.
#[test]
fn bad_output_and_bad_work() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let conv = Conv1d::correlation(&gpu, &[1.0f32; 3], Options::new())
        .unwrap()
        .pipelining(Pipelining::Always);
    let x = vec![1.0f32; 1000];
    let mut short = vec![0.0f32; 999];
    let e = conv.run_to_slice(&x, &mut short).unwrap_err();
    assert!(e.to_string().contains("out"), "{e}");

    let (mut din, mut dout) = (
        gpu.alloc::<f32>(1000).unwrap(),
        gpu.alloc::<f32>(10).unwrap(),
    );
    let mut out: Vec<f32> = Vec::with_capacity(10);
    let mut run = |answer: fn(usize) -> std::ops::Range<usize>| {
        gpu.host_pipeline_between(
            &x,
            &mut din,
            out.spare_capacity_mut(),
            &mut dout,
            100,
            |r, _| Ok(answer(r.end)),
        )
    };
    let e = run(|_| 5..10).unwrap_err(); // does not start at 0
    assert!(e.to_string().contains("work"), "{e}");
    let e = run(|_| 0..0).unwrap_err(); // never reaches the end
    assert!(e.to_string().contains("unwritten"), "{e}");
    let e = run(|_| 0..11).unwrap_err(); // past the output
    assert!(e.to_string().contains("work"), "{e}");
    assert!(run(|end| if end == 1000 { 0..10 } else { 0..0 }).unwrap());
    // The ring form: rings too small for their slots, a step announcing more outputs than a
    // slot holds.
    let (mut rin, mut rout) = (
        gpu.alloc::<f32>(3 * 110).unwrap(),
        gpu.alloc::<f32>(3 * 4).unwrap(),
    );
    let mut out10: Vec<f32> = Vec::with_capacity(10);
    let e = gpu
        .host_pipeline_rings(
            &x,
            &mut rin,
            20,
            out10.spare_capacity_mut(),
            &mut rout,
            100,
            |_, _| Ok(0..0),
        )
        .unwrap_err();
    assert!(e.to_string().contains("ring_in"), "{e}");
    let e = gpu
        .host_pipeline_rings(
            &x,
            &mut rin,
            10,
            out10.spare_capacity_mut(),
            &mut rout,
            100,
            |s, _| Ok(s.produced..if s.range.end == 1000 { 10 } else { s.produced }),
        )
        .unwrap_err();
    assert!(e.to_string().contains("slots hold 4"), "{e}");
    let empty: &mut [MaybeUninit<f32>] = &mut [];
    let mut d0 = gpu.alloc::<f32>(0).unwrap();
    assert!(gpu
        .host_pipeline_between(&x, &mut din, empty, &mut d0, 100, |_, _| Ok(0..0))
        .unwrap());
}

/// The non-blocking forms give the blocking forms' results; the buffers come back.
#[test]
fn async_forms() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 2 * chunk_of::<f32>() + 5;
    let x: Vec<f32> = data(n, 8);
    let conv = Conv1d::correlation(&gpu, &data::<f32>(31, 9), Options::new())
        .unwrap()
        .pipelining(Pipelining::Always);
    let want = conv.run(&x).unwrap();
    let pending = conv.run_async(x.clone());
    let pinned_in = gpu.pinned_from(&x).unwrap();
    let pinned_out = gpu.pinned::<f32>(want.len()).unwrap();
    let (_, out) = conv.run_pinned_async(pinned_in, pinned_out).wait().unwrap();
    assert_eq!(same_bits(out.as_slice().unwrap(), &want), None);
    assert_eq!(same_bits(&pending.wait().unwrap(), &want), None);
}

/// More than 2^31 values through the pipeline (8 GiB of f32 in and out): small integers, so
/// every sum is exact; every output near the ends and the chunk boundaries, and a sample of the
/// rest, against the three-tap sum. Then the FFT path (127 taps) over the same signal: the
/// one-shot launch's bits, and the window sums within its rounding.
#[test]
fn more_than_two_to_the_31_values() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 5;
    let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let conv = Conv1d::correlation(&gpu, &[1.0f32; 3], Options::new())
        .unwrap()
        .pipelining(Pipelining::Always);
    let (got, ran) = ran_pipeline(|| conv.run(&x).unwrap());
    if let Some(ran) = ran {
        assert!(ran, "pipeline not taken");
    }
    assert_eq!(got.len(), n);
    // (Past either end the zero boundary.)
    let at = |i: Option<usize>| i.and_then(|i| x.get(i)).copied().unwrap_or(0.0);
    let c = chunk_of::<f32>();
    for (i, &g) in got.iter().enumerate() {
        if i < 3 || i + 3 >= n || (i + 2) % c < 5 || i % 1_000_003 == 0 {
            let want = at(i.checked_sub(1)) + at(Some(i)) + at(Some(i + 1));
            assert_eq!(g, want, "output {i}");
        }
    }
    // The FFT path past 2^31: its spans pair tiles from the row's start (`span_start` beyond 32
    // bits), so the pipelined bits are the one-shot launch's; window sums within the FFT's
    // rounding at the same sample points.
    drop(got);
    let w = 127;
    let fft = Conv1d::correlation(
        &gpu,
        &vec![1.0f32; w],
        Options::new().strategy(Strategy::FFT),
    )
    .unwrap();
    let piped = flat_bits(&fft, &x, true, "FFT path past 2^31");
    let h = w / 2;
    for (i, &g) in piped.iter().enumerate() {
        if i < w || i + w >= n || (i + 2) % c < 5 || i % 1_000_003 == 0 {
            let want: f32 = (i.saturating_sub(h)..=(i + h).min(n - 1))
                .map(|j| x[j])
                .sum();
            assert!((g - want).abs() <= 0.01, "FFT output {i}: {g} vs {want}");
        }
    }
}

/// Batches of rows from the host (`run_rows` of a C-order `Array2`, `run_axis` along the
/// innermost memory axis in C and Fortran order) in chunks of whole rows: the one-shot results
/// bit for bit, rows whose bytes are not a multiple of 16 (chunks rounded to keep alignment),
/// every mode and boundary (`Wrap` included: a row never leaves its chunk), the kernels chosen
/// explicitly, f32, f64 and f16; along a middle axis chunks of whole outer slices gathered
/// into rows on the device (the same checks, lanes whose bytes are not a multiple of 16); along
/// the outer axis too (`outer_axis_of_host_arrays` for its cases).
#[test]
fn rows_and_axes_of_host_arrays() {
    use ndarray::{Array2, ArrayD, Axis, IxDyn, ShapeBuilder};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    fn rows<T: Real>(gpu: &Gpu, r: usize, n: usize, w: usize, options: Options, what: &str) {
        let x = Array2::from_shape_vec((r, n), data::<T>(r * n, (r + n + w) as u64)).unwrap();
        let mask: Vec<T> = data(w, w as u64 + 1);
        let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
        let once = conv
            .clone()
            .pipelining(Pipelining::Never)
            .run_rows(x.view())
            .unwrap();
        let piped = conv.clone().pipelining(Pipelining::Always);
        let (got, ran) = ran_pipeline(|| piped.run_rows(x.view()).unwrap());
        let ctx = format!(
            "{} {r} rows of {n}, w={w} {:?} {:?} {:?} ({what})",
            T::NAME,
            options.mode,
            options.boundary,
            options.strategy
        );
        if let Some(ran) = ran {
            assert!(ran, "{ctx}: pipeline not taken");
        }
        let (g, o) = (got.as_slice().unwrap(), once.as_slice().unwrap());
        if let Some(i) = same_bits(g, o) {
            panic!("{ctx}: differs from one-shot at output {i}");
        }
        for row in [0, r / 2, r - 1] {
            let x_row = x.row(row).to_vec();
            let got_row = got.row(row).to_vec();
            let r = check(
                &got_row,
                Operation::Correlation,
                &x_row,
                &mask,
                options.mode,
                options.boundary,
                512,
            );
            if let Err(e) = r {
                panic!("{ctx}, row {row}: {e}");
            }
        }
    }
    // 5001 f32 (20004 bytes): chunks of 416 rows, a multiple of 4 (five chunks).
    for b in Boundary::ALL {
        rows::<f32>(
            &gpu,
            2000,
            5001,
            31,
            Options::new().boundary(b),
            "boundaries",
        );
    }
    for mode in [Mode::Valid, Mode::Full] {
        rows::<f32>(&gpu, 1500, 4096, 127, Options::new().mode(mode), "modes");
    }
    for strategy in [
        Strategy::TensorCore,
        Strategy::Basic,
        Strategy::TILED_HALO,
        Strategy::RegisterTiled,
    ] {
        let w = if strategy == Strategy::RegisterTiled {
            7
        } else {
            63
        };
        let options = Options::new().strategy(strategy).mode(Mode::Full);
        rows::<f32>(&gpu, 1200, 7777, w, options, "strategies");
    }
    rows::<f16>(&gpu, 3000, 3001, 63, Options::new(), "f16");
    rows::<f64>(&gpu, 1000, 2999, 9, Options::new(), "f64");
    // N-D arrays along their innermost memory axis (rows), a middle one (chunks of whole outer
    // slices gathered into rows on the device) and the outer one.
    fn axes<T: Real>(
        gpu: &Gpu,
        (shape, fortran, axis, piped): (&[usize], bool, usize, bool),
        w: usize,
        options: Options,
    ) {
        let mask: Vec<T> = data(w, w as u64 + 5);
        let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
        let always = conv.clone().pipelining(Pipelining::Always);
        let never = conv.clone().pipelining(Pipelining::Never);
        let n: usize = shape.iter().product();
        let dim = IxDyn(shape);
        let v = data::<T>(n, 99);
        let x = if fortran {
            ArrayD::from_shape_vec(dim.f(), v).unwrap()
        } else {
            ArrayD::from_shape_vec(dim, v).unwrap()
        };
        let ctx = format!(
            "{} shape {shape:?} fortran {fortran} axis {axis} w={w} {:?} {:?} {:?}",
            T::NAME,
            options.mode,
            options.boundary,
            options.strategy
        );
        let (got, ran) = ran_pipeline(|| always.run_axis(&x, Axis(axis)).unwrap());
        if let Some(ran) = ran {
            assert_eq!(ran, piped, "{ctx}: pipeline taken");
        }
        let once = never.run_axis(&x, Axis(axis)).unwrap();
        assert_eq!(got.shape(), once.shape(), "{ctx}");
        let (g, o): (Vec<T>, Vec<T>) = (
            got.iter().copied().collect(),
            once.iter().copied().collect(),
        );
        if let Some(i) = same_bits(&g, &o) {
            panic!("{ctx}: differs from one-shot at output {i} (logical order)");
        }
        if piped {
            assert_eq!(got.is_standard_layout(), !fortran, "{ctx}: result order");
        }
        // One lane against the CPU reference.
        let lane: Vec<T> = x.lanes(Axis(axis)).into_iter().nth(7).unwrap().to_vec();
        let got_lane: Vec<T> = got.lanes(Axis(axis)).into_iter().nth(7).unwrap().to_vec();
        let r = check(
            &got_lane,
            Operation::Correlation,
            &lane,
            &mask,
            options.mode,
            options.boundary,
            512,
        );
        if let Err(e) = r {
            panic!("{ctx}, lane 7: {e}");
        }
    }
    let (d, full) = (Options::new(), Options::new().mode(Mode::Full));
    // 23 MiB of f32: rows of 3001 (the innermost axis), slices of 30 × 3001 (middle axis).
    for case in [
        (&[64, 30, 3001][..], false, 2, true),
        (&[3001, 30, 64], true, 0, true),
        (&[64, 30, 3001], false, 1, true),
        (&[3001, 30, 64], true, 1, true),
        (&[64, 30, 3001], false, 0, true),
        (&[3001, 30, 64], true, 2, true),
    ] {
        axes::<f32>(&gpu, case, 4, d);
    }
    // Lanes of 37 f32 (148 bytes: chunks of a multiple of 4 rows' worth of slices), every
    // mode and boundary, the kernels chosen explicitly, 4-D arrays, f16 and f64.
    let odd = (&[200, 37, 1001][..], false, 1, true);
    for b in Boundary::ALL {
        axes::<f32>(&gpu, odd, 31, full.boundary(b));
    }
    axes::<f32>(&gpu, odd, 5, Options::new().mode(Mode::Valid));
    axes::<f32>(&gpu, odd, 63, full.strategy(Strategy::TensorCore));
    axes::<f32>(&gpu, odd, 7, d.strategy(Strategy::RegisterTiled));
    axes::<f32>(&gpu, (&[40, 6, 50, 300], false, 1, true), 9, d);
    axes::<f32>(&gpu, (&[40, 6, 50, 300], false, 2, true), 9, full);
    axes::<f32>(&gpu, (&[300, 50, 6, 40], true, 2, true), 9, d);
    axes::<f16>(&gpu, (&[300, 37, 1001], false, 1, true), 15, d);
    axes::<f64>(&gpu, (&[100, 37, 1001], false, 1, true), 15, full);
    // A layout that is neither C nor Fortran (axes in memory 1, 0, 2): its innermost axis (2)
    // as rows and its middle one (0) through the pipeline, the outer one (1) one-shot (the
    // mask's 9 slices of 64 × 3001 exceed half a chunk); the
    // result in the input's layout. And a strided view (every other row of a C-order array),
    // gathered into C order as the one-shot path gathers it: its rows (axis 2) and middle
    // axis (1) pipelined; and a reversed view (two axes backwards through memory), gathered
    // likewise: its outer axis one-shot (9 slices of 60 × 3001 exceed half a chunk).
    let base = ArrayD::from_shape_vec(IxDyn(&[30, 64, 3001]), data::<f32>(30 * 64 * 3001, 5));
    let permuted = base.unwrap().permuted_axes(IxDyn(&[1, 0, 2]));
    let wide = ArrayD::from_shape_vec(IxDyn(&[64, 60, 3001]), data::<f32>(64 * 60 * 3001, 6));
    let wide = wide.unwrap();
    let strided = wide.slice(ndarray::s![.., ..;2, ..]).into_dyn();
    let reversed = wide.slice(ndarray::s![..;-1, .., ..;-1]).into_dyn();
    let conv = Conv1d::correlation(&gpu, &data::<f32>(9, 14), full).unwrap();
    for (what, x, axis, piped) in [
        ("permuted", permuted.view(), 2, true),
        ("permuted", permuted.view(), 0, true),
        ("permuted", permuted.view(), 1, false),
        ("strided", strided.clone(), 2, true),
        ("strided", strided.clone(), 1, true),
        ("reversed", reversed.clone(), 2, true),
        ("reversed", reversed.clone(), 1, true),
        ("reversed", reversed.clone(), 0, false),
    ] {
        let (got, ran) = ran_pipeline(|| {
            conv.clone()
                .pipelining(Pipelining::Always)
                .run_axis(&x, Axis(axis))
                .unwrap()
        });
        if let Some(ran) = ran {
            assert_eq!(ran, piped, "{what}, axis {axis}: pipeline taken");
        }
        let once = conv
            .clone()
            .pipelining(Pipelining::Never)
            .run_axis(&x, Axis(axis))
            .unwrap();
        let (g, o): (Vec<f32>, Vec<f32>) = (
            got.iter().copied().collect(),
            once.iter().copied().collect(),
        );
        assert_eq!(got.shape(), once.shape(), "{what}, axis {axis}");
        if let Some(i) = same_bits(&g, &o) {
            panic!("{what}, axis {axis}: differs from one-shot at output {i}");
        }
        if piped && what == "permuted" {
            assert_eq!(got.strides()[2], 1, "permuted, axis {axis}: result layout");
            assert!(
                got.strides()[0] < got.strides()[1],
                "permuted, axis {axis}: layout"
            );
        }
    }
}

/// Along the outer memory axis (every lane crosses every chunk): chunks of slices with the
/// mask's reach before them, gathered into rows on the device; the one-shot results bit for
/// bit around the chunk's slice count (one chunk, exactly one, one more, several), every
/// mode and boundary (`Wrap` one-shot: it reads the far end first), each direct kernel (the
/// tensor-core path one-shot: it computes by tiles), lanes whose bytes are not a multiple of
/// 16, C and Fortran order, f16 and f64, lanes shorter than the mask.
#[test]
fn outer_axis_of_host_arrays() {
    use ndarray::{ArrayD, Axis, IxDyn, ShapeBuilder};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    fn outer<T: Real>(
        gpu: &Gpu,
        (slices, lanes, fortran): (usize, &[usize], bool),
        w: usize,
        options: Options,
        piped: bool,
    ) {
        let mask: Vec<T> = data(w, w as u64 + 3);
        let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
        let always = conv.clone().pipelining(Pipelining::Always);
        let never = conv.clone().pipelining(Pipelining::Never);
        // C order: the outer axis first; Fortran order: last.
        let mut shape = vec![slices];
        shape.extend_from_slice(lanes);
        let axis = if fortran {
            shape.reverse();
            shape.len() - 1
        } else {
            0
        };
        let n: usize = shape.iter().product();
        let v = data::<T>(n, (slices + w) as u64);
        let dim = IxDyn(&shape);
        let x = match fortran {
            true => ArrayD::from_shape_vec(dim.f(), v).unwrap(),
            false => ArrayD::from_shape_vec(dim, v).unwrap(),
        };
        let ctx = format!(
            "{} shape {shape:?} fortran {fortran} axis {axis} w={w} {:?} {:?} {:?}",
            T::NAME,
            options.mode,
            options.boundary,
            options.strategy
        );
        let (got, ran) = ran_pipeline(|| always.run_axis(&x, Axis(axis)).unwrap());
        if let Some(ran) = ran {
            assert_eq!(ran, piped, "{ctx}: pipeline taken");
        }
        let once = never.run_axis(&x, Axis(axis)).unwrap();
        assert_eq!(got.shape(), once.shape(), "{ctx}");
        let (g, o): (Vec<T>, Vec<T>) = (
            got.iter().copied().collect(),
            once.iter().copied().collect(),
        );
        if let Some(i) = same_bits(&g, &o) {
            panic!("{ctx}: differs from one-shot at output {i} (logical order)");
        }
        if piped {
            assert_eq!(got.is_standard_layout(), !fortran, "{ctx}: result order");
        }
        // The first, a middle and the last lane against the CPU reference.
        let count = n / slices.max(1);
        for k in [0, count / 2, count - 1] {
            let lane: Vec<T> = x.lanes(Axis(axis)).into_iter().nth(k).unwrap().to_vec();
            let got_lane: Vec<T> = got.lanes(Axis(axis)).into_iter().nth(k).unwrap().to_vec();
            let r = check(
                &got_lane,
                Operation::Correlation,
                &lane,
                &mask,
                options.mode,
                options.boundary,
                512,
            );
            if let Err(e) = r {
                panic!("{ctx}, lane {k}: {e}");
            }
        }
    }
    // Slices per chunk: a chunk's elements less the mask's w slices before it.
    let per_chunk = |lanes: usize, w: usize, size: usize| PIPELINE_CHUNK_BYTES / size / lanes - w;
    let (d, full, valid) = (
        Options::new(),
        Options::new().mode(Mode::Full),
        Options::new().mode(Mode::Valid),
    );
    // 1000 lanes of f32, w = 31: 2066 slices per chunk.
    let c = per_chunk(1000, 31, 4);
    for slices in [1, 30, 31, c - 1, c, c + 1, 2 * c, 3 * c + 7] {
        for options in [d, full, valid] {
            // (`valid` needs lanes at least as long as the mask: an error on both paths.)
            if options.mode == Mode::Valid && slices < 31 {
                continue;
            }
            outer::<f32>(&gpu, (slices, &[1000], false), 31, options, true);
        }
    }
    // Lanes of 37 f32 (148 bytes), in C and Fortran order, every boundary (17.8 MB: `Wrap`
    // goes one-shot through the ring, which the stream count tells apart).
    for b in Boundary::ALL {
        for fortran in [false, true] {
            let piped = b != Boundary::Wrap;
            outer::<f32>(&gpu, (120_000, &[37], fortran), 31, full.boundary(b), piped);
        }
    }
    // Several chunks of 37 lanes: 56648 slices per chunk.
    let c = per_chunk(37, 31, 4);
    outer::<f32>(&gpu, (2 * c + 3, &[37], false), 31, d, true);
    // Each direct kernel; the tensor-core path goes one-shot.
    for (strategy, w, piped) in [
        (Strategy::Basic, 63, true),
        (Strategy::ConstantMask, 63, true),
        (Strategy::TILED_HALO, 63, true),
        (Strategy::TILED_CACHED, 63, true),
        (Strategy::RegisterTiled, 127, true),
        (Strategy::TensorCore, 63, false),
    ] {
        let options = full.strategy(strategy);
        outer::<f32>(&gpu, (5000, &[30, 41], false), w, options, piped);
    }
    // 3-D, f16 and f64.
    outer::<f16>(&gpu, (7000, &[20, 33], false), 15, d, true);
    outer::<f16>(&gpu, (7000, &[20, 33], true), 7, valid, true);
    outer::<f64>(&gpu, (6000, &[333], false), 9, full, true);
    // The mask's reach over half a chunk: one-shot.
    outer::<f32>(&gpu, (300, &[40000], false), 31, d, false);
}

/// The FFT path along the outer memory axis through the pipeline: windows widened by the tile
/// pairs' reach, each span's pairs those of the whole lane, so the results equal the one-shot
/// call's bit for bit (every mode and boundary, C and Fortran order, small and large
/// transforms, f32, f64 and f16), and lanes agree with the f64 reference within the FFT's
/// tolerance; `Wrap` and a halo of slices over half a chunk go one-shot.
#[test]
fn outer_axis_fft_path() {
    use ndarray::{Array2, Axis, ShapeBuilder};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    // `slices` × `lanes` (the outer axis first in memory), mask of `w`, transform of `size`.
    fn fft_outer<T: Real>(
        gpu: &Gpu,
        (slices, lanes, fortran): (usize, usize, bool),
        (w, size): (usize, u32),
        options: Options,
        piped: bool,
    ) {
        let mask: Vec<T> = data(w, w as u64 + 5);
        let options = options.strategy(Strategy::Fft { size });
        let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
        let v = data::<T>(slices * lanes, (slices + w) as u64);
        let (x, axis) = match fortran {
            false => (Array2::from_shape_vec((slices, lanes), v).unwrap(), 0),
            true => (Array2::from_shape_vec((lanes, slices).f(), v).unwrap(), 1),
        };
        let ctx = format!(
            "{} {slices} x {lanes} fortran {fortran} w={w} size={size} {:?} {:?}",
            T::NAME,
            options.mode,
            options.boundary
        );
        let size = match conv.path(conv.output_len(slices).unwrap()).unwrap() {
            gpu_conv1d::Path::Fft { size } | gpu_conv1d::Path::FftEvenOdd { size } => size as usize,
            p => panic!("{ctx}: path {p:?}"),
        };
        let got = axis_bits(&conv, &x, axis, piped, &ctx);
        for k in [0, lanes - 1] {
            let lane: Vec<T> = x.lanes(Axis(axis)).into_iter().nth(k).unwrap().to_vec();
            let got_lane: Vec<T> = got.lanes(Axis(axis)).into_iter().nth(k).unwrap().to_vec();
            let (mode, boundary) = (options.mode, options.boundary);
            if let Err(e) = common::check_fft(&got_lane, &lane, &mask, mode, boundary, size, 512) {
                panic!("{ctx}, lane {k}: {e}");
            }
        }
    }
    let d = Options::new();
    for mode in [Mode::Same, Mode::Full, Mode::Valid] {
        fft_outer::<f32>(&gpu, (300_000, 16, false), (127, 0), d.mode(mode), true);
    }
    for b in Boundary::ALL {
        let piped = b != Boundary::Wrap;
        fft_outer::<f32>(&gpu, (300_000, 16, false), (127, 0), d.boundary(b), piped);
    }
    fft_outer::<f32>(
        &gpu,
        (300_000, 16, true),
        (127, 0),
        d.mode(Mode::Full),
        true,
    );
    // A large transform: pairs of 2 · 12385 slices, a halo of 53540 slices, four chunks.
    fft_outer::<f32>(&gpu, (300_000, 16, false), (4000, 16384), d, true);
    fft_outer::<f64>(
        &gpu,
        (150_000, 16, false),
        (200, 0),
        d.boundary(Boundary::Reflect),
        true,
    );
    fft_outer::<f16>(&gpu, (600_000, 16, false), (500, 0), d, true);
    // The halo's slices over half a chunk: one-shot.
    fft_outer::<f32>(&gpu, (150_000, 64, false), (4000, 16384), d, false);
}

/// The tensor-core path along the outer memory axis through the pipeline: spans on its tile
/// grid, windows keeping every row's 16-byte alignment and holding each tile's whole staged span,
/// so the results (the tiles computed directly around non-finite values included) equal the
/// one-shot call's bit for bit: f16 and bf16 under `Auto`, f32 on 3×TF32, every mode and
/// boundary, slice counts that are not multiples of the alignment, C and Fortran order.
#[test]
fn outer_axis_tensor_path() {
    use ndarray::{Array2, ShapeBuilder};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    if gpu.properties().compute_capability.0 < 8 {
        eprintln!("SKIPPED: tensor cores need compute capability 8.0");
        return;
    }
    fn case<T: Real>(
        gpu: &Gpu,
        (slices, lanes, fortran): (usize, usize, bool),
        w: usize,
        options: Options,
        piped: bool,
    ) {
        let mask: Vec<T> = data(w, w as u64 + 7);
        let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
        let mut v = data::<T>(slices * lanes, (slices * 3 + w) as u64);
        // Non-finite values here and there: their tiles are computed directly.
        let len = v.len();
        for k in 1..40 {
            v[(k * 7_919_993) % len] = T::from_f64(f64::NAN);
            v[(k * 5_003_003) % len] = T::from_f64(f64::INFINITY);
        }
        let (x, axis) = match fortran {
            false => (Array2::from_shape_vec((slices, lanes), v).unwrap(), 0),
            true => (Array2::from_shape_vec((lanes, slices).f(), v).unwrap(), 1),
        };
        let ctx = format!(
            "{} {slices} x {lanes} fortran {fortran} w={w} {:?} {:?} {:?}",
            T::NAME,
            options.mode,
            options.boundary,
            options.strategy
        );
        let path = conv.path(conv.output_len(slices).unwrap()).unwrap();
        assert_eq!(path, gpu_conv1d::Path::TensorCore, "{ctx}");
        axis_bits(&conv, &x, axis, piped, &ctx);
    }
    let d = Options::new();
    for mode in [Mode::Same, Mode::Full, Mode::Valid] {
        case::<f16>(&gpu, (200_003, 64, false), 31, d.mode(mode), true);
    }
    for b in Boundary::ALL {
        let piped = b != Boundary::Wrap;
        case::<f16>(&gpu, (200_003, 64, false), 31, d.boundary(b), piped);
    }
    case::<bf16>(&gpu, (200_001, 64, true), 127, d.mode(Mode::Full), true);
    let tensor = d.strategy(Strategy::TensorCore);
    case::<f32>(
        &gpu,
        (300_001, 16, false),
        63,
        tensor.boundary(Boundary::Reflect),
        true,
    );
    // A halo of slices over half a chunk: one-shot.
    case::<f16>(&gpu, (20_000, 512, false), 31, d, false);
}

/// The flat pipeline on the tensor-core path with non-finite values spread through the signal:
/// each span's last tile stages (and checks) inputs past the span's windows, which the
/// pipeline uploads before the span runs, so the tiles computed directly are the one-shot
/// call's.
#[test]
fn tensor_path_non_finite_streams() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    if gpu.properties().compute_capability.0 < 8 {
        eprintln!("SKIPPED: tensor cores need compute capability 8.0");
        return;
    }
    let n = 3 * chunk_of::<f16>() + 77;
    let mut x: Vec<f16> = data(n, 21);
    // A NaN a little past every multiple of 2^16 (where the spans end) and past every 2^21.
    for k in 1..n / 65536 {
        x[k * 65536 + 300] = f16::NAN;
    }
    for k in 1..n / (1 << 21) {
        x[(k << 21) + 9] = f16::INFINITY;
    }
    for w in [31, 127] {
        let conv = Conv1d::correlation(&gpu, &data::<f16>(w, 22), Options::new()).unwrap();
        flat_bits(&conv, &x, true, &format!("w={w}"));
    }
}

/// The FFT and tensor-core paths along the outer axis, small, for compute-sanitizer (filter
/// `outer_axis_tiles_for`): 70000 slices of 64 lanes, f32 with w = 31 in 512-point transforms
/// (three chunks) and f16 with w = 31 on tensor cores (two chunks), against the one-shot bits.
#[test]
fn outer_axis_tiles_for_the_sanitizers() {
    use ndarray::Array2;
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let x = Array2::from_shape_vec((70_000, 64), data::<f32>(70_000 * 64, 9)).unwrap();
    let options = Options::new()
        .boundary(Boundary::Mirror)
        .strategy(Strategy::Fft { size: 512 });
    let conv = Conv1d::correlation(&gpu, &data::<f32>(31, 10), options).unwrap();
    axis_bits(&conv, &x, 0, true, "f32 FFT");
    if gpu.properties().compute_capability.0 >= 8 {
        let h = x.mapv(f16::from_f32);
        let options = Options::new().strategy(Strategy::TensorCore);
        let conv = Conv1d::correlation(&gpu, &data::<f16>(31, 11), options).unwrap();
        axis_bits(&conv, &h, 0, true, "f16 tensor cores");
    }
}

/// The outer-axis pipeline alone, small, for compute-sanitizer (filter `outer_axis_for`): five
/// chunks of 45 slices of 40000 lanes (w = 7), `same` with a mirrored boundary and `full`,
/// against the one-shot bits.
#[test]
fn outer_axis_for_the_sanitizers() {
    use ndarray::Array2;
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let x = Array2::from_shape_vec((200, 40000), data::<f32>(200 * 40000, 8)).unwrap();
    for options in [
        Options::new().boundary(Boundary::Reflect),
        Options::new().mode(Mode::Full),
    ] {
        let conv = Conv1d::correlation(&gpu, &data::<f32>(7, 9), options).unwrap();
        axis_bits(&conv, &x, 0, true, &format!("{options:?}"));
    }
}
