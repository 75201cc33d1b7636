//! Every driver call of every scan failing in turn (the `fault-injection` feature): an error
//! naming the call, no panic, memory back to its baseline, the next call right. Built and run
//! by `scripts/gpu-bundle.sh` (`--features cuda,fault-injection`); one test, so that nothing
//! else allocates while memory is compared.

use gpu_core::testing::{fail_each_call_into, fail_every_call, gpu_or_skip};
use gpu_core::{Op, Pipelining};
use gpu_scan::{cpu, Algorithm, Scan, ScanKind};
use ndarray::{Array2, Axis};

fn expect<T: PartialEq + std::fmt::Debug>(want: T) -> impl FnMut(&T) -> Result<(), String> {
    move |got| {
        (*got == want)
            .then_some(())
            .ok_or_else(|| "the result differs from the CPU reference".to_string())
    }
}

#[test]
fn every_driver_call_of_every_scan_fails_cleanly() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut points = 0;
    let host: Vec<i32> = (0..200_003).map(|i| (i * 7919) % 1000 - 500).collect();
    for a in Algorithm::ALL {
        for exclusive in [false, true] {
            let kind = if exclusive {
                ScanKind::Exclusive
            } else {
                ScanKind::Inclusive
            };
            let s = if exclusive {
                Scan::new(&gpu).exclusive()
            } else {
                Scan::new(&gpu)
            }
            .algorithm(a);
            let want = cpu::scan(&host, Op::Sum, kind).unwrap();
            points += fail_every_call(
                &gpu,
                &format!("{a:?} {kind:?} sum"),
                || s.scan(&host[..], Op::Sum),
                expect(want),
            )
            .points;
        }
        if !a.is_gpu() {
            continue; // host algorithms give host results only (no driver calls above either)
        }
        let dev = gpu.upload(&host).unwrap();
        let want = cpu::scan(&host, Op::Max, ScanKind::Inclusive).unwrap();
        let s = Scan::new(&gpu).algorithm(a);
        points += fail_every_call(
            &gpu,
            &format!("{a:?} max into a device array"),
            || {
                let mut out = gpu.alloc::<i32>(dev.len())?;
                s.scan_into(&dev, &mut out, Op::Max)?;
                out.to_vec()
            },
            expect(want),
        )
        .points;
    }
    let m = Array2::from_shape_fn((300, 257), |(i, j)| ((i * 3 + j) % 11) as i32 - 5);
    let s = Scan::new(&gpu);
    for axis in [0, 1] {
        let mut want = m.clone();
        want.accumulate_axis_inplace(Axis(axis), |&prev, cur| *cur += prev);
        points += fail_every_call(
            &gpu,
            &format!("cumsum_axis({axis})"),
            || s.cumsum_axis(&m, Axis(axis)),
            expect(want.into_dyn()),
        )
        .points;
    }
    let offsets: Vec<u64> = (0..=1000).map(|i| i * 200).collect();
    let values = &host[..200_000];
    let mut want = Vec::new();
    for w in offsets.windows(2) {
        want.extend(
            cpu::scan(
                &values[w[0] as usize..w[1] as usize],
                Op::Sum,
                ScanKind::Inclusive,
            )
            .unwrap(),
        );
    }
    points += fail_every_call(
        &gpu,
        "segmented scan",
        || s.segmented_scan(values, &offsets[..], Op::Sum),
        expect(want),
    )
    .points;
    // Host to host through the pipeline's device ring: three chunks, so that failures land in
    // the first, a middle and the last one, and in the drains.
    let long: Vec<i32> = (0..(6usize << 20) + 5)
        .map(|i| (i % 9) as i32 - 4)
        .collect();
    let want = cpu::scan(&long, Op::Sum, ScanKind::Inclusive).unwrap();
    let piped = Scan::new(&gpu).pipelining(Pipelining::Always);
    points += fail_every_call(
        &gpu,
        "pipelined host to host",
        || {
            let mut out = vec![0i32; long.len()];
            piped.scan_to_slice(&long, &mut out, Op::Sum)?;
            Ok(out)
        },
        expect(want),
    )
    .points;
    // An axis scan of a host array through the pipeline: rows of 5000 i32, 419 per chunk,
    // three chunks.
    let rows = Array2::from_shape_fn((1000, 5000), |(i, j)| ((i * 7 + j) % 13) as i32 - 6);
    let mut want = rows.clone();
    want.accumulate_axis_inplace(Axis(1), |&prev, cur| *cur += prev);
    points += fail_every_call(
        &gpu,
        "pipelined axis scan",
        || piped.cumsum_axis(&rows, Axis(1)),
        expect(want.into_dyn()),
    )
    .points;
    // Along the outer axis (the running value of each of 5000 lanes carried between the three
    // chunks), exclusive.
    let mut want = Array2::zeros(rows.dim());
    for i in 1..rows.nrows() {
        let next = &want.row(i - 1) + &rows.row(i - 1);
        want.row_mut(i).assign(&next);
    }
    let excl = piped.clone().kind(ScanKind::Exclusive);
    points += fail_every_call(
        &gpu,
        "pipelined outer-axis scan",
        || excl.cumsum_axis(&rows, Axis(0)),
        expect(want.into_dyn()),
    )
    .points;
    // A segmented scan of host values through the pipeline: short segments, three chunks.
    let offsets: Vec<u64> = (0..=long.len() as u64)
        .step_by(7)
        .chain(std::iter::once(long.len() as u64))
        .collect();
    let mut offsets = offsets;
    offsets.dedup();
    let want = cpu::segmented_scan(&long, &offsets, Op::Sum, ScanKind::Inclusive).unwrap();
    points += fail_every_call(
        &gpu,
        "pipelined segmented scan",
        || piped.segmented_scan(&long, &offsets[..], Op::Sum),
        expect(want),
    )
    .points;
    // What a failure leaves in the caller's slice: untouched before the first results come
    // back, each element its result or untouched after.
    let want = cpu::scan(&long, Op::Sum, ScanKind::Inclusive).unwrap();
    fail_each_call_into("pipelined scan_to_slice", i32::MIN, &want, |out| {
        piped.scan_to_slice(&long, out, Op::Sum)
    });
    eprintln!("fault injection: gpu-scan: {points} failure points, 0 panics, 0 leaks");
}
