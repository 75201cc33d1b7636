//! The CPU references for shaped data (axis and segmented reductions) against independent
//! computations: index arithmetic over the logical array, the 1-D functions per segment, every
//! layout (C, Fortran, reversed strides) and rayon against serial.

use gpu_core::{data, data::SplitMix64, Op};
use gpu_reduce::cpu;
use ndarray::{Array3, ArrayView3, Axis, ShapeBuilder};
use quickcheck::{QuickCheck, TestResult};

/// A 3-D i64 array of `dims` with deterministic values, in C or Fortran order.
fn array(dims: (usize, usize, usize), fortran: bool, seed: u64) -> Array3<i64> {
    let mut r = SplitMix64::new(seed);
    let n = dims.0 * dims.1 * dims.2;
    let values: Vec<i64> = (0..n)
        .map(|_| (r.next_u64() % 2001) as i64 - 1000)
        .collect();
    let shape = if fortran {
        dims.f()
    } else {
        dims.into_shape_with_order()
    };
    Array3::from_shape_vec(shape, values).unwrap()
}

/// `op` along `axis` by index arithmetic: out[i, j] = x[.., k, ..] folded over k in order.
fn by_index(x: ArrayView3<'_, i64>, axis: usize, op: Op) -> Vec<i64> {
    let d = x.dim();
    let dims = [d.0, d.1, d.2];
    let (a, b) = match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let mut out = Vec::new();
    for i in 0..dims[a] {
        for j in 0..dims[b] {
            let mut acc = op.identity::<i64>().unwrap();
            for k in 0..dims[axis] {
                let mut idx = [0usize; 3];
                idx[a] = i;
                idx[b] = j;
                idx[axis] = k;
                acc = <i64 as gpu_core::Element>::combine(op, acc, x[idx]);
            }
            out.push(acc);
        }
    }
    out
}

const OPS: [Op; 5] = [Op::Sum, Op::Product, Op::Min, Op::Max, Op::BitXor];

fn axis_case(d0: u8, d1: u8, d2: u8, axis: u8, layout: u8, seed: u64) -> TestResult {
    let dims = (d0 as usize % 6, d1 as usize % 7, d2 as usize % 5);
    let axis = axis as usize % 3;
    let owned = array(dims, layout & 1 == 1, seed);
    // Layout 2: every axis reversed (negative strides).
    let view = if layout & 2 == 2 {
        owned.slice(ndarray::s![..;-1, ..;-1, ..;-1])
    } else {
        owned.view()
    };
    for op in OPS {
        let want = by_index(view, axis, op);
        let got = cpu::reduce_axis(view, Axis(axis), op).unwrap();
        let par = cpu::par_reduce_axis(view, Axis(axis), op).unwrap();
        if got.iter().copied().collect::<Vec<_>>() != want || got != par {
            return TestResult::error(format!("{op} axis {axis} dims {dims:?} layout {layout}"));
        }
    }
    TestResult::passed()
}

#[test]
fn axis_reductions_match_index_arithmetic_in_every_layout() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(axis_case as fn(u8, u8, u8, u8, u8, u64) -> TestResult);
}

#[test]
fn float_axis_reductions_do_not_depend_on_layout() {
    let c = Array3::from_shape_fn((5, 37, 3), |(i, j, k)| {
        (i * 131 + j * 7 + k) as f32 * 0.37 - 20.0
    });
    let f = {
        let mut f = Array3::<f32>::zeros((5, 37, 3).f());
        f.assign(&c);
        f
    };
    for axis in 0..3 {
        for op in [Op::Sum, Op::Product, Op::Max] {
            let a = cpu::reduce_axis(c.view(), Axis(axis), op).unwrap();
            let b = cpu::reduce_axis(f.view(), Axis(axis), op).unwrap();
            let same = a
                .iter()
                .zip(b.iter())
                .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "{op} axis {axis}: C and Fortran order differ");
            // Each lane is the 1-D reduction of that lane.
            for (lane, got) in c.lanes(Axis(axis)).into_iter().zip(a.iter()) {
                let want = gpu_reduce::cpu::reduce(&lane.to_vec(), op).unwrap();
                assert_eq!(want.to_bits(), got.to_bits());
            }
        }
    }
}

/// Every lane of `got` (the reduction along `axis` of `view`) is, bit for bit, the 1-D
/// reduction of that lane; the rayon form gives the same bits.
fn lanes_bit_for_bit<T: gpu_core::Element>(
    view: ArrayView3<'_, T>,
    axis: usize,
    op: Op,
) -> Result<(), String>
where
    T::Accumulator: BitsOf,
{
    let got = cpu::reduce_axis(view, Axis(axis), op).unwrap();
    let par = cpu::par_reduce_axis(view, Axis(axis), op).unwrap();
    for ((lane, g), p) in view.lanes(Axis(axis)).into_iter().zip(&got).zip(&par) {
        let want = cpu::reduce(&lane.to_vec(), op).unwrap();
        if want.bits() != g.bits() || want.bits() != p.bits() {
            return Err(format!("{op} axis {axis}: {want:?} / {g:?} / {p:?}"));
        }
    }
    let arg = cpu::argmax_axis(view, Axis(axis));
    if view.len_of(Axis(axis)) > 0 {
        let arg = arg.unwrap();
        for (lane, g) in view.lanes(Axis(axis)).into_iter().zip(&arg) {
            if cpu::argmax(&lane.to_vec()) != Some(*g) {
                return Err(format!("argmax axis {axis}"));
            }
        }
    }
    Ok(())
}

trait BitsOf: std::fmt::Debug {
    fn bits(&self) -> u64;
}
impl BitsOf for f32 {
    /// Any NaN as one value: Rust leaves the sign and payload of a NaN result unspecified (the
    /// compiler may swap an addition's operands), so two equal computations can differ there.
    fn bits(&self) -> u64 {
        if self.is_nan() {
            u64::MAX
        } else {
            self.to_bits() as u64
        }
    }
}
impl BitsOf for i32 {
    fn bits(&self) -> u64 {
        *self as u32 as u64
    }
}

/// Every axis and operator over the views of `c` (C order): itself, a Fortran-order copy,
/// every axis reversed, and every other index of the middle axis.
fn every_view<T: gpu_core::Element>(c: &Array3<T>) -> Result<(), String>
where
    T::Accumulator: BitsOf,
{
    let f = Array3::from_shape_vec(c.dim().f(), c.t().iter().copied().collect()).unwrap();
    let views = [
        ("C", c.view()),
        ("F", f.view()),
        ("reversed", c.slice(ndarray::s![..;-1, ..;-1, ..;-1])),
        ("stepped", c.slice(ndarray::s![.., ..;2, ..])),
    ];
    for (name, v) in views {
        for axis in 0..3 {
            for op in [Op::Sum, Op::Product, Op::Min, Op::Max] {
                lanes_bit_for_bit(v, axis, op).map_err(|e| format!("{name} {:?}: {e}", c.dim()))?;
            }
        }
    }
    Ok(())
}

/// f32, f16 and i32 arrays of `dims` (the i32 ones the f32 values clamped) over every view.
fn float_axis_dims(dims: (usize, usize, usize), seed: u64) -> Result<(), String> {
    let n = dims.0 * dims.1 * dims.2;
    let x = Array3::from_shape_vec(dims, data::order_sensitive(n, seed, seed % 4 == 0)).unwrap();
    every_view(&x)?;
    every_view(&x.mapv(gpu_core::f16::from_f32))?;
    every_view(&x.mapv(|v| {
        if v.is_nan() {
            7
        } else {
            v.clamp(-1e6, 1e6) as i32
        }
    }))
}

fn float_axis_case(d0: u8, d1: u16, d2: u8, seed: u64) -> TestResult {
    // Up to 20 x 500 x 8 values: results past one box of 4096 in some cases.
    let dims = (d0 as usize % 21, d1 as usize % 501, d2 as usize % 9);
    match float_axis_dims(dims, seed) {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

#[test]
fn axis_reductions_are_each_lanes_reduction_bit_for_bit() {
    QuickCheck::new()
        .tests(20)
        .quickcheck(float_axis_case as fn(u8, u16, u8, u64) -> TestResult);
    // Fixed shapes whose results along some axes fill several boxes (past 4096), and lanes of 1,
    // 15, 16, 17 and 33 rows (partials of the 16-way order left empty, full, and wrapped).
    for dims in [
        (17, 300, 3),
        (1, 5000, 2),
        (33, 2, 1100),
        (16, 257, 3),
        (15, 1, 4200),
    ] {
        for seed in [4, 11] {
            float_axis_dims(dims, seed).unwrap();
        }
    }
    // Cases whose NaN results differ in sign between the lane and the axis forms (quickcheck
    // drew them on a GPU machine's runs): any NaN stands for a NaN.
    for (dims, seed) in [
        ((1, 12, 3), 1550278550088783980),
        ((1, 12, 4), 11356970605266230768),
    ] {
        float_axis_dims(dims, seed).unwrap();
    }
}

#[test]
fn arg_axis_gives_the_index_along_the_axis() {
    let x = ndarray::array![[3, 9, 9], [7, 1, 7]];
    assert_eq!(
        cpu::argmax_axis(x.view(), Axis(1)).unwrap(),
        ndarray::array![1, 0]
    );
    assert_eq!(
        cpu::argmin_axis(x.view(), Axis(0)).unwrap(),
        ndarray::array![0, 1, 1]
    );
    let nan = ndarray::array![[1.0f32, f32::NAN, 5.0]];
    assert_eq!(
        cpu::argmax_axis(nan.view(), Axis(1)).unwrap(),
        ndarray::array![1]
    );
    // An empty axis: an error where an index is asked for, an empty result otherwise.
    let empty = ndarray::Array2::<i32>::zeros((3, 0));
    let e = cpu::argmax_axis(empty.view(), Axis(1)).unwrap_err();
    assert!(e.to_string().contains("length 0"), "{e}");
    assert_eq!(cpu::argmax_axis(empty.view(), Axis(0)).unwrap().len(), 0);
    assert_eq!(
        cpu::sum_axis(empty.view(), Axis(1)).unwrap(),
        ndarray::array![0, 0, 0]
    );
}

#[test]
fn bad_axes_are_errors() {
    let x = ndarray::Array2::<u32>::ones((2, 3));
    for e in [
        cpu::reduce_axis(x.view(), Axis(2), Op::Sum).unwrap_err(),
        cpu::argmin_axis(x.view(), Axis(5)).unwrap_err(),
    ] {
        assert!(e.to_string().contains("out of range"), "{e}");
    }
    let f = ndarray::Array2::<f32>::ones((2, 3));
    assert!(cpu::reduce_axis(f.view(), Axis(0), Op::BitAnd).is_err());
}

fn segments_case(lengths: Vec<u8>, seed: u64) -> TestResult {
    let lengths: Vec<usize> = lengths
        .iter()
        .map(|&l| (l % 40) as usize * (l as usize % 3))
        .collect();
    let mut offsets = vec![0u64];
    for l in &lengths {
        offsets.push(offsets.last().unwrap() + *l as u64);
    }
    let n = *offsets.last().unwrap() as usize;
    let mut r = SplitMix64::new(seed);
    let values: Vec<i32> = (0..n).map(|_| (r.next_u64() % 201) as i32 - 100).collect();
    for op in [Op::Sum, Op::Min, Op::Max, Op::BitOr] {
        let got = cpu::segmented_reduce(&values, &offsets, op).unwrap();
        let par = cpu::par_segmented_reduce(&values, &offsets, op).unwrap();
        let want: Vec<i32> = offsets
            .windows(2)
            .map(|w| cpu::reduce(&values[w[0] as usize..w[1] as usize], op).unwrap())
            .collect();
        if got != want || par != want {
            return TestResult::error(format!("{op}: {lengths:?}"));
        }
    }
    let arg = cpu::segmented_argmax(&values, &offsets).unwrap();
    for (i, w) in offsets.windows(2).enumerate() {
        if arg[i] != cpu::argmax(&values[w[0] as usize..w[1] as usize]) {
            return TestResult::error(format!("argmax segment {i}"));
        }
    }
    TestResult::passed()
}

#[test]
fn segmented_reductions_match_each_segment() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(segments_case as fn(Vec<u8>, u64) -> TestResult);
}

#[test]
fn segments_edge_cases_and_bad_offsets() {
    let v = [5i64, -1, 7];
    // No segments over no values; `[0]` over 3 values leaves them uncovered: an error.
    assert_eq!(
        cpu::segmented_reduce::<i64>(&[], &[0], Op::Sum).unwrap(),
        Vec::<i64>::new()
    );
    assert!(cpu::segmented_reduce(&v, &[0], Op::Sum).is_err());
    assert_eq!(
        cpu::segmented_reduce(&v, &[0, 0, 3, 3], Op::Max).unwrap(),
        vec![i64::MIN, 7, i64::MIN]
    );
    assert_eq!(
        cpu::segmented_argmin(&v, &[0, 0, 3]).unwrap(),
        vec![None, Some(1)]
    );
    for (offsets, says) in [
        (&[][..], "empty"),
        (&[1, 3][..], "first offset"),
        (&[0, 2, 1, 3][..], "must not decrease"),
        (&[0, 4][..], "last offset is 4"),
    ] {
        let e = cpu::segmented_reduce(&v, offsets, Op::Sum).unwrap_err();
        assert!(e.to_string().contains(says), "{offsets:?}: {e}");
        assert!(cpu::segmented_argmax(&v, offsets).is_err());
        assert!(cpu::par_segmented_reduce(&v, offsets, Op::Sum).is_err());
    }
}
