//! Convolution along any axis on a real GPU — every operation, mode, boundary and strategy,
//! f32 and f64, C / Fortran / reversed / permuted 3-D layouts, host and device inputs, outputs
//! of another layout — against the CPU reference `cpu::apply_axis` (exact: small integer data
//! and masks). Skipped visibly without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_conv1d::{cpu, Boundary, Conv1d, Mode, Operation, Options, Real, Strategy};
use gpu_core::data::SplitMix64;
use gpu_core::testing::gpu_or_skip;
use gpu_core::{DeviceArrayD, Gpu};
use ndarray::{s, Array2, Array3, ArrayD, Axis, IxDyn, ShapeBuilder};
use quickcheck::{QuickCheck, TestResult};

fn ints<T: Real>(n: usize, seed: u64) -> Vec<T> {
    let mut r = SplitMix64::new(seed);
    (0..n)
        .map(|_| T::from_f64((r.next_u64() % 17) as f64 - 8.0))
        .collect()
}

fn mask<T: Real>(w: usize, seed: u64) -> Vec<T> {
    let mut r = SplitMix64::new(seed ^ 0xabc);
    (0..w)
        .map(|_| T::from_f64((r.next_u64() % 7) as f64 - 3.0))
        .collect()
}

const SHAPES: &[(usize, usize)] = &[
    (1, 1),
    (3, 5),
    (33, 31),
    (1000, 2),
    (2, 1000),
    (64, 4100),
    (4100, 64),
    (0, 7),
    (7, 0),
    (257, 513),
];

fn check_all<T: Real + std::fmt::Debug>(gpu: &Gpu) {
    for &(rows, cols) in SHAPES {
        let c = Array2::from_shape_vec(
            (rows, cols),
            ints::<T>(rows * cols, (rows * 7 + cols) as u64),
        )
        .unwrap();
        let mut f = Array2::from_elem((rows, cols).f(), T::ZERO);
        f.assign(&c);
        for w in [1usize, 3, 8, 31] {
            let m = mask::<T>(w, w as u64);
            for (name, view) in [
                ("C", c.view()),
                ("F", f.view()),
                ("reversed", c.slice(s![..;-1, ..;-1])),
            ] {
                for axis in 0..2 {
                    for mode in Mode::ALL {
                        if mode == Mode::Valid
                            && view.len_of(Axis(axis)) > 0
                            && view.len_of(Axis(axis)) < w
                        {
                            continue;
                        }
                        for boundary in [Boundary::Zero, Boundary::Reflect, Boundary::Wrap] {
                            for operation in [Operation::Correlation, Operation::Convolution] {
                                let want = cpu::apply_axis(
                                    operation,
                                    view,
                                    Axis(axis),
                                    &m,
                                    mode,
                                    boundary,
                                    false,
                                )
                                .unwrap()
                                .into_dyn();
                                let conv = Conv1d::new(
                                    gpu,
                                    operation,
                                    &m,
                                    Options::new().mode(mode).boundary(boundary),
                                )
                                .unwrap();
                                let what = format!("{name} {rows}x{cols} axis {axis} w {w} {mode:?} {boundary:?} {operation:?}");
                                let got = conv
                                    .run_axis(&view, Axis(axis))
                                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                                assert_eq!(got, want, "{what}");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn both_axes_every_mode_boundary_operation_and_layout() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_all::<f32>(&gpu);
    check_all::<f64>(&gpu);
    check_all::<gpu_core::f16>(&gpu);
    check_all::<gpu_core::bf16>(&gpu);
}

#[test]
fn every_strategy_along_a_strided_axis() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = Array3::from_shape_vec((5, 300, 7), ints::<f32>(5 * 300 * 7, 3)).unwrap();
    for w in [2usize, 7, 31, 64] {
        let m = mask::<f32>(w, 11);
        for strategy in Strategy::ALL {
            for axis in 0..3 {
                let opts = Options::new().strategy(strategy).boundary(Boundary::Mirror);
                let conv = Conv1d::correlation(&gpu, &m, opts).unwrap();
                let want = cpu::apply_axis(
                    Operation::Correlation,
                    x.view(),
                    Axis(axis),
                    &m,
                    Mode::Same,
                    Boundary::Mirror,
                    false,
                )
                .unwrap()
                .into_dyn();
                assert_eq!(
                    conv.run_axis(&x, Axis(axis)).unwrap(),
                    want,
                    "{strategy:?} w {w} axis {axis}"
                );
            }
        }
    }
}

#[test]
fn device_inputs_and_outputs_of_any_layout() {
    let Some(gpu) = gpu_or_skip() else { return };
    let host = Array3::from_shape_vec((6, 50, 9), ints::<f64>(6 * 50 * 9, 5)).unwrap();
    let m = mask::<f64>(5, 2);
    let conv = Conv1d::convolution(
        &gpu,
        &m,
        Options::new().mode(Mode::Full).boundary(Boundary::Nearest),
    )
    .unwrap();
    for perm in [[0usize, 1, 2], [2, 0, 1], [1, 2, 0]] {
        let view = host.view().permuted_axes(perm);
        let x = DeviceArrayD::from_array(&gpu, &view).unwrap();
        for axis in 0..3 {
            let want = cpu::apply_axis(
                Operation::Convolution,
                view,
                Axis(axis),
                &m,
                Mode::Full,
                Boundary::Nearest,
                false,
            )
            .unwrap()
            .into_dyn();
            let shape = conv.axis_output_shape(x.shape(), Axis(axis)).unwrap();
            // A row-major output, a column-major one, and one with a reversed axis.
            let len: usize = shape.iter().product();
            let f_strides: Vec<isize> = {
                let mut s = 1isize;
                shape
                    .iter()
                    .map(|&n| {
                        let v = s;
                        s *= n as isize;
                        v
                    })
                    .collect()
            };
            let mut outs = vec![
                DeviceArrayD::<f64>::zeros(&gpu, &shape).unwrap(),
                DeviceArrayD::from_parts(gpu.zeros::<f64>(len).unwrap(), 0, &shape, &f_strides)
                    .unwrap(),
            ];
            let mut rev = f_strides.clone();
            rev[0] = -rev[0];
            outs.push(
                DeviceArrayD::from_parts(
                    gpu.zeros::<f64>(len).unwrap(),
                    (shape[0] - 1) * f_strides[0] as usize,
                    &shape,
                    &rev,
                )
                .unwrap(),
            );
            for out in &mut outs {
                conv.run_axis_into(&x, Axis(axis), out).unwrap();
                assert_eq!(
                    out.to_array().unwrap(),
                    want,
                    "perm {perm:?} axis {axis} out strides {:?}",
                    out.strides()
                );
            }
            // The same from the host view, and on a caller's stream.
            let stream = gpu.new_stream().unwrap();
            let mut out = DeviceArrayD::<f64>::zeros(&gpu, &shape).unwrap();
            conv.clone()
                .stream(&stream)
                .run_axis_into(&x, Axis(axis), &mut out)
                .unwrap();
            stream.synchronize().unwrap();
            assert_eq!(
                out.to_array().unwrap(),
                want,
                "perm {perm:?} axis {axis} on a stream"
            );
        }
    }
}

#[test]
fn random_shapes_strides_and_axes() {
    let Some(_) = gpu_or_skip() else { return };
    #[allow(clippy::too_many_arguments)]
    fn prop(
        d: (u8, u8, u8),
        axis: u8,
        perm: u8,
        rev: u8,
        w: u8,
        mode: u8,
        bnd: u8,
        seed: u64,
    ) -> TestResult {
        let gpu = gpu_or_skip().unwrap();
        let dims = (d.0 as usize % 5, d.1 as usize % 9, d.2 as usize % 80);
        let a = Array3::from_shape_vec(dims, ints::<f32>(dims.0 * dims.1 * dims.2, seed)).unwrap();
        let perms = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let mut x = a.view().permuted_axes(perms[perm as usize % 6]);
        for k in 0..3 {
            if rev >> k & 1 == 1 {
                x.invert_axis(Axis(k));
            }
        }
        let axis = Axis(axis as usize % 3);
        let w = w as usize % 12 + 1;
        let mode = Mode::ALL[mode as usize % 3];
        let boundary = Boundary::ALL[bnd as usize % 5];
        let m = mask::<f32>(w, seed);
        let want = match cpu::apply_axis(Operation::Correlation, x, axis, &m, mode, boundary, false)
        {
            Ok(y) => y.into_dyn(),
            Err(_) => return TestResult::discard(), // valid mode, lane shorter than the mask
        };
        let conv =
            Conv1d::correlation(&gpu, &m, Options::new().mode(mode).boundary(boundary)).unwrap();
        TestResult::from_bool(conv.run_axis(&x, axis).unwrap() == want)
    }
    QuickCheck::new()
        .tests(150)
        .quickcheck(prop as fn((u8, u8, u8), u8, u8, u8, u8, u8, u8, u64) -> TestResult);
}

#[test]
fn bad_inputs_are_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let conv = Conv1d::correlation(&gpu, &[1.0f32, 2.0, 3.0], Options::new()).unwrap();
    let x = Array2::<f32>::zeros((4, 5));
    let err = conv.run_axis(&x, Axis(2)).unwrap_err().to_string();
    assert!(err.contains("axis"), "{err}");
    let mut out = DeviceArrayD::<f32>::zeros(&gpu, &[4, 4]).unwrap();
    let err = conv
        .run_axis_into(&x, Axis(1), &mut out)
        .unwrap_err()
        .to_string();
    assert!(err.contains("out") && err.contains("[4, 5]"), "{err}");
    let valid = Conv1d::correlation(&gpu, &[1.0f32; 7], Options::new().mode(Mode::Valid)).unwrap();
    assert!(
        valid.run_axis(&x, Axis(0)).is_err(),
        "a lane shorter than the mask in valid mode"
    );
    // Zero-sized axes: empty results of the right shape, nothing launched.
    let empty = ArrayD::<f32>::zeros(IxDyn(&[0, 3]));
    assert_eq!(conv.run_axis(&empty, Axis(0)).unwrap().shape(), &[0, 3]);
    assert_eq!(conv.run_axis(&empty, Axis(1)).unwrap().shape(), &[0, 3]);
}

#[test]
fn more_than_two_to_the_31_elements() {
    let Some(gpu) = gpu_or_skip() else { return };
    // 3 × (2^31 / 3 + 2) f32, just over 2^31 (8 GiB), along the short strided axis 0 (a
    // transpose through a temporary) and the long axis 1; sampled lanes checked.
    let cols = (1usize << 31) / 3 + 2;
    let rows = 3;
    let mut g = SplitMix64::new(9);
    let host: Vec<f32> = (0..rows * cols)
        .map(|_| (g.next_u64() % 5) as f32)
        .collect();
    let x = Array2::from_shape_vec((rows, cols), host).unwrap();
    let m = [1.0f32, -1.0, 2.0];
    let conv = Conv1d::correlation(&gpu, &m, Options::new()).unwrap();
    let d = DeviceArrayD::from_array(&gpu, &x).unwrap();
    for axis in 0..2 {
        let shape = conv.axis_output_shape(d.shape(), Axis(axis)).unwrap();
        let mut out = DeviceArrayD::<f32>::zeros(&gpu, &shape).unwrap();
        conv.run_axis_into(&d, Axis(axis), &mut out).unwrap();
        let y = out.to_array().unwrap();
        for j in [0usize, 1, cols / 2, cols - 2, cols - 1] {
            if axis == 0 {
                let lane = x.column(j).to_vec();
                let want = cpu::apply(
                    Operation::Correlation,
                    &lane,
                    &m,
                    Mode::Same,
                    Boundary::Zero,
                    false,
                )
                .unwrap();
                assert_eq!(
                    y.index_axis(Axis(1), j)
                        .iter()
                        .copied()
                        .collect::<Vec<f32>>(),
                    want,
                    "column {j}"
                );
            } else {
                // Row r's outputs near j, computed directly.
                for r in 0..rows {
                    let at = |k: isize| {
                        if k < 0 || k as usize >= cols {
                            0.0
                        } else {
                            x[[r, k as usize]]
                        }
                    };
                    let want = at(j as isize - 1) - at(j as isize) + 2.0 * at(j as isize + 1);
                    assert_eq!(y[[r, j]], want, "row {r} output {j}");
                }
            }
        }
    }
}
