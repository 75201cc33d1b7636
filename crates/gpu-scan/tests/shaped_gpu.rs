//! Shaped scans on a real GPU — along every axis of arrays in C, Fortran, reversed and
//! permuted layouts, and within segments of every length distribution, inclusive and
//! exclusive — against the CPU references (exact: float data are small integers, or ±1 for
//! products). Skipped visibly without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::data::{exact, offsets_with, ops_for, random_offsets, SplitMix64};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{Affine, DeviceArrayD, Element, Gpu, LaneAccess, Mat2, Monoid, Op, Segments};
use gpu_scan::{cpu, Scan, ScanKind, ScanMonoid, TileStaging};
use ndarray::{s, Array2, Array3, ArrayD, Axis, IxDyn, ShapeBuilder};
use quickcheck::{QuickCheck, TestResult};

const SHAPES: &[(usize, usize)] = &[
    (1, 1),
    (3, 5),
    (33, 31),
    (1000, 2),
    (2, 1000),
    (64, 4100),
    (4100, 64),
    (5, 70_000),
    (70_000, 5),
    (0, 7),
    (7, 0),
    (257, 513),
];

const KINDS: [ScanKind; 2] = [ScanKind::Inclusive, ScanKind::Exclusive];

fn scan_of(gpu: &Gpu, kind: ScanKind) -> Scan<'static> {
    Scan::new(gpu).kind(kind)
}

fn check_axis_all<T: Element>(gpu: &Gpu) {
    for &(rows, cols) in SHAPES {
        for op in ops_for::<T>() {
            let v = exact::<T>(rows * cols, op, (rows * 31 + cols) as u64);
            let c = Array2::from_shape_vec((rows, cols), v).unwrap();
            let mut f = Array2::from_elem((rows, cols).f(), T::default());
            f.assign(&c);
            for (name, view) in [
                ("C", c.view()),
                ("F", f.view()),
                ("reversed", c.slice(s![..;-1, ..;-1])),
            ] {
                for axis in 0..2 {
                    for kind in KINDS {
                        let want = cpu::scan_axis(view, Axis(axis), op, kind)
                            .unwrap()
                            .into_dyn();
                        let got = scan_of(gpu, kind)
                            .scan_axis(&view, Axis(axis), op)
                            .unwrap_or_else(|e| {
                                panic!("{name} {rows}x{cols} axis {axis} {op:?}: {e}")
                            });
                        assert_eq!(
                            got,
                            want,
                            "{} {name} {rows}x{cols} axis {axis} {op:?} {kind:?}",
                            T::NAME
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn axis_scans_every_type_operator_layout_shape_and_kind() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_axis_all::<i32>(&gpu);
    check_axis_all::<u32>(&gpu);
    check_axis_all::<i64>(&gpu);
    check_axis_all::<u64>(&gpu);
    check_axis_all::<f32>(&gpu);
    check_axis_all::<f64>(&gpu);
}

fn lanes_scanned<M: Monoid>(x: &Array2<M>, axis: usize, kind: ScanKind) -> Array2<M> {
    let mut out = x.clone();
    for (lane, mut o) in x
        .lanes(Axis(axis))
        .into_iter()
        .zip(out.lanes_mut(Axis(axis)))
    {
        let mut acc = M::identity();
        for (v, slot) in lane.iter().zip(o.iter_mut()) {
            let next = M::combine(acc, *v);
            *slot = if kind == ScanKind::Inclusive {
                next
            } else {
                acc
            };
            acc = next;
        }
    }
    out
}

#[test]
fn monoid_scans_along_axes_keep_lane_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    for &(rows, cols) in SHAPES {
        let mut g = SplitMix64::new(rows as u64 * 7 + cols as u64);
        let m = Array2::from_shape_fn((rows, cols), |_| {
            Mat2([g.next_u64() as u32 % 5, 1, g.next_u64() as u32 % 3, 1])
        });
        let a = Array2::from_shape_fn((rows, cols), |(i, j)| Affine {
            a: if (i + j) % 3 == 0 { -1.0f64 } else { 1.0 },
            b: ((i * 7 + j) % 5) as f64,
        });
        for axis in 0..2 {
            for kind in KINDS {
                let s = scan_of(&gpu, kind);
                assert_eq!(
                    s.scan_axis_monoid(&m, Axis(axis)).unwrap(),
                    lanes_scanned(&m, axis, kind).into_dyn()
                );
                assert_eq!(
                    s.scan_axis_monoid(&a, Axis(axis)).unwrap(),
                    lanes_scanned(&a, axis, kind).into_dyn()
                );
            }
        }
    }
}

#[test]
fn n_d_arrays_and_outputs_of_another_layout() {
    let Some(gpu) = gpu_or_skip() else { return };
    let v = exact::<i64>(6 * 7 * 9 * 5, Op::Sum, 5);
    let x4 = ArrayD::from_shape_vec(IxDyn(&[6, 7, 9, 5]), v).unwrap();
    let s = Scan::new(&gpu);
    for perm in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
        let p = x4.view().permuted_axes(IxDyn(&perm));
        for axis in 0..4 {
            let want = cpu::scan_axis(p.view(), Axis(axis), Op::Sum, ScanKind::Inclusive).unwrap();
            assert_eq!(
                s.scan_axis(&p, Axis(axis), Op::Sum).unwrap(),
                want,
                "perm {perm:?} axis {axis}"
            );
            // Into a row-major output from a permuted input: lanes merged alike for both.
            let mut out = DeviceArrayD::<i64>::zeros(&gpu, p.shape()).unwrap();
            s.scan_axis_into(&p, Axis(axis), Op::Sum, &mut out).unwrap();
            assert_eq!(out.to_array().unwrap(), want);
        }
    }
}

fn segment_cases() -> Vec<(&'static str, Vec<u64>)> {
    vec![
        ("none", vec![0]),
        ("one empty", vec![0, 0]),
        ("one value", vec![0, 1]),
        ("31, 32, 33", vec![0, 31, 63, 96]),
        ("empties everywhere", {
            // Thousands of empty segments at the start, inside a tile and at the end (more than
            // a block's threads at one position), around a segment crossing many tiles.
            let mut o = vec![0u64; 3000];
            o.push(10);
            o.extend(std::iter::repeat(10).take(5000));
            o.push(70_010);
            o.extend(std::iter::repeat(70_010).take(3000));
            o
        }),
        ("tile edges", {
            // Register tiles of 8192 (4-byte values) and 2048, staged tiles of 14336 and 7168
            // (256 threads), 57344 (1024 threads).
            let lens = [
                8191, 8192, 8193, 16384, 1, 32768, 32767, 14335, 14336, 14337, 57344, 7168, 2048,
            ];
            offsets_with(40, 6, |k| lens[(k % 13) as usize])
        }),
        ("zeros and ones", offsets_with(1000, 1, |k| k % 2)),
        ("1-8", offsets_with(20_000, 2, |k| 1 + k % 8)),
        ("0-2000", offsets_with(300, 3, |k| k % 2001)),
        ("few long", offsets_with(3, 4, |k| 100_000 + k % 50_000)),
        ("mixed", {
            let mut o = offsets_with(50, 5, |k| k % 5);
            let last = *o.last().unwrap();
            o.extend([last + 300_000, last + 300_000, last + 300_003]);
            o
        }),
    ]
}

/// Register tiles everywhere, and the default (staged tiles for sum, prod, min and max of 4-
/// and 8-byte values on GPUs of compute capability 8.0 and later).
const STAGINGS: [TileStaging; 2] = [TileStaging::Registers, TileStaging::Auto];

fn check_segments<T: Element>(gpu: &Gpu) {
    for (name, offsets) in segment_cases() {
        let n = *offsets.last().unwrap() as usize;
        let segs = Segments::new(gpu, &offsets, n).unwrap();
        for op in ops_for::<T>() {
            let v = exact::<T>(n, op, n as u64 + 11);
            for kind in KINDS {
                let want = cpu::segmented_scan(&v, &offsets, op, kind).unwrap();
                for staging in STAGINGS {
                    let got = scan_of(gpu, kind)
                        .staging(staging)
                        .segmented_scan(&v, &segs, op)
                        .unwrap();
                    assert_eq!(got, want, "{} {name} {op:?} {kind:?} {staging:?}", T::NAME);
                }
            }
        }
    }
}

#[test]
fn segmented_scans_every_type_length_distribution_and_kind() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_segments::<i32>(&gpu);
    check_segments::<u32>(&gpu);
    check_segments::<i64>(&gpu);
    check_segments::<u64>(&gpu);
    check_segments::<f32>(&gpu);
    check_segments::<f64>(&gpu);
    // Monoids of 8 and 16 bytes (their look-back slots split into tagged words), segments
    // crossing many tiles.
    let offsets = offsets_with(400, 8, |k| k % 900);
    check_segmented_monoid(&gpu, &offsets, |i| Affine {
        a: 1.0f32,
        b: (i % 3) as f32,
    });
    let offsets = offsets_with(60, 13, |k| k % 40_000);
    check_segmented_monoid(&gpu, &offsets, |i| Affine {
        a: 1.0f64,
        b: (i % 5) as f64 - 2.0,
    });
    check_segmented_monoid(&gpu, &offsets, |i| {
        Mat2([(i % 5) as u32, 1, (i % 3) as u32, 1])
    });
}

/// The segmented scans of the monoid `f(i)` over `offsets` (both kinds) against a serial fold.
fn check_segmented_monoid<M: ScanMonoid>(gpu: &Gpu, offsets: &[u64], f: impl Fn(usize) -> M) {
    let n = *offsets.last().unwrap() as usize;
    let m: Vec<M> = (0..n).map(f).collect();
    for kind in KINDS {
        let got = scan_of(gpu, kind)
            .segmented_scan_monoid(&m, offsets)
            .unwrap();
        let mut want = Vec::with_capacity(n);
        for w in offsets.windows(2) {
            let mut acc = M::identity();
            for &x in &m[w[0] as usize..w[1] as usize] {
                let next = Monoid::combine(acc, x);
                want.push(if kind == ScanKind::Inclusive {
                    next
                } else {
                    acc
                });
                acc = next;
            }
        }
        assert!(got == want, "{} {kind:?}", M::NAME);
    }
}

/// The default takes staged segment tiles where they run (the plan says so by its tile size),
/// and asking for them where they do not is a clear error.
#[test]
fn segment_tiles_staged_where_they_run() {
    let Some(gpu) = gpu_or_skip() else { return };
    let offsets = offsets_with(30_000, 12, |k| 1 + k % 8);
    let n = *offsets.last().unwrap() as usize;
    let segs = Segments::new(&gpu, &offsets, n).unwrap();
    let v = exact::<i32>(n, Op::Sum, 3);
    let staged_gpu = gpu.properties().compute_capability >= (8, 0);
    for (staging, staged) in [
        (TileStaging::Registers, false),
        (TileStaging::Auto, staged_gpu),
    ] {
        let mut out = gpu.alloc::<i32>(n).unwrap();
        let plan = Scan::new(&gpu)
            .staging(staging)
            .segmented_scan_into(&v, &segs, Op::Sum, &mut out)
            .unwrap();
        let LaneAccess::SegmentTiles { tile, .. } = plan.access else {
            panic!("{staging:?}: {plan:?}")
        };
        // Register tiles hold 32 values of 4 bytes per thread, staged ones 56.
        assert_eq!(tile % 56 == 0, staged, "{staging:?}: tiles of {tile}");
        assert_eq!(
            out.to_vec().unwrap(),
            cpu::segmented_scan(&v, &offsets, Op::Sum, ScanKind::Inclusive).unwrap()
        );
    }
    let staged = Scan::new(&gpu).staging(TileStaging::Staged);
    let bitwise = staged.segmented_scan(&v, &segs, Op::BitAnd);
    let m = vec![Affine { a: 1.0f32, b: 2.0 }; n];
    let monoid = staged.segmented_scan_monoid(&m, &segs);
    for e in [bitwise.map(|_| ()), monoid.map(|_| ())] {
        let e = e.unwrap_err().to_string();
        assert!(e.contains("staging"), "{e}");
    }
    if staged_gpu {
        assert!(staged.segmented_scan(&v, &segs, Op::Max).is_ok());
    }
}

#[test]
fn bad_shapes_and_offsets_are_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let s = Scan::new(&gpu);
    let x = Array2::<i32>::zeros((3, 4));
    let e = s.scan_axis(&x, Axis(2), Op::Sum).unwrap_err().to_string();
    assert!(e.contains("axis 2"), "{e}");
    let mut wrong = DeviceArrayD::<i32>::zeros(&gpu, &[4, 3]).unwrap();
    let e = s
        .scan_axis_into(&x, Axis(0), Op::Sum, &mut wrong)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out"), "{e}");
    for bad in [vec![1u64, 5], vec![0u64, 3, 2, 5], vec![0u64, 6], vec![]] {
        let e = s
            .segmented_scan(&vec![1i32; 5], &bad, Op::Sum)
            .unwrap_err()
            .to_string();
        assert!(e.contains("offsets"), "{bad:?}: {e}");
    }
    let e = s.scan_axis(&x, Axis(0), Op::BitAnd).map(|_| ());
    assert!(e.is_ok(), "bitwise on integers is fine");
    let f = Array2::<f32>::zeros((3, 4));
    assert!(
        s.scan_axis(&f, Axis(0), Op::BitAnd).is_err(),
        "bitwise on floats is refused"
    );
}

#[test]
fn segmented_scan_past_two_to_the_31_values() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 3;
    let mut ones = gpu.alloc::<u32>(n).unwrap();
    ones.fill(1, gpu.stream()).unwrap();
    let offsets = vec![0, 5, (1u64 << 31) + 1, n as u64];
    let segs = Segments::new(&gpu, &offsets, n).unwrap();
    let mut out = gpu.alloc::<u32>(n).unwrap();
    Scan::new(&gpu)
        .exclusive()
        .segmented_scan_into(&ones, &segs, Op::Sum, &mut out)
        .unwrap();
    let host = out.to_vec().unwrap();
    for (i, want) in [
        (0, 0u32),
        (4, 4),
        (5, 0),
        (6, 1),
        ((1 << 31), (1u32 << 31) - 5),
        ((1 << 31) + 1, 0),
        (n - 1, 1),
    ] {
        assert_eq!(host[i], want, "position {i}");
    }
}

#[test]
fn quickcheck_random_shapes_strides_and_axes_match_the_cpu() {
    if gpu_or_skip().is_none() {
        return;
    }
    #[allow(clippy::too_many_arguments)]
    fn prop(
        d0: u8,
        d1: u8,
        d2: u8,
        axis: u8,
        perm: u8,
        rev: u8,
        excl: bool,
        seed: u64,
    ) -> TestResult {
        let gpu = &gpu_core::testing::shared_gpu().expect("checked above");
        let dims = (d0 as usize % 9, d1 as usize % 40, d2 as usize % 300);
        let axis = axis as usize % 3;
        let v = exact::<i32>(dims.0 * dims.1 * dims.2, Op::Sum, seed);
        let a = Array3::from_shape_vec(dims, v).unwrap();
        let perms = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let mut view = a.view().permuted_axes(perms[perm as usize % 6]);
        for k in 0..3 {
            if rev >> k & 1 == 1 {
                view.invert_axis(Axis(k));
            }
        }
        let kind = if excl {
            ScanKind::Exclusive
        } else {
            ScanKind::Inclusive
        };
        for op in [Op::Sum, Op::Min, Op::BitXor] {
            let want = cpu::scan_axis(view, Axis(axis), op, kind)
                .unwrap()
                .into_dyn();
            match Scan::new(gpu).kind(kind).scan_axis(&view, Axis(axis), op) {
                Ok(g) if g == want => {}
                other => {
                    return TestResult::error(format!("{dims:?} axis {axis} {op:?}: {other:?}"))
                }
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(u8, u8, u8, u8, u8, u8, bool, u64) -> TestResult);
}

/// Small cases of every lane mapping and of the split path (totals, seeds, seeded scan), for
/// compute-sanitizer (`lanes_sanitize` filter).
#[test]
fn lanes_sanitize_every_mapping() {
    let Some(gpu) = gpu_or_skip() else { return };
    for kind in KINDS {
        let s = scan_of(&gpu, kind);
        for (rows, cols) in [
            (7, 5),
            (1000, 2),
            (1001, 2),
            (9, 128),
            (4100, 64),
            (140_000, 64), // one tile of 274 long spans: look-backs past a block's window
            (64, 4100),
            (3, 70_000),
            (20_000, 5),
            (20_000, 4),
            (30_000, 2),
            (50_000, 12),
            (130, 8192),
            (3000, 1024),
        ] {
            let v = exact::<i32>(rows * cols, Op::Sum, 5);
            let x = Array2::from_shape_vec((rows, cols), v).unwrap();
            let m = x.mapv(|v| Mat2([v as u32 % 3, 1, 1, 0]));
            // f32 max: the columns kernels that keep each lane width apart (all but the sums).
            let f = x.mapv(|v| v as f32);
            for axis in 0..2 {
                assert_eq!(
                    s.scan_axis(&x, Axis(axis), Op::Sum).unwrap(),
                    cpu::scan_axis(x.view(), Axis(axis), Op::Sum, kind)
                        .unwrap()
                        .into_dyn()
                );
                assert_eq!(
                    s.scan_axis(&f, Axis(axis), Op::Max).unwrap(),
                    cpu::scan_axis(f.view(), Axis(axis), Op::Max, kind)
                        .unwrap()
                        .into_dyn()
                );
                assert_eq!(
                    s.scan_axis_monoid(&m, Axis(axis)).unwrap(),
                    lanes_scanned(&m, axis, kind).into_dyn()
                );
            }
        }
        let offsets = vec![0u64, 70_000, 70_000, 140_000, 210_003];
        let v = exact::<f64>(210_003, Op::Sum, 3);
        let want = cpu::segmented_scan(&v, &offsets, Op::Sum, kind).unwrap();
        assert_eq!(s.segmented_scan(&v, &offsets, Op::Sum).unwrap(), want);
    }
}

/// Rows of every power-of-two length up to past the packed limit (32 vectors), row counts that
/// leave a partial last vector, every type, operator and kind: the packed-rows kernel against
/// the CPU, the plan reporting it, unaligned bases taking the general path.
fn check_packed_rows<T: Element>(gpu: &Gpu) {
    let vector = 16 / std::mem::size_of::<T>();
    for log2n in 0..=10 {
        let n = 1usize << log2n;
        for rows in [1usize, 3, 7, 1000, 4097] {
            let plan = Scan::new(gpu)
                .axis_plan::<T>(&[rows, n], &[n as isize, 1], Axis(1), Op::Sum)
                .unwrap();
            assert_eq!(
                matches!(plan.access, gpu_core::LaneAccess::PackedRows { .. }),
                n <= 32 * vector,
                "{} rows of {n}: {plan}",
                T::NAME
            );
            for op in ops_for::<T>() {
                let v = exact::<T>(rows * n, op, (rows * 3 + n) as u64);
                let x = Array2::from_shape_vec((rows, n), v.clone()).unwrap();
                for kind in KINDS {
                    let want = cpu::scan_axis(x.view(), Axis(1), op, kind)
                        .unwrap()
                        .into_dyn();
                    let s = scan_of(gpu, kind);
                    assert_eq!(
                        s.scan_axis(&x, Axis(1), op).unwrap(),
                        want,
                        "{} {rows}x{n} {op:?} {kind:?}",
                        T::NAME
                    );
                    if rows == 7 {
                        let mut flat = vec![T::default()];
                        flat.extend(v.iter().copied());
                        let shifted = DeviceArrayD::from_parts(
                            gpu.upload(&flat).unwrap(),
                            1,
                            &[rows, n],
                            &[n as isize, 1],
                        )
                        .unwrap();
                        assert_eq!(
                            s.scan_axis(&shifted, Axis(1), op).unwrap(),
                            want,
                            "unaligned {} {rows}x{n} {op:?}",
                            T::NAME
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn packed_rows_every_power_of_two_length() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_packed_rows::<i32>(&gpu);
    check_packed_rows::<u32>(&gpu);
    check_packed_rows::<i64>(&gpu);
    check_packed_rows::<u64>(&gpu);
    check_packed_rows::<f32>(&gpu);
    check_packed_rows::<f64>(&gpu);
}

/// Arrays whose lanes lie side by side (the one-pass vector-columns scan): C order along axis
/// 0, Fortran order along axis 1, rows reversed (negative axis stride), 3-D middle axes with
/// several outer indices; 2 (two rows per vector for 4-byte types), 4, 6, 8, 12, 1000, 1028
/// and 4096 lanes per row; lanes of one span, and 64 tiles of several (the look-back).
fn column_cases<T: Element>(op: Op, seed: u64) -> Vec<(String, ArrayD<T>, usize)> {
    let mut out = Vec::new();
    for (rows, cols) in [
        (2usize, 2usize),
        (3, 2),
        (5, 4),
        (1000, 2),
        (1001, 2),
        (1001, 8),
        (64, 1000),
        (9, 1028),
        (4100, 64),
        (70_000, 4),
        (100_000, 2),
        (257, 6),
        (3, 4096),
        (50_000, 12),
        (200, 8192),
        // Short lanes side by side, a thread each (the scan's short kernel).
        (2, 4096),
        (7, 2048),
        (5, 100_000),
    ] {
        let c = Array2::from_shape_vec(
            (rows, cols),
            exact::<T>(rows * cols, op, seed + rows as u64),
        )
        .unwrap();
        let mut ff = Array2::from_elem((cols, rows).f(), T::default());
        ff.assign(&c.t());
        let reversed = c.slice(s![..;-1, ..]).to_owned();
        out.push((format!("C {rows}x{cols} axis 0"), c.into_dyn(), 0));
        out.push((format!("F {cols}x{rows} axis 1"), ff.into_dyn(), 1));
        out.push((
            format!("reversed {rows}x{cols} axis 0"),
            reversed.into_dyn(),
            0,
        ));
    }
    for (a, b, c) in [
        (3usize, 700usize, 8usize),
        (2, 5, 1024),
        (4, 3000, 2),
        (3, 5, 1024),
    ] {
        let x =
            Array3::from_shape_vec((a, b, c), exact::<T>(a * b * c, op, seed + b as u64)).unwrap();
        out.push((format!("C {a}x{b}x{c} axis 1"), x.into_dyn(), 1));
    }
    out
}

fn check_vector_columns<T: Element>(gpu: &Gpu) {
    for op in ops_for::<T>() {
        for (name, x, axis) in column_cases::<T>(op, 13) {
            let view = if name.starts_with("reversed") {
                x.slice_axis(Axis(0), ndarray::Slice::new(0, None, -1))
            } else {
                x.view()
            };
            for kind in KINDS {
                let want = cpu::scan_axis(view.view(), Axis(axis), op, kind).unwrap();
                let got = scan_of(gpu, kind)
                    .scan_axis(&view, Axis(axis), op)
                    .unwrap_or_else(|e| panic!("{} {name} {op:?} {kind:?}: {e}", T::NAME));
                assert_eq!(got, want, "{} {name} {op:?} {kind:?}", T::NAME);
            }
        }
    }
}

#[test]
fn vector_columns_every_geometry_type_operator_and_kind() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_vector_columns::<i32>(&gpu);
    check_vector_columns::<u32>(&gpu);
    check_vector_columns::<i64>(&gpu);
    check_vector_columns::<u64>(&gpu);
    check_vector_columns::<f32>(&gpu);
    check_vector_columns::<f64>(&gpu);
    let s = Scan::new(&gpu);
    let plan = |shape: &[usize], strides: &[isize], f64: bool| {
        if f64 {
            s.axis_plan::<f64>(shape, strides, Axis(0), Op::Sum)
        } else {
            s.axis_plan::<f32>(shape, strides, Axis(0), Op::Sum)
        }
        .unwrap()
    };
    let columns = |p: &gpu_core::LanePlan| matches!(p.access, LaneAccess::VectorColumns { .. });
    assert!(columns(&plan(&[1001, 8], &[8, 1], false)));
    assert!(columns(&plan(&[200, 2], &[2, 1], false)));
    assert!(
        !columns(&plan(&[201, 2], &[2, 1], false)),
        "odd rows of two f32 lanes"
    );
    assert!(!columns(&plan(&[257, 6], &[6, 1], false)));
    assert!(columns(&plan(&[257, 6], &[6, 1], true)));
    let p = plan(&[1000, 8192], &[8192, 1], false);
    assert!(
        columns(&p) && p.splits > 1,
        "64 tiles of several spans: {p}"
    );
    let p = plan(&[4100, 64], &[64, 1], false);
    assert!(
        matches!(
            p.access,
            LaneAccess::VectorColumns {
                rows_per_thread: 32,
                ..
            }
        ) && p.splits > 1,
        "one tile of many spans: long spans: {p}"
    );
    let p = s
        .axis_plan::<i32>(&[4100, 64], &[64, 1], Axis(0), Op::BitOr)
        .unwrap();
    assert!(
        !matches!(p.access, LaneAccess::VectorColumns { .. }),
        "no long spans for bitwise operators: {p}"
    );
    let p = plan(&[100_000, 2], &[2, 1], false);
    assert!(
        !columns(&p),
        "many spans of one tile: the lane kernels: {p}"
    );
    // Float sums are the same bits run after run (the look-back folds left to right), with many
    // tiles side by side and with one tile of thousands of spans.
    for (rows, cols) in [(2000usize, 8192usize), (1 << 20, 4)] {
        let x = Array2::from_shape_fn((rows, cols), |(i, j)| {
            ((i * 7 + j) % 1000) as f32 * 0.001 + 0.1
        });
        let first = s.scan_axis(&x, Axis(0), Op::Sum).unwrap();
        // The same shape with whole numbers (exact sums below 2^24): equal to the CPU's.
        let exact = x.mapv(|v| ((v * 1000.0) as i32 % 16) as f32);
        let want = cpu::scan_axis(exact.view(), Axis(0), Op::Sum, ScanKind::Inclusive).unwrap();
        assert_eq!(
            s.scan_axis(&exact, Axis(0), Op::Sum).unwrap(),
            want.into_dyn(),
            "{rows}x{cols}"
        );
        for _ in 0..5 {
            assert_eq!(
                s.scan_axis(&x, Axis(0), Op::Sum).unwrap(),
                first,
                "{rows}x{cols}"
            );
        }
    }
}

/// Many lanes side by side of more than eight vector rows (2^20 + 4 or + 2 lanes: a last
/// block of few lane groups), walked a thread per lane group with the running values carried
/// from step to step (`LanePlan::thread_columns`): lanes of 9, 16 and 33 rows (one step and a
/// partial one, two whole steps, five), C order along axis 0 and Fortran order along axis 1,
/// every type, operator and kind against the CPU; the plan asserted.
fn check_walked_columns<T: Element>(gpu: &Gpu, ops: &[Op]) {
    let s = Scan::new(gpu);
    let cols = (1usize << 20) + 16 / std::mem::size_of::<T>();
    for rows in [9usize, 16, 33] {
        for &op in ops {
            let c = Array2::from_shape_vec((rows, cols), exact::<T>(rows * cols, op, rows as u64))
                .unwrap();
            let plan = s.axis_plan::<T>(&[rows, cols], &[cols as isize, 1], Axis(0), op);
            let plan = plan.unwrap();
            assert!(
                matches!(
                    plan.access,
                    LaneAccess::VectorColumns {
                        groups_across: 256,
                        threads_down: 1,
                        ..
                    }
                ) && plan.splits == 1,
                "{} {rows}x{cols} {op:?}: a thread per lane group: {plan}",
                T::NAME
            );
            let mut f = Array2::from_elem((cols, rows).f(), T::default());
            let layouts = if matches!(op, Op::Sum | Op::Max) {
                f.assign(&c.t());
                vec![("C", c.view().into_dyn(), 0), ("F", f.view().into_dyn(), 1)]
            } else {
                vec![("C", c.view().into_dyn(), 0)]
            };
            for (name, view, axis) in layouts {
                for kind in KINDS {
                    let want = cpu::scan_axis(view.view(), Axis(axis), op, kind).unwrap();
                    let got = scan_of(gpu, kind)
                        .scan_axis(&view, Axis(axis), op)
                        .unwrap_or_else(|e| {
                            panic!("{} {name} {rows} {op:?} {kind:?}: {e}", T::NAME)
                        });
                    assert!(
                        got == want,
                        "{} {name} {rows}x{cols} axis {axis} {op:?} {kind:?}",
                        T::NAME
                    );
                }
            }
        }
    }
}

#[test]
fn many_long_columns_walked_a_thread_each() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_walked_columns::<i32>(&gpu, &ops_for::<i32>());
    check_walked_columns::<f32>(&gpu, &ops_for::<f32>());
    check_walked_columns::<u64>(&gpu, &ops_for::<u64>());
    check_walked_columns::<f64>(&gpu, &[Op::Sum, Op::Max, Op::Product]);
    check_walked_columns::<u32>(&gpu, &[Op::Sum, Op::Min, Op::BitXor]);
    check_walked_columns::<i64>(&gpu, &[Op::Sum, Op::Min, Op::BitAnd]);
}

/// Two or four lanes side by side with a row of them every K elements (the columns of a dense
/// array of K columns), scanned as rows of K-wide vectors in staged tiles: lengths around the
/// one-warp tile (896 rows of 8-byte vectors, 448 of 16-byte ones), several tiles with a
/// partial last one, batches (3-D and 4-D arrays), every type, operator and kind (bitwise
/// operators and 32-byte vectors take the other paths).
fn interleaved_cases<T: Element>(op: Op, seed: u64) -> Vec<(String, ArrayD<T>, usize)> {
    let mut out = Vec::new();
    for (rows, k) in [
        (895usize, 2usize),
        (896, 2),
        (897, 2),
        (447, 4),
        (448, 4),
        (449, 4),
        (4097, 4),
        (100_003, 2),
        (300_001, 4),
    ] {
        let x = Array2::from_shape_vec((rows, k), exact::<T>(rows * k, op, seed + rows as u64))
            .unwrap();
        let mut f = Array2::from_elem((k, rows).f(), T::default());
        f.assign(&x.t());
        out.push((format!("C {rows}x{k} axis 0"), x.into_dyn(), 0));
        out.push((format!("F {k}x{rows} axis 1"), f.into_dyn(), 1));
    }
    let x = Array3::from_shape_vec((3, 50_001, 4), exact::<T>(3 * 50_001 * 4, op, seed)).unwrap();
    out.push(("C 3x50001x4 axis 1".into(), x.into_dyn(), 1));
    let n = 2 * 3 * 10_000 * 2;
    let x = ArrayD::from_shape_vec(IxDyn(&[2, 3, 10_000, 2]), exact::<T>(n, op, seed)).unwrap();
    out.push(("C 2x3x10000x2 axis 2".into(), x, 2));
    out
}

fn check_interleaved<T: Element>(gpu: &Gpu) {
    for op in ops_for::<T>() {
        for (name, x, axis) in interleaved_cases::<T>(op, 29) {
            for kind in KINDS {
                let want = cpu::scan_axis(x.view(), Axis(axis), op, kind).unwrap();
                let got = scan_of(gpu, kind)
                    .scan_axis(&x, Axis(axis), op)
                    .unwrap_or_else(|e| panic!("{} {name} {op:?} {kind:?}: {e}", T::NAME));
                assert_eq!(got, want, "{} {name} {op:?} {kind:?}", T::NAME);
            }
        }
    }
}

/// The dynamic shared memory a kernel may use is the function's, shared by every scanner on
/// the device: a scanner launching a small tile of a kernel must not take back what another
/// was granted for a large one (it did: that scanner's next launch failed with
/// CUDA_ERROR_INVALID_VALUE when tests ran side by side).
#[test]
fn scanners_sharing_a_kernel_keep_their_shared_memory() {
    let Some(gpu) = gpu_or_skip() else { return };
    let big = Array2::from_shape_vec((100_003, 2), exact::<i32>(200_006, Op::Sum, 1)).unwrap();
    let small = Array2::from_shape_vec((895, 2), exact::<i32>(1790, Op::Sum, 2)).unwrap();
    let (a, b) = (Scan::new(&gpu), Scan::new(&gpu));
    for (scan, x) in [(&a, &big), (&b, &small), (&a, &big)] {
        let want = cpu::scan_axis(x.view(), Axis(0), Op::Sum, ScanKind::Inclusive).unwrap();
        assert_eq!(
            scan.scan_axis(x, Axis(0), Op::Sum).unwrap(),
            want.into_dyn()
        );
    }
}

#[test]
fn interleaved_lanes_every_type_operator_and_kind() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_interleaved::<i32>(&gpu);
    check_interleaved::<u32>(&gpu);
    check_interleaved::<i64>(&gpu);
    check_interleaved::<u64>(&gpu);
    check_interleaved::<f32>(&gpu);
    check_interleaved::<f64>(&gpu);
    let s = Scan::new(&gpu);
    // Staged tiles (cp.async) need compute capability 8.0.
    let staged = gpu.properties().compute_capability >= (8, 0);
    let interleaved = |shape: &[usize], strides: &[isize], axis: usize| {
        let p = s
            .axis_plan::<f32>(shape, strides, Axis(axis), Op::Sum)
            .unwrap();
        matches!(p.access, LaneAccess::InterleavedRows { .. })
    };
    assert_eq!(interleaved(&[1 << 20, 2], &[2, 1], 0), staged);
    assert_eq!(interleaved(&[4, 1 << 20], &[1, 4], 1), staged);
    assert_eq!(interleaved(&[3, 50_001, 4], &[200_004, 4, 1], 1), staged);
    assert_eq!(interleaved(&[896, 2], &[2, 1], 0), staged);
    assert!(!interleaved(&[895, 2], &[2, 1], 0), "shorter than one tile");
    let p = s
        .axis_plan::<i32>(&[1 << 20, 2], &[2, 1], Axis(0), Op::BitXor)
        .unwrap();
    assert!(
        !matches!(p.access, LaneAccess::InterleavedRows { .. }),
        "{p}"
    );
    let p = s
        .axis_plan::<f64>(&[1 << 20, 4], &[4, 1], Axis(0), Op::Sum)
        .unwrap();
    assert!(
        !matches!(p.access, LaneAccess::InterleavedRows { .. }),
        "{p}"
    );
    assert!(!interleaved(&[1 << 20, 3], &[3, 1], 0), "three lanes");
    assert!(!interleaved(&[1 << 20, 4], &[-4, 1], 0), "reversed rows");
    assert!(!interleaved(&[1 << 20, 8], &[8, 1], 0), "eight lanes");
    // Float sums: the same bits run after run.
    let x = Array2::from_shape_fn((1 << 20, 4), |(i, j)| {
        ((i * 7 + j) % 1000) as f32 * 0.001 + 0.1
    });
    let first = s.scan_axis(&x, Axis(0), Op::Sum).unwrap();
    for _ in 0..5 {
        assert_eq!(s.scan_axis(&x, Axis(0), Op::Sum).unwrap(), first);
    }
    // Device to device.
    let xi = x.mapv(|v| (v * 1000.0) as i32 % 7);
    let d = DeviceArrayD::from_array(&gpu, &xi).unwrap();
    let want = cpu::scan_axis(xi.view(), Axis(0), Op::Sum, ScanKind::Inclusive).unwrap();
    let mut out = DeviceArrayD::<i32>::zeros(&gpu, &[1 << 20, 4]).unwrap();
    let p = s.scan_axis_into(&d, Axis(0), Op::Sum, &mut out).unwrap();
    assert_eq!(
        matches!(p.access, LaneAccess::InterleavedRows { lanes: 4, .. }),
        staged,
        "{p}"
    );
    assert_eq!(out.to_array().unwrap(), want.into_dyn());
}

/// Long contiguous rows (the look-back-rows scan: each row its own single-pass scan): rows of
/// one tile, several tiles with a partial last one, rows starting unaligned (a 3-D array's
/// rows of odd length), every scalar type and operator, both kinds, the matrix monoid, and the
/// same float bits run after run.
fn check_rows<T: Element>(gpu: &Gpu) {
    for (rows, cols) in [
        (5usize, 100_003usize),
        (40, 9000),
        (2, 8192),
        (3, 70_001),
        (300, 1024),
        (7, 2047),
        (9, 4097),
    ] {
        for op in ops_for::<T>() {
            let x = Array2::from_shape_vec(
                (rows, cols),
                exact::<T>(rows * cols, op, (rows + cols) as u64),
            )
            .unwrap();
            for kind in KINDS {
                let want = cpu::scan_axis(x.view(), Axis(1), op, kind)
                    .unwrap()
                    .into_dyn();
                let got = scan_of(gpu, kind).scan_axis(&x, Axis(1), op).unwrap();
                assert_eq!(got, want, "{} {rows}x{cols} {op:?} {kind:?}", T::NAME);
            }
        }
    }
}

#[test]
fn look_back_rows_every_type_operator_and_kind() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_rows::<i32>(&gpu);
    check_rows::<u32>(&gpu);
    check_rows::<i64>(&gpu);
    check_rows::<u64>(&gpu);
    check_rows::<f32>(&gpu);
    check_rows::<f64>(&gpu);
    let s = Scan::new(&gpu);
    let p = s
        .axis_plan::<f32>(&[5, 100_003], &[100_003, 1], Axis(1), Op::Sum)
        .unwrap();
    assert!(
        matches!(p.access, LaneAccess::LookBackRows { .. }) && p.splits > 1,
        "{p}"
    );
    // Rows that fill a 1024-thread staged tile take it where the GPU has cp.async (sm_80+).
    let staged = gpu.properties().compute_capability >= (8, 0);
    let want_tile = if staged { 1024 * 56 } else { 1024 * 32 };
    assert_eq!(
        p.access,
        LaneAccess::LookBackRows { tile: want_tile },
        "{p}"
    );
    let p = s
        .axis_plan::<f32>(&[5, 1000], &[1000, 1], Axis(1), Op::Sum)
        .unwrap();
    assert!(!matches!(p.access, LaneAccess::LookBackRows { .. }), "{p}");
    // Matrix products keep their order along long rows.
    let mut g = SplitMix64::new(3);
    let m = Array2::from_shape_fn((3, 5000), |_| {
        Mat2([g.next_u64() as u32 % 5, 1, g.next_u64() as u32 % 3, 1])
    });
    for kind in KINDS {
        assert_eq!(
            scan_of(&gpu, kind).scan_axis_monoid(&m, Axis(1)).unwrap(),
            lanes_scanned(&m, 1, kind).into_dyn()
        );
    }
    // Rows of odd length inside a 3-D array: most rows start off a 16-byte boundary.
    let x = Array3::from_shape_fn((3, 4, 20_001), |(a, b, c)| {
        ((a * 5 + b * 3 + c) % 17) as i32
    });
    for kind in KINDS {
        let want = cpu::scan_axis(x.view(), Axis(2), Op::Sum, kind)
            .unwrap()
            .into_dyn();
        assert_eq!(
            scan_of(&gpu, kind).scan_axis(&x, Axis(2), Op::Sum).unwrap(),
            want
        );
    }
    // Float sums: the same bits run after run.
    let x = Array2::from_shape_fn((4, 300_000), |(i, j)| {
        ((i * 7 + j) % 1000) as f32 * 0.001 + 0.1
    });
    let first = s.scan_axis(&x, Axis(1), Op::Sum).unwrap();
    for _ in 0..5 {
        assert_eq!(s.scan_axis(&x, Axis(1), Op::Sum).unwrap(), first);
    }
}

#[test]
fn quickcheck_random_segments_match_the_cpu() {
    if gpu_or_skip().is_none() {
        return;
    }
    fn prop(lens: Vec<u16>, every: u8, excl: bool, seed: u64) -> TestResult {
        let gpu = &gpu_core::testing::shared_gpu().expect("checked above");
        let offsets = random_offsets(&lens, every);
        let n = *offsets.last().unwrap() as usize;
        let v = exact::<i32>(n, Op::Sum, seed);
        let kind = if excl {
            ScanKind::Exclusive
        } else {
            ScanKind::Inclusive
        };
        for op in [Op::Sum, Op::Min, Op::BitXor] {
            let want = cpu::segmented_scan(&v, &offsets, op, kind).unwrap();
            match scan_of(gpu, kind).segmented_scan(&v, &offsets, op) {
                Ok(g) if g == want => {}
                other => {
                    return TestResult::error(format!("{offsets:?} {op:?} {kind:?}: {other:?}"))
                }
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<u16>, u8, bool, u64) -> TestResult);
}

/// Segment tiles of 8- and 16-byte values (their status slots split into tagged words), small
/// enough for compute-sanitizer: segments crossing many tiles, empty ones and a long one, both
/// stagings, against the CPU.
#[test]
fn segment_tiles_sanitize_wide_values() {
    let Some(gpu) = gpu_or_skip() else { return };
    let offsets = offsets_with(40, 17, |k| if k % 7 == 0 { 0 } else { k % 9000 });
    let n = *offsets.last().unwrap() as usize;
    let segs = Segments::new(&gpu, &offsets, n).unwrap();
    let v = exact::<u64>(n, Op::Sum, 29);
    let f = exact::<f64>(n, Op::Max, 31);
    for kind in KINDS {
        for staging in STAGINGS {
            let s = scan_of(&gpu, kind).staging(staging);
            assert_eq!(
                s.segmented_scan(&v, &segs, Op::Sum).unwrap(),
                cpu::segmented_scan(&v, &offsets, Op::Sum, kind).unwrap()
            );
            assert_eq!(
                s.segmented_scan(&f, &segs, Op::Max).unwrap(),
                cpu::segmented_scan(&f, &offsets, Op::Max, kind).unwrap()
            );
        }
    }
    check_segmented_monoid(&gpu, &offsets, |i| Affine {
        a: 1.0f64,
        b: (i % 7) as f64,
    });
    check_segmented_monoid(&gpu, &offsets, |i| Mat2([(i % 3) as u32, 1, 1, 0]));
}

/// Segment tiles read an unaligned input (a device slice one element in) with scalar loads,
/// and float sums come out identical from run to run (the tile size alone fixes the order).
#[test]
fn segment_tiles_unaligned_inputs_and_repeatable_floats() {
    let Some(gpu) = gpu_or_skip() else { return };
    let offsets = offsets_with(5000, 21, |k| k % 40);
    let n = *offsets.last().unwrap() as usize;
    let v = exact::<f32>(n + 1, Op::Sum, 5);
    let d = gpu.upload(&v).unwrap();
    let slice = gpu_core::DeviceSlice::new(&d, 1..).unwrap();
    let segs = Segments::new(&gpu, &offsets, n).unwrap();
    for kind in KINDS {
        for staging in STAGINGS {
            let s = scan_of(&gpu, kind).staging(staging);
            let want = cpu::segmented_scan(&v[1..], &offsets, Op::Sum, kind).unwrap();
            assert_eq!(
                s.segmented_scan(&slice, &segs, Op::Sum).unwrap(),
                want,
                "{kind:?} {staging:?}"
            );
            // The same segments aligned: whole tiles in 16-byte vectors (and cp.async).
            let want = cpu::segmented_scan(&v[..n], &offsets, Op::Sum, kind).unwrap();
            assert_eq!(
                s.segmented_scan(&v[..n], &segs, Op::Sum).unwrap(),
                want,
                "{kind:?} {staging:?} aligned"
            );
        }
    }
    // Values with rounding: a long segment over many tiles, repeated bit for bit.
    let offsets = vec![0u64, 3, 3_000_000, 3_000_001, 4_000_000];
    let mut r = SplitMix64::new(9);
    let v: Vec<f32> = (0..4_000_000)
        .map(|_| (r.next_u64() % 1_000_003) as f32 * 1e-3)
        .collect();
    let s = Scan::new(&gpu);
    let first = s.segmented_scan(&v, &offsets, Op::Sum).unwrap();
    for _ in 0..3 {
        let again = s.segmented_scan(&v, &offsets, Op::Sum).unwrap();
        assert!(
            first
                .iter()
                .zip(&again)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "float segmented scans differ between runs"
        );
    }
    // Against exact-enough f64 sums: within f32 rounding of a long sum.
    let v64: Vec<f64> = v.iter().map(|&x| x as f64).collect();
    let want = cpu::segmented_scan(&v64, &offsets, Op::Sum, ScanKind::Inclusive).unwrap();
    let worst = first
        .iter()
        .zip(&want)
        .map(|(&a, &b)| ((a as f64 - b) / b.abs().max(1.0)).abs())
        .fold(0f64, f64::max);
    assert!(worst < 1e-4, "relative error {worst}");
}

fn check_scan_from<T: Element>(gpu: &Gpu) {
    for n in [0usize, 1, 31, 33, 255, 257, 4097, (1 << 20) + 5] {
        for op in ops_for::<T>() {
            let x: Vec<T> = exact(n, op, n as u64 + 41);
            let seed = exact::<T>(1, op, 7)[0];
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                let mut out = gpu.alloc::<T>(n).unwrap();
                Scan::new(gpu)
                    .kind(kind)
                    .scan_from_into(&x, &mut out, op, seed)
                    .unwrap();
                // The CPU scan of the input with the seed in front, less the seed's own slot.
                let mut with_seed = vec![seed];
                with_seed.extend_from_slice(&x);
                let want = cpu::scan(&with_seed, op, ScanKind::Inclusive).unwrap();
                let want = match kind {
                    ScanKind::Inclusive => want[1..].to_vec(),
                    ScanKind::Exclusive => want[..n].to_vec(),
                };
                assert_eq!(
                    out.to_vec().unwrap(),
                    want,
                    "{} n={n} {op:?} {kind:?}",
                    T::NAME
                );
                // In place: the same values.
                let mut data = gpu.upload(&x).unwrap();
                Scan::new(gpu)
                    .kind(kind)
                    .scan_from_in_place(&mut data, op, seed)
                    .unwrap();
                assert_eq!(
                    data.to_vec().unwrap(),
                    want,
                    "{} n={n} {op:?} {kind:?} in place",
                    T::NAME
                );
            }
        }
    }
}

/// Scans continued from a seed (one lane of the lane kernels, split across the device):
/// every type and operator against the CPU scan with the seed in front, inclusive and
/// exclusive, sizes from 0 past 2^20; a monoid in sequence order; bad output lengths.
#[test]
fn scans_from_a_seed() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_scan_from::<i32>(&gpu);
    check_scan_from::<u32>(&gpu);
    check_scan_from::<i64>(&gpu);
    check_scan_from::<u64>(&gpu);
    check_scan_from::<f32>(&gpu);
    check_scan_from::<f64>(&gpu);
    let m: Vec<Mat2<u32>> = (0..100_000u32)
        .map(|i| Mat2([i % 3, 1, 1, i % 2]))
        .collect();
    let seed = Mat2([2u32, 1, 0, 1]);
    let mut out = gpu.alloc::<Mat2<u32>>(m.len()).unwrap();
    Scan::new(&gpu)
        .scan_monoid_from_into(&m, &mut out, seed)
        .unwrap();
    let mut acc = seed;
    let want: Vec<Mat2<u32>> = m
        .iter()
        .map(|&v| {
            acc = Monoid::combine(acc, v);
            acc
        })
        .collect();
    assert_eq!(out.to_vec().unwrap(), want);
    let mut data = gpu.upload(&m).unwrap();
    Scan::new(&gpu)
        .scan_monoid_from_in_place(&mut data, seed)
        .unwrap();
    assert_eq!(data.to_vec().unwrap(), want, "monoid in place");
    let mut short = gpu.alloc::<i32>(3).unwrap();
    let e = Scan::new(&gpu)
        .scan_from_into(&[1i32, 2, 3, 4], &mut short, Op::Sum, 0)
        .unwrap_err();
    assert!(e.to_string().contains("out"), "{e}");
    let h = vec![gpu_core::f16::ONE; 4];
    let mut hout = gpu.alloc::<gpu_core::f16>(4).unwrap();
    let e = Scan::new(&gpu)
        .scan_from_into(&h, &mut hout, Op::Sum, gpu_core::f16::ONE)
        .unwrap_err();
    assert!(e.to_string().contains("f16"), "{e}");
}
