//! The long-span columns scans that hold half of each span in shared memory
//! (`scan_columns_staged_*` of `kernels/scan_sm90.cu`, compute capability 9.0+,
//! `scan.column_staged_from`): forced on at every length through the tuning keys, with and
//! without the L2 prefetch, they give the CPU scan's results bit for bit (data on which every
//! grouping is exact) for sum, product, min and max of every 4- and 8-byte type (the last
//! three staged for one tile only), inclusive and exclusive, at span edges (a staged span of
//! 16 threads down holds 1024 vector rows), for one tile and many, C and Fortran order, column
//! slices and 3-D arrays. One `Scan` crosses the threshold and back (staged and unstaged
//! launches share its scratch); a host array's pipelined scan gives the one-shot bits; the
//! built-in rule is checked against the device's tuning. Skipped (visibly) without a GPU or
//! below compute capability 9.0, failing with GPU_PRIMS_REQUIRE_GPU=1 without a GPU.
//! `STAGED_TEST_MAX_LEN=n` leaves out the longer cases (for the sanitizers' slow runs).
#![cfg(feature = "cuda")]

mod common;

use common::{check_axis, staged_spans_where, stages_spans, AxisCase};
use gpu_core::testing::{gpu_or_skip, one_pipeline_at_a_time, ran_pipeline};
use gpu_core::{Element, Gpu, LanePlan, Op, Pipelining, Tuning};
use gpu_scan::{Scan, ScanKind};
use ndarray::{ArrayD, Axis, IxDyn};

/// `c` scanned along its axis on the device against the CPU (`common::check_axis`), staging
/// its spans exactly where `staged` and the library's rule (`common::stages_spans`) allow it.
/// Returns whether it ran (not over `max_len` elements).
fn check<T: Element>(
    scan: &Scan,
    c: &AxisCase,
    op: Op,
    seed: u64,
    staged: bool,
    max_len: usize,
    what: &str,
) -> bool {
    check_axis::<T>(scan, c, op, seed, max_len, what, |plan: &LanePlan| {
        staged_spans_where(plan, staged && stages_spans::<T>(op, plan.tiles))
    })
}

fn tune(gpu: &Gpu, staged_from: u64, prefetch: bool) {
    let mut t = Tuning::new();
    t.set("scan.column_staged_from", staged_from).unwrap();
    t.set(
        "scan.shaped_prefetch_from",
        if prefetch { 1 } else { 1 << 40 },
    )
    .unwrap();
    gpu.set_tuning(t).unwrap();
}

/// One test function: the tuning is per device and process.
#[test]
fn gpu_staged_column_spans_match_the_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    if gpu.properties().compute_capability < gpu_scan::plan::PREFETCH_MIN_COMPUTE {
        eprintln!(
            "skipped: compute capability {:?} has no staged column spans",
            gpu.properties().compute_capability
        );
        return;
    }
    let max_len: usize = std::env::var("STAGED_TEST_MAX_LEN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let m = max_len;
    let mut cases = 0;
    // 64 columns of 4 bytes: 16 vectors across, 16 threads down, 512 vector rows a long span
    // unstaged (so 513 rows is the first of two spans, staged into one), 1024 staged.
    let rows_4 = [513usize, 1023, 1024, 1025, 2047, 2049, 4097, 40_000];
    // 32 columns of 8 bytes: 16 vectors of two lanes across, the same spans.
    let rows_8 = [1023usize, 1025, 3073, 9000];
    for prefetch in [false, true] {
        tune(&gpu, 1, prefetch);
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let scan = Scan::new(&gpu).kind(kind);
            let what = format!("{kind:?} prefetch {prefetch}");
            let w = what.as_str();
            let s = 10 * prefetch as u64 + kind as u64;
            let mut ran = Vec::new();
            for (k, &rows) in rows_4.iter().enumerate() {
                let c = AxisCase::c_order(&[rows, 64], 0);
                let s = s + 100 * k as u64;
                ran.push(check::<f32>(&scan, &c, Op::Sum, s, true, m, w));
                ran.push(check::<i32>(&scan, &c, Op::Max, s + 1, true, m, w));
                ran.push(check::<u32>(&scan, &c, Op::Product, s + 2, true, m, w));
                ran.push(check::<f32>(&scan, &c, Op::Min, s + 3, true, m, w));
                ran.push(check::<u32>(&scan, &c, Op::Sum, s + 4, true, m, w));
                ran.push(check::<i32>(&scan, &c, Op::Sum, s + 5, true, m, w));
            }
            for (k, &rows) in rows_8.iter().enumerate() {
                let c = AxisCase::c_order(&[rows, 32], 0);
                let s = s + 1000 + 100 * k as u64;
                ran.push(check::<f64>(&scan, &c, Op::Sum, s, true, m, w));
                ran.push(check::<i64>(&scan, &c, Op::Min, s + 1, true, m, w));
                ran.push(check::<u64>(&scan, &c, Op::Max, s + 2, true, m, w));
                ran.push(check::<i64>(&scan, &c, Op::Product, s + 3, true, m, w));
                ran.push(check::<u64>(&scan, &c, Op::Sum, s + 4, true, m, w));
                ran.push(check::<i64>(&scan, &c, Op::Sum, s + 5, true, m, w));
            }
            // The same lanes in Fortran order; a column slice of a wider array (a range per
            // row); three tiles of a 3-D array; 64 tiles (half blocks: 4 threads down, 256
            // rows a staged span), of 4- and 8-byte values. (Two or four dense columns take
            // the interleaved look-back rows instead.)
            let fortran = AxisCase::new(4100 * 64, &[64, 4100], &[1, 64], 1);
            let slice = AxisCase::new(2100 * 128, &[2100, 64], &[128, 1], 0);
            ran.push(check::<i32>(&scan, &fortran, Op::Sum, s + 7, true, m, w));
            ran.push(check::<f32>(&scan, &slice, Op::Sum, s + 8, true, m, w));
            let c3 = AxisCase::c_order(&[3, 5000, 64], 1);
            ran.push(check::<u32>(&scan, &c3, Op::Sum, s + 9, true, m, w));
            ran.push(check::<f32>(
                &scan,
                &AxisCase::c_order(&[1100, 8192], 0),
                Op::Sum,
                s + 10,
                true,
                m,
                w,
            ));
            // Narrow tiles: 8 and 12 columns of 4 bytes, 4 of 8 bytes (two or three vectors
            // across, 128 or 64 threads down: 16 or 8 rows of a warp).
            let narrow = [[20_000usize, 8], [9000, 12], [30_000, 4]];
            ran.push(check::<i32>(
                &scan,
                &AxisCase::c_order(&narrow[0], 0),
                Op::Sum,
                s + 13,
                true,
                m,
                w,
            ));
            ran.push(check::<f32>(
                &scan,
                &AxisCase::c_order(&narrow[0], 0),
                Op::Min,
                s + 14,
                true,
                m,
                w,
            ));
            ran.push(check::<f32>(
                &scan,
                &AxisCase::c_order(&narrow[1], 0),
                Op::Sum,
                s + 15,
                true,
                m,
                w,
            ));
            ran.push(check::<f64>(
                &scan,
                &AxisCase::c_order(&narrow[2], 0),
                Op::Sum,
                s + 16,
                true,
                m,
                w,
            ));
            let wide_8 = AxisCase::c_order(&[700, 4096], 0);
            ran.push(check::<f64>(&scan, &wide_8, Op::Max, s + 11, true, m, w));
            ran.push(check::<i64>(&scan, &wide_8, Op::Sum, s + 12, true, m, w));
            cases += ran.iter().filter(|&&r| r).count();
        }
    }
    // One Scan across the threshold and back: staged and unstaged spans in one scratch.
    tune(&gpu, 1 << 18, true);
    let scan = Scan::new(&gpu);
    for (k, rows) in [5000usize, 3000, 4097, 2049, 5000].into_iter().enumerate() {
        let c = AxisCase::c_order(&[rows, 64], 0);
        let staged = c.len >= 1 << 18;
        cases += check::<f32>(&scan, &c, Op::Sum, 500 + k as u64, staged, m, "threshold") as usize;
    }
    // A host array through the pipeline (spans of 256 threads down: 8192 vector rows staged,
    // chunks of whole spans) gives the one-shot scan's bits.
    if 600_000 * 8 <= max_len {
        // Positive values (no cancellation), so the error is relative to each sum.
        let data: Vec<f32> = (0..600_000u64 * 8)
            .map(|i| ((i * 7919) % 1000) as f32 * 0.37 + 0.001)
            .collect();
        // Exact (f64) running sums, inclusive, in memory order.
        let mut exact = vec![0f64; data.len()];
        for i in 0..data.len() {
            exact[i] = data[i] as f64 + if i >= 8 { exact[i - 8] } else { 0.0 };
        }
        let x = ArrayD::from_shape_vec(IxDyn(&[600_000, 8]), data).unwrap();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let scan = Scan::new(&gpu).kind(kind);
            let _serial = one_pipeline_at_a_time();
            let (piped, ran) = ran_pipeline(|| {
                scan.clone()
                    .pipelining(Pipelining::Always)
                    .scan_axis(&x, Axis(0), Op::Sum)
                    .unwrap()
            });
            assert_ne!(ran, Some(false), "{kind:?}: the pipeline was not taken");
            let once = scan
                .clone()
                .pipelining(Pipelining::Never)
                .scan_axis(&x, Axis(0), Op::Sum)
                .unwrap();
            let bits = |a: &ArrayD<f32>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&piped), bits(&once), "{kind:?}: pipelined bits");
            // Against the exact sums (the exclusive output one row later): within 2e-5 of
            // each sum (not the CPU's serial f32 scan, which differed from ours by 1e-4 of a
            // sum here on an H200).
            let got = piped.as_slice().unwrap();
            let want = |i: usize| match kind {
                ScanKind::Inclusive => exact[i],
                ScanKind::Exclusive if i >= 8 => exact[i - 8],
                ScanKind::Exclusive => 0.0,
            };
            let err = |i: usize| (got[i] as f64 - want(i)).abs() / want(i).max(1e-3);
            let worst = (0..got.len())
                .max_by(|&a, &b| err(a).total_cmp(&err(b)))
                .unwrap();
            assert!(
                err(worst) < 2e-5,
                "{kind:?}: relative error {} at {worst} (rows of 8): got {}, want {}",
                err(worst),
                got[worst],
                want(worst)
            );
            cases += 1;
        }
    }
    // The built-in rule: a long column scan of 2^24 values stages where the device's tuning
    // says so.
    gpu.set_tuning(Tuning::new()).unwrap();
    let c = AxisCase::c_order(&[1 << 18, 64], 0);
    let builtin = gpu.tuned("scan.column_staged_from") as usize <= c.len;
    cases += check::<i32>(&Scan::new(&gpu), &c, Op::Sum, 9001, builtin, m, "built-in") as usize;
    eprintln!("staged column spans: {cases} cases match the CPU (built-in rule stages at 2^24: {builtin})");
}
