//! `Strategy::Auto`'s crossovers under per-device tuning on a real GPU: the path follows the
//! `conv1d.*` keys, and both sides of a crossover give the same correlation (the FFT within its
//! tolerance). Skipped (visibly) without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_conv1d::{Conv1d, Options, Path};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{data, Gpu, Tuning};

fn run(gpu: &Gpu, key: &str, value: u64, x: &[f32], mask: &[f32]) -> (Path, Vec<f32>) {
    let mut t = Tuning::new();
    t.set(key, value).unwrap();
    gpu.set_tuning(t).unwrap();
    let conv = Conv1d::correlation(gpu, mask, Options::new()).unwrap();
    (conv.path(x.len()).unwrap(), conv.run(x).unwrap())
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0f32, f32::max)
}

/// One test function: the tuning is per device and process.
#[test]
fn tuned_crossovers_choose_the_path() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1 << 18) + 11;
    let x: Vec<f32> = data::uniform(n, 1, -1.0, 1.0);
    for w in [40usize, 100] {
        let mask: Vec<f32> = data::uniform(w, w as u64, -1.0, 1.0);
        let (direct, a) = run(&gpu, "conv1d.fft_min_width", 1 << 20, &x, &mask);
        let (fft, b) = run(&gpu, "conv1d.fft_min_width", w as u64, &x, &mask);
        assert!(
            !matches!(direct, Path::Fft { .. }),
            "w {w}: {direct:?} with the crossover past it"
        );
        assert!(matches!(fft, Path::Fft { .. }), "w {w}: {fft:?} from it");
        // Values and mask in [-1, 1]: a window's norm is at most w.
        let worst = max_diff(&a, &b);
        assert!(
            worst <= 1e-5 * w as f32,
            "w {w}: FFT off the direct sums by {worst}"
        );
    }
    // cuFFT where libcufft loads: the crossover below the block FFT's widest mask.
    if gpu_conv1d::cufft_available() {
        let w = 2000;
        let mask: Vec<f32> = data::uniform(w, 9, -1.0, 1.0);
        let (block, a) = run(&gpu, "conv1d.cufft_min_width", 1 << 40, &x, &mask);
        let (cufft, b) = run(&gpu, "conv1d.cufft_min_width", w as u64, &x, &mask);
        assert!(matches!(block, Path::Fft { .. }), "{block:?}");
        assert!(matches!(cufft, Path::CuFft { .. }), "{cufft:?}");
        let worst = max_diff(&a, &b);
        assert!(
            worst <= 1e-5 * w as f32,
            "cuFFT off the block FFT by {worst}"
        );
    } else {
        eprintln!("libcufft not loadable: the cuFFT crossover is not exercised");
    }
    gpu.set_tuning(Tuning::new()).unwrap();
}
