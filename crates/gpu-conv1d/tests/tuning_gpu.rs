//! `Strategy::Auto`'s crossovers under per-device tuning on a real GPU: the path follows the
//! `conv1d.*` keys, and both sides of a crossover give the same correlation (the FFT within its
//! tolerance). Skipped (visibly) without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

mod common;

use gpu_conv1d::{
    wide_tile_widths, Boundary, Conv1d, Mode, Operation, Options, Path, Real, Strategy,
};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, data, f16, Element, Gpu, Tuning};
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
        assert!(
            matches!(block, Path::Fft { .. } | Path::FftEvenOdd { .. }),
            "{block:?}"
        );
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
    even_odd_packing(&gpu);
    gpu.set_tuning(Tuning::new()).unwrap();
}

/// The even-and-odd FFT kernels below the sizes that always take them
/// (`conv1d.fft_even_odd_from` at 8192): the path they report, and every mode and boundary at
/// the tile edges (rows one tile long and a bit, an odd number of tiles, shorter than a span)
/// against the f64 reference, for every type, one row and three.
fn even_odd_packing(gpu: &Gpu) {
    let mut t = Tuning::new();
    t.set(
        "conv1d.fft_even_odd_from",
        gpu_conv1d::FFT_EVEN_ODD_MIN as u64,
    )
    .unwrap();
    gpu.set_tuning(t).unwrap();
    let mut cases = 0;
    cases += even_odd_of::<f32>(gpu);
    cases += even_odd_of::<f64>(gpu);
    cases += even_odd_of::<f16>(gpu);
    cases += even_odd_of::<bf16>(gpu);
    eprintln!("even-and-odd FFT packing: {cases} runs within the f64 bound");
}

fn even_odd_of<T: Real>(gpu: &Gpu) -> usize {
    let mut cases = 0;
    let packable = gpu_conv1d::FFT_EVEN_ODD_MIN..=gpu_conv1d::fft_pair_max::<T>();
    for size in gpu_conv1d::FFT_SIZES
        .into_iter()
        .filter(|s| packable.contains(s))
    {
        for w in [3, size / 2 + 1, size - 1] {
            let mask: Vec<T> = common::data(w, 70 + w as u64);
            let l = gpu_conv1d::fft_tile(size, w);
            for (mode, boundary) in [
                (Mode::Same, Boundary::Zero),
                (Mode::Full, Boundary::Reflect),
                (Mode::Valid, Boundary::Zero),
                (Mode::Same, Boundary::Wrap),
                (Mode::Same, Boundary::Nearest),
            ] {
                let conv = Conv1d::correlation(
                    gpu,
                    &mask,
                    Options::new()
                        .mode(mode)
                        .boundary(boundary)
                        .strategy(Strategy::Fft { size: size as u32 }),
                )
                .unwrap();
                for (rows, n) in [(1, l + 1), (3, 3 * l + 7), (1, w + 2), (2, 1)] {
                    if mode == Mode::Valid && n < w {
                        continue;
                    }
                    let what = format!(
                        "{} size {size} w {w} {mode:?} {boundary:?} rows {rows} n {n}",
                        T::NAME
                    );
                    assert_eq!(
                        conv.path(n).unwrap(),
                        Path::FftEvenOdd { size: size as u32 },
                        "{what}"
                    );
                    let x: Vec<T> = common::data(rows * n, (n + w) as u64);
                    let y = conv
                        .run_rows(Array2::from_shape_vec((rows, n), x.clone()).unwrap().view())
                        .unwrap();
                    for (r, row) in y.rows().into_iter().enumerate() {
                        common::check_fft(
                            &row.to_vec(),
                            &x[r * n..(r + 1) * n],
                            &mask,
                            mode,
                            boundary,
                            size,
                            1500,
                        )
                        .unwrap_or_else(|e| panic!("{what} row {r}: {e}"));
                    }
                    cases += 1;
                }
            }
        }
    }
    cases
}

/// The wide-tile kernels (24 f32 outputs per thread, `conv1d.wide_tile_from`; 32 f16 and bf16
/// outputs, `conv1d.half_wide_tile_from`) against the 16-output ones: the same values (the same
/// sums in the same order) for every width they exist for, every mode and boundary at a few
/// widths, one row and rows of an odd length (every alignment shift), and the f64 reference.
fn wide_tiles_give_the_same_bits(gpu: &Gpu) {
    wide_tiles_of::<f32>(gpu, "conv1d.wide_tile_from");
    wide_tiles_of::<f16>(gpu, "conv1d.half_wide_tile_from");
    wide_tiles_of::<bf16>(gpu, "conv1d.half_wide_tile_from");
}

fn wide_tiles_of<T: Real + Element>(gpu: &Gpu, key: &str) {
    let widths = wide_tile_widths::<T>().expect("a type with wide tiles");
    // Two and a bit tiles of the wide kernel (3072 outputs for f32, 4096 for 16-bit).
    let n = 2
        * 128
        * if std::mem::size_of::<T>() == 2 {
            32
        } else {
            24
        }
        + 3;
    let x: Vec<T> = common::data(n, 5);
    let xs = Array2::from_shape_vec((5, n), common::data::<T>(5 * n, 6)).unwrap();
    let set = |from: u64| {
        let mut t = Tuning::new();
        t.set(key, from).unwrap();
        gpu.set_tuning(t).unwrap();
    };
    let mut cases = 0;
    let (first, last) = (*widths.start(), *widths.end());
    for w in widths {
        let mask: Vec<T> = common::data(w, w as u64);
        let all = [first, 8, 31, last].contains(&w);
        for mode in [Mode::Same, Mode::Full, Mode::Valid] {
            for boundary in Boundary::ALL {
                if !all && (mode != Mode::Same || boundary != Boundary::Zero) {
                    continue;
                }
                let opts = Options::new()
                    .mode(mode)
                    .boundary(boundary)
                    .strategy(Strategy::RegisterTiled);
                let mut outs = Vec::new();
                for (from, want) in [
                    (1u64, Path::RegisterTiledFixedWide { width: w as u32 }),
                    (1 << 40, Path::RegisterTiledFixed { width: w as u32 }),
                ] {
                    set(from);
                    let conv = Conv1d::correlation(gpu, &mask, opts).unwrap();
                    assert_eq!(conv.path(n).unwrap(), want, "{} w {w} {mode:?}", T::NAME);
                    outs.push((conv.run(&x).unwrap(), conv.run_rows(xs.view()).unwrap()));
                }
                let (wide, narrow) = (&outs[0], &outs[1]);
                let what = format!("{} w {w} {mode:?} {boundary:?}", T::NAME);
                assert!(wide.0 == narrow.0, "{what}");
                assert!(wide.1 == narrow.1, "{what}, rows");
                common::check(
                    &wide.0,
                    Operation::Correlation,
                    &x,
                    &mask,
                    mode,
                    boundary,
                    1 << 20,
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
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
                    .unwrap_or_else(|e| panic!("{what} row {r}: {e}"));
                }
                cases += 1;
            }
        }
    }
    eprintln!(
        "wide {} tiles: {cases} cases, the same values as 16-output tiles and within the f64 bound",
        T::NAME
    );
}
