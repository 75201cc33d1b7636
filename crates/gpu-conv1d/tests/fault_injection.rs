//! Every driver call of every conv1d strategy (the FFT paths and cuFFT included) failing in
//! turn (the `fault-injection` feature): an error naming the call, no panic, memory back to
//! its baseline, the next call right.
//! Built and run by `scripts/gpu-bundle.sh` (`--features cuda,fault-injection`); one test, so
//! that nothing else allocates while memory is compared.

mod common;

use gpu_conv1d::{cpu, fft_max_width, Boundary, Conv1d, Mode, Operation, Options, Strategy};
use gpu_core::testing::{fail_each_call_into, fail_every_call, gpu_or_skip};
use ndarray::{Array2, Axis};

/// Small dyadic values: every sum of products is exact in f32, in any order.
fn dyadic(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 5 + seed) % 8) as f32 * 0.25 - 1.0)
        .collect()
}

fn expect<T: PartialEq>(want: T) -> impl FnMut(&T) -> Result<(), String> {
    move |got| {
        (*got == want)
            .then_some(())
            .ok_or_else(|| "the result differs from the CPU reference".to_string())
    }
}

/// Within `tol` of the CPU reference everywhere (the FFT path is not exact on dyadic data).
fn expect_near(want: Vec<f32>, tol: f32) -> impl FnMut(&Vec<f32>) -> Result<(), String> {
    move |got| {
        let worst = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (g - w).abs())
            .fold(0.0f32, f32::max);
        (got.len() == want.len() && worst <= tol)
            .then_some(())
            .ok_or_else(|| format!("off the CPU reference by {worst} (tolerance {tol})"))
    }
}

#[test]
fn every_driver_call_of_every_conv1d_strategy_fails_cleanly() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut points = 0;
    let signal = dyadic(100_003, 1);
    for width in [7, 31, 200] {
        let mask = dyadic(width, 3);
        for strategy in Strategy::ALL.into_iter().chain([Strategy::FFT]) {
            for (operation, mode, boundary) in [
                (Operation::Correlation, Mode::Same, Boundary::Zero),
                (Operation::Convolution, Mode::Full, Boundary::Reflect),
            ] {
                let options = Options::new()
                    .mode(mode)
                    .boundary(boundary)
                    .strategy(strategy);
                let Ok(c) = Conv1d::new(&gpu, operation, &mask, options) else {
                    continue; // a strategy that cannot take this mask (constant capacity)
                };
                let want = cpu::apply(operation, &signal, &mask, mode, boundary, false).unwrap();
                let path = c.path(signal.len()).unwrap();
                let what = format!(
                    "{strategy:?} ({path:?}) {operation:?} {mode:?} {boundary:?} width {width}"
                );
                let run = || c.run(&signal[..]);
                // Dyadic data: the direct paths are exact, the FFT path (which Auto takes from
                // width 64) within f32 rounding of sums of at most 200 products below 1.
                points += if matches!(
                    path,
                    gpu_conv1d::Path::Fft { .. } | gpu_conv1d::Path::FftEvenOdd { .. }
                ) {
                    fail_every_call(&gpu, &what, run, expect_near(want, 1e-3)).points
                } else {
                    fail_every_call(&gpu, &what, run, expect(want)).points
                };
            }
        }
    }
    // The wider blocks, the parts and cuFFT (past the direct strategies above, whose driver
    // calls do not depend on the width): the radix-32 8192-point pairs, the even-and-odd spans
    // of 16384 and 32768 points, the mask in parts (its tables) and cuFFT's segments (its own
    // allocations and plans; the library's calls inside libcufft are not ours to fail). Within
    // f32 rounding of sums of `w` products below 1, scaled by the width.
    let cufft_width = fft_max_width::<f32>() + 639;
    let mut widths = vec![2047, 4095, 8191, 30_000];
    if common::cufft_or_skip("the cuFFT points").is_some() {
        widths.push(cufft_width);
    }
    for width in widths {
        let mask = dyadic(width, 5);
        // `Auto` runs 30000 in parts; `Strategy::FFT` keeps a mask to the blocks while one fits,
        // and sends a wider one to cuFFT.
        let cufft = width == cufft_width;
        // (f32 takes the 16384-point spans from w = 1151 by itself: the 8192-point pairs by size.)
        let strategy = match width {
            30_000 => Strategy::Auto,
            2047 => Strategy::Fft { size: 8192 },
            _ => Strategy::FFT,
        };
        for (operation, mode, boundary) in [
            (Operation::Correlation, Mode::Same, Boundary::Zero),
            (Operation::Convolution, Mode::Full, Boundary::Reflect),
        ] {
            let want = cpu::apply(operation, &signal, &mask, mode, boundary, true).unwrap();
            let options = Options::new()
                .mode(mode)
                .boundary(boundary)
                .strategy(strategy);
            let c = Conv1d::new(&gpu, operation, &mask, options).unwrap();
            let path = c.path(signal.len()).unwrap();
            assert_eq!(
                matches!(path, gpu_conv1d::Path::CuFft { .. }),
                cufft,
                "{path:?}"
            );
            assert_eq!(
                matches!(path, gpu_conv1d::Path::FftEvenOddParts { .. }),
                width == 30_000,
                "{path:?}"
            );
            let what = format!("{path:?} {operation:?} {mode:?} {boundary:?} width {width}");
            let tol = 1e-3f32.max(4e-6 * width as f32);
            points +=
                fail_every_call(&gpu, &what, || c.run(&signal[..]), expect_near(want, tol)).points;
        }
    }
    let rows = Array2::from_shape_fn((64, 1001), |(i, j)| ((i + 3 * j) % 8) as f32 * 0.25);
    let mask = dyadic(9, 2);
    let c = Conv1d::new(&gpu, Operation::Correlation, &mask, Options::new()).unwrap();
    let mut want = rows.clone();
    for (mut out, row) in want.axis_iter_mut(Axis(0)).zip(rows.axis_iter(Axis(0))) {
        let r = cpu::apply(
            Operation::Correlation,
            row.as_slice().unwrap(),
            &mask,
            Mode::Same,
            Boundary::Zero,
            false,
        )
        .unwrap();
        out.assign(&ndarray::ArrayView1::from(&r));
    }
    points += fail_every_call(&gpu, "rows", || c.run_rows(rows.view()), expect(want)).points;
    // Host to host through the pipeline's rings: three chunks of 8 MiB and a bit.
    let long = dyadic((6usize << 20) + 5, 3);
    let mask = dyadic(31, 4);
    let want = cpu::correlate(&long, &mask, Mode::Same, Boundary::Zero).unwrap();
    let piped = Conv1d::correlation(&gpu, &mask, Options::new())
        .unwrap()
        .pipelining(gpu_core::Pipelining::Always);
    points += fail_every_call(
        &gpu,
        "pipelined host to host",
        || {
            let mut out = vec![0.0f32; long.len()];
            piped.run_to_slice(&long, &mut out)?;
            Ok(out)
        },
        expect(want.clone()),
    )
    .points;
    // What a failure leaves in the caller's slice: untouched before the first results come
    // back, each element its result or untouched after.
    fail_each_call_into("pipelined run_to_slice", f32::MAX, &want, |out| {
        piped.run_to_slice(&long, out)
    });
    // Batches of rows through the pipeline: rows of 5003, three chunks.
    let rows = Array2::from_shape_vec((1200, 5003), dyadic(1200 * 5003, 5)).unwrap();
    let mut want = Array2::<f32>::zeros((1200, 5003));
    for (mut out, row) in want.axis_iter_mut(Axis(0)).zip(rows.axis_iter(Axis(0))) {
        let r = cpu::correlate(row.as_slice().unwrap(), &mask, Mode::Same, Boundary::Zero).unwrap();
        out.assign(&ndarray::ArrayView1::from(&r));
    }
    points += fail_every_call(
        &gpu,
        "pipelined rows",
        || piped.run_rows(rows.view()),
        expect(want),
    )
    .points;
    // Along the middle axis of a 3-D array through the pipeline (slices of 37 × 1001, the
    // lanes gathered into rows on the device): three chunks.
    let x = ndarray::Array3::from_shape_vec((150, 37, 1001), dyadic(150 * 37 * 1001, 6)).unwrap();
    let mut want = ndarray::Array3::<f32>::zeros((150, 37, 1001));
    for (mut out, lane) in want.lanes_mut(Axis(1)).into_iter().zip(x.lanes(Axis(1))) {
        let lane = lane.to_vec();
        let r = cpu::correlate(&lane, &mask, Mode::Same, Boundary::Zero).unwrap();
        out.assign(&ndarray::ArrayView1::from(&r));
    }
    points += fail_every_call(
        &gpu,
        "pipelined middle axis",
        || piped.run_axis(&x, Axis(1)),
        expect(want.into_dyn()),
    )
    .points;
    eprintln!("fault injection: gpu-conv1d: {points} failure points, 0 panics, 0 leaks");
}
