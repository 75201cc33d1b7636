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
