//! Host-to-host scans through the device's host pipeline (`gpu_core::Gpu::host_pipeline`):
//! the same results as the one-shot path, bit for bit, at every chunk boundary, for exact and
//! deterministic float scans, from pageable and from page-locked memory; the pipeline itself
//! (all four pinned/pageable combinations, chunks of any size, the busy and bad-input cases).
//! Skipped visibly without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

mod common;

use std::mem::MaybeUninit;

use common::{same_bits, small_integers};
use gpu_core::data::{offsets_over, typical};
use gpu_core::testing::{gpu_or_skip, one_pipeline_at_a_time, ran_pipeline};
use gpu_core::{f16, Element, Gpu, Op, Pipelining, PIPELINE_CHUNK_BYTES};
use gpu_scan::{cpu, Algorithm, Scan, ScanKind};

/// Pipelined against one-shot, and against the CPU where `cpu_too` (exact data).
fn check<T: Element>(gpu: &Gpu, n: usize, op: Op, kind: ScanKind, algorithm: Algorithm) {
    let x: Vec<T> = small_integers(n, n as u64 + 11);
    let scan = Scan::new(gpu).kind(kind).algorithm(algorithm);
    let piped = scan
        .clone()
        .pipelining(Pipelining::Always)
        .scan(&x, op)
        .unwrap();
    let once = scan
        .clone()
        .pipelining(Pipelining::Never)
        .scan(&x, op)
        .unwrap();
    let ctx = format!("{} {op} {kind:?} {algorithm:?} n={n}", T::NAME);
    assert!(
        same_bits(&piped, &once),
        "{ctx}: pipelined differs from one-shot"
    );
    let want = cpu::scan(&x, op, kind).unwrap();
    assert!(same_bits(&piped, &want), "{ctx}: differs from the CPU");
}

/// Elements per chunk of the pipeline for 4-byte values at `n` (whole look-back tiles in 8 MiB):
/// register tiles of 512 × 32 below 2^25 values, staged tiles of 1024 × 56 from there.
fn chunk_4(n: usize) -> usize {
    let tile = if n >= 1 << 25 { 1024 * 56 } else { 512 * 32 };
    (PIPELINE_CHUNK_BYTES / 4 / tile) * tile
}

#[test]
fn pipelined_scans_equal_one_shot_at_chunk_boundaries() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let c = chunk_4(1 << 22);
    for n in [0, 1, 31, 33, c - 1, c, c + 1, 3 * c + 5] {
        check::<i32>(&gpu, n, Op::Sum, ScanKind::Inclusive, Algorithm::Auto);
        check::<u32>(&gpu, n, Op::Max, ScanKind::Exclusive, Algorithm::Auto);
        check::<f32>(&gpu, n, Op::Sum, ScanKind::Inclusive, Algorithm::Auto);
    }
    // Staged tiles, several chunks, the last one partial.
    let n = (1 << 25) + 7;
    assert!(n > 4 * chunk_4(n));
    check::<i32>(&gpu, n, Op::Sum, ScanKind::Exclusive, Algorithm::Auto);
    check::<f32>(
        &gpu,
        n,
        Op::Sum,
        ScanKind::Inclusive,
        Algorithm::LookBackDeterministic,
    );
    check::<i64>(&gpu, n, Op::Min, ScanKind::Inclusive, Algorithm::LookBack);
    check::<f16>(&gpu, n, Op::Sum, ScanKind::Inclusive, Algorithm::Auto);
}

/// Typical float data: the deterministic default gives the one-shot scan's bits through the
/// pipeline too.
#[test]
fn deterministic_float_sums_keep_their_bits() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1 << 25) + 1000;
    let x: Vec<f32> = gpu_core::data::typical(n, 3);
    let scan = Scan::new(&gpu);
    let piped = scan
        .clone()
        .pipelining(Pipelining::Always)
        .scan(&x, Op::Sum)
        .unwrap();
    let once = scan
        .pipelining(Pipelining::Never)
        .scan(&x, Op::Sum)
        .unwrap();
    assert!(same_bits(&piped, &once));
}

/// A page-locked input is read by the DMA engines directly.
#[test]
fn pinned_input() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 5 * chunk_4(1 << 23) + 3;
    let x: Vec<i32> = small_integers(n, 5);
    let pinned = gpu.pinned_from(&x).unwrap();
    let got = Scan::new(&gpu)
        .pipelining(Pipelining::Always)
        .scan(pinned.as_slice().unwrap(), Op::Sum)
        .unwrap();
    assert_eq!(got, cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap());
}

/// `scan_to_slice`: pipelined and one-shot into existing host memory, pageable and pinned,
/// the same bits; a wrong output length is an error.
#[test]
fn scan_to_slice_pageable_and_pinned() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1 << 25) + 3;
    let x: Vec<f32> = gpu_core::data::typical(n, 8);
    let want = Scan::new(&gpu)
        .pipelining(Pipelining::Never)
        .scan(&x, Op::Sum)
        .unwrap();
    let mut out = vec![0f32; n];
    let mut pinned_in = gpu.pinned_from(&x).unwrap();
    let mut pinned_out = gpu.pinned::<f32>(n).unwrap();
    for p in [Pipelining::Always, Pipelining::Never, Pipelining::Auto] {
        let scan = Scan::new(&gpu).pipelining(p);
        out.fill(-1.0);
        scan.scan_to_slice(&x, &mut out, Op::Sum).unwrap();
        assert!(same_bits(&out, &want), "{p:?} pageable");
        scan.scan_to_slice(
            pinned_in.as_mut_slice().unwrap(),
            pinned_out.as_mut_slice().unwrap(),
            Op::Sum,
        )
        .unwrap();
        assert!(
            same_bits(pinned_out.as_slice().unwrap(), &want),
            "{p:?} pinned"
        );
    }
    let e = Scan::new(&gpu)
        .scan_to_slice(&x, &mut out[1..], Op::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("out"), "{e}");
}

/// The pipeline alone, with no work: the output is the input, for every pinned/pageable
/// combination and chunk sizes that do and do not divide the length.
#[test]
fn pipeline_moves_every_byte() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 3 * (PIPELINE_CHUNK_BYTES / 8) + 12345;
    let x: Vec<u64> = (0..n as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let pinned_in = gpu.pinned_from(&x).unwrap();
    let mut device = gpu.alloc::<u64>(n).unwrap();
    for chunk in [PIPELINE_CHUNK_BYTES / 8, 1000, 77_777] {
        for (input, out_pinned) in [
            (&x[..], false),
            (&x[..], true),
            (pinned_in.as_slice().unwrap(), false),
            (pinned_in.as_slice().unwrap(), true),
        ] {
            let mut pinned_out = gpu.pinned::<u64>(n).unwrap();
            let mut pageable: Vec<u64> = Vec::with_capacity(n);
            let mut chunks = Vec::new();
            let ran = {
                let out: &mut [MaybeUninit<u64>] = if out_pinned {
                    let s = pinned_out.as_mut_slice().unwrap();
                    // SAFETY: initialised u64s viewed as possibly uninitialised ones.
                    unsafe { &mut *(s as *mut [u64] as *mut [MaybeUninit<u64>]) }
                } else {
                    pageable.spare_capacity_mut()
                };
                gpu.host_pipeline(input, out, &mut device, chunk, |r, _| {
                    chunks.push(r);
                    Ok(())
                })
                .unwrap()
            };
            assert!(ran);
            let got: &[u64] = if out_pinned {
                pinned_out.as_slice().unwrap()
            } else {
                // SAFETY: the pipeline wrote all n elements (it returned Ok(true)).
                unsafe { pageable.set_len(n) };
                &pageable
            };
            assert!(got == &x[..], "chunk {chunk}, pinned output {out_pinned}");
            assert_eq!(chunks.len(), n.div_ceil(chunk));
            assert!(chunks.iter().enumerate().all(|(k, r)| r.start == k * chunk));
            assert_eq!(chunks.last().unwrap().end, n);
        }
    }
}

/// A second pipeline on the same `Gpu` while one runs declines (the caller then goes one-shot);
/// bad arguments are errors naming them; an empty input does nothing.
#[test]
fn pipeline_busy_and_bad_input() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let x = vec![1u32; 1000];
    let mut out: Vec<u32> = Vec::with_capacity(1000);
    let mut device = gpu.alloc::<u32>(1000).unwrap();
    let mut inner = None;
    let g2 = gpu.clone();
    let ran = gpu
        .host_pipeline(&x, out.spare_capacity_mut(), &mut device, 100, |_, _| {
            if inner.is_none() {
                let mut d2 = g2.alloc::<u32>(10).unwrap();
                let mut o2: Vec<u32> = Vec::with_capacity(10);
                inner =
                    Some(
                        g2.host_pipeline(&x[..10], o2.spare_capacity_mut(), &mut d2, 10, |_, _| {
                            Ok(())
                        })
                        .unwrap(),
                    );
                // And a scan through the pipeline takes the one-shot path meanwhile.
                let s = Scan::new(&g2).pipelining(Pipelining::Always);
                assert_eq!(s.scan(&x[..10], Op::Sum).unwrap()[9], 10);
            }
            Ok(())
        })
        .unwrap();
    assert!(ran);
    assert_eq!(inner, Some(false));
    let mut small: Vec<u32> = Vec::with_capacity(999);
    let e = gpu
        .host_pipeline(&x, small.spare_capacity_mut(), &mut device, 100, |_, _| {
            Ok(())
        })
        .unwrap_err();
    assert!(e.to_string().contains("output"), "{e}");
    let mut tiny = gpu.alloc::<u32>(10).unwrap();
    let e = gpu
        .host_pipeline(&x, out.spare_capacity_mut(), &mut tiny, 100, |_, _| Ok(()))
        .unwrap_err();
    assert!(e.to_string().contains("device"), "{e}");
    for chunk in [0, PIPELINE_CHUNK_BYTES / 4 + 1] {
        let e = gpu
            .host_pipeline(&x, out.spare_capacity_mut(), &mut device, chunk, |_, _| {
                Ok(())
            })
            .unwrap_err();
        assert!(e.to_string().contains("chunk"), "{e}");
    }
    let mut none: Vec<u32> = Vec::new();
    assert!(gpu
        .host_pipeline(&[], none.spare_capacity_mut(), &mut device, 100, |_, _| {
            panic!("no chunks")
        })
        .unwrap());
    // A failing chunk's error comes back (after the streams are drained).
    let e = gpu
        .host_pipeline(&x, out.spare_capacity_mut(), &mut device, 100, |r, _| {
            if r.start == 300 {
                Err(gpu_core::Error::invalid("work", "failed on purpose"))
            } else {
                Ok(())
            }
        })
        .unwrap_err();
    assert!(e.to_string().contains("on purpose"), "{e}");
}

/// More than 2^31 values through the pipeline (8 GiB of u32 in and out).
#[test]
fn more_than_two_to_the_31_values() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 5;
    let x: Vec<u32> = (0..n).map(|i| (i % 7) as u32).collect();
    let got = Scan::new(&gpu)
        .pipelining(Pipelining::Always)
        .scan(&x, Op::Sum)
        .unwrap();
    let mut acc = 0u32;
    for (i, &v) in x.iter().enumerate() {
        acc = acc.wrapping_add(v);
        if i % 1_000_003 == 0 || i + 3 >= n {
            assert_eq!(got[i], acc, "{i}");
        }
    }
}

/// The non-blocking forms give the blocking forms' results; the buffers come back.
#[test]
fn async_forms() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 3 * chunk_4(1 << 24) + 17;
    let x: Vec<u32> = small_integers(n, 5);
    let scan = Scan::new(&gpu).pipelining(Pipelining::Always);
    let want = scan.scan(&x, Op::Sum).unwrap();
    let pending = scan.scan_async(x.clone(), Op::Sum);
    let pinned_in = gpu.pinned_from(&x).unwrap();
    let pinned_out = gpu.pinned::<u32>(n).unwrap();
    let (back_in, back_out) = scan
        .scan_pinned_async(pinned_in, pinned_out, Op::Sum)
        .wait()
        .unwrap();
    assert!(back_out.as_slice().unwrap() == &want[..]);
    assert!(back_in.as_slice().unwrap() == &x[..]);
    assert!(pending.wait().unwrap() == want);
    // A bad call's error comes back through `wait`.
    let short = gpu.pinned::<u32>(n - 1).unwrap();
    let e = scan
        .scan_pinned_async(back_in, short, Op::Sum)
        .wait()
        .unwrap_err();
    assert!(e.to_string().contains("out"), "{e}");
}

/// Sixteen threads and a rayon pool's tasks at once on one `Gpu`: one holds the pipeline at a
/// time, the others take the one-shot path instead of waiting (no deadlock, the staging never
/// grows), and every result is right.
#[test]
fn many_callers_at_once() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 2 * chunk_4(1 << 24) + 3;
    let inputs: Vec<Vec<u32>> = (0..16).map(|t| small_integers(n, 100 + t)).collect();
    let wants: Vec<Vec<u32>> = inputs
        .iter()
        .map(|x| cpu::scan(x, Op::Sum, ScanKind::Inclusive).unwrap())
        .collect();
    let scan = Scan::new(&gpu).pipelining(Pipelining::Always);
    std::thread::scope(|s| {
        for (x, want) in inputs.iter().zip(&wants) {
            let scan = scan.clone();
            s.spawn(move || {
                for _ in 0..3 {
                    let mut out = vec![0u32; x.len()];
                    scan.scan_to_slice(x, &mut out, Op::Sum).unwrap();
                    assert!(&out == want);
                }
            });
        }
    });
    use rayon::prelude::*;
    inputs.par_iter().zip(&wants).for_each(|(x, want)| {
        assert!(&scan.scan(x, Op::Sum).unwrap() == want);
    });
}

/// Axis scans of host arrays in C and Fortran order, along every axis: chunks of whole outer
/// slices through the pipeline (several chunks, the last one partial), the one-shot scan's bits
/// for exact and float data and a monoid. Along the outer axis (its lanes cross the chunks)
/// the one-shot launch runs chunk by chunk where it takes vector columns (spans) or look-back
/// rows (tiles: one, two or four columns, a 1-D array) or the generic lane kernels (splits),
/// every operator with the one-shot bits; elsewhere exact scans carry each lane's running
/// value from chunk to chunk (a slice of exactly one chunk) and float scans go one-shot.
#[test]
fn axis_scans_of_host_arrays() {
    use gpu_core::Affine;
    use ndarray::{ArrayD, Axis, IxDyn, ShapeBuilder};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    fn array<T: Element>(shape: &[usize], fortran: bool, seed: u64) -> ArrayD<T> {
        let n = shape.iter().product();
        let data: Vec<T> = small_integers(n, seed);
        let dim = IxDyn(shape);
        if fortran {
            ArrayD::from_shape_vec(dim.f(), data).unwrap()
        } else {
            ArrayD::from_shape_vec(dim, data).unwrap()
        }
    }
    // (shape, Fortran order, axis, pipelined expected for exact / for float scans): rows of
    // 5000 (419 per 8 MiB chunk of 4-byte values: 3 chunks), columns inside slices of
    // 64 × 130, Fortran likewise; then the outer axis: 1000 rows of 5000 lanes (vector
    // columns, spans of 256 rows: 4 chunks), 600000 rows of 8 lanes (spans of 4096 rows, 3
    // chunks of 262144 rows), slices of exactly one chunk (2^21 values of 4 bytes: one span
    // per lane, so floats go one-shot), 3-D C and Fortran (spans of 128 slices of 8320: 5
    // chunks, in C and Fortran order), four and two interleaved columns and one column (look-back rows, tiles of
    // 14336, 28672 and 57344 slices of 4-byte values), a 1-D array.
    // Then the generic lane kernels along the outer axis (lanes that are not 16-byte vectors):
    // 37 and 15 lanes of 4 bytes cut into splits (C and Fortran order), chunk by chunk; and
    // 30001 lanes of one split each, 100 rows (chunks of 68 rows, rounds of 4), chunk by
    // chunk with the running value handed on.
    type Case = (&'static [usize], bool, usize, bool, bool);
    let cases: [Case; 20] = [
        (&[1000, 5000], false, 1, true, true),
        (&[5000, 1000], true, 0, true, true),
        (&[600, 64, 130], false, 1, true, true),
        (&[600, 64, 130], false, 2, true, true),
        (&[130, 64, 600], true, 0, true, true),
        (&[130, 64, 600], true, 1, true, true),
        (&[1000, 5000], false, 0, true, true),
        (&[600000, 8], false, 0, true, true),
        (&[3, 1 << 21], false, 0, true, false),
        (&[600, 64, 130], false, 0, true, true),
        (&[130, 64, 600], true, 2, true, true),
        (&[(1 << 20) + 3, 4], false, 0, true, true),
        (&[2, 3 << 20], true, 1, true, true),
        (&[3_000_000, 1], false, 0, true, true),
        (&[5_000_003], false, 0, true, true),
        (&[600_000, 37], false, 0, true, true),
        (&[37, 600_001], true, 1, true, true),
        (&[200_003, 3, 5], false, 0, true, true),
        (&[100, 30_001], false, 0, true, true),
        (&[30_001, 100], true, 1, true, true),
    ];
    for (shape, fortran, axis, piped, piped_float) in cases {
        let ctx = format!("shape {shape:?} fortran {fortran} axis {axis}");
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let scan = Scan::new(&gpu).kind(kind);
            let always = scan.clone().pipelining(Pipelining::Always);
            let never = scan.clone().pipelining(Pipelining::Never);
            let x = array::<i32>(shape, fortran, 5);
            let (got, ran) = ran_pipeline(|| always.scan_axis(&x, Axis(axis), Op::Sum).unwrap());
            if let Some(ran) = ran {
                assert_eq!(ran, piped, "{ctx}: pipeline taken");
            }
            let want = cpu::scan_axis(x.view(), Axis(axis), Op::Sum, kind).unwrap();
            assert_eq!(got, want, "{ctx} {kind:?}: i32 sum differs from the CPU");
            assert_eq!(
                got.is_standard_layout(),
                !fortran || shape.len() < 2,
                "{ctx}: order kept"
            );
            let x = array::<f32>(shape, fortran, 6);
            let x = x.mapv(|v| v * 0.37 + 0.001);
            let (got, ran) = ran_pipeline(|| always.scan_axis(&x, Axis(axis), Op::Sum).unwrap());
            if let Some(ran) = ran {
                assert_eq!(ran, piped_float, "{ctx}: pipeline taken for f32");
            }
            let once = never.scan_axis(&x, Axis(axis), Op::Sum).unwrap();
            assert!(
                same_bits(
                    got.as_slice_memory_order().unwrap(),
                    once.as_slice_memory_order().unwrap()
                ) && got == once,
                "{ctx} {kind:?}: f32 sum differs from the one-shot scan"
            );
            let x = array::<u32>(shape, fortran, 7);
            let got = always.scan_axis(&x, Axis(axis), Op::Max).unwrap();
            let want = cpu::scan_axis(x.view(), Axis(axis), Op::Max, kind).unwrap();
            assert_eq!(got, want, "{ctx} {kind:?}: u32 max differs from the CPU");
            let x = array::<i64>(shape, fortran, 8).mapv(|v| v * 1_000_000_007);
            let got = always.scan_axis(&x, Axis(axis), Op::Sum).unwrap();
            let want = cpu::scan_axis(x.view(), Axis(axis), Op::Sum, kind).unwrap();
            assert_eq!(got, want, "{ctx} {kind:?}: i64 sum differs from the CPU");
        }
        // An exact (integer) affine monoid: pipelined wherever the i32 sum is, unless one of
        // its slices (8-byte values) exceeds a chunk.
        let slice: usize =
            shape.iter().product::<usize>() / shape[if fortran { shape.len() - 1 } else { 0 }];
        let piped = piped && slice * 8 <= PIPELINE_CHUNK_BYTES;
        let a = array::<i32>(shape, fortran, 10).mapv(|v| Affine {
            a: if v > 0 { 1i32 } else { -1 },
            b: v,
        });
        let (got, ran) = ran_pipeline(|| {
            Scan::new(&gpu)
                .pipelining(Pipelining::Always)
                .scan_axis_monoid(&a, Axis(axis))
                .unwrap()
        });
        if let Some(ran) = ran {
            assert_eq!(ran, piped, "{ctx}: pipeline taken for Affine<i32>");
        }
        let once = Scan::new(&gpu)
            .pipelining(Pipelining::Never)
            .scan_axis_monoid(&a, Axis(axis))
            .unwrap();
        assert!(
            got == once,
            "{ctx}: Affine<i32> scan differs from the one-shot scan"
        );
        // A float affine monoid: the one-shot scan's values wherever it streams.
        let a = array::<f32>(shape, fortran, 8).mapv(|v| Affine {
            a: if v > 0.0 { 0.5f32 } else { -1.0 },
            b: v,
        });
        let got = Scan::new(&gpu)
            .pipelining(Pipelining::Always)
            .scan_axis_monoid(&a, Axis(axis))
            .unwrap();
        let once = Scan::new(&gpu)
            .pipelining(Pipelining::Never)
            .scan_axis_monoid(&a, Axis(axis))
            .unwrap();
        assert!(
            got == once,
            "{ctx}: affine scan differs from the one-shot scan"
        );
    }
    // Layouts that are neither C nor Fortran, along every axis: axes in memory 1, 0, 2 (axis
    // 1 is its outer memory axis: 1024 slices of 40 × 130, vector columns in spans of 256
    // slices), the result in the input's layout; a strided view (every other element of the
    // last axis) and a reversed one (two axes running backwards through memory), each
    // gathered into C order as the one-shot path gathers it. The one-shot bits.
    let permuted = array::<f32>(&[1024, 40, 130], false, 11)
        .mapv(|v| v * 0.37 + 0.001)
        .permuted_axes(IxDyn(&[1, 0, 2]));
    let wide = array::<f32>(&[1024, 40, 260], false, 12).mapv(|v| v * 0.37 + 0.001);
    let strided = wide.slice(ndarray::s![.., .., ..;2]).into_dyn();
    let reversed = wide.slice(ndarray::s![..;-1, .., ..;-1]).into_dyn();
    for (what, x) in [
        ("permuted", permuted.view()),
        ("strided", strided),
        ("reversed", reversed),
    ] {
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let scan = Scan::new(&gpu).kind(kind);
            for axis in 0..3 {
                let ctx = format!("{what}, axis {axis} {kind:?}");
                let (got, ran) = ran_pipeline(|| {
                    scan.clone()
                        .pipelining(Pipelining::Always)
                        .scan_axis(&x, Axis(axis), Op::Sum)
                        .unwrap()
                });
                if let Some(ran) = ran {
                    assert!(ran, "{ctx}: pipeline not taken");
                }
                let once = scan
                    .clone()
                    .pipelining(Pipelining::Never)
                    .scan_axis(&x, Axis(axis), Op::Sum)
                    .unwrap();
                let (g, o): (Vec<f32>, Vec<f32>) = (
                    got.iter().copied().collect(),
                    once.iter().copied().collect(),
                );
                assert!(same_bits(&g, &o), "{ctx}: differs from the one-shot scan");
                if what == "permuted" {
                    assert_eq!(got.strides(), x.strides(), "{ctx}: layout");
                }
            }
        }
    }
    // Bad input keeps its error through the pipelined path.
    let x = array::<i32>(&[1000, 5000], false, 9);
    let e = Scan::new(&gpu)
        .pipelining(Pipelining::Always)
        .scan_axis(&x, Axis(2), Op::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("axis"), "{e}");
}

/// The outer-axis parts alone, small, for compute-sanitizer (filter `outer_axis_parts`):
/// vector columns by spans (4 chunks), four interleaved columns and one column by tiles, 37
/// columns by the generic lanes' splits, 30001 columns of one split each by rounds, f32 sums
/// against the one-shot bits.
#[test]
fn outer_axis_parts_for_the_sanitizers() {
    use ndarray::{ArrayD, Axis, IxDyn};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    for shape in [
        &[1000usize, 5000][..],
        &[(1 << 20) + 3, 4],
        &[2_100_000, 1],
        &[150_001, 37],
        &[100, 30_001],
    ] {
        let n = shape.iter().product();
        let x = ArrayD::from_shape_vec(IxDyn(shape), typical::<f32>(n, 3)).unwrap();
        let scan = Scan::new(&gpu).kind(ScanKind::Exclusive);
        let (got, ran) = ran_pipeline(|| {
            scan.clone()
                .pipelining(Pipelining::Always)
                .scan_axis(&x, Axis(0), Op::Sum)
                .unwrap()
        });
        if let Some(ran) = ran {
            assert!(ran, "{shape:?}: pipeline not taken");
        }
        let once = scan
            .pipelining(Pipelining::Never)
            .scan_axis(&x, Axis(0), Op::Sum)
            .unwrap();
        assert!(
            same_bits(
                got.as_slice_memory_order().unwrap(),
                once.as_slice_memory_order().unwrap()
            ),
            "{shape:?}: differs from the one-shot scan"
        );
    }
}

/// Segmented scans of host values through the pipeline (chunks of whole tiles, the look-back
/// continuing across chunks): the one-shot scan's bits and the CPU's values for short, medium,
/// long and empty segments, sizes around the chunk, inclusive and exclusive, exact, float and
/// monoid values, host offsets and a checked `Segments`.
#[test]
fn segmented_scans_of_host_values() {
    use gpu_core::{Affine, Segments};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let c = PIPELINE_CHUNK_BYTES / 4;
    let cases: [(usize, std::ops::Range<u64>); 6] = [
        (5 * c + 77, 0..9),
        (4 * c - 1, 1..2000),
        (4 * c + 1, 1..2000),
        (6 * c, (1 << 20)..(1 << 23)),
        (3 * c + 5, 0..3),
        (1, 1..2),
    ];
    for (n, lengths) in cases {
        let offsets = offsets_over(n, lengths.clone(), n as u64);
        let ctx = format!("n={n} lengths {lengths:?}");
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let scan = Scan::new(&gpu).kind(kind);
            let always = scan.clone().pipelining(Pipelining::Always);
            let never = scan.clone().pipelining(Pipelining::Never);
            let x: Vec<i32> = small_integers(n, 3);
            // Checked segments made first: host offsets of 16 MiB or more would upload through
            // the pipeline's ring too (three more streams).
            let checked = Segments::new(&gpu, &offsets, n).unwrap();
            let (got, ran) = ran_pipeline(|| always.segmented_scan(&x, &checked, Op::Sum).unwrap());
            if let Some(ran) = ran {
                assert!(ran, "{ctx}: pipeline not taken");
            }
            let want = cpu::segmented_scan(&x, &offsets, Op::Sum, kind).unwrap();
            assert_eq!(got, want, "{ctx} {kind:?}: i32 sum differs from the CPU");
            let x: Vec<u32> = small_integers(n, 4);
            let got = always.segmented_scan(&x, &checked, Op::Max).unwrap();
            let want = cpu::segmented_scan(&x, &offsets, Op::Max, kind).unwrap();
            assert_eq!(got, want, "{ctx} {kind:?}: u32 max differs from the CPU");
            let f: Vec<f32> = small_integers::<f32>(n, 5)
                .iter()
                .map(|v| v * 0.37 + 0.001)
                .collect();
            let got = always.segmented_scan(&f, &offsets, Op::Sum).unwrap();
            let once = never.segmented_scan(&f, &offsets, Op::Sum).unwrap();
            assert!(
                same_bits(&got, &once),
                "{ctx} {kind:?}: f32 sum differs from the one-shot scan"
            );
        }
        let a: Vec<Affine<f32>> = small_integers::<f32>(n, 6)
            .iter()
            .map(|&v| Affine {
                a: if v > 0.0 { 0.5 } else { -1.0 },
                b: v,
            })
            .collect();
        let got = Scan::new(&gpu)
            .pipelining(Pipelining::Always)
            .segmented_scan_monoid(&a, &offsets)
            .unwrap();
        let once = Scan::new(&gpu)
            .pipelining(Pipelining::Never)
            .segmented_scan_monoid(&a, &offsets)
            .unwrap();
        assert!(
            got == once,
            "{ctx}: affine scan differs from the one-shot scan"
        );
    }
    // Bad offsets keep their error through the pipelined path.
    let x = vec![1i32; 4 * c];
    let e = Scan::new(&gpu)
        .pipelining(Pipelining::Always)
        .segmented_scan(&x, &[0u64, 5, 3, (4 * c) as u64][..], Op::Sum)
        .unwrap_err();
    assert!(e.to_string().contains("offsets"), "{e}");
}
