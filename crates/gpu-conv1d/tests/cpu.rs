//! CPU convolution against numpy / scipy results, the f64 reference, and itself (serial vs rayon).

mod common;

use gpu_conv1d::{cpu, output_len, Boundary, Mode, Operation};
use ndarray::{Array2, ShapeBuilder};

const X: [f64; 7] = [3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0];

// Generated with numpy 2.4 / scipy 1.17 for X:
// (mask, mode, scipy.signal.correlate(X, mask, mode), scipy.signal.convolve(X, mask, mode));
// numpy.correlate / numpy.convolve agree wherever the mask is not longer than X.
/// (mask, mode, correlation, convolution)
type SignalCase = (&'static [f64], Mode, &'static [f64], &'static [f64]);

const SIGNALS_NUMPY: &[SignalCase] = &[
    (
        &[1.0, 2.0],
        Mode::Full,
        &[6.0, 1.0, 7.0, 6.0, -9.0, 13.0, 13.0, 2.0],
        &[3.0, 5.0, 2.0, 9.0, -3.0, -1.0, 20.0, 4.0],
    ),
    (
        &[1.0, 2.0],
        Mode::Same,
        &[6.0, 1.0, 7.0, 6.0, -9.0, 13.0, 13.0],
        &[3.0, 5.0, 2.0, 9.0, -3.0, -1.0, 20.0],
    ),
    (
        &[1.0, 2.0],
        Mode::Valid,
        &[1.0, 7.0, 6.0, -9.0, 13.0, 13.0],
        &[5.0, 2.0, 9.0, -3.0, -1.0, 20.0],
    ),
    (
        &[2.0, -1.0, 0.5],
        Mode::Full,
        &[1.5, -3.5, 9.0, -5.5, 4.5, 11.5, -18.0, 16.0, 4.0],
        &[6.0, -5.0, 10.5, -2.5, -9.0, 23.5, -7.5, 2.5, 1.0],
    ),
    (
        &[2.0, -1.0, 0.5],
        Mode::Same,
        &[-3.5, 9.0, -5.5, 4.5, 11.5, -18.0, 16.0],
        &[-5.0, 10.5, -2.5, -9.0, 23.5, -7.5, 2.5],
    ),
    (
        &[2.0, -1.0, 0.5],
        Mode::Valid,
        &[9.0, -5.5, 4.5, 11.5, -18.0],
        &[10.5, -2.5, -9.0, 23.5, -7.5],
    ),
    (
        &[1.0, 2.0, 3.0, 4.0],
        Mode::Full,
        &[12.0, 5.0, 19.0, 17.0, -10.0, 27.0, 26.0, 19.0, 13.0, 2.0],
        &[3.0, 5.0, 11.0, 18.0, 5.0, 18.0, 9.0, 11.0, 42.0, 8.0],
    ),
    (
        &[1.0, 2.0, 3.0, 4.0],
        Mode::Same,
        &[5.0, 19.0, 17.0, -10.0, 27.0, 26.0, 19.0],
        &[5.0, 11.0, 18.0, 5.0, 18.0, 9.0, 11.0],
    ),
    (
        &[1.0, 2.0, 3.0, 4.0],
        Mode::Valid,
        &[17.0, -10.0, 27.0, 26.0],
        &[18.0, 5.0, 18.0, 9.0],
    ),
    (
        &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0],
        Mode::Full,
        &[
            6.0, -2.0, 8.0, 2.0, -10.0, 18.0, 4.0, 0.0, 0.0, 3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0,
        ],
        &[
            3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, 0.0, 0.0, 6.0, -2.0, 8.0, 2.0, -10.0, 18.0, 4.0,
        ],
    ),
    (
        &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0],
        Mode::Same,
        &[-10.0, 18.0, 4.0, 0.0, 0.0, 3.0, -1.0],
        &[-5.0, 9.0, 2.0, 0.0, 0.0, 6.0, -2.0],
    ),
];
// (mask, boundary, scipy.ndimage.correlate1d(X, mask, mode=boundary.name())).
const NDIMAGE: &[(&[f64], Boundary, &[f64])] = &[
    (
        &[2.0, -1.0, 0.5],
        Boundary::Nearest,
        &[2.5, 9.0, -5.5, 4.5, 11.5, -18.0, 17.0],
    ),
    (
        &[2.0, -1.0, 0.5],
        Boundary::Reflect,
        &[2.5, 9.0, -5.5, 4.5, 11.5, -18.0, 17.0],
    ),
    (
        &[2.0, -1.0, 0.5],
        Boundary::Mirror,
        &[-5.5, 9.0, -5.5, 4.5, 11.5, -18.0, 20.5],
    ),
    (
        &[2.0, -1.0, 0.5],
        Boundary::Wrap,
        &[0.5, 9.0, -5.5, 4.5, 11.5, -18.0, 17.5],
    ),
    (
        &[2.0, -1.0, 0.5],
        Boundary::Zero,
        &[-3.5, 9.0, -5.5, 4.5, 11.5, -18.0, 16.0],
    ),
    (
        &[1.0, 2.0, 3.0, 4.0],
        Boundary::Nearest,
        &[14.0, 22.0, 17.0, -10.0, 27.0, 26.0, 27.0],
    ),
    (
        &[1.0, 2.0, 3.0, 4.0],
        Boundary::Reflect,
        &[10.0, 22.0, 17.0, -10.0, 27.0, 26.0, 27.0],
    ),
    (
        &[1.0, 2.0, 3.0, 4.0],
        Boundary::Mirror,
        &[7.0, 18.0, 17.0, -10.0, 27.0, 26.0, 55.0],
    ),
    (
        &[1.0, 2.0, 3.0, 4.0],
        Boundary::Wrap,
        &[18.0, 21.0, 17.0, -10.0, 27.0, 26.0, 31.0],
    ),
    (
        &[1.0, 2.0, 3.0, 4.0],
        Boundary::Zero,
        &[5.0, 19.0, 17.0, -10.0, 27.0, 26.0, 19.0],
    ),
    (
        &[
            1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 2.0,
        ],
        Boundary::Nearest,
        &[12.0, -3.0, 12.0, -3.0, 12.0, -3.0, 12.0],
    ),
    (
        &[
            1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 2.0,
        ],
        Boundary::Reflect,
        &[4.0, 18.0, -10.0, 2.0, 8.0, -2.0, 6.0],
    ),
    (
        &[
            1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 2.0,
        ],
        Boundary::Mirror,
        &[40.0, -32.0, 31.0, -13.0, 10.0, -4.0, 9.0],
    ),
    (
        &[
            1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 2.0,
        ],
        Boundary::Wrap,
        &[6.0, -2.0, 8.0, 2.0, -10.0, 18.0, 4.0],
    ),
    (
        &[
            1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 2.0,
        ],
        Boundary::Zero,
        &[5.0, -5.0, 5.0, -5.0, 5.0, -5.0, 5.0],
    ),
];

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-12 * (1.0 + y.abs()))
}

#[test]
fn matches_numpy_and_scipy_signal() {
    for &(mask, mode, corr, conv) in SIGNALS_NUMPY {
        let c = cpu::correlate(&X, mask, mode, Boundary::Zero).unwrap();
        assert!(
            close(&c, corr),
            "correlate {mask:?} {mode:?}: {c:?} vs {corr:?}"
        );
        let v = cpu::convolve(&X, mask, mode, Boundary::Zero).unwrap();
        assert!(
            close(&v, conv),
            "convolve {mask:?} {mode:?}: {v:?} vs {conv:?}"
        );
        let c32 = cpu::par_correlate(
            &X.map(|v| v as f32),
            &mask.iter().map(|&v| v as f32).collect::<Vec<_>>(),
            mode,
            Boundary::Zero,
        )
        .unwrap();
        let c32: Vec<f64> = c32.into_iter().map(f64::from).collect();
        assert!(close(&c32, corr), "f32 correlate {mask:?} {mode:?}");
    }
}

#[test]
fn boundary_modes_match_scipy_ndimage() {
    for &(mask, boundary, want) in NDIMAGE {
        let got = cpu::correlate(&X, mask, Mode::Same, boundary).unwrap();
        assert!(
            close(&got, want),
            "{boundary:?} {mask:?}: {got:?} vs {want:?}"
        );
        // convolve = correlate with the mask reversed, in every boundary mode
        let rev: Vec<f64> = mask.iter().rev().copied().collect();
        assert_eq!(cpu::convolve(&X, &rev, Mode::Same, boundary).unwrap(), got);
    }
}

#[test]
fn serial_and_rayon_agree_bit_for_bit() {
    let x = common::data::<f32>(10_000, 1);
    for w in [1, 2, 3, 4, 7, 31, 32, 33, 127, 255] {
        let m = common::data::<f32>(w, 2 + w as u64);
        for mode in Mode::ALL {
            for b in Boundary::ALL {
                let s = cpu::correlate(&x, &m, mode, b).unwrap();
                let p = cpu::par_correlate(&x, &m, mode, b).unwrap();
                assert!(s.iter().zip(&p).all(|(a, c)| a.to_bits() == c.to_bits()));
                let s = cpu::convolve(&x, &m, mode, b).unwrap();
                assert_eq!(s, cpu::par_convolve(&x, &m, mode, b).unwrap());
            }
        }
    }
}

#[test]
fn every_mode_and_boundary_against_the_f64_reference() {
    every_mode_and_boundary::<f32>();
}

#[test]
fn half_precision_sums_in_f32_against_the_f64_reference() {
    every_mode_and_boundary::<gpu_core::f16>();
    every_mode_and_boundary::<gpu_core::bf16>();
}

/// 1 followed by 2047 values of 2^-9: each addition of 2^-9 to a sum ≥ 1 rounds away in bf16
/// (spacing 2^-7), so a sum kept in 16 bits stays 1; the f32 sum is 1 + 2047 · 2^-9 ≈ 4.998,
/// which rounds to 5 once at the end.
#[test]
fn half_precision_sums_are_not_kept_in_16_bits() {
    use gpu_core::bf16;
    let x: Vec<bf16> = (0..2048)
        .map(|i| bf16::from_f32(if i == 0 { 1.0 } else { 1.0 / 512.0 }))
        .collect();
    let y = cpu::correlate(&x, &[bf16::ONE; 2048], Mode::Valid, Boundary::Zero).unwrap();
    assert_eq!(y, [bf16::from_f32(5.0)]);
    let par = cpu::par_correlate(&x, &[bf16::ONE; 2048], Mode::Valid, Boundary::Zero).unwrap();
    assert_eq!(par, y);
}

fn every_mode_and_boundary<T: gpu_conv1d::Real>() {
    for n in [1, 2, 5, 255, 256, 257, 1000] {
        let x = common::data::<T>(n, n as u64);
        for w in [1, 2, 3, 4, 7, 31, 32, 33, 127, 255, 600] {
            let m = common::data::<T>(w, 99 + w as u64);
            for op in [Operation::Correlation, Operation::Convolution] {
                for mode in Mode::ALL {
                    for b in Boundary::ALL {
                        let got = cpu::apply(op, &x, &m, mode, b, false);
                        if mode == Mode::Valid && n < w {
                            assert!(got.is_err());
                            continue;
                        }
                        common::check(&got.unwrap(), op, &x, &m, mode, b, usize::MAX)
                            .unwrap_or_else(|e| panic!("n={n} w={w} {op:?} {mode:?} {b:?}: {e}"));
                    }
                }
            }
        }
    }
}

#[test]
fn f64_signals_too() {
    let x = common::data::<f64>(3001, 5);
    let m = common::data::<f64>(64, 6);
    for mode in Mode::ALL {
        for b in Boundary::ALL {
            let got = cpu::par_convolve(&x, &m, mode, b).unwrap();
            common::check(&got, Operation::Convolution, &x, &m, mode, b, usize::MAX).unwrap();
        }
    }
}

#[test]
fn modes_are_slices_of_full() {
    let x = common::data::<f64>(300, 8);
    for w in [1, 2, 5, 6, 300] {
        let m = common::data::<f64>(w, 9);
        let full = cpu::correlate(&x, &m, Mode::Full, Boundary::Zero).unwrap();
        let same = cpu::correlate(&x, &m, Mode::Same, Boundary::Zero).unwrap();
        let valid = cpu::correlate(&x, &m, Mode::Valid, Boundary::Zero).unwrap();
        // same[i] = full[i + (w − 1) − ⌊w/2⌋], valid[i] = full[i + w − 1]
        assert_eq!(same[..], full[w - 1 - w / 2..w - 1 - w / 2 + 300]);
        assert_eq!(valid[..], full[w - 1..300]);
    }
}

#[test]
fn identity_masks_copy_the_signal() {
    let x = common::data::<f32>(77, 3);
    for w in [1, 3, 4, 8, 9, 200] {
        // 1 at the centre ⌊w/2⌋: correlate in `same` mode returns x exactly, in every boundary
        let mut m = vec![0.0f32; w];
        m[w / 2] = 1.0;
        for b in Boundary::ALL {
            assert_eq!(
                cpu::correlate(&x, &m, Mode::Same, b).unwrap(),
                x,
                "w={w} {b:?}"
            );
        }
    }
}

#[test]
fn lengths_and_errors() {
    assert_eq!(output_len(7, 3, Mode::Full).unwrap(), 9);
    assert_eq!(output_len(7, 10, Mode::Same).unwrap(), 7);
    assert_eq!(output_len(7, 10, Mode::Full).unwrap(), 16);
    assert_eq!(output_len(7, 7, Mode::Valid).unwrap(), 1);
    let e = cpu::correlate(&X, &[], Mode::Same, Boundary::Zero).unwrap_err();
    assert!(e.to_string().contains("mask is empty"), "{e}");
    let e = cpu::convolve(&X[..2], &[1.0; 3], Mode::Valid, Boundary::Zero).unwrap_err();
    assert!(
        e.to_string().contains("at least as long as the mask"),
        "{e}"
    );
    for mode in Mode::ALL {
        assert!(cpu::correlate::<f64>(&[], &[1.0; 4], mode, Boundary::Wrap)
            .unwrap()
            .is_empty());
        assert!(cpu::par_convolve::<f32>(&[], &[1.0], mode, Boundary::Zero)
            .unwrap()
            .is_empty());
    }
    assert!(cpu::correlate::<f64>(&[], &[], Mode::Same, Boundary::Zero).is_err());
}

#[test]
fn rows_match_one_signal_at_a_time() {
    let (rows, n) = (9, 501);
    let flat = common::data::<f64>(rows * n, 4);
    let a = Array2::from_shape_vec((rows, n), flat).unwrap();
    // the same values in column-major memory: rows are gathered
    let mut f = Array2::<f64>::zeros((rows, n).f());
    f.assign(&a);
    let m = [0.5, -1.0, 2.0, 0.25];
    for mode in Mode::ALL {
        for b in Boundary::ALL {
            let s = cpu::convolve_rows(a.view(), &m, mode, b).unwrap();
            assert_eq!(s, cpu::par_convolve_rows(f.view(), &m, mode, b).unwrap());
            let c = cpu::par_correlate_rows(a.view(), &m, mode, b).unwrap();
            assert_eq!(c, cpu::correlate_rows(f.view(), &m, mode, b).unwrap());
            for r in 0..rows {
                let row = a.row(r).to_vec();
                assert_eq!(s.row(r).to_vec(), cpu::convolve(&row, &m, mode, b).unwrap());
                assert_eq!(
                    c.row(r).to_vec(),
                    cpu::correlate(&row, &m, mode, b).unwrap()
                );
            }
        }
    }
    let empty = Array2::<f32>::zeros((0, 5));
    let out = cpu::correlate_rows(empty.view(), &[1.0; 3], Mode::Full, Boundary::Zero).unwrap();
    assert_eq!(out.dim(), (0, 7));
    let no_cols = Array2::<f32>::zeros((3, 0));
    let out = cpu::correlate_rows(no_cols.view(), &[1.0; 3], Mode::Valid, Boundary::Zero).unwrap();
    assert_eq!(out.dim(), (3, 0));
}

/// The FFT checks' range maximum (tests/common) against a plain scan, over every boundary and
/// ranges reaching past both ends of the row.
#[test]
fn range_max_matches_a_scan() {
    let x: Vec<f32> = common::data(37, 5);
    for b in Boundary::ALL {
        let table = common::RangeMax::new(&x, -20, 90, b);
        for lo in -25..75i64 {
            for hi in lo..lo + 40 {
                let want = (lo.max(-20)..hi.min(70))
                    .filter_map(|p| b.index(p, x.len()))
                    .map(|i| x[i].abs() as f64)
                    .fold(0.0f64, f64::max);
                assert_eq!(table.max(lo, hi), want, "{b:?} [{lo}, {hi})");
            }
        }
    }
}

/// The rayon forms' old names (`correlate_par` …) stay one release and give the new ones'
/// results.
#[test]
#[allow(deprecated)]
fn renamed_rayon_forms_still_answer() {
    let x: Vec<f32> = (0..5000).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
    let m: Vec<f32> = (0..33).map(|j| 1.0 / (1.0 + j as f32)).collect();
    let (mode, b) = (Mode::Same, Boundary::Reflect);
    let c = cpu::par_correlate(&x, &m, mode, b).unwrap();
    assert_eq!(cpu::correlate_par(&x, &m, mode, b).unwrap(), c);
    let v = cpu::par_convolve(&x, &m, mode, b).unwrap();
    assert_eq!(cpu::convolve_par(&x, &m, mode, b).unwrap(), v);
    assert_ne!(c, v, "an asymmetric mask tells the two apart");
    let cf = cpu::par_correlate_fft(&x, &m, mode, b).unwrap();
    assert_eq!(cpu::correlate_fft_par(&x, &m, mode, b).unwrap(), cf);
    let vf = cpu::par_convolve_fft(&x, &m, mode, b).unwrap();
    assert_eq!(cpu::convolve_fft_par(&x, &m, mode, b).unwrap(), vf);
    let a = Array2::from_shape_vec((2, 2500), x.clone()).unwrap();
    let rows = cpu::par_correlate_rows(a.view(), &m, mode, b).unwrap();
    assert_eq!(
        cpu::correlate_rows_par(a.view(), &m, mode, b).unwrap(),
        rows
    );
    let rows = cpu::par_convolve_rows(a.view(), &m, mode, b).unwrap();
    assert_eq!(cpu::convolve_rows_par(a.view(), &m, mode, b).unwrap(), rows);
    let ax = ndarray::Axis(0);
    let cols = cpu::par_correlate_axis(a.view(), ax, &m[..1], mode, b).unwrap();
    assert_eq!(
        cpu::correlate_axis_par(a.view(), ax, &m[..1], mode, b).unwrap(),
        cols
    );
    let cols = cpu::par_convolve_axis(a.view(), ax, &m[..1], mode, b).unwrap();
    assert_eq!(
        cpu::convolve_axis_par(a.view(), ax, &m[..1], mode, b).unwrap(),
        cols
    );
}

/// `Auto` on the CPU: the FFT path where the model picks it (f32 results one rounding from the
/// f64 reference, f16 within one rounding of the direct ones, f64 within 1e-12 relative), the direct sums bit for bit
/// elsewhere and on any non-finite input, the direct path's errors.
#[test]
fn auto_takes_the_faster_path_and_the_direct_one_on_non_finite_data() {
    use gpu_core::f16;
    let n = 30_000;
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
        .collect();
    let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    let m64 = |m: &[f32]| m.iter().map(|&v| f64::from(v)).collect::<Vec<f64>>();
    for w in [1, 3, 31, 129, 1500, 4097] {
        let m: Vec<f32> = (0..w).map(|j| 1.0 / (1 + j) as f32).collect();
        // Every mode and two boundaries for the short masks, two cases for the long ones (the
        // references take long in a debug build).
        let cases: Vec<(Mode, Boundary)> = if w < 1000 {
            Mode::ALL
                .iter()
                .flat_map(|&mode| [(mode, Boundary::Zero), (mode, Boundary::Reflect)])
                .collect()
        } else {
            vec![
                (Mode::Same, Boundary::Reflect),
                (Mode::Full, Boundary::Zero),
            ]
        };
        for (mode, b) in cases {
            let direct = cpu::correlate(&x, &m, mode, b).unwrap();
            for par in [false, true] {
                let auto = cpu::apply_auto(Operation::Correlation, &x, &m, mode, b, par);
                let auto = auto.unwrap();
                assert_eq!(auto.len(), direct.len());
                if cpu::auto_uses_fft::<f32>(direct.len(), w, par) {
                    // One rounding of an f64 sum: within half an ulp of the f64 reference
                    // (and the transform's error), where the direct f32 sums round w times.
                    let exact = cpu::correlate(&x64, &m64(&m), mode, b).unwrap();
                    for (a, e) in auto.iter().zip(&exact) {
                        let tol = f64::from(f32::EPSILON) * e.abs() + 1e-12;
                        assert!((f64::from(*a) - e).abs() <= tol, "w {w}: {a} {e}");
                    }
                } else {
                    assert_eq!(auto, direct, "w {w} {mode:?} {b:?}");
                }
            }
        }
    }
    assert!(
        cpu::auto_uses_fft::<f32>(n, 4097, false),
        "the test reaches the FFT path"
    );
    assert!(!cpu::auto_uses_fft::<f32>(n, 3, true), "and the direct one");

    // One NaN and one infinity: the direct sums, bit for bit, NaN only where it reaches.
    let m: Vec<f64> = (0..2049).map(|j| 1.0 / (1 + j) as f64).collect();
    let mut y: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    assert!(cpu::auto_uses_fft::<f64>(y.len(), m.len(), false));
    y[100] = f64::NAN;
    y[20_000] = f64::INFINITY;
    let direct = cpu::convolve(&y, &m, Mode::Valid, Boundary::Zero).unwrap();
    let auto = cpu::convolve_auto(&y, &m, Mode::Valid, Boundary::Zero).unwrap();
    assert_eq!(direct.len(), auto.len());
    assert!(direct
        .iter()
        .zip(&auto)
        .all(|(d, a)| d.to_bits() == a.to_bits()));
    assert!(auto[5_000..15_000].iter().all(|v| v.is_finite()));
    let mut bad_mask = m.clone();
    bad_mask[7] = f64::NAN;
    let clean: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let direct = cpu::correlate(&clean, &bad_mask, Mode::Same, Boundary::Zero).unwrap();
    let auto = cpu::par_correlate_auto(&clean, &bad_mask, Mode::Same, Boundary::Zero).unwrap();
    assert!(direct
        .iter()
        .zip(&auto)
        .all(|(d, a)| d.to_bits() == a.to_bits()));

    // f64 through the FFT path, and f16 rounded once.
    let fft = cpu::par_convolve_auto(&clean, &m, Mode::Full, Boundary::Zero).unwrap();
    let direct = cpu::par_convolve(&clean, &m, Mode::Full, Boundary::Zero).unwrap();
    let norm: f64 = m.iter().map(|v| v.abs()).sum();
    assert!(fft
        .iter()
        .zip(&direct)
        .all(|(a, d)| (a - d).abs() <= 1e-12 * norm));
    let h: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
    let hm: Vec<f16> = (0..3000)
        .map(|j| f16::from_f32(1.0 / (1 + j) as f32))
        .collect();
    assert!(cpu::auto_uses_fft::<f16>(h.len(), hm.len(), false));
    let auto = cpu::correlate_auto(&h, &hm, Mode::Same, Boundary::Nearest).unwrap();
    let direct = cpu::correlate(&h, &hm, Mode::Same, Boundary::Nearest).unwrap();
    let ulps = auto
        .iter()
        .zip(&direct)
        .map(|(a, d)| (a.to_bits() as i32 - d.to_bits() as i32).abs())
        .max()
        .unwrap();
    assert!(ulps <= 1, "{ulps} ulps");

    // The direct path's errors and empty results.
    let e = cpu::correlate_auto::<f32>(&x, &[], Mode::Same, Boundary::Zero).unwrap_err();
    assert!(e.to_string().contains("mask is empty"), "{e}");
    let e = cpu::par_convolve_auto(&x[..2], &[1.0; 3], Mode::Valid, Boundary::Zero).unwrap_err();
    assert!(
        e.to_string().contains("at least as long as the mask"),
        "{e}"
    );
    for mode in Mode::ALL {
        assert!(
            cpu::par_correlate_auto::<f32>(&[], &[1.0; 5000], mode, Boundary::Zero)
                .unwrap()
                .is_empty()
        );
    }
}
