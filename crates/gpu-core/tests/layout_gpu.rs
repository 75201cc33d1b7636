//! Copies between N-D layouts on a real GPU (`DeviceArrayD::assign`, `to_standard_layout`):
//! every element size, transposes, reversed and sliced views, permuted 3-D/4-D arrays, edge
//! sizes around the 32 × 32 tile, against ndarray's own copy. Skipped visibly without a GPU;
//! failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::data::SplitMix64;
use gpu_core::testing::gpu_or_skip;
use gpu_core::{DeviceArrayD, Gpu, Pod};
use ndarray::{s, Array, ArrayD, IxDyn, ShapeBuilder};
use quickcheck::{QuickCheck, TestResult};

fn random_array<T: Pod>(shape: &[usize], seed: u64, from: impl Fn(u64) -> T) -> ArrayD<T> {
    let mut r = SplitMix64::new(seed);
    let n = shape.iter().product();
    ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|_| from(r.next_u64())).collect()).unwrap()
}

/// Copies `src` into a device array of `shape` with the axis order `order` (outermost first)
/// and checks it against the host.
fn check_into_order<T: Pod + PartialEq + std::fmt::Debug>(
    gpu: &Gpu,
    view: ndarray::ArrayViewD<'_, T>,
    order: &[usize],
    what: &str,
) {
    let shape = view.shape().to_vec();
    let mut strides = vec![0isize; shape.len()];
    let mut s = 1isize;
    for &d in order.iter().rev() {
        strides[d] = s;
        s *= shape[d].max(1) as isize;
    }
    let n = shape.iter().product();
    let mut dst =
        DeviceArrayD::from_parts(gpu.zeros::<T>(n).unwrap(), 0, &shape, &strides).unwrap();
    // From the host view (uploaded in its memory order) and from a device copy of it.
    dst.assign(&view).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        dst.to_array().unwrap(),
        view.to_owned(),
        "{what} (host source)"
    );
    let on_device = DeviceArrayD::from_array(gpu, &view).unwrap();
    let mut dst2 =
        DeviceArrayD::from_parts(gpu.zeros::<T>(n).unwrap(), 0, &shape, &strides).unwrap();
    dst2.assign(&on_device).unwrap();
    assert_eq!(
        dst2.to_array().unwrap(),
        view.to_owned(),
        "{what} (device source)"
    );
    let standard = on_device.to_standard_layout().unwrap();
    assert!(standard.is_standard_layout(), "{what}");
    assert_eq!(
        standard.to_array().unwrap(),
        view.to_owned(),
        "{what} (standard layout)"
    );
}

fn check_size<T: Pod + PartialEq + std::fmt::Debug>(gpu: &Gpu, from: impl Fn(u64) -> T + Copy) {
    let sizes = [
        (1, 1),
        (1, 33),
        (31, 32),
        (32, 33),
        (33, 31),
        (65, 100),
        (0, 5),
        (1000, 3),
        (3, 1000),
    ];
    for (i, &(r, c)) in sizes.iter().enumerate() {
        let a = random_array::<T>(&[r, c], i as u64, from);
        let f = {
            let mut f = Array::from_elem((r, c).f(), from(0));
            f.assign(&a.view().into_dimensionality::<ndarray::Ix2>().unwrap());
            f.into_dyn()
        };
        let views = [
            ("C", a.view()),
            ("F", f.view()),
            ("transposed", a.view().reversed_axes()),
            ("reversed", a.slice(s![..;-1, ..]).into_dyn()),
            ("both reversed", a.slice(s![..;-1, ..;-1]).into_dyn()),
            ("stepped", a.slice(s![..;2, 1..]).into_dyn()),
        ];
        for (name, v) in views {
            for order in [[0usize, 1], [1, 0]] {
                let what = format!(
                    "{} {name} {r}x{c} into order {order:?}",
                    std::any::type_name::<T>()
                );
                check_into_order(gpu, v.clone(), &order, &what);
            }
        }
    }
}

#[test]
fn every_element_size_and_two_dimensional_layout() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_size::<u8>(&gpu, |k| k as u8);
    check_size::<i16>(&gpu, |k| k as i16);
    check_size::<f32>(&gpu, |k| (k % 1000) as f32);
    check_size::<u64>(&gpu, |k| k);
    check_size::<gpu_core::Mat2<f32>>(&gpu, |k| {
        gpu_core::Mat2([k as f32, 1.0, 2.0, (k % 7) as f32])
    });
}

#[test]
fn permuted_higher_dimensional_arrays() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn prop(d: (u8, u8, u8, u8), src_perm: u8, dst_perm: u8, rev: u8) -> TestResult {
        let gpu = &gpu_or_skip().unwrap();
        let shape = [
            d.0 as usize % 5 + 1,
            d.1 as usize % 40 + 1,
            d.2 as usize % 6,
            d.3 as usize % 70 + 1,
        ];
        let a = random_array::<i32>(&shape, src_perm as u64 * 977 + dst_perm as u64, |k| {
            k as i32
        });
        let perms = permutations4();
        let mut v = a
            .view()
            .permuted_axes(IxDyn(&perms[src_perm as usize % 24]));
        for k in 0..4 {
            if rev >> k & 1 == 1 {
                v.invert_axis(ndarray::Axis(k));
            }
        }
        let order = perms[dst_perm as usize % 24];
        check_into_order(
            gpu,
            v,
            &order,
            &format!("{shape:?} src {src_perm} dst {dst_perm} rev {rev}"),
        );
        TestResult::passed()
    }
    let _ = gpu;
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn((u8, u8, u8, u8), u8, u8, u8) -> TestResult);
}

fn permutations4() -> Vec<[usize; 4]> {
    let mut out = Vec::new();
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let p = [a, b, c, d];
                    if (0..4).all(|x| p.contains(&x)) {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn a_large_transpose() {
    let Some(gpu) = gpu_or_skip() else { return };
    let (r, c) = (4099, 3001);
    let a = random_array::<f32>(&[r, c], 5, |k| (k % 4096) as f32);
    check_into_order(
        &gpu,
        a.view().reversed_axes(),
        &[0, 1],
        "4099x3001 transposed",
    );
}

#[test]
fn bad_shapes_are_refused() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut dst = DeviceArrayD::<f32>::zeros(&gpu, &[3, 4]).unwrap();
    let src = ndarray::Array2::<f32>::zeros((4, 3));
    let err = dst.assign(&src).unwrap_err().to_string();
    assert!(err.contains("src") && err.contains("[4, 3]"), "{err}");
}
