//! Helpers shared by the GPU tests.
#![allow(dead_code)]

use gpu_core::data::SplitMix64;
use gpu_core::Element;

/// Small integers in −8..=8: every prefix sum of a random walk of them stays exact in f32, so
/// GPU and CPU results agree bit for bit whatever the grouping.
pub fn small_integers<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut r = SplitMix64::new(seed);
    (0..n)
        .map(|_| T::from_f64((r.next_u64() % 17) as f64 - 8.0))
        .collect()
}

/// Equal element by element, NaN matching NaN.
pub fn same_bits<T: Element>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
}

/// Scans `n` values of `data::exact(n, op, seed)` with `scan` on its GPU and compares them with
/// the CPU scan bit for bit (data on which every grouping is exact); panics naming `what`,
/// the type, operator and length at the first difference.
#[cfg(feature = "cuda")]
pub fn check_scan<T: Element>(
    scan: &gpu_scan::Scan,
    n: usize,
    op: gpu_core::Op,
    seed: u64,
    what: &str,
) {
    let x: Vec<T> = gpu_core::data::exact(n, op, seed);
    let gpu = scan.gpu();
    let dx = gpu.upload(&x).unwrap();
    let mut out = gpu.alloc::<T>(n).unwrap();
    scan.scan_into(&dx, &mut out, op).unwrap();
    let want = gpu_scan::cpu::scan(&x, op, scan.scan_options().kind).unwrap();
    assert_equal_values(
        &out.to_vec().unwrap(),
        &want,
        format_args!("{what}: {} {op} n={n}", T::NAME),
    );
}

/// Panics naming `label` and the first index where `got` and `want` differ.
pub fn assert_equal_values<T: Element>(got: &[T], want: &[T], label: std::fmt::Arguments) {
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{label}: first difference at {i}: got {:?}, want {:?}",
            got[i], want[i]
        );
    }
}

/// An axis scan's case: the array of `shape` and element `strides` seen from element 0 of a
/// buffer of `len` elements, scanned along `axis`.
pub struct AxisCase {
    pub len: usize,
    pub shape: Vec<usize>,
    pub strides: Vec<usize>,
    pub axis: usize,
}

impl AxisCase {
    pub fn new(len: usize, shape: &[usize], strides: &[usize], axis: usize) -> Self {
        AxisCase {
            len,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            axis,
        }
    }

    /// A dense C-order array of `shape`, along `axis`.
    pub fn c_order(shape: &[usize], axis: usize) -> Self {
        let mut strides = vec![1usize; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        AxisCase::new(shape.iter().product(), shape, &strides, axis)
    }
}

/// Whether `plan`'s long column spans hold rows in shared memory exactly where `want`
/// ([`gpu_core::COLUMN_STAGED_ROWS`] a thread, or none).
#[cfg(feature = "cuda")]
pub fn staged_spans_where(plan: &gpu_core::LanePlan, want: bool) -> bool {
    plan.access.long_span_staged_rows().filter(|&r| r > 0)
        == want.then_some(gpu_core::COLUMN_STAGED_ROWS as u32)
}

/// Whether the library stages long column spans of `T` scanned by `op` in a plan of `tiles`
/// tiles (where the tuning allows it): every operator at any tile count but the prod of 8-byte
/// values, for one tile (gpu-scan's `LaneKind::stages_column_spans`).
#[cfg(feature = "cuda")]
pub fn stages_spans<T: Element>(op: gpu_core::Op, tiles: u64) -> bool {
    op != gpu_core::Op::Product || std::mem::size_of::<T>() == 4 || tiles == 1
}

/// `c` on the device (`data::exact(len, op, seed)`) scanned along its axis into a new device
/// array of the same order, against the CPU's scan of the same host view, bit for bit; asserts
/// `plan_ok` of the plan that ran. Panics naming `what`, the type, operator, shape, strides and
/// plan. Returns whether it ran (cases over `max_len` elements do not).
#[cfg(feature = "cuda")]
pub fn check_axis<T: Element>(
    scan: &gpu_scan::Scan,
    c: &AxisCase,
    op: gpu_core::Op,
    seed: u64,
    max_len: usize,
    what: &str,
    plan_ok: impl Fn(&gpu_core::LanePlan) -> bool,
) -> bool {
    use ndarray::{ArrayD, Axis, IxDyn, ShapeBuilder};
    if c.len > max_len {
        return false;
    }
    let data = gpu_core::data::exact::<T>(c.len, op, seed);
    let host =
        ArrayD::from_shape_vec(IxDyn(&c.shape).strides(IxDyn(&c.strides)), data.clone()).unwrap();
    let signed: Vec<isize> = c.strides.iter().map(|&s| s as isize).collect();
    let gpu = scan.gpu();
    let x = gpu_core::DeviceArrayD::from_parts(gpu.upload(&data).unwrap(), 0, &c.shape, &signed)
        .unwrap();
    let mut out = gpu_core::DeviceArrayD::<T>::zeros_like_order(gpu, &c.shape, &signed).unwrap();
    let plan = scan.scan_axis_into(&x, Axis(c.axis), op, &mut out).unwrap();
    let case = format!(
        "{what}: {} {op} {:?} / {:?} axis {}",
        T::NAME,
        c.shape,
        c.strides,
        c.axis
    );
    assert!(plan_ok(&plan), "{case}: {plan}");
    let kind = scan.scan_options().kind;
    let want = gpu_scan::cpu::scan_axis(host.view(), Axis(c.axis), op, kind).unwrap();
    assert_eq!(out.to_array().unwrap(), want, "{case}: {plan}");
    true
}
