//! Shaped reductions on a real GPU — along every axis of arrays in C, Fortran, reversed and
//! permuted layouts, and over segments of every length distribution — against the CPU
//! references (exact: float data are small integers, or ±1 for products, so every combine
//! order gives the same bits). Skipped visibly without a GPU; failing with
//! GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::data::{exact, offsets_over, offsets_with, ops_for, random_offsets, SplitMix64};
use gpu_core::testing::gpu_or_skip;
use gpu_core::{Affine, DeviceArrayD, Element, Gpu, LaneAccess, Mat2, Monoid, Op, Segments};
use gpu_reduce::{cpu, DeviceMonoid, DeviceReduceAxis, Reduce, Workspace};
use ndarray::{s, Array2, Array3, ArrayD, ArrayView2, Axis, IxDyn, ShapeBuilder};
use quickcheck::{QuickCheck, TestResult};

/// (rows, cols) covering every access pattern: thread, group and block per lane, columns,
/// splits, empty and single lanes.
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

/// The layouts of a `rows × cols` array with the same logical values: C, Fortran, and a
/// reversed view (negative strides) of a larger array.
fn layouts<T: Element>(rows: usize, cols: usize, v: &[T]) -> Vec<(&'static str, Array2<T>, bool)> {
    let c = Array2::from_shape_vec((rows, cols), v.to_vec()).unwrap();
    let mut f = Array2::from_elem((rows, cols).f(), T::default());
    f.assign(&c);
    vec![
        ("C", c, false),
        ("F", f, false),
        ("reversed", Array2::default((0, 0)), true),
    ]
}

fn check_axis_all<T: Element>(gpu: &Gpu) {
    let r = Reduce::new(gpu);
    for &(rows, cols) in SHAPES {
        for op in ops_for::<T>() {
            let v = exact::<T>(rows * cols, op, (rows * 131 + cols) as u64);
            for (name, a, reversed) in layouts(rows, cols, &v) {
                let c = Array2::from_shape_vec((rows, cols), v.clone()).unwrap();
                let view: ArrayView2<'_, T> = if reversed {
                    c.slice(s![..;-1, ..;-1])
                } else {
                    a.view()
                };
                for axis in 0..2 {
                    let want = cpu::reduce_axis(view, Axis(axis), op).unwrap().into_dyn();
                    let got = r
                        .reduce_axis(&view, Axis(axis), op)
                        .unwrap_or_else(|e| panic!("{name} {rows}x{cols} axis {axis} {op:?}: {e}"));
                    if op == Op::Max && view.len_of(Axis(axis)) == 0 && !want.is_empty() {
                        // numpy's rule for the named extreme: no value, an error.
                        assert!(r.max_axis(&view, Axis(axis)).is_err());
                        assert!(r.min_axis(&view, Axis(axis)).is_err());
                    }
                    assert_eq!(
                        got,
                        want,
                        "{} {name} {rows}x{cols} axis {axis} {op:?}",
                        T::NAME
                    );
                }
            }
        }
    }
}

#[test]
fn axis_reductions_every_type_operator_layout_and_shape() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_axis_all::<i32>(&gpu);
    check_axis_all::<u32>(&gpu);
    check_axis_all::<i64>(&gpu);
    check_axis_all::<u64>(&gpu);
    check_axis_all::<f32>(&gpu);
    check_axis_all::<f64>(&gpu);
    check_axis_all::<gpu_core::f16>(&gpu);
    check_axis_all::<gpu_core::bf16>(&gpu);
}

/// Lanes of more tiles than the general kernel's grid (at most four resident waves, about 4200
/// blocks on an H100): each block walks several tiles, for every lane mapping it has (a thread,
/// a group, a warp and several warps per lane), plain, argmax and ordered monoid kernels.
#[test]
fn axis_reductions_of_more_tiles_than_the_grid() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    // rows × cols along axis 1 (C order): 256 lanes per tile for rows of 3, 128 for rows of
    // 100 (groups of 2), 8 for rows of 1024 (a warp each), 1 for rows of 8200 (8 warps each).
    for (rows, cols) in [
        (1_200_007, 3),
        (600_001, 100),
        (40_003, 1024),
        (9_001, 8200),
    ] {
        let plan = r.axis_plan::<i32>(&[rows, cols], &[cols as isize, 1], Axis(1), Op::Sum);
        let plan = plan.unwrap();
        let p = gpu.properties();
        let most_resident = p.sm_count as u64 * (p.max_threads_per_sm as u64 / 256);
        assert!(
            plan.tiles > 4 * most_resident,
            "{rows}x{cols}: {} tiles for a grid of at most {}",
            plan.tiles,
            4 * most_resident
        );
        for op in [Op::Sum, Op::Max] {
            let v = exact::<i32>(rows * cols, op, (rows + cols) as u64);
            let x = Array2::from_shape_vec((rows, cols), v).unwrap();
            let want = cpu::reduce_axis(x.view(), Axis(1), op).unwrap().into_dyn();
            let got = r.reduce_axis(&x, Axis(1), op).unwrap();
            assert_eq!(got, want, "{rows}x{cols} {op:?}");
            if op == Op::Max {
                let got = r.argmax_axis(&x, Axis(1)).unwrap();
                for (i, row) in x.rows().into_iter().enumerate() {
                    let first = row.iter().position(|&e| e == want[[i]]).unwrap();
                    assert_eq!(got[[i]], first, "argmax {rows}x{cols} row {i}");
                }
            }
        }
        if cols != 3 {
            continue; // the monoid over the shortest rows only: 16 bytes a value
        }
        let m: Vec<Mat2<u32>> = (0..rows * cols)
            .map(|i| Mat2([(i % 5) as u32, 1, (i % 3) as u32, 1]))
            .collect();
        let x = Array2::from_shape_vec((rows, cols), m).unwrap();
        let got = r.reduce_axis_monoid(&x, Axis(1)).unwrap();
        for (i, row) in x.rows().into_iter().enumerate() {
            let want = row
                .iter()
                .fold(Mat2::identity(), |a, &b| Monoid::combine(a, b));
            assert_eq!(got[[i]], want, "mat2 {rows}x{cols} row {i}");
        }
    }
}

fn check_arg_axis<T: Element>(gpu: &Gpu) {
    let r = Reduce::new(gpu);
    for &(rows, cols) in SHAPES {
        // Few distinct values: many ties, so "the first" is tested.
        let mut v: Vec<T> = exact::<T>(rows * cols, Op::Sum, 7 + rows as u64)
            .into_iter()
            .map(|x| T::from_f64(x.to_f64().rem_euclid(3.0)))
            .collect();
        if T::IS_FLOAT && v.len() > 10 {
            let n = v.len();
            v[n / 3] = T::from_f64(f64::NAN);
            v[n / 2] = T::from_f64(f64::NAN);
        }
        let c = Array2::from_shape_vec((rows, cols), v).unwrap();
        for view in [c.view(), c.t(), c.slice(s![..;-1, ..])] {
            for axis in 0..2 {
                let lanes_exist = view.len_of(Axis(1 - axis)) > 0;
                if view.len_of(Axis(axis)) == 0 && lanes_exist {
                    assert!(r.argmin_axis(&view, Axis(axis)).is_err());
                    continue;
                }
                let want = cpu::argmin_axis(view, Axis(axis)).unwrap().into_dyn();
                assert_eq!(
                    r.argmin_axis(&view, Axis(axis)).unwrap(),
                    want,
                    "argmin {} {rows}x{cols} axis {axis}",
                    T::NAME
                );
                let want = cpu::argmax_axis(view, Axis(axis)).unwrap().into_dyn();
                assert_eq!(
                    r.argmax_axis(&view, Axis(axis)).unwrap(),
                    want,
                    "argmax {} {rows}x{cols} axis {axis}",
                    T::NAME
                );
            }
        }
    }
}

#[test]
fn argmin_argmax_along_axes_give_the_first_extreme_and_first_nan() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_arg_axis::<i32>(&gpu);
    check_arg_axis::<u64>(&gpu);
    check_arg_axis::<f32>(&gpu);
    check_arg_axis::<f64>(&gpu);
    check_arg_axis::<gpu_core::f16>(&gpu);
    check_arg_axis::<gpu_core::bf16>(&gpu);
}

#[test]
fn widening_and_monoid_reductions_along_axes() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    for &(rows, cols) in SHAPES {
        let big: Vec<i32> = (0..rows * cols)
            .map(|i| i32::MAX - (i as i32 % 7))
            .collect();
        let x = Array2::from_shape_vec((rows, cols), big).unwrap();
        for axis in 0..2 {
            let want = x.mapv(|v| v as i64).sum_axis(Axis(axis)).into_dyn();
            assert_eq!(r.reduce_axis_wide(&x, Axis(axis), Op::Sum).unwrap(), want);
            let f = x.mapv(|v| (v % 1000) as f32);
            let want = f.mapv(|v| v as f64).sum_axis(Axis(axis)).into_dyn();
            assert_eq!(r.reduce_axis_wide(&f, Axis(axis), Op::Sum).unwrap(), want);
        }
        // 2×2 matrices: the order along the lane matters.
        let mut g = SplitMix64::new(rows as u64);
        let m: Vec<Mat2<u32>> = (0..rows * cols)
            .map(|_| Mat2([g.next_u64() as u32 % 5, 1, g.next_u64() as u32 % 3, 1]))
            .collect();
        let x = Array2::from_shape_vec((rows, cols), m).unwrap();
        for axis in 0..2 {
            let got = r.reduce_axis_monoid(&x.t(), Axis(axis)).unwrap();
            let want: Vec<Mat2<u32>> = x
                .t()
                .lanes(Axis(axis))
                .into_iter()
                .map(|lane| {
                    lane.iter()
                        .fold(Mat2::identity(), |a, &b| Monoid::combine(a, b))
                })
                .collect();
            assert_eq!(
                got.iter().copied().collect::<Vec<_>>(),
                want,
                "mat2 {rows}x{cols} axis {axis}"
            );
        }
        let a: Vec<Affine<f64>> = (0..rows * cols)
            .map(|i| Affine {
                a: if i % 3 == 0 { -1.0 } else { 1.0 },
                b: (i % 5) as f64,
            })
            .collect();
        let x = Array2::from_shape_vec((rows, cols), a).unwrap();
        for axis in 0..2 {
            let got = r.reduce_axis_monoid(&x, Axis(axis)).unwrap();
            let want: Vec<Affine<f64>> = x
                .lanes(Axis(axis))
                .into_iter()
                .map(|lane| {
                    lane.iter()
                        .fold(Affine::identity(), |acc, &b| Monoid::combine(acc, b))
                })
                .collect();
            assert_eq!(
                got.iter().copied().collect::<Vec<_>>(),
                want,
                "affine {rows}x{cols} axis {axis}"
            );
        }
    }
    // Monoid values are DeviceMonoid (the trait the GPU needs).
    fn _is_device<M: DeviceMonoid>() {}
    _is_device::<Mat2<u32>>();
}

#[test]
fn three_and_four_dimensional_arrays_in_every_axis_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    let v = exact::<i64>(6 * 7 * 9 * 5, Op::Sum, 99);
    let x4 = ArrayD::from_shape_vec(IxDyn(&[6, 7, 9, 5]), v).unwrap();
    // Permutations whose other axes do not merge into two (several batches).
    for perm in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]] {
        let p = x4.view().permuted_axes(IxDyn(&perm));
        for axis in 0..4 {
            let want = cpu::reduce_axis(p.view(), Axis(axis), Op::Sum).unwrap();
            assert_eq!(
                r.sum_axis(&p, Axis(axis)).unwrap(),
                want,
                "perm {perm:?} axis {axis}"
            );
            // Device-resident, permuted on the device (no data moved), same result.
            let d = DeviceArrayD::from_array(&gpu, &x4)
                .unwrap()
                .permuted_axes(&perm)
                .unwrap();
            assert_eq!(d.sum_axis(Axis(axis)).unwrap().to_array().unwrap(), want);
        }
    }
    let x3 = Array3::from_shape_fn((4, 300, 3), |(i, j, k)| (i * 1000 + j * 3 + k) as u32);
    for axis in 0..3 {
        let want = cpu::reduce_axis(x3.view(), Axis(axis), Op::Max).unwrap();
        assert_eq!(r.max_axis(&x3, Axis(axis)).unwrap(), want.into_dyn());
    }
}

#[test]
fn device_results_stay_on_the_device_and_the_plan_is_visible() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    let x = Array2::from_shape_fn((4100, 64), |(i, j)| ((i * 7 + j) % 13) as f32);
    let d = DeviceArrayD::from_array(&gpu, &x).unwrap();
    let mut out = DeviceArrayD::<f32>::zeros(&gpu, &[64]).unwrap();
    let mut ws = Workspace::new(&gpu).unwrap();
    let plan = r
        .reduce_axis_into(&d, Axis(0), Op::Sum, &mut out, &mut ws)
        .unwrap();
    assert_eq!(
        plan.access,
        LaneAccess::VectorColumns {
            groups_across: 16,
            lanes_per_vector: 4,
            rows_per_thread: 8,
            threads_down: 16,
            prefetch: 0,
        }
    );
    assert!(plan.splits > 1, "{plan}");
    assert_eq!(out.to_array().unwrap(), x.sum_axis(Axis(0)).into_dyn());
    let mut rows = DeviceArrayD::<f32>::zeros(&gpu, &[4100]).unwrap();
    let plan = r
        .reduce_axis_into(&d, Axis(1), Op::Sum, &mut rows, &mut ws)
        .unwrap();
    assert_eq!(plan.access, LaneAccess::PackedRows { log2_len: 6 });
    assert_eq!(rows.to_array().unwrap(), x.sum_axis(Axis(1)).into_dyn());
    let shown = r
        .axis_plan::<f32>(&[4100, 64], &[64, 1], Axis(1), Op::Sum)
        .unwrap();
    assert_eq!(shown, plan);
    let mut idx = DeviceArrayD::<u64>::zeros(&gpu, &[64]).unwrap();
    r.argmax_axis_into(&d, Axis(0), &mut idx, &mut ws).unwrap();
    let want = cpu::argmax_axis(x.view(), Axis(0)).unwrap();
    assert_eq!(
        idx.to_array().unwrap().mapv(|k| k as usize),
        want.into_dyn()
    );
}

/// Mostly 1 … 8 values (segment tiles), every thousandth segment 30000 long (crossing tiles
/// that hold no start).
fn short_with_long_ones() -> Vec<u64> {
    offsets_with(
        100_000,
        7,
        |k| if k % 1000 == 0 { 30_000 } else { 1 + k % 8 },
    )
}

fn segment_cases() -> Vec<(&'static str, Vec<u64>)> {
    vec![
        ("none", vec![0]),
        ("one empty", vec![0, 0]),
        ("one value", vec![0, 1]),
        ("short with long ones", short_with_long_ones()),
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
            let lens = [8191, 8192, 8193, 16384, 1, 32768, 32767];
            offsets_with(40, 6, |k| lens[(k % 7) as usize])
        }),
        ("zeros and ones", offsets_with(1000, 1, |k| k % 2)),
        ("1-8", offsets_with(20_000, 2, |k| 1 + k % 8)),
        ("0-2000", offsets_with(300, 3, |k| k % 2001)),
        ("few long", offsets_with(3, 4, |k| 100_000 + k % 50_000)),
        ("mixed", {
            let mut o = offsets_with(50, 5, |k| k % 5);
            let last = *o.last().unwrap();
            o.push(last + 300_000);
            o.push(last + 300_000);
            o.push(last + 300_003);
            o
        }),
    ]
}

fn check_segments<T: Element>(gpu: &Gpu) {
    let r = Reduce::new(gpu);
    for (name, offsets) in segment_cases() {
        let n = *offsets.last().unwrap() as usize;
        let segs = Segments::new(gpu, &offsets, n).unwrap();
        for op in ops_for::<T>() {
            let v = exact::<T>(n, op, n as u64 + 3);
            let want = cpu::segmented_reduce(&v, &offsets, op).unwrap();
            assert_eq!(
                r.segmented_reduce(&v, &segs, op).unwrap(),
                want,
                "{} {name} {op:?}",
                T::NAME
            );
            // Device values: the lane kernels where segments are long on average (host values
            // take segment tiles at every length).
            assert_eq!(
                r.segmented_reduce(&gpu.upload(&v).unwrap(), &segs, op)
                    .unwrap(),
                want,
                "{} {name} {op:?} from the device",
                T::NAME
            );
        }
        let v = exact::<T>(n, Op::Sum, 17);
        let want: Vec<Option<T>> = offsets
            .windows(2)
            .map(|w| cpu::min(&v[w[0] as usize..w[1] as usize]))
            .collect();
        assert_eq!(r.segmented_min(&v, &offsets).unwrap(), want, "{name} min");
        assert_eq!(
            r.segmented_argmin(&v, &segs).unwrap(),
            cpu::segmented_argmin(&v, &offsets).unwrap()
        );
        assert_eq!(
            r.segmented_argmax(&v, &segs).unwrap(),
            cpu::segmented_argmax(&v, &offsets).unwrap()
        );
        let d = gpu.upload(&v).unwrap();
        assert_eq!(
            r.segmented_argmin(&d, &segs).unwrap(),
            cpu::segmented_argmin(&v, &offsets).unwrap()
        );
        assert_eq!(
            r.segmented_argmax(&d, &segs).unwrap(),
            cpu::segmented_argmax(&v, &offsets).unwrap()
        );
    }
}

#[test]
fn segmented_reductions_every_type_and_length_distribution() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_segments::<i32>(&gpu);
    check_segments::<u32>(&gpu);
    check_segments::<i64>(&gpu);
    check_segments::<u64>(&gpu);
    check_segments::<f32>(&gpu);
    check_segments::<f64>(&gpu);
    check_segments::<gpu_core::f16>(&gpu);
    check_segments::<gpu_core::bf16>(&gpu);
    let r = Reduce::new(&gpu);
    let offsets = offsets_with(500, 9, |k| k % 700);
    let n = *offsets.last().unwrap() as usize;
    let v: Vec<u32> = (0..n).map(|i| u32::MAX - i as u32 % 3).collect();
    let want: Vec<u64> = offsets
        .windows(2)
        .map(|w| {
            v[w[0] as usize..w[1] as usize]
                .iter()
                .map(|&x| x as u64)
                .sum()
        })
        .collect();
    assert_eq!(
        r.segmented_reduce_wide(&v, &offsets, Op::Sum).unwrap(),
        want
    );
    let m: Vec<Mat2<u64>> = (0..n).map(|i| Mat2([i as u64 % 3, 1, 1, 0])).collect();
    let want: Vec<Mat2<u64>> = offsets
        .windows(2)
        .map(|w| {
            m[w[0] as usize..w[1] as usize]
                .iter()
                .fold(Mat2::identity(), |a, &b| Monoid::combine(a, b))
        })
        .collect();
    assert_eq!(r.segmented_reduce_monoid(&m, &offsets).unwrap(), want);
}

#[test]
fn bad_shapes_and_offsets_are_clear_errors() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    let x = Array2::<i32>::zeros((3, 4));
    let e = r.sum_axis(&x, Axis(2)).unwrap_err().to_string();
    assert!(e.contains("axis 2"), "{e}");
    let v = vec![1i32; 5];
    for (bad, what) in [
        (vec![1u64, 5], "first"),
        (vec![0u64, 3, 2, 5], "offsets[2]"),
        (vec![0u64, 6], "6"),
        (vec![0u64, 4], "4"),
        (vec![], "empty"),
    ] {
        let e = r.segmented_sum(&v, &bad).unwrap_err().to_string();
        assert!(e.contains("offsets"), "{bad:?}: {e}");
        let _ = what;
    }
    let segs = Segments::new(&gpu, &[0, 2, 5], 5).unwrap();
    let e = r
        .segmented_sum(&vec![1i32; 6], &segs)
        .unwrap_err()
        .to_string();
    assert!(e.contains("offsets") && e.contains('6'), "{e}");
    let d = DeviceArrayD::from_array(&gpu, &x).unwrap();
    let mut wrong = DeviceArrayD::<i32>::zeros(&gpu, &[3]).unwrap();
    let mut ws = Workspace::new(&gpu).unwrap();
    let e = r
        .reduce_axis_into(&d, Axis(0), Op::Sum, &mut wrong, &mut ws)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out") && e.contains("[4]"), "{e}");
    // Strides that alias (a broadcast column) are refused when the array is built.
    let buf = gpu.zeros::<i32>(12).unwrap();
    let e = DeviceArrayD::from_parts(buf, 0, &[3, 4], &[0, 1])
        .unwrap_err()
        .to_string();
    assert!(e.contains("strides"), "{e}");
    let buf = gpu.zeros::<i32>(12).unwrap();
    assert!(
        DeviceArrayD::from_parts(buf, 0, &[3, 4], &[4, 2]).is_err(),
        "past the end"
    );
}

#[test]
fn more_than_two_to_the_31_values() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 3;
    let mut ones = gpu.alloc::<u32>(n).unwrap();
    ones.fill(1, gpu.stream()).unwrap();
    let d = DeviceArrayD::from_device(ones, &[1, n]).unwrap();
    let r = Reduce::new(&gpu);
    let sums = r.reduce_axis_wide(&d, Axis(1), Op::Sum).unwrap();
    assert_eq!(sums[[0]], n as u64);
    let offsets = vec![0, 5, (1u64 << 31) + 1, n as u64];
    let data = d.into_data();
    let got = r.segmented_reduce_wide(&data, &offsets, Op::Sum).unwrap();
    assert_eq!(got, vec![5, (1 << 31) - 4, 2]);
    // Short segments past 2^31 values (a thread per segment): 15 values each, 7 at the end.
    let mut offsets: Vec<u64> = (0..=(n as u64 / 15)).map(|k| k * 15).collect();
    offsets.push(n as u64);
    let segs = Segments::new(&gpu, &offsets, n).unwrap();
    let plan = r.segments_plan::<u32>(&segs, Op::Sum).unwrap();
    assert!(
        matches!(plan.access, LaneAccess::ShortSegments { .. }),
        "{plan}"
    );
    let got = r.segmented_sum(&data, &segs).unwrap();
    assert_eq!(got.len(), offsets.len() - 1);
    assert!(got[..got.len() - 1].iter().all(|&s| s == 15));
    assert_eq!(*got.last().unwrap(), (n % 15) as u32);
}

#[test]
fn quickcheck_random_shapes_strides_and_axes_match_the_cpu() {
    if gpu_or_skip().is_none() {
        return;
    }
    fn prop(d0: u8, d1: u8, d2: u8, axis: u8, perm: u8, rev: u8, seed: u64) -> TestResult {
        let gpu = &gpu_core::testing::shared_gpu().expect("checked above");
        let dims = (d0 as usize % 9, d1 as usize % 40, d2 as usize % 300);
        let axis = axis as usize % 3;
        let n = dims.0 * dims.1 * dims.2;
        let v = exact::<i32>(n, Op::Sum, seed);
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
        let r = Reduce::new(gpu);
        for op in [Op::Sum, Op::Max, Op::BitXor] {
            let want = cpu::reduce_axis(view, Axis(axis), op);
            let got = r.reduce_axis(&view, Axis(axis), op);
            match (want, got) {
                (Ok(w), Ok(g)) if w.view().into_dyn() == g => {}
                (Err(_), Err(_)) => {}
                (w, g) => {
                    return TestResult::error(format!(
                        "{dims:?} axis {axis} {op:?}: {w:?} vs {g:?}"
                    ))
                }
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(u8, u8, u8, u8, u8, u8, u64) -> TestResult);
}

/// Small cases of every lane mapping (thread, group and block per lane, columns, packed rows
/// with a partial last vector, splits with the last-arrival merge, segments), for
/// compute-sanitizer (`lanes_sanitize` filter): f32 (and i32 xor: the columns kernels' lanes of
/// one or two rows a vector), f16 (its columns, eight lanes a vector or four over two rows).
#[test]
fn lanes_sanitize_every_mapping() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    for (rows, cols) in [
        (7, 5),
        (1000, 2),
        (1000, 4),
        (1001, 1),
        (1001, 2),
        (9, 128),
        (4100, 64),
        (64, 4100),
        (3, 70_000),
        // Rows 1 and 2 start unaligned: contiguous splits beside interleaved ones.
        (3, 70_001),
        (20_000, 5),
        (50_000, 12),
        // Short lanes side by side, a thread each (the scan's short kernel).
        (2, 4096),
        (7, 2048),
        (5, 100_000),
        // Two 16-bit lanes side by side: four rows a vector, a thread down (the general
        // kernel, never the short one), in one split and in many.
        (4, 2),
        (24, 2),
        (400_000, 2),
    ] {
        let v = exact::<f32>(rows * cols, Op::Sum, 5);
        let x = Array2::from_shape_vec((rows, cols), v).unwrap();
        let m = x.mapv(|v| Affine {
            a: if v < 0.0 { -1.0f32 } else { 1.0 },
            b: v,
        });
        for axis in 0..2 {
            assert_eq!(
                r.sum_axis(&x, Axis(axis)).unwrap(),
                cpu::sum_axis(x.view(), Axis(axis)).unwrap().into_dyn()
            );
            assert_eq!(
                r.argmax_axis(&x, Axis(axis)).unwrap(),
                cpu::argmax_axis(x.view(), Axis(axis)).unwrap().into_dyn()
            );
            let want: Vec<Affine<f32>> = m
                .lanes(Axis(axis))
                .into_iter()
                .map(|lane| {
                    lane.iter()
                        .fold(Affine::identity(), |a, &b| Monoid::combine(a, b))
                })
                .collect();
            let got = r.reduce_axis_monoid(&m, Axis(axis)).unwrap();
            assert_eq!(got.iter().copied().collect::<Vec<_>>(), want);
            let xi = x.mapv(|v| v as i32);
            assert_eq!(
                r.reduce_axis(&xi, Axis(axis), Op::BitXor).unwrap(),
                cpu::reduce_axis(xi.view(), Axis(axis), Op::BitXor)
                    .unwrap()
                    .into_dyn()
            );
            let h = x.mapv(gpu_core::f16::from_f32);
            assert_eq!(
                r.max_axis(&h, Axis(axis)).unwrap(),
                cpu::reduce_axis(h.view(), Axis(axis), Op::Max)
                    .unwrap()
                    .mapv(gpu_core::f16::from_f32)
                    .into_dyn()
            );
            assert_eq!(
                r.sum_axis(&h, Axis(axis)).unwrap(),
                cpu::reduce_axis(h.view(), Axis(axis), Op::Sum)
                    .unwrap()
                    .into_dyn()
            );
            assert_eq!(
                r.argmax_axis(&h, Axis(axis)).unwrap(),
                cpu::argmax_axis(h.view(), Axis(axis)).unwrap().into_dyn()
            );
        }
    }
    // Short segments with some long ones (segment tiles, or a thread per short segment and the
    // long ones by the lane kernels) and, for long segments on average, the lane kernels with
    // splits.
    for (offsets, short) in [
        (short_with_long_ones(), true),
        (vec![0u64, 2_400_000, 2_400_003], false),
    ] {
        let n = *offsets.last().unwrap() as usize;
        let v = exact::<i32>(n, Op::Sum, 3);
        let segs = Segments::new(&gpu, &offsets, v.len()).unwrap();
        let plan = r.segments_plan::<i32>(&segs, Op::Sum).unwrap();
        assert!(short || plan.splits > 1, "{plan}");
        // Device values, which take that plan (host values take segment tiles at every
        // length); host values too.
        let d = gpu.upload(&v).unwrap();
        for got in [
            r.segmented_sum(&d, &segs).unwrap(),
            r.segmented_sum(&v, &segs).unwrap(),
        ] {
            assert_eq!(got, cpu::segmented_reduce(&v, &offsets, Op::Sum).unwrap());
        }
        for got in [
            r.segmented_argmin(&d, &segs).unwrap(),
            r.segmented_argmin(&v, &segs).unwrap(),
        ] {
            assert_eq!(got, cpu::segmented_argmin(&v, &offsets).unwrap());
        }
    }
}

/// Rows of every power-of-two length up to past the packed limit (32 vectors), row counts that
/// leave a partial last vector, every type and operator, argmin/argmax and widening sums: the
/// packed-rows kernels against the CPU, and the plan reporting them.
fn check_packed_rows<T: Element>(gpu: &Gpu) {
    let r = Reduce::new(gpu);
    let vector = 16 / std::mem::size_of::<T>();
    for log2n in 0..=10 {
        let n = 1usize << log2n;
        for rows in [1usize, 3, 7, 1000, 4097] {
            let packed = n <= 32 * vector;
            let plan = r
                .axis_plan::<T>(&[rows, n], &[n as isize, 1], Axis(1), Op::Sum)
                .unwrap();
            assert_eq!(
                matches!(plan.access, LaneAccess::PackedRows { .. }),
                packed,
                "{} rows of {n}: {plan}",
                T::NAME
            );
            for op in ops_for::<T>() {
                let x =
                    Array2::from_shape_vec((rows, n), exact::<T>(rows * n, op, (rows + n) as u64))
                        .unwrap();
                let want = cpu::reduce_axis(x.view(), Axis(1), op).unwrap().into_dyn();
                assert_eq!(
                    r.reduce_axis(&x, Axis(1), op).unwrap(),
                    want,
                    "{} {rows}x{n} {op:?}",
                    T::NAME
                );
            }
            let mut v: Vec<T> = exact::<T>(rows * n, Op::Sum, 3 + n as u64)
                .into_iter()
                .map(|x| T::from_f64(x.to_f64().rem_euclid(3.0)))
                .collect();
            if T::IS_FLOAT && v.len() > 10 {
                let k = v.len() / 2;
                v[k] = T::from_f64(f64::NAN);
            }
            let x = Array2::from_shape_vec((rows, n), v).unwrap();
            assert_eq!(
                r.argmin_axis(&x, Axis(1)).unwrap(),
                cpu::argmin_axis(x.view(), Axis(1)).unwrap().into_dyn(),
                "argmin {} {rows}x{n}",
                T::NAME
            );
            assert_eq!(
                r.argmax_axis(&x, Axis(1)).unwrap(),
                cpu::argmax_axis(x.view(), Axis(1)).unwrap().into_dyn(),
                "argmax {} {rows}x{n}",
                T::NAME
            );
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
    check_packed_rows::<gpu_core::f16>(&gpu);
    check_packed_rows::<gpu_core::bf16>(&gpu);
    // Widening sums over packed rows (i32 near the top of its range: the sum overflows i32).
    let r = Reduce::new(&gpu);
    for n in [1usize, 2, 4, 64, 128] {
        let x = Array2::from_shape_fn((1001, n), |(i, j)| i32::MAX - ((i + j) % 7) as i32);
        let want = x.mapv(|v| v as i64).sum_axis(Axis(1)).into_dyn();
        assert_eq!(
            r.reduce_axis_wide(&x, Axis(1), Op::Sum).unwrap(),
            want,
            "rows of {n}"
        );
        // A packed 3-D array along its last axis.
        let x3 = ndarray::Array3::from_shape_fn((3, 333, n), |(a, b, c)| {
            (a * 7 + b * 3 + c) as i32 % 11
        });
        let want3 = x3.sum_axis(Axis(2)).into_dyn();
        assert_eq!(r.sum_axis(&x3, Axis(2)).unwrap(), want3, "3-D rows of {n}");
        // The same rows starting one element into a device buffer: not 16-byte aligned, so
        // the general path runs, with the same results.
        let mut flat = vec![99i32];
        flat.extend(x3.iter().copied());
        let shifted = DeviceArrayD::from_parts(
            gpu.upload(&flat).unwrap(),
            1,
            &[3, 333, n],
            &[333 * n as isize, n as isize, 1],
        )
        .unwrap();
        assert_eq!(
            r.sum_axis(&shifted, Axis(2)).unwrap(),
            want3,
            "unaligned rows of {n}"
        );
    }
}

/// Packed rows of 1, 2, 4 and 8 values (several lanes per vector: the kernel stores their
/// results with vector stores) reduced into device outputs, row counts around a warp and a
/// block: the results of the CPU (compute-sanitizer's memcheck over this test finds any store
/// past the output).
fn check_packed_rows_into<T: Element>(gpu: &Gpu) {
    let r = Reduce::new(gpu);
    let mut ws = Workspace::new(gpu).unwrap();
    for n in [1usize, 2, 4, 8] {
        for rows in [1usize, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 4097] {
            for op in [Op::Sum, Op::Max] {
                let v = exact::<T>(rows * n, op, (rows * 7 + n) as u64);
                let x = Array2::from_shape_vec((rows, n), v).unwrap();
                let want = cpu::reduce_axis(x.view(), Axis(1), op).unwrap();
                let mut out = DeviceArrayD::<T::Accumulator>::zeros(gpu, &[rows]).unwrap();
                let plan = r
                    .reduce_axis_into(&x, Axis(1), op, &mut out, &mut ws)
                    .unwrap();
                let what = format!("{} {rows}x{n} {op:?}", T::NAME);
                assert!(
                    matches!(plan.access, LaneAccess::PackedRows { .. }),
                    "{what}: {plan}"
                );
                assert_eq!(out.to_array().unwrap(), want.into_dyn(), "{what}");
            }
        }
    }
}

#[test]
fn packed_rows_into_device_outputs() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_packed_rows_into::<f32>(&gpu);
    check_packed_rows_into::<i32>(&gpu);
    check_packed_rows_into::<f64>(&gpu);
    check_packed_rows_into::<gpu_core::f16>(&gpu);
    check_packed_rows_into::<gpu_core::bf16>(&gpu);
}

/// Rows of 40 … 1024 values that are not packed rows (lengths that are not powers of two, or
/// longer than 128 f32): a thread, a group or a warp per row, in one split, which launches the
/// in-warp form of the axis lane kernels (`reduce_axis_in_warp_*`). Every operator, argmin and
/// argmax against the CPU, C order along axis 1 and Fortran order along axis 0; odd lengths
/// start rows at every alignment.
fn check_in_warp_rows<T: Element>(gpu: &Gpu) {
    let r = Reduce::new(gpu);
    for cols in [40usize, 333, 1000, 1024] {
        let rows = 3001;
        for op in ops_for::<T>() {
            let v = exact::<T>(rows * cols, op, cols as u64);
            let c = Array2::from_shape_vec((rows, cols), v.clone()).unwrap();
            let f = Array2::from_shape_vec((cols, rows).f(), v).unwrap();
            for (what, x, axis) in [("C axis 1", c.into_dyn(), 1), ("F axis 0", f.into_dyn(), 0)] {
                let what = format!("{} {rows}x{cols} {what} {op:?}", T::NAME);
                let plan = r
                    .axis_plan::<T>(x.shape(), x.strides(), Axis(axis), op)
                    .unwrap();
                assert!(
                    plan.in_one_warp()
                        && matches!(
                            plan.access,
                            LaneAccess::ThreadPerLane | LaneAccess::GroupPerLane(_)
                        ),
                    "{what}: {plan}"
                );
                let want = cpu::reduce_axis(x.view(), Axis(axis), op).unwrap();
                assert_eq!(r.reduce_axis(&x, Axis(axis), op).unwrap(), want, "{what}");
                if op == Op::Max {
                    assert_eq!(
                        r.argmax_axis(&x, Axis(axis)).unwrap(),
                        cpu::argmax_axis(x.view(), Axis(axis)).unwrap(),
                        "{what} argmax"
                    );
                    assert_eq!(
                        r.argmin_axis(&x, Axis(axis)).unwrap(),
                        cpu::argmin_axis(x.view(), Axis(axis)).unwrap(),
                        "{what} argmin"
                    );
                }
            }
        }
    }
}

#[test]
fn medium_rows_take_the_in_warp_form() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_in_warp_rows::<f32>(&gpu);
    check_in_warp_rows::<i32>(&gpu);
    check_in_warp_rows::<u64>(&gpu);
    check_in_warp_rows::<f64>(&gpu);
    check_in_warp_rows::<gpu_core::f16>(&gpu);
}

/// Many lanes of more vector rows than one step (13 and 40 rows; 2^20 lanes of 4-byte values,
/// 2^21 of 8-byte: enough blocks of 256 lane groups to fill an H100 or H200): the
/// thread-per-group columns kernel walks each lane's rows in steps, the remainder rows
/// included; lanes of 2 and 3 rows take its one-step form (two lane groups per thread). Every plain operator against the CPU, C order along axis 0, Fortran order along
/// axis 1 and the middle axis of a 3-D array, each checked to take that kernel.
fn check_thread_columns<T: Element>(gpu: &Gpu, rows_list: &[usize]) {
    let r = Reduce::new(gpu);
    // 2^18 lane groups of 16 bytes: 1024 blocks of 256, enough to fill any GPU.
    let lanes = (1usize << 22) / std::mem::size_of::<T>();
    for &rows in rows_list {
        for op in ops_for::<T>() {
            let v = exact::<T>(rows * lanes, op, rows as u64);
            let c = Array2::from_shape_vec((rows, lanes), v.clone()).unwrap();
            let f = Array2::from_shape_vec((lanes, rows).f(), v.clone()).unwrap();
            let x3 = Array3::from_shape_vec((2, rows, lanes / 2), v).unwrap();
            let cases = [
                ("C axis 0", c.into_dyn(), 0),
                ("F axis 1", f.into_dyn(), 1),
                ("3-D axis 1", x3.into_dyn(), 1),
            ];
            for (what, x, axis) in cases {
                let what = format!("{} {rows} rows {what} {op:?}", T::NAME);
                let plan = r
                    .axis_plan::<T>(x.shape(), x.strides(), Axis(axis), op)
                    .unwrap();
                assert!(
                    matches!(
                        plan.access,
                        LaneAccess::VectorColumns {
                            threads_down: 1,
                            ..
                        }
                    ),
                    "{what}: {plan}"
                );
                let want = cpu::reduce_axis(x.view(), Axis(axis), op).unwrap();
                assert_eq!(r.reduce_axis(&x, Axis(axis), op).unwrap(), want, "{what}");
            }
        }
    }
}

#[test]
fn columns_of_many_lanes_a_thread_each() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_thread_columns::<f32>(&gpu, &[2, 3, 13, 40]);
    check_thread_columns::<i32>(&gpu, &[2, 13, 40]);
    check_thread_columns::<u32>(&gpu, &[13]);
    check_thread_columns::<f64>(&gpu, &[3, 13]);
    check_thread_columns::<i64>(&gpu, &[9]);
    // 16-bit floats in f32 (eight lanes a vector).
    check_thread_columns::<gpu_core::f16>(&gpu, &[3, 13]);
    check_thread_columns::<gpu_core::bf16>(&gpu, &[5]);
}

/// Arrays whose lanes lie side by side (the vector-columns kernels): C order along axis 0,
/// Fortran order along axis 1, rows reversed (negative axis stride), 3-D middle axes with
/// several outer indices; lane counts per row of 2 (two rows per vector for 4-byte types), 4,
/// 6, 8, 12, 1000, 1028 and 4096; short and long lanes (splits merged by the last block).
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
        let f = c.t().to_owned();
        let reversed = c.slice(s![..;-1, ..]).to_owned();
        out.push((format!("C {rows}x{cols} axis 0"), c.into_dyn(), 0));
        // Fortran order of the transpose: the same lanes along axis 1.
        let mut ff = Array2::from_elem((cols, rows).f(), T::default());
        ff.assign(&f);
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
    let r = Reduce::new(gpu);
    for op in ops_for::<T>() {
        for (name, x, axis) in column_cases::<T>(op, 11) {
            // The reversed case is a view of negative stride, as a user would pass it.
            let view = if name.starts_with("reversed") {
                x.slice_axis(Axis(0), ndarray::Slice::new(0, None, -1))
            } else {
                x.view()
            };
            let want = cpu::reduce_axis(view.view(), Axis(axis), op).unwrap();
            let got = r
                .reduce_axis(&view, Axis(axis), op)
                .unwrap_or_else(|e| panic!("{} {name} {op:?}: {e}", T::NAME));
            assert_eq!(got, want, "{} {name} {op:?}", T::NAME);
        }
    }
    // argmin/argmax: few distinct values (ties: the first index wins) and NaNs.
    for (name, x, axis) in column_cases::<T>(Op::Sum, 5) {
        let mut x = x.mapv(|v| T::from_f64(v.to_f64().rem_euclid(3.0)));
        if T::IS_FLOAT && x.len() > 10 {
            let n = x.len();
            x.as_slice_memory_order_mut().unwrap()[n / 3] = T::from_f64(f64::NAN);
        }
        let want = cpu::argmin_axis(x.view(), Axis(axis)).unwrap();
        assert_eq!(
            r.argmin_axis(&x, Axis(axis)).unwrap(),
            want,
            "argmin {} {name}",
            T::NAME
        );
        let want = cpu::argmax_axis(x.view(), Axis(axis)).unwrap();
        assert_eq!(
            r.argmax_axis(&x, Axis(axis)).unwrap(),
            want,
            "argmax {} {name}",
            T::NAME
        );
    }
}

#[test]
fn vector_columns_every_geometry_type_and_operator() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_vector_columns::<i32>(&gpu);
    check_vector_columns::<u32>(&gpu);
    check_vector_columns::<i64>(&gpu);
    check_vector_columns::<u64>(&gpu);
    check_vector_columns::<f32>(&gpu);
    check_vector_columns::<f64>(&gpu);
    check_vector_columns::<gpu_core::f16>(&gpu);
    check_vector_columns::<gpu_core::bf16>(&gpu);
    let r = Reduce::new(&gpu);
    let columns = |shape: &[usize], strides: &[isize], axis: usize, f64: bool| {
        let plan = if f64 {
            r.axis_plan::<f64>(shape, strides, Axis(axis), Op::Sum)
        } else {
            r.axis_plan::<f32>(shape, strides, Axis(axis), Op::Sum)
        }
        .unwrap();
        (
            matches!(plan.access, LaneAccess::VectorColumns { .. }),
            plan,
        )
    };
    assert!(columns(&[1001, 8], &[8, 1], 0, false).0);
    assert!(columns(&[1000, 2], &[2, 1], 0, false).0);
    assert!(
        !columns(&[1001, 2], &[2, 1], 0, false).0,
        "odd rows of two f32 lanes"
    );
    assert!(
        !columns(&[257, 6], &[6, 1], 0, false).0,
        "6 f32 lanes: no aligned vectors"
    );
    assert!(
        columns(&[257, 6], &[6, 1], 0, true).0,
        "6 f64 lanes: 3 vectors"
    );
    let (yes, plan) = columns(&[4100, 64], &[64, 1], 0, false);
    assert!(yes && plan.splits > 1, "long columns are split: {plan}");
    // 16-bit values: eight lanes a vector, four over two rows, or two over four rows (a
    // reduction's vectors only; rows not a multiple of four take the generic columns). The
    // cases above ran every one of these shapes.
    let half_lanes = |shape: &[usize], strides: &[isize]| match r
        .axis_plan::<gpu_core::f16>(shape, strides, Axis(0), Op::Sum)
        .unwrap()
        .access
    {
        LaneAccess::VectorColumns {
            lanes_per_vector, ..
        } => Some(lanes_per_vector),
        _ => None,
    };
    assert_eq!(half_lanes(&[1001, 8], &[8, 1]), Some(8));
    assert_eq!(half_lanes(&[4100, 64], &[64, 1]), Some(8));
    assert_eq!(half_lanes(&[1000, 4], &[4, 1]), Some(4));
    assert_eq!(
        half_lanes(&[1001, 4], &[4, 1]),
        None,
        "odd rows of four f16 lanes"
    );
    assert_eq!(half_lanes(&[1000, 2], &[2, 1]), Some(2));
    assert_eq!(
        half_lanes(&[1002, 2], &[2, 1]),
        None,
        "rows of two f16 lanes not a multiple of four"
    );
    assert_eq!(half_lanes(&[257, 6], &[6, 1]), None);
    // Widening sums near the top of i32 (the sum overflows i32) along columns.
    let x = Array2::from_shape_fn((4100, 64), |(i, j)| i32::MAX - ((i + j) % 7) as i32);
    let want = x.mapv(|v| v as i64).sum_axis(Axis(0)).into_dyn();
    assert_eq!(r.reduce_axis_wide(&x, Axis(0), Op::Sum).unwrap(), want);
    // A base one element into a device buffer: not 16-byte aligned, the general path.
    let v = exact::<i32>(4100 * 64 + 1, Op::Sum, 9);
    let shifted =
        DeviceArrayD::from_parts(gpu.upload(&v).unwrap(), 1, &[4100, 64], &[64, 1]).unwrap();
    let host = Array2::from_shape_vec((4100, 64), v[1..].to_vec()).unwrap();
    assert_eq!(
        r.sum_axis(&shifted, Axis(0)).unwrap(),
        host.sum_axis(Axis(0)).into_dyn()
    );
}

/// Sum, min, max, xor and argmax of `values` (a copy of `host`) over `segments` (`offsets`)
/// against the CPU: the quickcheck properties' check.
fn random_segments_match<I, S>(
    gpu: &Gpu,
    values: &I,
    host: &[i32],
    segments: &S,
    offsets: &[u64],
) -> TestResult
where
    I: gpu_core::Input<i32> + ?Sized,
    S: gpu_core::SegmentOffsets + ?Sized,
{
    let r = Reduce::new(gpu);
    for op in [Op::Sum, Op::Min, Op::Max, Op::BitXor] {
        let want = cpu::segmented_reduce(host, offsets, op).unwrap();
        match r.segmented_reduce(values, segments, op) {
            Ok(g) if g == want => {}
            other => return TestResult::error(format!("{offsets:?} {op:?}: {other:?}")),
        }
    }
    let want = cpu::segmented_argmax(host, offsets).unwrap();
    match r.segmented_argmax(values, segments) {
        Ok(g) if g == want => TestResult::passed(),
        other => TestResult::error(format!("{offsets:?} argmax: {other:?}")),
    }
}

#[test]
fn quickcheck_random_segments_match_the_cpu() {
    if gpu_or_skip().is_none() {
        return;
    }
    fn prop(lens: Vec<u16>, every: u8, seed: u64) -> TestResult {
        let gpu = &gpu_core::testing::shared_gpu().expect("checked above");
        let offsets = random_offsets(&lens, every);
        let n = *offsets.last().unwrap() as usize;
        let v = exact::<i32>(n, Op::Sum, seed);
        random_segments_match(gpu, &v, &v, offsets.as_slice(), &offsets)
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<u16>, u8, u64) -> TestResult);
}

/// Offsets of groups of one long segment (`long` plus 0 … 16 values) followed by segments of
/// 0 … 8 values: every start alignment modulo a 16-byte vector of 1-, 2-, 4- and 8-byte
/// values, and segments shorter than the elements before their first vector boundary.
fn peel_offsets(groups: u64, long: u64) -> Vec<u64> {
    let mut o = vec![0u64];
    for g in 0..groups {
        let mut at = *o.last().unwrap() + long + g % 17;
        o.push(at);
        for len in 0..=8 {
            at += len;
            o.push(at);
        }
    }
    o
}

fn check_segment_lane_starts<T: Element>(gpu: &Gpu) {
    let r = Reduce::new(gpu);
    for long in [2000, 20_000] {
        let offsets = peel_offsets(40, long);
        let n = *offsets.last().unwrap() as usize;
        let segs = Segments::new(gpu, &offsets, n).unwrap();
        // Means of about 200 and 2000 values: the lane kernels (a group, a warp or a block of
        // warps per segment), not segment tiles nor a thread per segment.
        let plan = r.segments_plan::<T>(&segs, Op::Sum).unwrap();
        assert!(
            matches!(
                plan.access,
                LaneAccess::GroupPerLane(_) | LaneAccess::WarpsPerLane(_)
            ),
            "{} {long}: {plan}",
            T::NAME
        );
        // Both forms of the segment lane kernels: the lean one (each segment within a warp, one
        // split) at a mean of about 200, the general one (two warps per segment) at 2000.
        assert_eq!(
            plan.in_one_warp(),
            long == 2000,
            "{} {long}: {plan}",
            T::NAME
        );
        for shift in 0..3 {
            // The values start `shift` elements into the device array, so the segments' starts
            // move against the vector boundaries as well.
            let v = exact::<T>(n + shift, Op::Sum, long + shift as u64);
            let d = gpu.upload(&v).unwrap();
            let slice = gpu_core::DeviceSlice::new(&d, shift..).unwrap();
            let host = &v[shift..];
            for op in ops_for::<T>() {
                let x = exact::<T>(n + shift, op, 3 + shift as u64);
                let dx = gpu.upload(&x).unwrap();
                let sx = gpu_core::DeviceSlice::new(&dx, shift..).unwrap();
                assert_eq!(
                    r.segmented_reduce(&sx, &segs, op).unwrap(),
                    cpu::segmented_reduce(&x[shift..], &offsets, op).unwrap(),
                    "{} long {long} shift {shift} {op:?}",
                    T::NAME
                );
            }
            assert_eq!(
                r.segmented_argmin(&slice, &segs).unwrap(),
                cpu::segmented_argmin(host, &offsets).unwrap(),
                "{} long {long} shift {shift} argmin",
                T::NAME
            );
            assert_eq!(
                r.segmented_argmax(&slice, &segs).unwrap(),
                cpu::segmented_argmax(host, &offsets).unwrap(),
                "{} long {long} shift {shift} argmax",
                T::NAME
            );
        }
    }
}

/// The lane kernels over segments fold each segment's elements before its first 16-byte
/// boundary one per thread and the rest in whole vectors: every start alignment, segments
/// shorter than that head, empty ones, and inputs starting inside the device array, for 2-, 4-
/// and 8-byte values and every operator, against the CPU.
#[test]
fn segment_lanes_start_at_every_alignment() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_segment_lane_starts::<i32>(&gpu);
    check_segment_lane_starts::<u32>(&gpu);
    check_segment_lane_starts::<f32>(&gpu);
    check_segment_lane_starts::<i64>(&gpu);
    check_segment_lane_starts::<f64>(&gpu);
    check_segment_lane_starts::<gpu_core::f16>(&gpu);
    check_segment_lane_starts::<gpu_core::bf16>(&gpu);
}

/// Segment tiles read unaligned inputs (a device slice one element in) with scalar loads, and
/// very long segments on average go back to the lane kernels (splits merged by the last
/// arrival): both against the CPU, with the plan reporting which ran.
#[test]
fn segment_tiles_unaligned_inputs_and_the_long_segment_plan() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    let offsets = offsets_with(5000, 21, |k| k % 60);
    let n = *offsets.last().unwrap() as usize;
    let v = exact::<f32>(n + 1, Op::Sum, 5);
    // (mean 29.5: segment tiles; below 21 device values take a thread per segment)
    let d = gpu.upload(&v).unwrap();
    let slice = gpu_core::DeviceSlice::new(&d, 1..).unwrap();
    let segs = Segments::new(&gpu, &offsets, n).unwrap();
    let plan = r.segments_plan::<f32>(&segs, Op::Sum).unwrap();
    assert!(
        matches!(plan.access, LaneAccess::SegmentTiles { .. }),
        "{plan}"
    );
    assert_eq!(
        r.segmented_sum(&slice, &segs).unwrap(),
        cpu::segmented_reduce(&v[1..], &offsets, Op::Sum).unwrap()
    );
    assert_eq!(
        r.segmented_argmin(&slice, &segs).unwrap(),
        cpu::segmented_argmin(&v[1..], &offsets).unwrap()
    );
    let offsets = vec![0u64, 2_400_000, 2_400_003];
    let v = exact::<i64>(2_400_003, Op::Sum, 6);
    let segs = Segments::new(&gpu, &offsets, v.len()).unwrap();
    let plan = r.segments_plan::<i64>(&segs, Op::Sum).unwrap();
    assert!(
        !matches!(plan.access, LaneAccess::SegmentTiles { .. }) && plan.splits > 1,
        "{plan}"
    );
    assert_eq!(
        r.segmented_sum(&gpu.upload(&v).unwrap(), &segs).unwrap(),
        cpu::segmented_reduce(&v, &offsets, Op::Sum).unwrap()
    );
}

/// Offsets for the short-segments kernel's edges: block counts around its 1024 (wide values)
/// and 2048 segments per block, chunks of staged values crossed by segments (blocks of more
/// than 12288 4-byte or 4096 8-byte values),
/// empty segments in runs, and segments up to the longest it takes (2048).
fn short_segment_cases() -> Vec<(&'static str, Vec<u64>)> {
    vec![
        ("one", vec![0, 1]),
        ("one empty among ones", vec![0, 1, 1, 2]),
        ("1023 of 1-8", offsets_with(1023, 11, |k| 1 + k % 8)),
        ("1024 of 1-8", offsets_with(1024, 12, |k| 1 + k % 8)),
        ("1025 of 1-8", offsets_with(1025, 13, |k| 1 + k % 8)),
        ("2047 of 1-8", offsets_with(2047, 19, |k| 1 + k % 8)),
        ("2048 of 1-8", offsets_with(2048, 20, |k| 1 + k % 8)),
        ("2049 of 1-8", offsets_with(2049, 21, |k| 1 + k % 8)),
        ("1-8", offsets_with(50_000, 14, |k| 1 + k % 8)),
        ("0-3", offsets_with(40_000, 15, |k| k % 4)),
        (
            "0-31 (chunks crossed)",
            offsets_with(30_000, 16, |k| k % 32),
        ),
        (
            "1-8 with some 2048",
            offsets_with(30_000, 17, |k| if k % 997 == 0 { 2048 } else { 1 + k % 8 }),
        ),
        ("runs of empties", {
            let mut o = offsets_with(3000, 18, |k| if k % 5 < 3 { 0 } else { 1 + k % 30 });
            let last = *o.last().unwrap();
            o.extend(std::iter::repeat(last).take(2500));
            o
        }),
    ]
}

/// Short segments of device values take a thread per segment (`reduce_segments_short_*`):
/// every type and operator, argmin/argmax, widening sums and the non-commutative monoids,
/// aligned and unaligned inputs, against the CPU and the host-values path (segment tiles).
/// `Mat2` and `Affine` products of every segment (in sequence order) against the CPU.
fn check_segment_monoids(r: &Reduce, gpu: &Gpu, offsets: &[u64], segs: &Segments, name: &str) {
    let n = *offsets.last().unwrap() as usize;
    let m: Vec<Mat2<u64>> = (0..n).map(|i| Mat2([i as u64 % 3, 1, 1, 0])).collect();
    let want: Vec<Mat2<u64>> = offsets
        .windows(2)
        .map(|w| cpu::reduce_monoid(&m[w[0] as usize..w[1] as usize]))
        .collect();
    assert_eq!(
        r.segmented_reduce_monoid(&gpu.upload(&m).unwrap(), segs)
            .unwrap(),
        want,
        "{name} mat2"
    );
    let a: Vec<Affine<f32>> = (0..n)
        .map(|i| Affine {
            a: if i % 3 == 0 { -1.0 } else { 1.0 },
            b: (i % 5) as f32,
        })
        .collect();
    let want: Vec<Affine<f32>> = offsets
        .windows(2)
        .map(|w| cpu::reduce_monoid(&a[w[0] as usize..w[1] as usize]))
        .collect();
    assert_eq!(
        r.segmented_reduce_monoid(&gpu.upload(&a).unwrap(), segs)
            .unwrap(),
        want,
        "{name} affine"
    );
}

#[test]
fn short_segments_every_type_operator_and_edge() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn check<T: Element>(gpu: &Gpu) {
        let r = Reduce::new(gpu);
        for (name, offsets) in short_segment_cases() {
            let n = *offsets.last().unwrap() as usize;
            let segs = Segments::new(gpu, &offsets, n).unwrap();
            let plan = r.segments_plan::<T>(&segs, Op::Sum).unwrap();
            assert!(
                matches!(plan.access, LaneAccess::ShortSegments { .. }),
                "{name}: {plan}"
            );
            for op in ops_for::<T>() {
                let v = exact::<T>(n + 1, op, n as u64 + 7);
                let d = gpu.upload(&v).unwrap();
                // One element in: the scalar staging of an unaligned input.
                let slice = gpu_core::DeviceSlice::new(&d, 1..).unwrap();
                let want = cpu::segmented_reduce(&v[..n], &offsets, op).unwrap();
                let want_slice = cpu::segmented_reduce(&v[1..], &offsets, op).unwrap();
                let first = gpu_core::DeviceSlice::new(&d, ..n).unwrap();
                assert_eq!(
                    r.segmented_reduce(&first, &segs, op).unwrap(),
                    want,
                    "{} {name} {op:?}",
                    T::NAME
                );
                assert_eq!(
                    r.segmented_reduce(&slice, &segs, op).unwrap(),
                    want_slice,
                    "{} {name} {op:?} unaligned",
                    T::NAME
                );
                assert_eq!(
                    r.segmented_reduce(&v[..n], &segs, op).unwrap(),
                    want,
                    "{} {name} {op:?} host values",
                    T::NAME
                );
            }
            let v = exact::<T>(n, Op::Sum, 23);
            let d = gpu.upload(&v).unwrap();
            assert_eq!(
                r.segmented_argmin(&d, &segs).unwrap(),
                cpu::segmented_argmin(&v, &offsets).unwrap(),
                "{} {name} argmin",
                T::NAME
            );
            assert_eq!(
                r.segmented_argmax(&d, &segs).unwrap(),
                cpu::segmented_argmax(&v, &offsets).unwrap(),
                "{} {name} argmax",
                T::NAME
            );
            let want: Vec<Option<T>> = offsets
                .windows(2)
                .map(|w| cpu::max(&v[w[0] as usize..w[1] as usize]))
                .collect();
            assert_eq!(r.segmented_max(&d, &segs).unwrap(), want, "{name} max");
        }
    }
    check::<i32>(&gpu);
    check::<u32>(&gpu);
    check::<i64>(&gpu);
    check::<u64>(&gpu);
    check::<f32>(&gpu);
    check::<f64>(&gpu);
    check::<gpu_core::f16>(&gpu);
    check::<gpu_core::bf16>(&gpu);

    // Widening sums and the 16- and 32-byte monoids (in order: not commutative).
    let r = Reduce::new(&gpu);
    for (name, offsets) in short_segment_cases() {
        let n = *offsets.last().unwrap() as usize;
        let segs = Segments::new(&gpu, &offsets, n).unwrap();
        let v: Vec<u32> = (0..n).map(|i| u32::MAX - i as u32 % 3).collect();
        let want: Vec<u64> = offsets
            .windows(2)
            .map(|w| {
                v[w[0] as usize..w[1] as usize]
                    .iter()
                    .map(|&x| x as u64)
                    .sum()
            })
            .collect();
        let d = gpu.upload(&v).unwrap();
        assert_eq!(
            r.segmented_reduce_wide(&d, &segs, Op::Sum).unwrap(),
            want,
            "{name} wide"
        );
        check_segment_monoids(&r, &gpu, &offsets, &segs, name);
    }
}

/// A segment of one -0.0 sums to -0.0 (the first value starts the fold); the plan leaves a
/// segment longer than a thread folds to the lane kernels, and keeps the segment tiles where the
/// mean is too high.
#[test]
fn short_segments_signed_zero_and_the_plan_limits() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    let d = gpu.upload(&[-0.0f32, 1.0, -0.0, -0.0]).unwrap();
    let got = r.segmented_sum(&d, &[0u64, 1, 2, 4]).unwrap();
    assert_eq!(
        got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        [(-0.0f32).to_bits(), 1.0f32.to_bits(), (-0.0f32).to_bits()]
    );
    // Segment 17 of 2049 values among segments of 1-8.
    let long_one: Vec<u64> = std::iter::once(0)
        .chain((0..5000u64).scan(0, |end, i| {
            *end += if i == 17 { 2049 } else { 1 + i % 8 };
            Some(*end)
        }))
        .collect();
    let long_mean = offsets_with(5000, 3, |k| 21 + k % 2);
    for (name, offsets) in [("one of 2049", long_one), ("mean 21", long_mean)] {
        let n = *offsets.last().unwrap() as usize;
        let segs = Segments::new(&gpu, &offsets, n).unwrap();
        let plan = r.segments_plan::<f32>(&segs, Op::Sum).unwrap();
        // One segment of 2049 is too short to be split out (long ones need a mean of 4000),
        // and a mean of 21 too long for a thread per segment: segment tiles both.
        assert!(
            matches!(plan.access, LaneAccess::SegmentTiles { .. }),
            "{name}: {plan}"
        );
        assert_eq!(
            segs.max_len(),
            offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap()
        );
        let v = exact::<f32>(n, Op::Sum, 9);
        let d = gpu.upload(&v).unwrap();
        assert_eq!(
            r.segmented_sum(&d, &segs).unwrap(),
            cpu::segmented_reduce(&v, &offsets, Op::Sum).unwrap(),
            "{name}"
        );
    }
}

/// Short segments with long ones among them (the long ones left to the lane kernels, their
/// results put in place): every type and operator, argmin, the widening sum and a monoid of
/// every result size (4, 8, 16, 32 bytes), long segments first, last, adjacent and alone.
#[test]
fn short_segments_with_long_ones_every_result_size() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    let lens_of = |lens: &[u64]| -> Vec<u64> {
        std::iter::once(0)
            .chain(lens.iter().scan(0, |end, &l| {
                *end += l;
                Some(*end)
            }))
            .collect()
    };
    let mut cases: Vec<(&str, Vec<u64>)> = vec![
        ("one long alone", vec![0, 5000]),
        ("long first and last", lens_of(&[3000, 1, 2, 3, 0, 4, 9000])),
        ("long ones adjacent", lens_of(&[1, 2, 2049, 2049, 3, 0, 2])),
        ("short with long ones", short_with_long_ones()),
    ];
    // Long ones among thousands of short ones (blocks cut at each), mean below 21: every
    // 2000th segment 20000 long (rare and long enough for the plan to split them out).
    let rare: Vec<u64> = (0..60_000u64)
        .map(|i| if i % 2000 == 1999 { 20_000 } else { i % 9 })
        .collect();
    cases.push(("every 2000th long", lens_of(&rare)));
    fn check<T: Element>(r: &Reduce, gpu: &Gpu, name: &str, offsets: &[u64]) {
        let n = *offsets.last().unwrap() as usize;
        let segs = Segments::new(gpu, offsets, n).unwrap();
        for op in ops_for::<T>() {
            let v = exact::<T>(n, op, n as u64 + 1);
            assert_eq!(
                r.segmented_reduce(&gpu.upload(&v).unwrap(), &segs, op)
                    .unwrap(),
                cpu::segmented_reduce(&v, offsets, op).unwrap(),
                "{} {name} {op:?}",
                T::NAME
            );
        }
        let v = exact::<T>(n, Op::Sum, 5);
        assert_eq!(
            r.segmented_argmin(&gpu.upload(&v).unwrap(), &segs).unwrap(),
            cpu::segmented_argmin(&v, offsets).unwrap(),
            "{} {name} argmin",
            T::NAME
        );
    }
    for (name, offsets) in &cases {
        let n = *offsets.last().unwrap() as usize;
        let segs = Segments::new(&gpu, offsets, n).unwrap();
        if *name == "every 2000th long" {
            assert_eq!(segs.longer_than(2048), (30, 30 * 20_000));
            let plan = r.segments_plan::<f32>(&segs, Op::Sum).unwrap();
            assert!(
                matches!(plan.access, LaneAccess::ShortSegments { long: 30, .. }),
                "{name}: {plan}"
            );
        }
        check::<i32>(&r, &gpu, name, offsets);
        check::<f64>(&r, &gpu, name, offsets);
        check::<gpu_core::f16>(&r, &gpu, name, offsets);
        let v: Vec<u32> = (0..n).map(|i| u32::MAX - i as u32 % 3).collect();
        let want: Vec<u64> = offsets
            .windows(2)
            .map(|w| {
                v[w[0] as usize..w[1] as usize]
                    .iter()
                    .map(|&x| x as u64)
                    .sum()
            })
            .collect();
        assert_eq!(
            r.segmented_reduce_wide(&gpu.upload(&v).unwrap(), &segs, Op::Sum)
                .unwrap(),
            want,
            "{name} wide"
        );
        check_segment_monoids(&r, &gpu, offsets, &segs, name);
    }
}

#[test]
fn quickcheck_short_segments_of_device_values_match_the_cpu() {
    if gpu_or_skip().is_none() {
        return;
    }
    fn prop(lens: Vec<u8>, every: u8, seed: u64) -> TestResult {
        let gpu = &gpu_core::testing::shared_gpu().expect("checked above");
        // Mostly 0-19, every k-th up to 2047: the short-segments kernel's range.
        let every = every as usize % 50 + 1;
        let mut offsets = vec![0u64];
        let mut r = SplitMix64::new(seed);
        for (i, &l) in lens.iter().cycle().take(lens.len() * 40).enumerate() {
            let len = if i % every == every - 1 && r.next_u64() % 8 == 0 {
                r.next_u64() % 2048
            } else {
                l as u64 % 20
            };
            offsets.push(offsets.last().unwrap() + len);
        }
        let n = *offsets.last().unwrap() as usize;
        let v = exact::<i32>(n, Op::Sum, seed);
        let segs = Segments::new(gpu, &offsets, n).unwrap();
        random_segments_match(gpu, &gpu.upload(&v).unwrap(), &v, &segs, &offsets)
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(Vec<u8>, u8, u64) -> TestResult);
}

/// Sixteen threads share one `Gpu`, one `Reduce` and the same checked `Segments` (whose lazily
/// found longest segment and short-segments layout are shared state): short segments alone,
/// short ones with rare long ones, and segments for the segment tiles, each thread's results
/// against the CPU, device results into each thread's own workspace too.
#[test]
fn short_segments_from_sixteen_threads_on_one_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = Reduce::new(&gpu);
    let short = offsets_over(150_000, 1..9, 21);
    let rare: Vec<u64> = std::iter::once(0)
        .chain((0..30_000u64).scan(0, |end, i| {
            *end += if i % 2000 == 1999 { 20_000 } else { i % 9 };
            Some(*end)
        }))
        .collect();
    let tiles = offsets_over(120_000, 20..60, 22);
    let cases: Vec<(&str, Vec<u64>, Segments)> =
        [("short", short), ("rare long", rare), ("tiles", tiles)]
            .into_iter()
            .map(|(name, o)| {
                let n = *o.last().unwrap() as usize;
                let s = Segments::new(&gpu, &o, n).unwrap();
                (name, o, s)
            })
            .collect();
    std::thread::scope(|scope| {
        for t in 0..16u64 {
            let (r, gpu, cases) = (&r, &gpu, &cases);
            scope.spawn(move || {
                let mut ws = Workspace::new(gpu).unwrap();
                for round in 0..4u64 {
                    let (name, offsets, segs) = &cases[((t + round) % 3) as usize];
                    let n = *offsets.last().unwrap() as usize;
                    let v = exact::<i32>(n, Op::Sum, t * 7 + round);
                    let d = gpu.upload(&v).unwrap();
                    let want = cpu::segmented_reduce(&v, offsets, Op::Sum).unwrap();
                    assert_eq!(r.segmented_sum(&d, segs).unwrap(), want, "{name} t{t}");
                    let mut out = gpu.alloc::<i32>(segs.count()).unwrap();
                    r.segmented_reduce_into(&d, segs, Op::Sum, &mut out, &mut ws)
                        .unwrap();
                    assert_eq!(out.to_vec().unwrap(), want, "{name} t{t} into");
                    let want = cpu::segmented_argmax(&v, offsets).unwrap();
                    assert_eq!(
                        r.segmented_argmax(&d, segs).unwrap(),
                        want,
                        "{name} t{t} argmax"
                    );
                }
            });
        }
    });
    for (name, _, segs) in &cases {
        let plan = r.segments_plan::<i32>(segs, Op::Sum).unwrap();
        let short = matches!(plan.access, LaneAccess::ShortSegments { .. });
        assert_eq!(short, *name != "tiles", "{name}: {plan}");
    }
}
