//! The staged long column spans (`scan_columns_staged_*`, compute capability 9.0+) at the
//! library's limits, forced on at every length through `scan.column_staged_from`: out of
//! memory at their first launch (kernel load and scratch) gives a clear error and the same
//! `Scan` runs right once the memory is back; 16 threads sharing one `Gpu`, on its stream and
//! on their own, give the CPU's results; arrays of more than 2^31 elements (4- and 8-byte
//! values) are scanned right to their last element. One test function, in this order: the
//! tuning is per process, and nothing else may allocate while the device is full. Skipped
//! (visibly) without a GPU or below compute capability 9.0, failing with
//! GPU_PRIMS_REQUIRE_GPU=1 without a GPU.
#![cfg(feature = "cuda")]

mod common;

use common::{check_axis, staged_spans_where, stages_spans, AxisCase};
use gpu_core::testing::{fill_memory, gpu_or_skip, is_out_of_memory};
use gpu_core::{DeviceArrayD, Element, Gpu, LanePlan, Op, Tuning};
use gpu_scan::{cpu, Scan, ScanKind};
use ndarray::{Array2, Axis};

/// Device memory the past-2^31 cases need: 2^31 + 32 u64 values in and out.
const HUGE_BYTES: usize = 36 << 30;

#[test]
fn gpu_staged_column_spans_at_the_limits() {
    let Some(gpu) = gpu_or_skip() else { return };
    let cc = gpu.properties().compute_capability;
    if cc < gpu_scan::plan::PREFETCH_MIN_COMPUTE {
        eprintln!("skipped: compute capability {cc:?} has no staged column spans");
        return;
    }
    let mut t = Tuning::new();
    t.set("scan.column_staged_from", 1).unwrap();
    gpu.set_tuning(t).unwrap();

    out_of_memory_then_recovery(&gpu);
    sixteen_threads(&gpu);
    if gpu.properties().total_memory < HUGE_BYTES {
        eprintln!(
            "skipped the past-2^31 cases: {} GiB of device memory, {} needed",
            gpu.properties().total_memory >> 30,
            HUGE_BYTES >> 30
        );
    } else {
        past_two_to_the_31::<u32>(&gpu, (1 << 25) + 3, 64, ScanKind::Inclusive);
        past_two_to_the_31::<u64>(&gpu, (1 << 26) + 1, 32, ScanKind::Exclusive);
    }
}

/// The first staged launch in this process with the device full: the kernel's load, the
/// scan's scratch or the host input's upload fails as out of memory (said as such), nothing
/// panics, and once the memory is back the same `Scan` gives the CPU's results.
fn out_of_memory_then_recovery(gpu: &Gpu) {
    let host = Array2::from_shape_fn((4097, 64), |(r, c)| ((r * 5 + c) % 9) as f32);
    let want = cpu::scan_axis(host.view(), Axis(0), Op::Sum, ScanKind::Inclusive)
        .unwrap()
        .into_dyn();
    let x = DeviceArrayD::from_array(gpu, &host).unwrap();
    let mut out = DeviceArrayD::<f32>::zeros_like_order(gpu, &[4097, 64], &[64, 1]).unwrap();
    let scan = Scan::new(gpu);
    gpu.synchronize().unwrap();

    let held = fill_memory(gpu);
    let first = scan.scan_axis_into(&x, Axis(0), Op::Sum, &mut out);
    let allocating = scan.cumsum_axis(&host, Axis(0));
    drop(held);
    gpu.synchronize().unwrap();

    let outcome = match &first {
        Ok(plan) => format!("ran ({plan})"),
        Err(e) if is_out_of_memory(e) => format!("out of memory: {e}"),
        Err(e) => panic!("the full device gave an unclear error: {e}"),
    };
    match &allocating {
        Err(e) if is_out_of_memory(e) => {}
        other => panic!("a host input on a full device: {other:?}"),
    }
    let plan = scan.scan_axis_into(&x, Axis(0), Op::Sum, &mut out).unwrap();
    assert!(staged_spans_where(&plan, true), "{plan}");
    assert_eq!(out.to_array().unwrap(), want, "after the memory came back");
    assert_eq!(scan.cumsum_axis(&host, Axis(0)).unwrap(), want);
    eprintln!("staged spans on a full device: first launch {outcome}; recovered");
}

/// 16 threads on one `Gpu`: the even ones share one `Scan` on the device's stream, the odd
/// ones scan on a stream of their own; each runs several shapes (one tile and several, 4- and
/// 8-byte values) three times, device to device and host to host.
fn sixteen_threads(gpu: &Gpu) {
    let shared = Scan::new(gpu);
    std::thread::scope(|s| {
        for t in 0..16usize {
            let (shared, gpu) = (&shared, gpu);
            s.spawn(move || {
                let stream = gpu.new_stream().unwrap();
                let scan = if t % 2 == 0 {
                    shared.clone()
                } else {
                    Scan::new(gpu).stream(&stream)
                };
                let what = format!("thread {t}");
                let rows = 2049 + 97 * t;
                for round in 0..3u64 {
                    let seed = 1000 * t as u64 + 10 * round;
                    let cases = [
                        AxisCase::c_order(&[rows, 64], 0),
                        AxisCase::c_order(&[rows, 1024], 0),
                    ];
                    for c in &cases {
                        checked::<f32>(&scan, &stream, c, Op::Sum, seed, &what);
                        checked::<i32>(&scan, &stream, c, Op::Max, seed + 1, &what);
                    }
                    let c8 = AxisCase::c_order(&[rows, 32], 0);
                    checked::<f64>(&scan, &stream, &c8, Op::Sum, seed + 2, &what);
                    checked::<i64>(&scan, &stream, &c8, Op::Min, seed + 3, &what);
                    let host = Array2::from_shape_fn((rows, 64), |(r, c)| ((r + c + t) % 7) as f32);
                    let want = cpu::scan_axis(host.view(), Axis(0), Op::Sum, ScanKind::Inclusive);
                    assert_eq!(
                        scan.cumsum_axis(&host, Axis(0)).unwrap(),
                        want.unwrap().into_dyn()
                    );
                }
            });
        }
    });
    eprintln!("staged spans: 16 threads sharing one Gpu match the CPU");
}

/// `common::check_axis` with the stream synchronized before the result is read back (its
/// download runs on the device's stream).
fn checked<T: Element>(
    scan: &Scan,
    stream: &gpu_core::Stream,
    c: &AxisCase,
    op: Op,
    seed: u64,
    what: &str,
) {
    let plan_ok = |plan: &LanePlan| {
        stream.synchronize().unwrap();
        staged_spans_where(plan, stages_spans::<T>(op, plan.tiles))
    };
    check_axis::<T>(scan, c, op, seed, usize::MAX, what, plan_ok);
}

/// A `rows` × `cols` array (more than 2^31 elements) of `(r % 5 + 1) · (c + 1)` scanned down
/// its columns: every element against the closed form `(c + 1) · Σ_{k ≤ r} (k % 5 + 1)`
/// (wrapping), so a value read from the wrong column, span or tile shows.
fn past_two_to_the_31<T: Element + Wrapping>(gpu: &Gpu, rows: usize, cols: usize, kind: ScanKind) {
    let n = rows * cols;
    assert!(n > 1 << 31);
    let data: Vec<T> = (0..n)
        .map(|i| T::from_u64((i / cols % 5 + 1) as u64 * (i % cols + 1) as u64))
        .collect();
    let x = DeviceArrayD::from_parts(
        gpu.upload(&data).unwrap(),
        0,
        &[rows, cols],
        &[cols as isize, 1],
    )
    .unwrap();
    drop(data);
    let mut out =
        DeviceArrayD::<T>::zeros_like_order(gpu, &[rows, cols], &[cols as isize, 1]).unwrap();
    let plan = Scan::new(gpu)
        .kind(kind)
        .scan_axis_into(&x, Axis(0), Op::Sum, &mut out)
        .unwrap();
    assert!(staged_spans_where(&plan, true), "{plan}");
    drop(x);
    let got = out.into_data().to_vec().unwrap();
    // Σ_{k < r} (k % 5 + 1) before row r, then row r's own term for an inclusive scan.
    let mut before = 0u64;
    for r in 0..rows {
        let own = (r % 5 + 1) as u64;
        let prefix = match kind {
            ScanKind::Inclusive => before + own,
            ScanKind::Exclusive => before,
        };
        for c in 0..cols {
            let want = T::from_u64(prefix.wrapping_mul(c as u64 + 1));
            let i = r * cols + c;
            assert!(
                got[i] == want,
                "{} {kind:?} {rows}x{cols} at row {r} column {c} (element {i}): got {:?}, want {:?}; {plan}",
                T::NAME,
                got[i],
                want
            );
        }
        before += own;
    }
    eprintln!(
        "staged spans: {} {kind:?} {rows} x {cols} ({n} elements) right to the last; {plan}",
        T::NAME
    );
}

/// Unsigned integers made from a `u64` by wrapping (the closed form's arithmetic).
trait Wrapping {
    fn from_u64(v: u64) -> Self;
}

impl Wrapping for u32 {
    fn from_u64(v: u64) -> Self {
        v as u32
    }
}

impl Wrapping for u64 {
    fn from_u64(v: u64) -> Self {
        v
    }
}
