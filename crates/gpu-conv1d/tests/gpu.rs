//! GPU kernels against the f64 reference: every strategy × operation × mode × boundary × type
//! at small sizes and the tile edges, mask widths 1 … 255 and masks longer than the signal;
//! batches; long masks; 2^20 + 7 and 2^28 elements; concurrency of the constant-memory strategies;
//! errors. Outputs are poisoned with NaN before every run.
#![cfg(feature = "cuda")]

mod common;

use gpu_conv1d::{
    auto_fixed_tile, auto_tile, constant_capacity, Boundary, Conv1d, Mode, Operation, Options,
    Path, Real, Strategy, DEFAULT_TILE,
};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, f16, DeviceArray, Gpu, Stream};
use ndarray::{Array2, ShapeBuilder};

const WIDTHS: [usize; 10] = [1, 2, 3, 4, 7, 31, 32, 33, 127, 255];
const OPS: [Operation; 2] = [Operation::Correlation, Operation::Convolution];
/// Outputs compared per run (all of them below this; both ends and a stride above).
const CHECKED: usize = 4096;

fn poisoned<T: Real>(gpu: &Gpu, len: usize, stream: &Stream) -> DeviceArray<T> {
    let mut y = gpu.alloc::<T>(len).unwrap();
    y.fill(T::from_f64(f64::NAN), stream).unwrap();
    y
}

/// Whether `gpu` runs the warpgroup kernels (compute capability 9.0).
fn warpgroup(gpu: &Gpu) -> bool {
    gpu.properties().compute_capability == (9, 0)
}

/// Runs `conv` on `x` into a NaN-poisoned output on `stream` and copies the result back.
fn run_on<T: Real>(gpu: &Gpu, conv: &Conv1d<T>, x: &[T], stream: &Stream) -> Vec<T> {
    let n_out = conv.output_len(x.len()).unwrap();
    let xs = gpu.upload(x).unwrap();
    let mut y = poisoned::<T>(gpu, n_out, stream);
    conv.clone().stream(stream).run_into(&xs, &mut y).unwrap();
    stream.synchronize().unwrap();
    y.to_vec().unwrap()
}

/// The tile a strategy cuts rows into (threads per block for the per-output kernels).
fn tile_of<T: Real>(strategy: Strategy) -> usize {
    match strategy {
        Strategy::TiledHalo { tile } | Strategy::TiledCached { tile } => tile as usize,
        Strategy::Auto => auto_tile::<T>(),
        Strategy::TensorCore => 2048,
        Strategy::Warpgroup => 4096,
        Strategy::RegisterTiled => auto_fixed_tile::<T>(),
        Strategy::Basic | Strategy::ConstantMask => DEFAULT_TILE as usize,
        Strategy::Fft { .. } => 4096,
        Strategy::FftParts { .. } => 16384,
    }
}

fn lengths<T: Real>(strategy: Strategy) -> Vec<usize> {
    let t = tile_of::<T>(strategy);
    let mut v = vec![0, 1, 2, 5, 40, t - 1, t, t + 1];
    if matches!(strategy, Strategy::TensorCore | Strategy::Warpgroup) {
        v.extend([2 * t - 9, 3 * t + 5]);
    }
    if strategy == Strategy::RegisterTiled {
        // the runtime-width kernel's tile edges too
        let a = auto_tile::<T>();
        v.extend([a - 1, a + 1, 2 * a + 3]);
    }
    if strategy == Strategy::Auto {
        // where Auto switches between the per-output and the register-tiled kernel
        v.extend([t / 4 - 1, t / 4, 2 * t + 3]);
        // the tile edges of the fixed-width kernels
        let f = auto_fixed_tile::<T>();
        v.extend([f - 1, f, f + 1, 3 * f + 5]);
    }
    v
}

fn cross_product<T: Real>(strategy: Strategy) {
    let Some(gpu) = gpu_or_skip() else { return };
    if strategy == Strategy::Warpgroup && !warpgroup(&gpu) {
        eprintln!("skipped: Strategy::Warpgroup needs compute capability 9.0");
        return;
    }
    let stream = gpu.stream();
    let mut failures = Vec::new();
    let mut runs = 0;
    for &w in &WIDTHS {
        let mask = common::data::<T>(w, 1000 + w as u64);
        for op in OPS {
            for mode in Mode::ALL {
                for boundary in Boundary::ALL {
                    let options = Options {
                        mode,
                        boundary,
                        strategy,
                        ..Options::default()
                    };
                    let conv = Conv1d::new(&gpu, op, &mask, options).unwrap();
                    for n in lengths::<T>(strategy) {
                        let x = common::data::<T>(n, 31 * n as u64 + w as u64);
                        if mode == Mode::Valid && n > 0 && n < w {
                            assert!(conv.output_len(n).is_err() && conv.run(&x).is_err());
                            continue;
                        }
                        let got = run_on(&gpu, &conv, &x, stream);
                        runs += 1;
                        let path = conv.path(n).unwrap();
                        if let Err(e) =
                            common::check_path(&got, op, &x, &mask, mode, boundary, CHECKED, path)
                        {
                            failures.push(format!(
                                "{} {} n={n} w={w} {op:?} {mode:?} {boundary:?}: {e}",
                                strategy.name(),
                                T::NAME
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures[..failures.len().min(25)].join("\n")
    );
}

macro_rules! cross_tests {
    ($($name:ident: $strategy:expr, $t:ty;)*) => { $(
        #[test]
        fn $name() {
            cross_product::<$t>($strategy);
        }
    )* };
}

cross_tests! {
    gpu_cross_basic_f32: Strategy::Basic, f32;
    gpu_cross_basic_f64: Strategy::Basic, f64;
    gpu_cross_constant_f32: Strategy::ConstantMask, f32;
    gpu_cross_constant_f64: Strategy::ConstantMask, f64;
    gpu_cross_tiled_halo_f32: Strategy::TILED_HALO, f32;
    gpu_cross_tiled_halo_f64: Strategy::TILED_HALO, f64;
    gpu_cross_tiled_cached_f32: Strategy::TILED_CACHED, f32;
    gpu_cross_tiled_cached_f64: Strategy::TILED_CACHED, f64;
    gpu_cross_auto_f32: Strategy::Auto, f32;
    gpu_cross_auto_f64: Strategy::Auto, f64;
    gpu_cross_basic_f16: Strategy::Basic, f16;
    gpu_cross_basic_bf16: Strategy::Basic, bf16;
    gpu_cross_constant_f16: Strategy::ConstantMask, f16;
    gpu_cross_constant_bf16: Strategy::ConstantMask, bf16;
    gpu_cross_tiled_halo_f16: Strategy::TILED_HALO, f16;
    gpu_cross_tiled_halo_bf16: Strategy::TILED_HALO, bf16;
    gpu_cross_tiled_cached_f16: Strategy::TILED_CACHED, f16;
    gpu_cross_tiled_cached_bf16: Strategy::TILED_CACHED, bf16;
    gpu_cross_auto_f16: Strategy::Auto, f16;
    gpu_cross_auto_bf16: Strategy::Auto, bf16;
    gpu_cross_tensor_core_f16: Strategy::TensorCore, f16;
    gpu_cross_tensor_core_bf16: Strategy::TensorCore, bf16;
    gpu_cross_tensor_core_f32: Strategy::TensorCore, f32;
    gpu_cross_warpgroup_f16: Strategy::Warpgroup, f16;
    gpu_cross_warpgroup_bf16: Strategy::Warpgroup, bf16;
    gpu_cross_register_tiled_f32: Strategy::RegisterTiled, f32;
    gpu_cross_register_tiled_f16: Strategy::RegisterTiled, f16;
}

#[test]
fn gpu_other_tile_sizes() {
    let Some(gpu) = gpu_or_skip() else { return };
    for tile in [32u32, 64, 1024] {
        for strategy in [Strategy::TiledHalo { tile }, Strategy::TiledCached { tile }] {
            for w in [1, 4, 33, 255] {
                let mask = common::data::<f32>(w, 7);
                for n in [1, tile as usize - 1, tile as usize + 1, 3 * tile as usize] {
                    let x = common::data::<f32>(n, n as u64);
                    for (mode, boundary) in
                        [(Mode::Same, Boundary::Mirror), (Mode::Full, Boundary::Zero)]
                    {
                        let options = Options {
                            mode,
                            boundary,
                            strategy,
                            ..Options::default()
                        };
                        let conv = Conv1d::correlation(&gpu, &mask, options).unwrap();
                        let got = run_on(&gpu, &conv, &x, gpu.stream());
                        common::check(
                            &got,
                            Operation::Correlation,
                            &x,
                            &mask,
                            mode,
                            boundary,
                            CHECKED,
                        )
                        .unwrap_or_else(|e| panic!("{strategy:?} n={n} w={w} {mode:?}: {e}"));
                    }
                }
            }
        }
    }
}

fn large<T: Real>(gpu: &Gpu) {
    let n = (1 << 20) + 7;
    let x = common::data::<T>(n, 20);
    for strategy in Strategy::ALL {
        for w in [3, 127] {
            let mask = common::data::<T>(w, 21);
            for mode in Mode::ALL {
                for boundary in [Boundary::Zero, Boundary::Reflect] {
                    for op in OPS {
                        let options = Options {
                            mode,
                            boundary,
                            strategy,
                            ..Options::default()
                        };
                        let conv = Conv1d::new(gpu, op, &mask, options).unwrap();
                        let got = run_on(gpu, &conv, &x, gpu.stream());
                        common::check(&got, op, &x, &mask, mode, boundary, CHECKED).unwrap_or_else(
                            |e| {
                                panic!(
                                    "{} {} w={w} {op:?} {mode:?} {boundary:?}: {e}",
                                    strategy.name(),
                                    T::NAME
                                )
                            },
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn gpu_large_2_pow_20_plus_7() {
    let Some(gpu) = gpu_or_skip() else { return };
    large::<f32>(&gpu);
    large::<f64>(&gpu);
    large::<f16>(&gpu);
    large::<bf16>(&gpu);
}

#[test]
fn gpu_huge_2_pow_28_register_tiled_f32() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1usize << 28;
    // A cheap hash (random data would take long to generate in a debug build).
    let x: Vec<f32> = (0..n as u64)
        .map(|i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) & 0xffff) as f32 / 32768.0 - 1.0)
        .collect();
    for w in [31, 127, 128] {
        let mask = common::data::<f32>(w, 28);
        // The register-tiled FMA kernels (Auto takes the FFT path for the longer masks).
        let conv = Conv1d::correlation(
            &gpu,
            &mask,
            Options::new().strategy(Strategy::RegisterTiled),
        )
        .unwrap();
        // Wide tiles where this device's tuning takes them for rows this long (the H200).
        let expected = if w == 128 {
            Path::RegisterTiled
        } else if w <= 32 && n as u64 >= gpu.tuned("conv1d.wide_tile_from") {
            Path::RegisterTiledFixedWide { width: w as u32 }
        } else {
            Path::RegisterTiledFixed { width: w as u32 }
        };
        assert_eq!(conv.path(n).unwrap(), expected);
        let got = run_on(&gpu, &conv, &x, gpu.stream());
        common::check(
            &got,
            Operation::Correlation,
            &x,
            &mask,
            Mode::Same,
            Boundary::Zero,
            20_000,
        )
        .unwrap_or_else(|e| panic!("w={w}: {e}"));
    }
}

/// 2^28 16-bit values (a 512 MiB signal) through the fixed-width and the runtime-width kernels.
#[test]
fn gpu_huge_2_pow_28_auto_f16() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1usize << 28;
    let x: Vec<f16> = (0..n as u64)
        .map(|i| {
            let v = ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) & 0xffff) as f32 / 32768.0;
            f16::from_f32(v - 1.0)
        })
        .collect();
    for w in [31, 128] {
        let mask = common::data::<f16>(w, 28);
        let conv = Conv1d::convolution(&gpu, &mask, Options::new().mode(Mode::Full)).unwrap();
        let got = run_on(&gpu, &conv, &x, gpu.stream());
        common::check(
            &got,
            Operation::Convolution,
            &x,
            &mask,
            Mode::Full,
            Boundary::Zero,
            20_000,
        )
        .unwrap_or_else(|e| panic!("w={w}: {e}"));
    }
}

#[test]
fn gpu_masks_longer_than_a_segment_or_the_signal() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu) {
        for w in [600, 1025, 1500, 3000] {
            let mask = common::data::<T>(w, w as u64);
            let mut strategies = vec![
                Strategy::Auto,
                Strategy::Basic,
                Strategy::ConstantMask,
                Strategy::TILED_HALO,
            ];
            if T::NAME != "f64" {
                strategies.push(Strategy::TensorCore);
            }
            if T::NAME != "f64" && T::NAME != "f32" && warpgroup(gpu) {
                if w <= gpu_conv1d::WARPGROUP_MAX_WIDTH {
                    strategies.push(Strategy::Warpgroup);
                } else {
                    let e = Conv1d::correlation(
                        gpu,
                        &mask,
                        Options::new().strategy(Strategy::Warpgroup),
                    )
                    .unwrap_err();
                    assert!(e.to_string().contains("Strategy::Warpgroup"), "{e}");
                }
            }
            for strategy in strategies {
                for n in [1, 100, 5000, 20_011] {
                    let x = common::data::<T>(n, n as u64 + 3);
                    for mode in Mode::ALL {
                        if mode == Mode::Valid && n < w {
                            continue;
                        }
                        for boundary in Boundary::ALL {
                            let options = Options {
                                mode,
                                boundary,
                                strategy,
                                ..Options::default()
                            };
                            let conv = Conv1d::convolution(gpu, &mask, options).unwrap();
                            let got = run_on(gpu, &conv, &x, gpu.stream());
                            common::check_path(
                                &got,
                                Operation::Convolution,
                                &x,
                                &mask,
                                mode,
                                boundary,
                                1024,
                                conv.path(n).unwrap(),
                            )
                            .unwrap_or_else(|e| {
                                panic!(
                                    "{} {} n={n} w={w} {mode:?} {boundary:?}: {e}",
                                    strategy.name(),
                                    T::NAME
                                )
                            });
                        }
                    }
                }
            }
        }
    }
    case::<f32>(&gpu);
    case::<f64>(&gpu);
    case::<f16>(&gpu);
    case::<bf16>(&gpu);
}

#[test]
fn gpu_constant_capacity_is_usable_and_enforced() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu) {
        let cap = constant_capacity::<T>();
        let mask = common::data::<T>(cap, 5);
        let x = common::data::<T>(cap + 3000, 6);
        for strategy in [
            Strategy::ConstantMask,
            Strategy::TiledHalo { tile: 1024 },
            Strategy::TILED_CACHED,
        ] {
            let options = Options::new().mode(Mode::Valid).strategy(strategy);
            let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
            let got = run_on(gpu, &conv, &x, gpu.stream());
            common::check(
                &got,
                Operation::Correlation,
                &x,
                &mask,
                Mode::Valid,
                Boundary::Zero,
                512,
            )
            .unwrap_or_else(|e| panic!("{} {}: {e}", strategy.name(), T::NAME));
            let too_long = common::data::<T>(cap + 1, 5);
            let e = Conv1d::correlation(gpu, &too_long, options).unwrap_err();
            assert!(e.to_string().contains(&format!("{cap} {}", T::NAME)), "{e}");
        }
    }
    case::<f32>(&gpu);
    case::<f64>(&gpu);
    case::<bf16>(&gpu);
}

fn rows_case<T: Real>(gpu: &Gpu, strategy: Strategy) {
    for (rows, n) in [
        (5, 1),
        (5, 37),
        (3, 1023),
        (4, auto_tile::<T>() + 3),
        (3, 5001),
        (700, 300),
    ] {
        let flat = common::data::<T>(rows * n, (rows * n) as u64);
        let a = Array2::from_shape_vec((rows, n), flat).unwrap();
        let mut f = Array2::from_elem((rows, n).f(), T::ZERO);
        f.assign(&a);
        for w in [3, 32, 127] {
            let mask = common::data::<T>(w, w as u64 + 1);
            for mode in Mode::ALL {
                if mode == Mode::Valid && n < w {
                    continue;
                }
                for boundary in Boundary::ALL {
                    let options = Options {
                        mode,
                        boundary,
                        strategy,
                        ..Options::default()
                    };
                    let conv = Conv1d::correlation(gpu, &mask, options).unwrap();
                    // one launch over the device rows, output poisoned
                    let n_out = conv.output_len(n).unwrap();
                    let xs = gpu.upload_array(&a).unwrap();
                    let mut y = poisoned::<T>(gpu, rows * n_out, gpu.stream());
                    conv.run_rows_into(&xs, rows, &mut y).unwrap();
                    let y = y.to_vec().unwrap();
                    // every row of small batches; the ends and a stride of large ones
                    let checked: Vec<usize> = if rows <= 20 {
                        (0..rows).collect()
                    } else {
                        (0..rows)
                            .filter(|r| r % 37 == 0 || *r + 1 == rows)
                            .collect()
                    };
                    for r in checked {
                        let x = a.row(r).to_vec();
                        common::check_path(
                            &y[r * n_out..(r + 1) * n_out],
                            Operation::Correlation,
                            &x,
                            &mask,
                            mode,
                            boundary,
                            512,
                            conv.path(n).unwrap(),
                        )
                        .unwrap_or_else(|e| {
                            panic!(
                                "{} {} rows={rows} n={n} row {r} w={w} {mode:?} {boundary:?}: {e}",
                                strategy.name(),
                                T::NAME
                            )
                        });
                    }
                    // the ndarray entry point, from column-major memory
                    if rows * n < 50_000 {
                        let z = conv.run_rows(f.view()).unwrap();
                        assert_eq!(z.as_slice().unwrap(), &y[..]);
                    }
                }
            }
        }
    }
}

#[test]
fn gpu_rows_in_one_launch() {
    let Some(gpu) = gpu_or_skip() else { return };
    for strategy in Strategy::ALL {
        rows_case::<f32>(&gpu, strategy);
        rows_case::<f64>(&gpu, strategy);
        rows_case::<f16>(&gpu, strategy);
        rows_case::<bf16>(&gpu, strategy);
    }
}

#[test]
fn gpu_many_long_rows_register_tiled() {
    let Some(gpu) = gpu_or_skip() else { return };
    // 70 rows of an odd length: every row starts at a different 16-byte alignment
    let (rows, n) = (70, 10_007);
    let x = common::data::<f32>(rows * n, 70);
    // 33: the runtime-width kernel; 31 and 127: fixed-width kernels
    for (w, path) in [
        (33, Path::RegisterTiled),
        (31, Path::RegisterTiledFixed { width: 31 }),
        (127, Path::RegisterTiledFixed { width: 127 }),
    ] {
        let mask = common::data::<f32>(w, 71);
        for mode in Mode::ALL {
            let conv = Conv1d::convolution(
                &gpu,
                &mask,
                Options::new()
                    .mode(mode)
                    .boundary(Boundary::Wrap)
                    .strategy(Strategy::RegisterTiled),
            )
            .unwrap();
            assert_eq!(conv.path(n).unwrap(), path);
            let n_out = conv.output_len(n).unwrap();
            let xs = gpu.upload(&x).unwrap();
            let mut y = poisoned::<f32>(&gpu, rows * n_out, gpu.stream());
            conv.run_rows_into(&xs, rows, &mut y).unwrap();
            let y = y.to_vec().unwrap();
            for r in 0..rows {
                common::check(
                    &y[r * n_out..(r + 1) * n_out],
                    Operation::Convolution,
                    &x[r * n..(r + 1) * n],
                    &mask,
                    mode,
                    Boundary::Wrap,
                    1024,
                )
                .unwrap_or_else(|e| panic!("w={w} {mode:?} row {r}: {e}"));
            }
        }
    }
}

#[test]
fn gpu_constant_mask_launches_on_many_streams_do_not_race() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1 << 20;
    let x = common::data::<f32>(n, 1);
    let xs = gpu.upload(&x).unwrap();
    let masks: Vec<Vec<f32>> = (0..4)
        .map(|i| common::data::<f32>(31 + 32 * i, 50 + i as u64))
        .collect();
    let strategies = [
        Strategy::ConstantMask,
        Strategy::TILED_HALO,
        Strategy::TILED_CACHED,
        Strategy::ConstantMask,
    ];
    let convs: Vec<Conv1d<f32>> = masks
        .iter()
        .zip(strategies)
        .map(|(m, s)| Conv1d::correlation(&gpu, m, Options::new().strategy(s)).unwrap())
        .collect();
    // Four threads, each on its own stream, enqueue 8 launches without waiting in between.
    let outputs: Vec<Vec<Vec<f32>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = convs
            .iter()
            .map(|conv| {
                let (gpu, xs) = (&gpu, &xs);
                scope.spawn(move || {
                    let stream = gpu.new_stream().unwrap();
                    let mut ys: Vec<DeviceArray<f32>> =
                        (0..8).map(|_| poisoned(gpu, n, &stream)).collect();
                    let on_stream = conv.clone().stream(&stream);
                    for y in ys.iter_mut() {
                        on_stream.run_into(xs, y).unwrap();
                    }
                    stream.synchronize().unwrap();
                    ys.iter().map(|y| y.to_vec().unwrap()).collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, runs) in outputs.iter().enumerate() {
        for got in runs {
            common::check(
                got,
                Operation::Correlation,
                &x,
                &masks[i],
                Mode::Same,
                Boundary::Zero,
                2048,
            )
            .unwrap_or_else(|e| panic!("mask {i}: {e}"));
        }
    }
}

#[test]
fn gpu_empty_inputs_give_empty_results() {
    let Some(gpu) = gpu_or_skip() else { return };
    for strategy in Strategy::ALL {
        for mode in Mode::ALL {
            for boundary in Boundary::ALL {
                let options = Options {
                    mode,
                    boundary,
                    strategy,
                    ..Options::default()
                };
                let conv = Conv1d::correlation(&gpu, &[1.0f64, 2.0, 3.0], options).unwrap();
                assert!(conv.run(&[]).unwrap().is_empty());
                let (x, mut y) = (gpu.alloc::<f64>(0).unwrap(), gpu.alloc::<f64>(0).unwrap());
                conv.run_into(&x, &mut y).unwrap();
                let rows = Array2::<f64>::zeros((4, 0));
                assert_eq!(conv.run_rows(rows.view()).unwrap().dim(), (4, 0));
                let no_rows = Array2::<f64>::zeros((0, 9));
                let want = if mode == Mode::Full {
                    11
                } else if mode == Mode::Same {
                    9
                } else {
                    7
                };
                assert_eq!(conv.run_rows(no_rows.view()).unwrap().dim(), (0, want));
                assert!(gpu_conv1d::convolve::<f32>(&gpu, &[], &[1.0], options)
                    .unwrap()
                    .is_empty());
            }
        }
    }
}

#[test]
fn gpu_bad_arguments_are_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let o = Options::default();
    assert!(Conv1d::<f32>::correlation(&gpu, &[], o).is_err());
    let e = Conv1d::correlation(
        &gpu,
        &[1.0f32; 3],
        o.strategy(Strategy::TiledHalo { tile: 100 }),
    )
    .unwrap_err();
    assert!(e.to_string().contains("power of two"), "{e}");
    let e = gpu_conv1d::correlate(&gpu, &[1.0f32; 2], &[1.0; 3], o.mode(Mode::Valid)).unwrap_err();
    assert!(e.to_string().contains("at least as long"), "{e}");
    let conv = Conv1d::correlation(&gpu, &[1.0f32; 3], o).unwrap();
    let x = gpu.upload(&[1.0f32; 10]).unwrap();
    let mut y = gpu.alloc::<f32>(9).unwrap();
    assert!(conv.run_into(&x, &mut y).is_err());
    let mut y = gpu.alloc::<f32>(10).unwrap();
    assert!(conv.run_rows_into(&x, 3, &mut y).is_err());
    assert!(conv.run_rows_into(&x, 0, &mut y).is_err());
    conv.run_rows_into(&x, 2, &mut y).unwrap();
    // The deprecated forms (kept one release) still check their arguments.
    #[allow(deprecated)]
    {
        assert!(conv.run_device_rows(&x, 3, &mut y, gpu.stream()).is_err());
        conv.run_device(&x, &mut y, gpu.stream()).unwrap();
        conv.run_device_rows(&x, 2, &mut y, gpu.stream()).unwrap();
    }
    let e = Conv1d::correlation(
        &gpu,
        &vec![1.0f64; 8193],
        o.strategy(Strategy::ConstantMask),
    )
    .unwrap_err();
    assert!(e.to_string().contains("8192 f64"), "{e}");
}

#[test]
fn gpu_convenience_functions_match_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = common::data::<f64>(5000, 9);
    let m = common::data::<f64>(9, 10);
    for mode in Mode::ALL {
        for boundary in Boundary::ALL {
            let o = Options {
                mode,
                boundary,
                strategy: Strategy::Auto,
                ..Options::default()
            };
            let g = gpu_conv1d::correlate(&gpu, &x, &m, o).unwrap();
            common::check(
                &g,
                Operation::Correlation,
                &x,
                &m,
                mode,
                boundary,
                usize::MAX,
            )
            .unwrap();
            let g = gpu_conv1d::convolve(&gpu, &x, &m, o).unwrap();
            let c = gpu_conv1d::cpu::convolve(&x, &m, mode, boundary).unwrap();
            assert!(g.iter().zip(&c).all(|(a, b)| (a - b).abs() <= 1e-13));
            let a = Array2::from_shape_vec((2, 2500), x.clone()).unwrap();
            let g = gpu_conv1d::convolve_rows(&gpu, a.view(), &m, o).unwrap();
            let c = gpu_conv1d::cpu::convolve_rows(a.view(), &m, mode, boundary).unwrap();
            assert!(g.iter().zip(c.iter()).all(|(a, b)| (a - b).abs() <= 1e-13));
        }
    }
}

/// Not a test: GB/s (8·n bytes moved) and fraction of a device-to-device copy for every strategy
/// at n = 2^28 f32, same mode, zero boundary. Run with
/// `cargo test --release --features cuda -p gpu-conv1d --test gpu -- --ignored --nocapture throughput`.
#[test]
#[ignore]
fn gpu_throughput_table() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1usize << 28;
    let mut x = gpu.alloc::<f32>(n).unwrap();
    x.fill(0.5, gpu.stream()).unwrap();
    let mut y = gpu.alloc::<f32>(n).unwrap();
    let stream = gpu.new_stream().unwrap();
    let timer = gpu_core::GpuTimer::new(&gpu).unwrap();
    let reps = 10;
    let time = |f: &mut dyn FnMut()| {
        f();
        timer.start(&stream).unwrap();
        for _ in 0..reps {
            f();
        }
        timer.stop(&stream).unwrap();
        timer.elapsed_ms().unwrap() as f64 / reps as f64
    };
    let copy_ms = time(&mut || y.copy_from_device(&x, &stream).unwrap());
    let bytes = 8.0 * n as f64;
    println!("{}", gpu.properties().name);
    println!("copy: {copy_ms:.3} ms, {:.0} GB/s", bytes / copy_ms / 1e6);
    println!("| strategy | w | ms | GB/s | fraction of copy |");
    println!("| --- | --- | --- | --- | --- |");
    for strategy in Strategy::ALL {
        for w in [3, 7, 31, 127] {
            let conv =
                Conv1d::correlation(&gpu, &vec![0.01f32; w], Options::new().strategy(strategy))
                    .unwrap();
            let conv = conv.stream(&stream);
            let ms = time(&mut || conv.run_into(&x, &mut y).unwrap());
            println!(
                "| {} | {w} | {ms:.3} | {:.0} | {:.2} |",
                strategy.name(),
                bytes / ms / 1e6,
                copy_ms / ms
            );
        }
    }
}

/// Tensor cores: chosen by `Auto` for long masks; their longest mask; infinities, NaN (and for
/// f32 huge values) in the signal give what the direct kernels give (the tiles holding them are
/// computed directly); f64 signals and, for f32, non-finite masks are refused.
#[test]
fn gpu_tensor_cores() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu) {
        let n = 50_000;
        let tc = gpu.properties().compute_capability >= (8, 0);
        let min = gpu_conv1d::tensor_min_width::<T>(n);
        // Widths below the FFT path's crossover on tensor-core GPUs (384 for f16 and bf16).
        for w in [min.unwrap_or(31), 100, 383] {
            let mask = common::data::<T>(w, 3);
            let conv = Conv1d::correlation(gpu, &mask, Options::new()).unwrap();
            let auto_tc = matches!(conv.path(n).unwrap(), Path::TensorCore | Path::Warpgroup);
            assert_eq!(auto_tc, tc && min.is_some(), "{} w={w}", T::NAME);
            if !tc {
                continue;
            }
            // Non-finite inputs in a few tiles: same outputs as the basic kernel, bit for bit
            // where the basic kernel's result is not finite, and close elsewhere.
            let mut x = common::data::<T>(n, 4);
            x[5000] = T::from_f64(f64::INFINITY);
            x[20_000] = T::from_f64(f64::NAN);
            x[20_100] = T::from_f64(f64::NEG_INFINITY);
            if T::NAME == "f32" {
                x[40_000] = T::from_f64(3.0e38); // splits into TF32 parts badly: direct tile
            }
            let mut tensor = vec![Strategy::TensorCore];
            if T::NAME != "f32" && warpgroup(gpu) {
                tensor.push(Strategy::Warpgroup);
            }
            for (boundary, strategy) in [Boundary::Zero, Boundary::Wrap]
                .into_iter()
                .flat_map(|b| tensor.iter().map(move |&s| (b, s)))
            {
                let options = Options::new().boundary(boundary);
                let got = Conv1d::correlation(gpu, &mask, options.strategy(strategy))
                    .unwrap()
                    .run(&x)
                    .unwrap();
                let direct = Conv1d::correlation(gpu, &mask, options.strategy(Strategy::Basic))
                    .unwrap()
                    .run(&x)
                    .unwrap();
                let mut non_finite = 0;
                for (o, (g, d)) in got.iter().zip(&direct).enumerate() {
                    let (g, d) = (g.to_f64(), d.to_f64());
                    if d.is_finite() {
                        let tol = 1e-2 * (1.0 + d.abs());
                        assert!((g - d).abs() <= tol, "{} w={w} o={o}: {g} vs {d}", T::NAME);
                    } else {
                        non_finite += 1;
                        assert!(
                            g.to_bits() == d.to_bits() || (g.is_nan() && d.is_nan()),
                            "{} w={w} o={o}: {g} vs {d}",
                            T::NAME
                        );
                    }
                }
                assert!(
                    non_finite >= w,
                    "{} w={w}: {non_finite} non-finite",
                    T::NAME
                );
            }
        }
        // The longest mask, rows in one launch.
        let w = gpu_conv1d::TENSOR_MAX_WIDTH;
        let mask = common::data::<T>(w, 8);
        let x = common::data::<T>(3 * 20_000, 9);
        let conv = Conv1d::convolution(
            gpu,
            &mask,
            Options::new()
                .mode(Mode::Full)
                .strategy(Strategy::TensorCore),
        )
        .unwrap();
        if tc {
            let rows = Array2::from_shape_vec((3, 20_000), x.clone()).unwrap();
            let got = conv.run_rows(rows.view()).unwrap();
            for r in 0..3 {
                common::check(
                    got.row(r).as_slice().unwrap(),
                    Operation::Convolution,
                    &x[r * 20_000..(r + 1) * 20_000],
                    &mask,
                    Mode::Full,
                    Boundary::Zero,
                    2048,
                )
                .unwrap_or_else(|e| panic!("{} row {r}: {e}", T::NAME));
            }
        } else {
            let e = conv.run(&x).unwrap_err();
            assert!(e.to_string().contains("compute capability 8.0"), "{e}");
        }
        let e = Conv1d::correlation(
            gpu,
            &common::data::<T>(w + 1, 8),
            Options::new().strategy(Strategy::TensorCore),
        )
        .unwrap_err();
        assert!(e.to_string().contains("16384"), "{e}");
    }
    case::<f16>(&gpu);
    case::<bf16>(&gpu);
    case::<f32>(&gpu);
    let e = Conv1d::correlation(
        &gpu,
        &[1.0f64; 64],
        Options::new().strategy(Strategy::TensorCore),
    )
    .unwrap_err();
    assert!(e.to_string().contains("f16, bf16 and f32"), "{e}");
    // An f32 mask with an infinity: Auto keeps the FMA kernels, TensorCore is an error.
    let mut mask = vec![0.5f32; 100];
    mask[7] = f32::INFINITY;
    let x = common::data::<f32>(10_000, 1);
    let auto = Conv1d::correlation(&gpu, &mask, Options::new()).unwrap();
    assert_ne!(auto.path(x.len()).unwrap(), Path::TensorCore);
    let tc = Conv1d::correlation(&gpu, &mask, Options::new().strategy(Strategy::TensorCore));
    if gpu.properties().compute_capability >= (8, 0) {
        let e = tc.unwrap().run(&x).unwrap_err();
        assert!(e.to_string().contains("finite"), "{e}");
    }
}

/// Accuracy against the f64 reference, every path an f16, bf16 or f32 signal can take at a long
/// mask (f32: FMAs, j upwards, against three TF32 products on tensor cores):
/// the largest error in units of the output's magnitude scale `Σ|x·m|`, printed (run with
/// `--nocapture`), and within the tests' tolerance.
#[test]
fn gpu_half_accuracy_by_path() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu) {
        let n = 1 << 16;
        let x = common::data::<T>(n, 11);
        for w in [63, 255, 1023] {
            let mask = common::data::<T>(w, 12);
            let m = Operation::Correlation.effective_mask(&mask).unwrap();
            let mut strategies = vec![Strategy::Basic, Strategy::Auto];
            if gpu.properties().compute_capability >= (8, 0) {
                strategies.push(Strategy::TensorCore);
            }
            if T::NAME != "f32" && warpgroup(gpu) {
                strategies.push(Strategy::Warpgroup);
            }
            for strategy in strategies {
                let conv =
                    Conv1d::correlation(gpu, &mask, Options::new().strategy(strategy)).unwrap();
                let y = conv.run(&x).unwrap();
                let off = Mode::Same.offset(w);
                let mut worst = 0.0f64;
                for (o, v) in y.iter().enumerate() {
                    let (r, mag) =
                        gpu_conv1d::cpu::reference_at(&x, &m, o as i64 + off, Boundary::Zero);
                    worst = worst.max((v.to_f64() - r).abs() / mag.max(f64::MIN_POSITIVE));
                }
                println!(
                    "accuracy {} w={w} {:?}: max |y − y64| / Σ|x·m| = {worst:.3e} (ε_{} = {:.3e})",
                    T::NAME,
                    conv.path(n).unwrap(),
                    T::NAME,
                    T::EPSILON.to_f64()
                );
                common::check(
                    &y,
                    Operation::Correlation,
                    &x,
                    &mask,
                    Mode::Same,
                    Boundary::Zero,
                    usize::MAX,
                )
                .unwrap_or_else(|e| panic!("{} w={w} {}: {e}", T::NAME, strategy.name()));
            }
        }
    }
    case::<f16>(&gpu);
    case::<bf16>(&gpu);
    case::<f32>(&gpu);
}

/// Accuracy on adversarial data: signal and mask spread over a wide dynamic range (random signs
/// and powers of two, 16-bit subnormals included), every output a sum with cancellation. Prints
/// the largest `|y − y64| / Σ|x·m|` of each path (run with `--nocapture`) and holds it to the
/// tests' tolerance.
#[test]
fn gpu_accuracy_wide_dynamic_range() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu, (xlo, xhi): (i32, i32), (mlo, mhi): (i32, i32)) {
        let n = 1 << 15;
        let x = common::spread::<T>(n, 21, xlo, xhi);
        for w in [63, 255] {
            let mask = common::spread::<T>(w, 22 + w as u64, mlo, mhi);
            let m = Operation::Correlation.effective_mask(&mask).unwrap();
            let mut strategies = vec![Strategy::Basic, Strategy::RegisterTiled];
            if gpu.properties().compute_capability >= (8, 0) {
                strategies.push(Strategy::TensorCore);
            }
            if T::NAME != "f32" && warpgroup(gpu) {
                strategies.push(Strategy::Warpgroup);
            }
            for strategy in strategies {
                let y = Conv1d::correlation(gpu, &mask, Options::new().strategy(strategy))
                    .unwrap()
                    .run(&x)
                    .unwrap();
                let off = Mode::Same.offset(w);
                let mut worst = 0.0f64;
                for (o, v) in y.iter().enumerate() {
                    let (r, mag) =
                        gpu_conv1d::cpu::reference_at(&x, &m, o as i64 + off, Boundary::Zero);
                    if mag > 0.0 {
                        worst = worst.max((v.to_f64() - r).abs() / mag);
                    }
                }
                println!(
                    "wide-range accuracy {} w={w} {}: max |y − y64| / Σ|x·m| = {worst:.3e}",
                    T::NAME,
                    strategy.name()
                );
                common::check(
                    &y,
                    Operation::Correlation,
                    &x,
                    &mask,
                    Mode::Same,
                    Boundary::Zero,
                    usize::MAX,
                )
                .unwrap_or_else(|e| panic!("{} w={w} {}: {e}", T::NAME, strategy.name()));
            }
        }
    }
    // f16: inputs down into the subnormals (below 2^-14), sums below its 65504.
    case::<f16>(&gpu, (-20, 3), (-6, 1));
    case::<bf16>(&gpu, (-60, 60), (-30, 30));
    case::<f32>(&gpu, (-60, 60), (-30, 30));
}

/// 16 threads share one `Gpu` and one `Conv1d` per case (clones: the mask, the tensor-core
/// fragments the first tensor-core launch builds, the FFT tables and cuFFT's plans are shared),
/// each running its own signal lengths: every result matches the reference, and each FFT case
/// ran the path it names.
#[test]
fn gpu_shared_by_16_threads() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn case<T: Real>(gpu: &Gpu, w: usize, strategy: Strategy) {
        case_from::<T>(gpu, w, strategy, 3000, |_| true);
    }
    // Signals of `base` + 977·thread + 4099·k values; `path_ok` accepts the path each ran.
    fn case_from<T: Real>(
        gpu: &Gpu,
        w: usize,
        strategy: Strategy,
        base: usize,
        path_ok: impl Fn(&Path) -> bool + Sync,
    ) {
        let mask = common::data::<T>(w, 21);
        let conv = Conv1d::correlation(gpu, &mask, Options::new().strategy(strategy)).unwrap();
        let tc = gpu.properties().compute_capability >= (8, 0);
        if strategy == Strategy::TensorCore && !tc {
            assert!(conv.run(&common::data::<T>(100, 1)).is_err());
            return;
        }
        std::thread::scope(|s| {
            for t in 0..16usize {
                let (conv, mask) = (conv.clone(), &mask);
                let path_ok = &path_ok;
                s.spawn(move || {
                    for k in 0..3 {
                        let n = base + 977 * t + 4099 * k;
                        let x = common::data::<T>(n, (t * 3 + k) as u64);
                        let got = conv.run(&x).unwrap();
                        let path = conv.path(n).unwrap();
                        assert!(path_ok(&path), "{} w={w} n={n}: {path:?}", T::NAME);
                        common::check_path(
                            &got,
                            Operation::Correlation,
                            &x,
                            mask,
                            Mode::Same,
                            Boundary::Zero,
                            CHECKED,
                            path,
                        )
                        .unwrap_or_else(|e| panic!("{} w={w} thread {t}: {e}", T::NAME));
                    }
                });
            }
        });
    }
    case::<f16>(&gpu, 63, Strategy::Auto);
    case::<bf16>(&gpu, 7, Strategy::Auto);
    case::<bf16>(&gpu, 127, Strategy::TensorCore);
    case::<f32>(&gpu, 31, Strategy::TensorCore);
    case::<f32>(&gpu, 31, Strategy::Auto);
    // The FFT path: the spectrum and twiddle tables, made by the first launch of each
    // transform size, shared by the clones.
    case::<f32>(&gpu, 1023, Strategy::Auto);
    case::<f64>(&gpu, 200, Strategy::FFT);
    case::<f16>(&gpu, 700, Strategy::FFT);
    // The radix-32 blocks (8192-point pairs, f32 and bf16), the even-and-odd spans of 16384
    // and 32768 points (the latter's pair loads and stores), and cuFFT's segments past them.
    let fft = |size: u32| move |p: &Path| *p == Path::Fft { size };
    let even_odd = |size: u32| move |p: &Path| *p == Path::FftEvenOdd { size };
    // (f32 takes the 16384-point spans from w = 1151 by itself, bf16 from 1601: the 8192-point
    // pairs by size.)
    case_from::<f32>(&gpu, 2047, Strategy::Fft { size: 8192 }, 9000, fft(8192));
    case_from::<bf16>(&gpu, 2400, Strategy::Fft { size: 8192 }, 9000, fft(8192));
    // (16384 points: even and odd from `conv1d.fft_even_odd_from`, a per-device key.)
    let either = |p: &Path| fft(16384)(p) || even_odd(16384)(p);
    case_from::<f32>(&gpu, 4095, Strategy::FFT, 20000, either);
    case_from::<f32>(&gpu, 8191, Strategy::FFT, 40000, even_odd(32768));
    // The mask in parts (Auto's path for f32 w = 30000: its tables built once, shared), and
    // cuFFT (asked for: the block's widest mask and more).
    let parts = |p: &Path| matches!(p, Path::FftEvenOddParts { .. });
    case_from::<f32>(&gpu, 30000, Strategy::Auto, 70000, parts);
    if common::cufft_or_skip("gpu_shared_by_16_threads's cuFFT case").is_some() {
        let cufft = |p: &Path| matches!(p, Path::CuFft { .. });
        let w = gpu_conv1d::fft_max_width::<f32>() + 639;
        case_from::<f32>(&gpu, w, Strategy::FFT, 70000, cufft);
    }
}

/// 2^31 + 33 16-bit values (4 GiB in, 4 GiB out): the FMA, `mma.sync` and warpgroup kernels'
/// tile and row indices past 32 bits, checked at a spread of outputs and at every output around
/// 2^31.
#[test]
fn gpu_length_beyond_2_pow_31_half() {
    use rayon::prelude::*;
    let Some(gpu) = gpu_or_skip() else { return };
    // Auto takes the warpgroup kernel at this length from w = 5 where the GPU has it, so the
    // `mma.sync` kernel is asked for by name (where it exists).
    let mma = if gpu.properties().compute_capability >= (8, 0) {
        Strategy::TensorCore
    } else {
        Strategy::Auto
    };
    fn case<T: Real>(gpu: &Gpu, widths: &[(usize, Strategy)]) {
        let n = (1usize << 31) + 33;
        let x: Vec<T> = (0..n as u64)
            .into_par_iter()
            .map(|i| {
                let v = ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) & 0xffff) as f64 / 32768.0;
                T::from_f64(v - 1.0)
            })
            .collect();
        let xs = gpu.upload(&x).unwrap();
        for &(w, strategy) in widths {
            let mask = common::data::<T>(w, 5);
            let conv = Conv1d::correlation(gpu, &mask, Options::new().strategy(strategy)).unwrap();
            let mut y = poisoned::<T>(gpu, n, gpu.stream());
            conv.run_into(&xs, &mut y).unwrap();
            let got = y.to_vec().unwrap();
            drop(y);
            let what = format!("{} w={w} ({:?})", T::NAME, conv.path(n).unwrap());
            common::check(
                &got,
                Operation::Correlation,
                &x,
                &mask,
                Mode::Same,
                Boundary::Zero,
                20_000,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let off = Mode::Same.offset(w);
            let around = (1usize << 31) - 3000;
            for (o, v) in got.iter().enumerate().skip(around) {
                let (r, mag) =
                    gpu_conv1d::cpu::reference_at(&x, &mask, o as i64 + off, Boundary::Zero);
                let g = v.to_f64();
                assert!(
                    (g - r).abs() <= common::tolerance::<T>(w, mag),
                    "{what} output {o}: {g} vs {r}"
                );
            }
        }
    }
    case::<f16>(&gpu, &[(3, Strategy::Auto), (31, mma)]);
    case::<bf16>(&gpu, &[(7, Strategy::Auto), (127, Strategy::Auto)]);
}

#[test]
fn gpu_warpgroup_longest_mask_rows_and_auto_choice() {
    let Some(gpu) = gpu_or_skip() else { return };
    let w = gpu_conv1d::WARPGROUP_MAX_WIDTH;
    let mask = common::data::<f16>(w, 8);
    let x = common::data::<f16>(3 * 9_001, 9);
    let options = Options::new()
        .mode(Mode::Full)
        .strategy(Strategy::Warpgroup);
    let conv = Conv1d::convolution(&gpu, &mask, options).unwrap();
    if !warpgroup(&gpu) {
        let e = conv.run(&x).unwrap_err();
        assert!(e.to_string().contains("compute capability 9.0"), "{e}");
        eprintln!("skipped: the warpgroup kernels need compute capability 9.0");
        return;
    }
    let rows = ndarray::Array2::from_shape_vec((3, 9_001), x.clone()).unwrap();
    let got = conv.run_rows(rows.view()).unwrap();
    for r in 0..3 {
        let row = &x[r * 9_001..(r + 1) * 9_001];
        let y: Vec<f16> = got.row(r).to_vec();
        common::check(
            &y,
            Operation::Convolution,
            row,
            &mask,
            Mode::Full,
            Boundary::Zero,
            CHECKED,
        )
        .unwrap_or_else(|e| panic!("row {r}: {e}"));
    }
    // Auto: the warpgroup kernel for wide masks in long rows, mma.sync below.
    let auto =
        |w: usize| Conv1d::correlation(&gpu, &common::data::<bf16>(w, 1), Options::new()).unwrap();
    assert_eq!(auto(127).path(1 << 26).unwrap(), Path::Warpgroup);
    assert_eq!(auto(63).path(1 << 26).unwrap(), Path::Warpgroup);
    assert_eq!(auto(31).path(1 << 26).unwrap(), Path::TensorCore);
    // From 2^28 outputs even narrow masks, where it beat the fixed-width FMA kernels.
    assert_eq!(auto(7).path(1 << 28).unwrap(), Path::Warpgroup);
    assert!(matches!(
        auto(7).path(1 << 27).unwrap(),
        Path::RegisterTiledFixed { width: 7 } | Path::RegisterTiledFixedWide { width: 7 }
    ));
    assert_eq!(auto(255).path(1 << 20).unwrap(), Path::TensorCore);
    assert_eq!(auto(300).path(1 << 20).unwrap(), Path::Warpgroup);
}
