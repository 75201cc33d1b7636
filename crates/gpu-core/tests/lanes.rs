//! The lane layout and plan (no GPU needed): every lane of `axis_lanes` addresses exactly the
//! elements index arithmetic says, in row-major order of the result, for random shapes, axis
//! orders and stride signs; the plan picks the documented access pattern.

use gpu_core::{axis_lanes, axis_lanes_pair, check_no_alias, LaneAccess, LanePlan};
use quickcheck::{QuickCheck, TestResult};

/// Element offsets of lane `r` (row-major index into the result) by index arithmetic.
fn lane_by_index(shape: &[usize], strides: &[isize], axis: usize, r: usize) -> Vec<isize> {
    let mut idx = vec![0usize; shape.len()];
    let mut rest = r;
    for d in (0..shape.len()).rev().filter(|&d| d != axis) {
        idx[d] = rest % shape[d];
        rest /= shape[d];
    }
    (0..shape[axis])
        .map(|j| {
            idx[axis] = j;
            idx.iter().zip(strides).map(|(&i, &s)| i as isize * s).sum()
        })
        .collect()
}

fn lanes_match(shape: &[usize], strides: &[isize], axis: usize) -> bool {
    let lb = axis_lanes(shape, strides, axis).unwrap();
    let total: usize = shape
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != axis)
        .map(|(_, &n)| n)
        .product();
    if lb.total_lanes() as usize != total && !(total == 0 && lb.total_lanes() == 0) {
        return false;
    }
    let l = lb.lanes;
    for (b, &base) in lb.batches.iter().enumerate() {
        for lane in 0..l.count {
            let start = base
                + (lane / l.inner) as i64 * l.outer_stride
                + (lane % l.inner) as i64 * l.inner_stride;
            let got: Vec<isize> = (0..l.len)
                .map(|j| (start + j as i64 * l.axis_stride) as isize)
                .collect();
            let r = b * l.count as usize + lane as usize;
            if got != lane_by_index(shape, strides, axis, r) {
                return false;
            }
        }
    }
    true
}

#[test]
fn lanes_address_what_index_arithmetic_says() {
    fn prop(dims: Vec<u8>, perm_seed: u64, signs: u8, axis: u8) -> TestResult {
        let shape: Vec<usize> = dims.iter().take(5).map(|&d| d as usize % 5).collect();
        if shape.is_empty() {
            return TestResult::discard();
        }
        // Dense strides in a random axis order, some reversed.
        let mut order: Vec<usize> = (0..shape.len()).collect();
        let mut s = perm_seed;
        for i in (1..order.len()).rev() {
            order.swap(i, (s % (i as u64 + 1)) as usize);
            s /= 7;
        }
        let mut strides = vec![0isize; shape.len()];
        let mut acc = 1isize;
        for &d in order.iter().rev() {
            strides[d] = acc;
            acc *= shape[d].max(1) as isize;
        }
        for (d, st) in strides.iter_mut().enumerate() {
            if signs >> d & 1 == 1 {
                *st = -*st;
            }
        }
        TestResult::from_bool(lanes_match(&shape, &strides, axis as usize % shape.len()))
    }
    QuickCheck::new()
        .tests(500)
        .quickcheck(prop as fn(Vec<u8>, u64, u8, u8) -> TestResult);
}

#[test]
fn pairs_merge_alike_and_batches_appear_only_when_needed() {
    // Row-major 2×3×4 along the middle axis: (outer 2, inner 4), one batch.
    let lb = axis_lanes(&[2, 3, 4], &[12, 4, 1], 1).unwrap();
    assert_eq!(
        (lb.lanes.count, lb.lanes.inner, lb.batches.len()),
        (8, 4, 1)
    );
    // 4-D, axes permuted so that no two other axes merge: batches.
    let lb = axis_lanes(&[2, 3, 4, 5], &[1, 40, 2, 8], 3).unwrap();
    assert!(lb.batches.len() > 1);
    let (a, b) = axis_lanes_pair(&[2, 3, 4], &[12, 4, 1], &[1, 2, 6], 2).unwrap();
    assert_eq!(a.lanes.count, b.lanes.count);
    assert_eq!(a.batches.len(), b.batches.len());
}

#[test]
fn plans_pick_the_documented_patterns() {
    let plan = |shape: &[usize], strides: &[isize], axis| {
        LanePlan::new(&axis_lanes(shape, strides, axis).unwrap().lanes, 1056, 4)
    };
    assert_eq!(
        plan(&[1 << 27, 2], &[2, 1], 1).access,
        LaneAccess::ThreadPerLane
    );
    assert_eq!(
        plan(&[1 << 22, 64], &[64, 1], 1).access,
        LaneAccess::GroupPerLane(16)
    );
    assert_eq!(
        plan(&[1 << 14, 1 << 14], &[1 << 14, 1], 1).access,
        LaneAccess::WarpsPerLane(8)
    );
    let cols = plan(&[1 << 26, 4], &[4, 1], 0);
    assert_eq!(cols.access, LaneAccess::Columns);
    assert!(cols.splits > 1 && cols.tiles == 1, "{cols}");
    let long = plan(&[64, 1 << 22], &[1 << 22, 1], 1);
    assert!(long.splits > 1, "64 long rows need splits: {long}");
    assert_eq!(plan(&[1 << 14, 1 << 14], &[1 << 14, 1], 1).splits, 1);
}

#[test]
fn aliasing_strides_are_refused() {
    assert!(check_no_alias(&[3, 4], &[4, 1], "x").is_ok());
    assert!(check_no_alias(&[3, 4], &[1, 3], "x").is_ok());
    assert!(check_no_alias(&[3, 4], &[-4, 1], "x").is_ok());
    assert!(check_no_alias(&[3, 4], &[0, 1], "x").is_err());
    assert!(check_no_alias(&[3, 4], &[2, 1], "x").is_err());
    assert!(
        check_no_alias(&[0, 4], &[0, 0], "x").is_ok(),
        "no elements, nothing aliases"
    );
}
