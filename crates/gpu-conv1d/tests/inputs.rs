//! gpu-conv1d accepts every gpu-core `Input` as its signal.
#![cfg(feature = "cuda")]

use gpu_conv1d::{cpu, Boundary, Conv1d, Mode, Options};
use gpu_core::testing::gpu_or_skip;
use gpu_core::DeviceSlice;
use ndarray::Array2;

#[test]
fn gpu_conv1d_takes_every_input_kind() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mask = [0.25f64, 0.5, 0.25, -1.0, 2.0];
    for mode in [Mode::Full, Mode::Same, Mode::Valid] {
        let options = Options {
            mode,
            boundary: Boundary::Reflect,
            ..Options::default()
        };
        let conv = Conv1d::correlation(&gpu, &mask, options).unwrap();
        for n in [0usize, 1, 4, 5, 31, 33, 1025, 100_003] {
            let x: Vec<f64> = (0..n).map(|i| ((i * 37) % 17) as f64 - 8.0).collect();
            let want = cpu::correlate(&x, &mask, mode, Boundary::Reflect);
            let dev = gpu.upload(&x).unwrap();
            match want {
                Ok(want) => {
                    assert_eq!(conv.run(&x).unwrap(), want, "{mode:?} n = {n}");
                    assert_eq!(conv.run(&dev).unwrap(), want, "{mode:?} n = {n}");
                    let got = gpu_conv1d::correlate(&gpu, &dev, &mask, options).unwrap();
                    assert_eq!(got, want);
                    let part = n / 3..n;
                    if let Ok(w) = cpu::correlate(&x[part.clone()], &mask, mode, Boundary::Reflect)
                    {
                        let slice = DeviceSlice::new(&dev, part).unwrap();
                        assert_eq!(conv.run(&slice).unwrap(), w);
                    }
                }
                Err(_) => assert!(
                    conv.run(&dev).is_err(),
                    "{mode:?} n = {n} should be refused"
                ),
            }
        }
    }
}

#[test]
fn gpu_conv1d_reads_ndarrays_in_logical_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    let a = Array2::from_shape_fn((30, 41), |(i, j)| (i * 41 + j) as f32 * 0.125);
    let t = a.t();
    let logical: Vec<f32> = t.iter().copied().collect();
    let mask = [1.0f32, -2.0, 1.0];
    let want = cpu::convolve(&logical, &mask, Mode::Same, Boundary::Zero).unwrap();
    assert_eq!(
        gpu_conv1d::convolve(&gpu, &t, &mask, Options::default()).unwrap(),
        want
    );
    assert_eq!(
        gpu_conv1d::convolve(&gpu, &[1.0f32, 2.0, 3.0], &mask, Options::default())
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn gpu_conv1d_builder_options_streams_and_device_results() {
    use gpu_conv1d::Strategy;
    let Some(gpu) = gpu_or_skip() else { return };
    let mask: Vec<f32> = (0..9).map(|i| i as f32 * 0.125 - 0.5).collect();
    let x: Vec<f32> = (0..100_001)
        .map(|i| ((i * 13) % 29) as f32 - 14.0)
        .collect();
    let dev = gpu.upload(&x).unwrap();
    for strategy in Strategy::ALL {
        for (mode, boundary) in [
            (Mode::Valid, Boundary::Zero),
            (Mode::Same, Boundary::Wrap),
            (Mode::Full, Boundary::Mirror),
        ] {
            let conv = Conv1d::convolution(&gpu, &mask, Options::default())
                .unwrap()
                .mode(mode)
                .boundary(boundary)
                .strategy(strategy);
            let want = cpu::convolve(&x, &mask, mode, boundary).unwrap();
            let close = |got: &[f32]| {
                got.len() == want.len()
                    && got
                        .iter()
                        .zip(&want)
                        .all(|(g, w)| (g - w).abs() <= 1e-4 * w.abs().max(1.0))
            };
            assert!(
                close(&conv.run(&dev).unwrap()),
                "{strategy:?} {mode:?} {boundary:?}"
            );
            let mut out = gpu.alloc::<f32>(conv.output_len(x.len()).unwrap()).unwrap();
            conv.run_into(&x, &mut out).unwrap();
            assert!(close(&out.to_vec().unwrap()), "{strategy:?} {mode:?} into");
            let stream = gpu.new_stream().unwrap();
            let on_stream = conv.stream(&stream);
            out.fill(0.0, gpu.stream()).unwrap();
            gpu.stream().synchronize().unwrap();
            on_stream.run_into(&dev, &mut out).unwrap();
            stream.synchronize().unwrap();
            assert!(
                close(&out.to_vec().unwrap()),
                "{strategy:?} {mode:?} on a stream"
            );
        }
    }
    // Wrong output lengths and strategies that cannot take the mask are clear errors at run.
    let conv = Conv1d::correlation(&gpu, &mask, Options::default()).unwrap();
    let mut wrong = gpu.alloc::<f32>(x.len() - 1).unwrap();
    assert!(conv.run_into(&dev, &mut wrong).is_err());
    let bad = conv.strategy(Strategy::TiledHalo { tile: 7 });
    let e = bad.run(&x).unwrap_err();
    assert!(e.to_string().contains("tile"), "{e}");
}
