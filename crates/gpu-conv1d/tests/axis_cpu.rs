//! The CPU reference for convolution along any axis: every lane equals the 1-D convolution of
//! that lane, for random shapes, axis orders, reversed strides, masks, modes and boundaries;
//! rayon equals serial; on 2-D arrays it agrees with the row-wise reference.

use gpu_conv1d::{cpu, Boundary, Mode, Operation};
use gpu_core::data::SplitMix64;
use ndarray::{Array3, Axis};
use quickcheck::{QuickCheck, TestResult};

fn ints(n: usize, seed: u64) -> Vec<f64> {
    let mut r = SplitMix64::new(seed);
    (0..n).map(|_| (r.next_u64() % 17) as f64 - 8.0).collect()
}

#[test]
fn every_lane_is_the_one_dimensional_result() {
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
        let dims = (d.0 as usize % 5, d.1 as usize % 7, d.2 as usize % 40);
        let a = Array3::from_shape_vec(dims, ints(dims.0 * dims.1 * dims.2, seed)).unwrap();
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
        let mask = ints(1 + w as usize % 9, seed ^ 1);
        let mode = Mode::ALL[mode as usize % 3];
        let boundary = Boundary::ALL[bnd as usize % 5];
        for op in [Operation::Correlation, Operation::Convolution] {
            let got = cpu::apply_axis(op, x, axis, &mask, mode, boundary, false);
            let par = cpu::apply_axis(op, x, axis, &mask, mode, boundary, true);
            let Ok(got) = got else {
                // Only a mode that has no output for this length may refuse (valid, short).
                if par.is_ok() {
                    return TestResult::error("serial failed where rayon did not");
                }
                continue;
            };
            if par.as_ref().ok() != Some(&got) {
                return TestResult::error("rayon differs from serial");
            }
            for (lane, out) in x.lanes(axis).into_iter().zip(got.lanes(axis)) {
                let want = cpu::apply(op, &lane.to_vec(), &mask, mode, boundary, false).unwrap();
                if out.to_vec() != want {
                    return TestResult::error(format!("{dims:?} {axis:?} {mode:?} {boundary:?}"));
                }
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn((u8, u8, u8), u8, u8, u8, u8, u8, u8, u64) -> TestResult);
}

#[test]
fn two_dimensional_arrays_agree_with_the_row_reference() {
    let x = ndarray::Array2::from_shape_vec((6, 50), ints(300, 3)).unwrap();
    let mask = ints(5, 4); // shorter than both axes, so every mode has an output
    for mode in Mode::ALL {
        for boundary in Boundary::ALL {
            let rows = cpu::correlate_rows(x.view(), &mask, mode, boundary).unwrap();
            assert_eq!(
                cpu::correlate_axis(x.view(), Axis(1), &mask, mode, boundary).unwrap(),
                rows
            );
            let cols = cpu::convolve_rows(x.t(), &mask, mode, boundary).unwrap();
            let along0 = cpu::convolve_axis(x.view(), Axis(0), &mask, mode, boundary).unwrap();
            assert_eq!(along0.t(), cols);
        }
    }
}

#[test]
fn a_bad_axis_is_a_clear_error() {
    let x = Array3::<f32>::zeros((2, 3, 4));
    let e = cpu::correlate_axis(x.view(), Axis(3), &[1.0], Mode::Same, Boundary::Zero).unwrap_err();
    assert!(e.to_string().contains("axis 3"), "{e}");
}
