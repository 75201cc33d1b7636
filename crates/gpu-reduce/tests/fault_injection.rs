//! Every driver call of every reduction failing in turn (the `fault-injection` feature):
//! an error naming the call, no panic, memory back to its baseline, the next call right.
//! Built and run by `scripts/gpu-bundle.sh` (`--features cuda,fault-injection`); one test, so
//! that nothing else allocates while memory is compared.

use gpu_core::testing::{fail_every_call, gpu_or_skip};
use gpu_core::Op;
use gpu_reduce::{Algorithm, Reduce};
use ndarray::{Array2, Axis};

fn dyadic(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 8) as f32 * 0.25 - 1.0).collect()
}

fn expect<T: PartialEq + std::fmt::Debug>(want: T) -> impl FnMut(&T) -> Result<(), String> {
    move |got| {
        (*got == want)
            .then_some(())
            .ok_or(format!("got {got:?}, want {want:?}"))
    }
}

#[test]
fn every_driver_call_of_every_reduction_fails_cleanly() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut points = 0;
    let host = dyadic(100_003);
    let want: f32 = host.iter().sum();
    let ints: Vec<i32> = (0..70_001).map(|i| (i * 7919) % 100_003 - 50_000).collect();
    let imax = *ints.iter().max().unwrap();
    for a in Algorithm::ALL {
        let r = Reduce::new(&gpu).algorithm(a);
        points += fail_every_call(
            &gpu,
            &format!("{a:?} sum of a host slice"),
            || r.sum(&host[..]),
            expect(want),
        )
        .points;
        let dev = gpu.upload(&ints).unwrap();
        points += fail_every_call(
            &gpu,
            &format!("{a:?} max of a device array"),
            || r.max(&dev),
            expect(Some(imax)),
        )
        .points;
        if r.argmin(&dev).is_err() {
            continue; // not every algorithm is built for the arg reductions
        }
        points += fail_every_call(
            &gpu,
            &format!("{a:?} argmin"),
            || r.argmin(&dev),
            expect(
                ints.iter()
                    .enumerate()
                    .min_by_key(|p| (*p.1, p.0))
                    .map(|p| p.0),
            ),
        )
        .points;
    }
    let m = Array2::from_shape_fn((300, 257), |(i, j)| ((i * 3 + j) % 8) as f32 * 0.25);
    let r = Reduce::new(&gpu);
    for axis in [0, 1] {
        let want = m.sum_axis(Axis(axis)).into_dyn();
        points += fail_every_call(
            &gpu,
            &format!("sum_axis({axis})"),
            || r.sum_axis(&m, Axis(axis)),
            expect(want),
        )
        .points;
    }
    let offsets: Vec<u64> = (0..=1000).map(|i| i * 100).collect();
    let want: Vec<f32> = offsets
        .windows(2)
        .map(|w| host[w[0] as usize..w[1] as usize].iter().sum())
        .collect();
    points += fail_every_call(
        &gpu,
        "segmented sum",
        || r.segmented_reduce(&host[..100_000], &offsets[..], Op::Sum),
        expect(want),
    )
    .points;
    // Host data through the pipeline's device ring: three chunks and a bit.
    let long: Vec<i32> = (0..(6usize << 20) + 5)
        .map(|i| (i % 9) as i32 - 4)
        .collect();
    let want: i32 = long.iter().fold(0i32, |a, &v| a.wrapping_add(v));
    let piped = Reduce::new(&gpu).pipelining(gpu_core::Pipelining::Always);
    points += fail_every_call(
        &gpu,
        "pipelined host sum",
        || piped.sum(&long[..]),
        expect(want),
    )
    .points;
    // Row sums of a host array through the pipeline: rows of 5000, three chunks.
    let rows = Array2::from_shape_fn((1000, 5000), |(i, j)| ((i * 7 + j) % 13) as i32 - 6);
    let want = rows.sum_axis(Axis(1)).into_dyn();
    points += fail_every_call(
        &gpu,
        "pipelined axis sum",
        || piped.sum_axis(&rows, Axis(1)),
        expect(want),
    )
    .points;
    // Column sums (the outer axis): rows of partials per chunk, folded at the end.
    let want = rows.sum_axis(Axis(0)).into_dyn();
    points += fail_every_call(
        &gpu,
        "pipelined outer-axis sum",
        || piped.sum_axis(&rows, Axis(0)),
        expect(want),
    )
    .points;
    // Short segments of host values through the pipeline: three chunks of whole tiles.
    let offsets: Vec<u64> = (0..long.len() as u64)
        .step_by(5)
        .chain(std::iter::once(long.len() as u64))
        .collect();
    let want: Vec<i32> = offsets
        .windows(2)
        .map(|w| long[w[0] as usize..w[1] as usize].iter().sum())
        .collect();
    points += fail_every_call(
        &gpu,
        "pipelined segmented sum",
        || piped.segmented_sum(&long[..], &offsets[..]),
        expect(want),
    )
    .points;
    eprintln!("fault injection: gpu-reduce: {points} failure points, 0 panics, 0 leaks");
}
