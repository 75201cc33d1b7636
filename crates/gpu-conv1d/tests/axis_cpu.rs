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
fn lanes_past_one_box_are_each_the_one_dimensional_result() {
    // Lane boxes hold 2^16 values: 40000 lanes of 2 take two boxes, lanes of 70000 one each,
    // 300 lanes of 300 (Fortran order, along axis 1: gathered by rows) two, and 40 lanes of 3000
    // down the columns (gathered and scattered by rows, one view reversed) boxes of 21 and 19.
    let f = {
        let c = ndarray::Array2::from_shape_vec((300, 300), ints(90000, 9)).unwrap();
        c.reversed_axes()
    };
    let cases = [
        (
            ndarray::Array2::from_shape_vec((2, 40000), ints(80000, 7)).unwrap(),
            0,
        ),
        (
            ndarray::Array2::from_shape_vec((70000, 2), ints(140000, 8)).unwrap(),
            0,
        ),
        (f, 1),
        (
            ndarray::Array2::from_shape_vec((3000, 40), ints(120000, 10)).unwrap(),
            0,
        ),
    ];
    let mask = ints(7, 5);
    // A reversed view gives what its owned copy gives.
    let reversed = cases[3].0.slice(ndarray::s![..;-1, ..]);
    let owned = reversed.to_owned();
    for par in [false, true] {
        let full = |v| {
            let op = Operation::Convolution;
            cpu::apply_axis(op, v, Axis(0), &mask, Mode::Full, Boundary::Zero, par).unwrap()
        };
        assert_eq!(full(reversed), full(owned.view()), "reversed view");
    }
    for (x, axis) in &cases {
        for boundary in [Boundary::Zero, Boundary::Reflect] {
            for par in [false, true] {
                let op = Operation::Correlation;
                let got =
                    cpu::apply_axis(op, x.view(), Axis(*axis), &mask, Mode::Same, boundary, par)
                        .unwrap();
                for (lane, out) in x.lanes(Axis(*axis)).into_iter().zip(got.lanes(Axis(*axis))) {
                    let want =
                        cpu::apply(op, &lane.to_vec(), &mask, Mode::Same, boundary, false).unwrap();
                    assert_eq!(out.to_vec(), want, "{:?} axis {axis}", x.dim());
                }
            }
        }
    }
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

/// The FFT forms along an axis and over rows give, lane for lane, the 1-D FFT path's outputs
/// bit for bit (one prepared mask, the same transforms), and the `Auto` forms the FFT path's or
/// the direct sums' outputs as `auto_uses_fft_rows` says; any layout, serial or rayon.
#[test]
fn fft_and_auto_lanes_are_the_one_dimensional_results() {
    fn prop(
        d: (u8, u8, u16),
        axis: u8,
        perm: u8,
        w: u16,
        mode: u8,
        bnd: u8,
        seed: u64,
    ) -> TestResult {
        let dims = (d.0 as usize % 2 + 1, d.1 as usize % 3, d.2 as usize % 2500);
        let a = Array3::from_shape_vec(dims, ints(dims.0 * dims.1 * dims.2, seed)).unwrap();
        let perms = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0]];
        let mut x = a.view().permuted_axes(perms[perm as usize % 4]);
        if seed % 3 == 0 {
            x.invert_axis(Axis(0));
        }
        let axis = Axis(axis as usize % 3);
        // Each lane costs whole transforms (slow in a debug build): a few lanes at most.
        if x.len_of(axis) < 100 && x.len() > 16 * x.len_of(axis) {
            return TestResult::discard();
        }
        let mask = ints(1 + w as usize % 500, seed ^ 1);
        let mode = Mode::ALL[mode as usize % 3];
        let boundary = Boundary::ALL[bnd as usize % 5];
        let op = if seed % 2 == 0 {
            Operation::Correlation
        } else {
            Operation::Convolution
        };
        let par = seed % 4 < 2;
        let fft = cpu::apply_axis_fft(op, x, axis, &mask, mode, boundary, par);
        let auto = cpu::apply_axis_auto(op, x, axis, &mask, mode, boundary, par);
        let (Ok(fft), Ok(auto)) = (fft, auto) else {
            let short = mode == Mode::Valid && x.len_of(axis) < mask.len();
            return TestResult::from_bool(short);
        };
        let n = x.len_of(axis);
        let lanes = x.len().checked_div(n).unwrap_or(0);
        let takes_fft = cpu::auto_uses_fft_rows::<f64>(lanes, fft.len_of(axis), mask.len(), par);
        for ((lane, f), a) in x
            .lanes(axis)
            .into_iter()
            .zip(fft.lanes(axis))
            .zip(auto.lanes(axis))
        {
            let lane = lane.to_vec();
            let want = cpu::apply_fft(op, &lane, &mask, mode, boundary, false).unwrap();
            if f.to_vec() != want {
                return TestResult::error(format!("fft: {dims:?} {axis:?} {mode:?} {boundary:?}"));
            }
            let want_auto = match takes_fft {
                true => want,
                false => cpu::apply(op, &lane, &mask, mode, boundary, false).unwrap(),
            };
            if a.to_vec() != want_auto {
                return TestResult::error(format!("auto: {dims:?} {axis:?} {mode:?} {boundary:?}"));
            }
        }
        // Rows: a 2-D view of any layout (the first two axes at index 0 of the third).
        if x.len_of(Axis(2)) == 0 || x.len_of(Axis(1)) < 100 {
            return TestResult::passed();
        }
        let rows = x.index_axis(Axis(2), 0);
        let r = cpu::apply_rows_fft(op, rows, &mask, mode, boundary, par);
        let ra = cpu::apply_rows_auto(op, rows, &mask, mode, boundary, par);
        if let (Ok(r), Ok(ra)) = (r, ra) {
            let takes_fft =
                cpu::auto_uses_fft_rows::<f64>(rows.nrows(), r.ncols(), mask.len(), par);
            for ((row, f), a) in rows.rows().into_iter().zip(r.rows()).zip(ra.rows()) {
                let row = row.to_vec();
                let want = cpu::apply_fft(op, &row, &mask, mode, boundary, false).unwrap();
                let direct = cpu::apply(op, &row, &mask, mode, boundary, false).unwrap();
                if f.to_vec() != want || a.to_vec() != if takes_fft { want } else { direct } {
                    return TestResult::error(format!("rows: {dims:?} {mode:?} {boundary:?}"));
                }
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(20)
        .quickcheck(prop as fn((u8, u8, u16), u8, u8, u16, u8, u8, u64) -> TestResult);
}

/// A NaN sends the `Auto` forms to the direct sums (NaN only where it reaches); bad arguments
/// are the direct forms' errors.
#[test]
fn auto_lanes_with_non_finite_values_and_bad_arguments() {
    let mut x = ndarray::Array2::from_shape_vec((3, 8000), ints(24_000, 9)).unwrap();
    let mask = ints(1200, 10);
    assert!(cpu::auto_uses_fft_rows::<f64>(3, 8000, 1200, false));
    x[[2, 100]] = f64::NAN;
    let (op, mode, b) = (Operation::Correlation, Mode::Same, Boundary::Reflect);
    let auto = cpu::apply_rows_auto(op, x.view(), &mask, mode, b, true).unwrap();
    let direct = cpu::apply_rows(op, x.view(), &mask, mode, b, true).unwrap();
    assert!(auto
        .iter()
        .zip(&direct)
        .all(|(a, d)| a.to_bits() == d.to_bits()));
    assert!(auto.row(2).iter().skip(2000).all(|v| v.is_finite()));
    assert!(auto.row(1).iter().all(|v| v.is_finite()));
    let auto = cpu::apply_axis_auto(op, x.t(), Axis(0), &mask, mode, b, false).unwrap();
    let direct = cpu::apply_axis(op, x.t(), Axis(0), &mask, mode, b, false).unwrap();
    assert!(auto
        .iter()
        .zip(&direct)
        .all(|(a, d)| a.to_bits() == d.to_bits()));

    let y = Array3::<f32>::zeros((2, 3, 4));
    for e in [
        cpu::apply_axis_fft(op, y.view(), Axis(3), &[1.0], mode, b, false).unwrap_err(),
        cpu::apply_axis_auto(op, y.view(), Axis(3), &[1.0], mode, b, false).unwrap_err(),
    ] {
        assert!(e.to_string().contains("axis 3"), "{e}");
    }
    let y2 = y.index_axis(Axis(0), 0);
    for e in [
        cpu::apply_rows_fft(op, y2, &[], mode, b, false).unwrap_err(),
        cpu::apply_rows_auto(op, y2, &[], mode, b, true).unwrap_err(),
        cpu::apply_axis_auto(op, y.view(), Axis(1), &[], mode, b, true).unwrap_err(),
    ] {
        assert!(e.to_string().contains("mask is empty"), "{e}");
    }
    let e = cpu::apply_rows_auto(op, y2, &[1.0; 5], Mode::Valid, b, false).unwrap_err();
    assert!(
        e.to_string().contains("at least as long as the mask"),
        "{e}"
    );
    let empty = cpu::apply_rows_fft(op, y2.slice(ndarray::s![..0, ..]), &[1.0; 5], mode, b, true);
    assert_eq!(empty.unwrap().dim(), (0, 4));
}

/// Values whose 7-wide sums depend on the order they are added in, in `T` (f16 and bf16 from
/// scaled f32 values: subnormals and infinities among them), NaN included where `nan`.
fn order_sensitive<T: gpu_conv1d::Real>(n: usize, seed: u64, nan: bool) -> Vec<T> {
    let scale = if T::NAME.contains("16") {
        2f32.powi(-16)
    } else {
        1.0
    };
    gpu_core::data::order_sensitive(n, seed, nan)
        .into_iter()
        .map(|v| T::from_f64(f64::from(v * scale)))
        .collect()
}

/// Bit for bit, but any NaN for a NaN.
fn same_bits<T: gpu_conv1d::Real>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (x, y) = (x.to_f64(), y.to_f64());
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        })
}

/// Many short lanes (summed side by side, 16 lanes at a time, in boxes of lanes) give each
/// lane's 1-D result bit for bit, on values whose sums depend on the order: every type, mode,
/// boundary and operation, masks with zeros, infinities and NaN, any layout, along an axis and
/// as rows, serial and on rayon's pool.
#[test]
fn short_lanes_side_by_side_are_each_the_one_dimensional_result() {
    fn check<T: gpu_conv1d::Real>(
        dims: (usize, usize, usize),
        axis: usize,
        view: u8,
        w: usize,
        seed: u64,
    ) -> Result<(), String> {
        let a = Array3::from_shape_vec(
            dims,
            order_sensitive::<T>(dims.0 * dims.1 * dims.2, seed, true),
        )
        .unwrap();
        let perms = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0]];
        let mut x = a.view().permuted_axes(perms[view as usize % 4]);
        if view & 4 != 0 {
            x.invert_axis(Axis(2));
        }
        if view & 8 != 0 {
            x.slice_axis_inplace(Axis(1), ndarray::Slice::new(0, None, 2));
        }
        let mut mask = order_sensitive::<T>(w, seed ^ 1, false);
        match seed % 5 {
            0 => mask[seed as usize % w] = T::from_f64(f64::INFINITY),
            1 => mask[seed as usize % w] = T::from_f64(f64::NAN),
            2 => mask[0] = T::from_f64(-0.0),
            _ => {}
        }
        let axis = Axis(axis);
        let mode = Mode::ALL[(seed / 5) as usize % 3];
        let boundary = Boundary::ALL[(seed / 15) as usize % 5];
        let op = [Operation::Correlation, Operation::Convolution][(seed / 75) as usize % 2];
        let what = || {
            format!(
                "{} {:?} {axis:?} view {view} w {w} {mode:?} {boundary:?} {op:?}",
                T::NAME,
                x.dim()
            )
        };
        for par in [false, true] {
            let got = match cpu::apply_axis(op, x, axis, &mask, mode, boundary, par) {
                Ok(got) => got,
                Err(_) if mode == Mode::Valid && x.len_of(axis) < w => continue,
                Err(e) => return Err(format!("{}: {e}", what())),
            };
            for (lane, out) in x.lanes(axis).into_iter().zip(got.lanes(axis)) {
                let want = cpu::apply(op, &lane.to_vec(), &mask, mode, boundary, false).unwrap();
                if !same_bits(&out.to_vec(), &want) {
                    return Err(format!("axis: {}", what()));
                }
            }
            // The same lanes as the rows of a 2-D view.
            let rows = x.index_axis(Axis((axis.index() + 1) % 3), 0);
            let rows = if axis.index() == 0 {
                rows.reversed_axes()
            } else {
                rows
            };
            let got = cpu::apply_rows(op, rows, &mask, mode, boundary, par).unwrap();
            for (row, out) in rows.rows().into_iter().zip(got.rows()) {
                let want = cpu::apply(op, &row.to_vec(), &mask, mode, boundary, false).unwrap();
                if !same_bits(&out.to_vec(), &want) {
                    return Err(format!("rows: {}", what()));
                }
            }
        }
        Ok(())
    }
    fn prop(d: (u8, u8, u16), axis: u8, view: u8, w: u8, seed: u64) -> TestResult {
        let dims = (
            1 + d.0 as usize % 6,
            1 + d.1 as usize % 40,
            1 + d.2 as usize % 300,
        );
        let (axis, w) = (axis as usize % 3, 1 + w as usize % 12);
        for r in [
            check::<f32>(dims, axis, view, w, seed),
            check::<f64>(dims, axis, view, w, seed),
            check::<gpu_core::f16>(dims, axis, view, w, seed),
            check::<gpu_core::bf16>(dims, axis, view, w, seed),
        ] {
            if let Err(e) = r {
                return TestResult::error(e);
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn((u8, u8, u16), u8, u8, u8, u64) -> TestResult);
    // Fixed shapes at the edges: 15, 16 and 17 lanes; lanes of 256 and 257 values (the last
    // taken side by side and the first not); lanes of 1; boxes of 64 lanes of 256, many boxes.
    for (dims, axis) in [
        ((15, 1, 9), 2),
        ((16, 1, 9), 2),
        ((1, 17, 9), 2),
        ((256, 3, 7), 0),
        ((257, 3, 7), 0),
        ((3, 1000, 256), 2),
        ((5, 4, 1), 2),
        ((2, 40000, 3), 2),
    ] {
        for seed in [0, 1, 2, 7, 16, 33, 80] {
            check::<f32>(dims, axis, (seed % 16) as u8, 7, seed).unwrap();
        }
        check::<gpu_core::bf16>(dims, axis, 9, 5, 3).unwrap();
    }
}
