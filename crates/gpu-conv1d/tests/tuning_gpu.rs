//! `Strategy::Auto`'s crossovers under per-device tuning on a real GPU: the path follows the
//! `conv1d.*` keys, and both sides of a crossover give the same correlation (the FFT within its
//! tolerance). Skipped (visibly) without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

mod common;

use gpu_conv1d::{Boundary, Conv1d, Mode, Operation, Options, Path, WIDE_TILE_WIDTHS};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{data, Gpu, Tuning};
use ndarray::Array2;

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
    wide_tiles_give_the_same_bits(&gpu);
    gpu.set_tuning(Tuning::new()).unwrap();
}

/// The wide-tile kernels (24 f32 outputs per thread, `conv1d.wide_tile_from`) against the
/// 16-output ones: the same bits for every width they exist for, every mode and boundary, one
/// row and rows of an odd length (every alignment shift), and the f64 reference.
fn wide_tiles_give_the_same_bits(gpu: &Gpu) {
    let tile = 3072;
    let n = 2 * tile + 3;
    let x: Vec<f32> = common::data(n, 5);
    let xs = Array2::from_shape_vec((5, n), common::data::<f32>(5 * n, 6)).unwrap();
    let set = |from: u64| {
        let mut t = Tuning::new();
        t.set("conv1d.wide_tile_from", from).unwrap();
        gpu.set_tuning(t).unwrap();
    };
    let mut cases = 0;
    for w in WIDE_TILE_WIDTHS {
        let mask: Vec<f32> = common::data(w, w as u64);
        let all = [5, 8, 31, 32].contains(&w);
        for mode in [Mode::Same, Mode::Full, Mode::Valid] {
            for boundary in Boundary::ALL {
                if !all && (mode != Mode::Same || boundary != Boundary::Zero) {
                    continue;
                }
                let opts = Options::new().mode(mode).boundary(boundary);
                let mut outs = Vec::new();
                for (from, want) in [
                    (1u64, Path::RegisterTiledFixedWide { width: w as u32 }),
                    (1 << 40, Path::RegisterTiledFixed { width: w as u32 }),
                ] {
                    set(from);
                    let conv = Conv1d::correlation(gpu, &mask, opts).unwrap();
                    assert_eq!(conv.path(n).unwrap(), want, "w {w} {mode:?}");
                    outs.push((conv.run(&x).unwrap(), conv.run_rows(xs.view()).unwrap()));
                }
                let (wide, narrow) = (&outs[0], &outs[1]);
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&wide.0),
                    bits(&narrow.0),
                    "w {w} {mode:?} {boundary:?}"
                );
                assert_eq!(
                    bits(wide.1.as_slice().unwrap()),
                    bits(narrow.1.as_slice().unwrap()),
                    "w {w} {mode:?} {boundary:?}, rows"
                );
                common::check(
                    &wide.0,
                    Operation::Correlation,
                    &x,
                    &mask,
                    mode,
                    boundary,
                    1 << 20,
                )
                .unwrap_or_else(|e| panic!("w {w} {mode:?} {boundary:?}: {e}"));
                for (r, row) in wide.1.rows().into_iter().enumerate() {
                    let xr = xs.row(r).to_vec();
                    common::check(
                        &row.to_vec(),
                        Operation::Correlation,
                        &xr,
                        &mask,
                        mode,
                        boundary,
                        1 << 20,
                    )
                    .unwrap_or_else(|e| panic!("w {w} {mode:?} {boundary:?} row {r}: {e}"));
                }
                cases += 1;
            }
        }
    }
    eprintln!(
        "wide tiles: {cases} cases, the same bits as 16-output tiles and within the f64 bound"
    );
}
