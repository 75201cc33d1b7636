//! Reductions of host data through the device's upload-only host pipeline
//! (`gpu_core::Gpu::host_stream_in`): exact operators equal the one-shot reduction bit for bit
//! for sizes around the chunk and the ring (every slot reused), floats are run-to-run identical
//! and within the tolerance of the f64 sum, non-commutative monoids keep their order, page-locked
//! input, more than 2^31 values through a 24 MiB device ring, and the non-blocking forms.
//! Skipped visibly without a GPU; failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::data::{offsets_over, typical, SplitMix64};
use gpu_core::testing::{count_calls, gpu_or_skip, one_pipeline_at_a_time};
use gpu_core::{bf16, f16, Mat2, Op, Pipelining, PIPELINE_CHUNK_BYTES};
use gpu_reduce::{cpu, Algorithm, Reduce};

fn ints(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.next_u64() as u32).collect()
}

#[test]
fn exact_operators_equal_one_shot_around_chunks() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let c = PIPELINE_CHUNK_BYTES / 4;
    let piped = Reduce::new(&gpu).pipelining(Pipelining::Always);
    let once = Reduce::new(&gpu);
    for n in [1, 1000, c - 1, c, c + 1, 3 * c + 5, 7 * c - 3] {
        let x = ints(n, n as u64);
        for op in Op::ALL {
            let want = cpu::reduce(&x, op).unwrap();
            assert_eq!(piped.reduce(&x, op).unwrap(), want, "u32 {op} n={n}");
            assert_eq!(
                once.reduce(&x, op).unwrap(),
                want,
                "u32 {op} n={n} one-shot"
            );
        }
        let f: Vec<f32> = typical(n, n as u64 + 1);
        assert_eq!(
            piped.max(&f).unwrap().map(f32::to_bits),
            once.max(&f).unwrap().map(f32::to_bits),
            "f32 max n={n}"
        );
        assert_eq!(piped.sum_wide(&x).unwrap(), cpu::sum_wide(&x), "wide n={n}");
        assert_eq!(piped.argmin(&f).unwrap(), cpu::argmin(&f), "argmin n={n}");
    }
}

/// argmin and argmax of host data through the pipeline: each chunk's pair made global and the
/// pairs folded on the device. Ties across chunks (the first wins), a NaN in a later
/// chunk (the first NaN wins), -0.0 against 0.0 (equal: the first), sizes around the chunk,
/// every element type, all equal to the CPU (f32 also to the one-shot index).
#[test]
fn arg_reductions_equal_one_shot_across_chunks() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let c = PIPELINE_CHUNK_BYTES / 4;
    let piped = Reduce::new(&gpu).pipelining(Pipelining::Always);
    let once = Reduce::new(&gpu).pipelining(Pipelining::Never);
    for n in [1, 1000, c - 1, c, c + 1, 3 * c + 5, 7 * c - 3] {
        // Few distinct values: every extreme occurs in every chunk.
        let mut f: Vec<f32> = ints(n, n as u64 + 7)
            .iter()
            .map(|&v| (v % 9) as f32 - 4.0)
            .collect();
        let u: Vec<u32> = f.iter().map(|&v| v as u32).collect();
        let h: Vec<f16> = f.iter().map(|&v| f16::from_f32(v)).collect();
        let (got, launches) = count_calls("cuLaunchKernel", || piped.argmin(&f).unwrap());
        if let Some(k) = launches {
            assert!(k >= n.div_ceil(c), "n={n}: {k} launches, not pipelined");
        }
        assert_eq!(got, cpu::argmin(&f), "f32 argmin n={n}");
        assert_eq!(got, once.argmin(&f).unwrap(), "f32 argmin n={n} one-shot");
        assert_eq!(
            piped.argmax(&f).unwrap(),
            cpu::argmax(&f),
            "f32 argmax n={n}"
        );
        assert_eq!(
            piped.argmin(&u).unwrap(),
            cpu::argmin(&u),
            "u32 argmin n={n}"
        );
        assert_eq!(
            piped.argmax(&u).unwrap(),
            cpu::argmax(&u),
            "u32 argmax n={n}"
        );
        assert_eq!(
            piped.argmin(&h).unwrap(),
            cpu::argmin(&h),
            "f16 argmin n={n}"
        );
        assert_eq!(
            piped.argmax(&h).unwrap(),
            cpu::argmax(&h),
            "f16 argmax n={n}"
        );
        let (d, l): (Vec<f64>, Vec<i64>) = f.iter().map(|&v| (v as f64, v as i64)).unzip();
        let b: Vec<bf16> = f.iter().map(|&v| bf16::from_f32(v)).collect();
        assert_eq!(piped.argmin(&d).unwrap(), cpu::argmin(&d), "f64 n={n}");
        assert_eq!(piped.argmax(&l).unwrap(), cpu::argmax(&l), "i64 n={n}");
        assert_eq!(piped.argmax(&b).unwrap(), cpu::argmax(&b), "bf16 n={n}");
        if n < 5 {
            continue;
        }
        // Zeros of both signs are the smallest values, from the middle on: equal, so the
        // first of them wins.
        let z: Vec<f32> = (0..n)
            .map(|i| match (i < n / 2, i % 3) {
                (true, _) => 1.0 + (i % 4) as f32,
                (false, 0) => -0.0,
                (false, 1) => 0.0,
                _ => 2.0,
            })
            .collect();
        assert_eq!(piped.argmin(&z).unwrap(), cpu::argmin(&z), "zeros n={n}");
        // NaNs in the later chunks: the first of them wins, argmin and argmax alike.
        f[n - 2] = f32::NAN;
        f[n - 1 - n / 3] = f32::NAN;
        assert_eq!(cpu::argmax(&f), Some(n - 1 - n / 3), "n={n}");
        assert_eq!(
            piped.argmin(&f).unwrap(),
            cpu::argmin(&f),
            "NaN argmin n={n}"
        );
        assert_eq!(
            piped.argmax(&f).unwrap(),
            cpu::argmax(&f),
            "NaN argmax n={n}"
        );
    }
}

/// The argmin/argmax pipelines' own kernels (indices made global, chunks merged into the lanes'
/// best pairs) on inputs of three chunks, small enough for compute-sanitizer: flat f32 and f64,
/// and along the outer axis of a C-order array (slices of 1000).
#[test]
fn arg_pipelines_for_the_sanitizers() {
    use ndarray::{Array2, Axis};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let piped = Reduce::new(&gpu).pipelining(Pipelining::Always);
    let n = 5 * (PIPELINE_CHUNK_BYTES / 8) / 2;
    let f: Vec<f32> = ints(n, 3).iter().map(|&v| (v % 5) as f32).collect();
    let d: Vec<f64> = f.iter().map(|&v| v as f64).collect();
    assert_eq!(piped.argmin(&f).unwrap(), cpu::argmin(&f), "f32 argmin");
    assert_eq!(piped.argmax(&d).unwrap(), cpu::argmax(&d), "f64 argmax");
    let x = Array2::from_shape_vec((n / 1000, 1000), f[..n / 1000 * 1000].to_vec()).unwrap();
    for (got, want) in [
        (
            piped.argmin_axis(&x, Axis(0)),
            cpu::argmin_axis(x.view(), Axis(0)),
        ),
        (
            piped.argmax_axis(&x, Axis(0)),
            cpu::argmax_axis(x.view(), Axis(0)),
        ),
    ] {
        assert_eq!(
            got.unwrap(),
            want.unwrap().into_dyn(),
            "along the outer axis"
        );
    }
}

#[test]
fn float_sums_are_deterministic_and_close() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 5 * (PIPELINE_CHUNK_BYTES / 4) + 77;
    let f: Vec<f32> = typical(n, 9);
    let exact: f64 = f.iter().map(|&v| v as f64).sum();
    let mag: f64 = f.iter().map(|&v| (v as f64).abs()).sum();
    for a in [Algorithm::Auto, Algorithm::TwoPass, Algorithm::WarpShuffle] {
        let r = Reduce::new(&gpu)
            .algorithm(a)
            .pipelining(Pipelining::Always);
        let first = r.sum(&f).unwrap();
        for _ in 0..3 {
            assert_eq!(r.sum(&f).unwrap().to_bits(), first.to_bits(), "{a}");
        }
        // The default (Auto, 40 MiB here) takes the same chunks.
        let auto = Reduce::new(&gpu).algorithm(a).sum(&f).unwrap();
        assert_eq!(auto.to_bits(), first.to_bits(), "{a} default");
        let tol = 1e-6 * mag + 1e-3;
        assert!(
            (first as f64 - exact).abs() <= tol,
            "{a}: {first} vs {exact}"
        );
    }
    // 16-bit values summed in f32.
    let h: Vec<f16> = typical(3 * (PIPELINE_CHUNK_BYTES / 2) + 11, 10);
    let exact: f64 = h.iter().map(|v| v.to_f64()).sum();
    let mag: f64 = h.iter().map(|v| v.to_f64().abs()).sum();
    let got = Reduce::new(&gpu)
        .pipelining(Pipelining::Always)
        .sum(&h)
        .unwrap();
    assert!(
        (got as f64 - exact).abs() <= 1e-6 * mag + 1e-3,
        "{got} vs {exact}"
    );
}

/// While another pipeline holds the device's staging, a pipelined reduction reduces the same
/// chunks from one upload: the same float bits.
#[test]
fn busy_pipeline_gives_the_same_bits() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let f: Vec<f32> = typical(3 * (PIPELINE_CHUNK_BYTES / 4) + 5, 12);
    let r = Reduce::new(&gpu).pipelining(Pipelining::Always);
    let free = r.sum(&f).unwrap();
    let x = vec![0u8; 100];
    let mut out: Vec<u8> = Vec::with_capacity(100);
    let mut d = gpu.alloc::<u8>(100).unwrap();
    let mut inside = None;
    let ran = gpu
        .host_pipeline(&x, out.spare_capacity_mut(), &mut d, 10, |_, _| {
            if inside.is_none() {
                inside = Some(r.sum(&f).unwrap());
            }
            Ok(())
        })
        .unwrap();
    assert!(ran);
    assert_eq!(inside.unwrap().to_bits(), free.to_bits());
}

#[test]
fn monoids_keep_their_order() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    // 16-byte matrices: 2^19 per chunk; 5 chunks and a bit.
    let n = 5 * (PIPELINE_CHUNK_BYTES / 16) + 3;
    let mut rng = SplitMix64::new(4);
    let m: Vec<Mat2<u32>> = (0..n)
        .map(|_| {
            let (a, b) = (rng.next_u64() as u32 & 7, rng.next_u64() as u32 & 7);
            Mat2([1, a, b, 1u32.wrapping_add(a.wrapping_mul(b))])
        })
        .collect();
    let got = Reduce::new(&gpu)
        .pipelining(Pipelining::Always)
        .reduce_monoid(&m)
        .unwrap();
    assert_eq!(got, cpu::reduce_monoid(&m));
}

#[test]
fn pinned_input_and_async_forms() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 4 * (PIPELINE_CHUNK_BYTES / 4) + 9;
    let x = ints(n, 77);
    let want = cpu::reduce(&x, Op::Sum).unwrap();
    let pinned = gpu.pinned_from(&x).unwrap();
    let r = Reduce::new(&gpu).pipelining(Pipelining::Always);
    assert_eq!(r.reduce(pinned.as_slice().unwrap(), Op::Sum).unwrap(), want);
    let pending = r.reduce_async(x.clone(), Op::Sum);
    let (v, back) = r.reduce_pinned_async(pinned, Op::Max).wait().unwrap();
    assert_eq!(v, cpu::reduce(&x, Op::Max).unwrap());
    assert_eq!(back.len(), n);
    assert_eq!(pending.wait().unwrap(), want);
}

/// More than 2^31 values (8 GiB of u32) through the three 8 MiB slots of the device ring:
/// sum, max, argmax and argmin (indices past 2^31), and sums along rows.
#[test]
fn more_than_two_to_the_31_values() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 5;
    let x: Vec<u32> = (0..n).map(|i| (i % 7) as u32).collect();
    let want = x.iter().fold(0u32, |a, &v| a.wrapping_add(v));
    let r = Reduce::new(&gpu).pipelining(Pipelining::Always);
    assert_eq!(r.sum(&x).unwrap(), want);
    assert_eq!(r.max(&x).unwrap(), Some(6));
    // argmax and argmin past 2^31: each chunk's index made global on the device (64-bit).
    let mut x = x;
    let far = (1usize << 31) + 2;
    x[far] = 9;
    x[far + 1] = 9; // a tie: the first wins
    assert_eq!(r.argmax(&x).unwrap(), Some(far));
    assert_eq!(r.argmin(&x).unwrap(), Some(0));
    x.iter_mut().for_each(|v| *v += 1);
    x[n - 2] = 0;
    assert_eq!(r.argmin(&x).unwrap(), Some(n - 2));
    // The same 8 GiB as (2^19 + 1) rows of 4096, summed along the rows through the ring.
    drop(x);
    let rows = (1usize << 19) + 1;
    let x = ndarray::Array2::from_shape_fn((rows, 4096), |(i, j)| ((i + j) % 7) as u32);
    let (got, launched) = count_calls("cuLaunchKernel", || {
        r.sum_axis(&x, ndarray::Axis(1)).unwrap()
    });
    if let Some(k) = launched {
        assert!(k > 1000, "{k} launches: not pipelined");
    }
    assert_eq!(got.len(), rows);
    for (i, row) in x.outer_iter().enumerate() {
        let want = row.iter().fold(0u32, |a, &v| a.wrapping_add(v));
        assert_eq!(got[i], want, "row {i}");
    }
}

/// Axis reductions of host arrays in C and Fortran order: along every axis but the outer
/// memory axis, chunks of whole slices through the pipeline (several chunks, the last partial;
/// packed rows, vector columns, strided columns and long rows), every operator equal to the CPU
/// and the float sum to the one-shot bits; along the outer axis rows of partials folded along
/// the chunks (argmin and argmax: each chunk's indices merged into the lanes' best pairs on the
/// device, every element type).
#[test]
fn axis_reductions_of_host_arrays() {
    use ndarray::{s, ArrayD, Axis, IxDyn, ShapeBuilder};
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    fn array<T>(shape: &[usize], fortran: bool, f: impl Fn(u64) -> T) -> ArrayD<T> {
        let mut rng = SplitMix64::new(shape.iter().product::<usize>() as u64);
        let data: Vec<T> = (0..shape.iter().product())
            .map(|_| f(rng.next_u64()))
            .collect();
        let dim = IxDyn(shape);
        if fortran {
            ArrayD::from_shape_vec(dim.f(), data).unwrap()
        } else {
            ArrayD::from_shape_vec(dim, data).unwrap()
        }
    }
    // (shape, Fortran order, axis, chunks when pipelined: 0 for the one-shot path). 4-byte
    // values, 2^21 per 8 MiB chunk.
    let cases: [(&[usize], bool, usize, usize); 8] = [
        (&[1000, 5000], false, 1, 3),   // rows of 5000: 419 per chunk
        (&[5000, 1000], true, 0, 3),    // the same lanes in Fortran order
        (&[1 << 20, 8], false, 1, 4),   // packed rows of 8
        (&[600, 64, 128], false, 1, 3), // vector columns inside each slice
        (&[600, 64, 130], false, 1, 3), // strided columns (130 is not a vector multiple)
        (&[600, 64, 130], false, 2, 3), // short rows
        (&[130, 64, 600], true, 0, 3),  // Fortran: contiguous lanes
        // Fortran, strided lanes: the one-shot launch maps them as rows (lanes far apart in
        // the result's order), the C-order view as columns: one-shot, for the one-shot bits.
        (&[130, 64, 600], true, 1, 0),
    ];
    // The outer memory axis: rows of partials per chunk, folded along the chunks.
    let outer: [(&[usize], bool, usize, usize); 4] = [
        (&[1000, 5000], false, 0, 3),
        (&[5000, 1000], true, 1, 3),
        (&[1500, 30, 100], false, 0, 3), // 699 slices of 3000 per chunk, the last 102
        (&[9, 1 << 21], false, 0, 9),    // 9 chunks of one slice: 72 MiB of rows, folded at 64
    ];
    let always = Reduce::new(&gpu).pipelining(Pipelining::Always);
    let never = Reduce::new(&gpu).pipelining(Pipelining::Never);
    for (case, (shape, fortran, axis, chunks)) in cases.into_iter().chain(outer).enumerate() {
        let is_outer = case >= cases.len();
        let ctx = format!("shape {shape:?} fortran {fortran} axis {axis}");
        let ax = Axis(axis);
        let x = array(shape, fortran, |r| r as u32);
        for op in Op::ALL {
            let (got, n) =
                count_calls("cuLaunchKernel", || always.reduce_axis(&x, ax, op).unwrap());
            if let Some(n) = n {
                let piped = n >= chunks.max(3);
                assert_eq!(piped, chunks > 0, "{ctx} {op}: {n} launches");
            }
            let want = cpu::reduce_axis(x.view(), ax, op).unwrap();
            assert_eq!(got, want, "{ctx}: u32 {op} differs from the CPU");
            // (A 1-D result is in both orders.)
            assert_eq!(
                got.is_standard_layout(),
                !fortran || chunks == 0 || got.ndim() < 2,
                "{ctx}: result order"
            );
        }
        let (got, n) = count_calls("cuLaunchKernel", || always.argmin_axis(&x, ax).unwrap());
        if let Some(n) = n {
            assert_eq!(n >= chunks.max(3), chunks > 0, "{ctx} argmin: {n} launches");
        }
        assert_eq!(
            got,
            cpu::argmin_axis(x.view(), ax).unwrap(),
            "{ctx}: argmin"
        );
        assert_eq!(
            always.argmax_axis(&x, ax).unwrap(),
            cpu::argmax_axis(x.view(), ax).unwrap(),
            "{ctx}: argmax"
        );
        let i = array(shape, fortran, |r| r as i32);
        let wide = always.reduce_axis_wide(&i, ax, Op::Sum).unwrap();
        assert_eq!(
            wide,
            never.reduce_axis_wide(&i, ax, Op::Sum).unwrap(),
            "{ctx}: widening sum"
        );
        assert_eq!(
            wide,
            i.mapv(i64::from).sum_axis(ax),
            "{ctx}: widening sum against ndarray's"
        );
        let f = array(shape, fortran, |r| (r % 2001) as f32 * 0.37 - 370.0);
        let h = f.mapv(f16::from_f32);
        let bits = |a: &ArrayD<f32>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for (what, got, again, once, data) in [
            (
                "f32",
                always.sum_axis(&f, ax).unwrap(),
                always.sum_axis(&f, ax).unwrap(),
                never.sum_axis(&f, ax).unwrap(),
                f.mapv(f64::from),
            ),
            (
                "f16",
                always.sum_axis(&h, ax).unwrap(),
                always.sum_axis(&h, ax).unwrap(),
                never.sum_axis(&h, ax).unwrap(),
                h.mapv(|v| f64::from(v.to_f32())),
            ),
        ] {
            if !is_outer {
                assert_eq!(
                    bits(&got),
                    bits(&once),
                    "{ctx}: {what} sum differs from one-shot"
                );
                continue;
            }
            // Along the outer axis floats are associated by chunks: run-to-run identical and
            // within the f64 sum's rounding bound.
            assert_eq!(
                bits(&got),
                bits(&again),
                "{ctx}: {what} sum not deterministic"
            );
            let want = data.sum_axis(ax);
            let scale = data.mapv(f64::abs).sum_axis(ax);
            for ((g, w), s) in got.iter().zip(&want).zip(&scale) {
                let tol = 1e-6 * s * (shape[axis] as f64).sqrt() + 1e-3;
                assert!(
                    (*g as f64 - w).abs() <= tol,
                    "{ctx}: {what} sum {g} against {w}"
                );
            }
        }
        // Few distinct values (ties in every chunk) and NaNs in some lanes' later slices.
        let mut t = array(shape, fortran, |r| (r % 5) as f32);
        let len = t.len();
        for (i, v) in t.iter_mut().enumerate() {
            if i % 7919 == 0 && i > len / 2 {
                *v = f32::NAN;
            }
        }
        assert_eq!(
            always.argmax_axis(&t, ax).unwrap(),
            cpu::argmax_axis(t.view(), ax).unwrap(),
            "{ctx}: f32 argmax with ties and NaNs"
        );
        assert_eq!(
            always.argmin_axis(&t, ax).unwrap(),
            never.argmin_axis(&t, ax).unwrap(),
            "{ctx}: f32 argmin against one-shot"
        );
        if is_outer {
            // The merge kernel of every other element type, with ties (few distinct values).
            let tie = |r: u64| (r % 7) as i64 - 3;
            let (l, u) = (array(shape, fortran, tie), array(shape, fortran, |r| r % 7));
            let (d, b) = (l.mapv(|v| v as f64), l.mapv(|v| bf16::from_f32(v as f32)));
            let (h, i) = (l.mapv(|v| f16::from_f32(v as f32)), l.mapv(|v| v as i32));
            let want = |a: &ArrayD<i64>| {
                (
                    cpu::argmin_axis(a.view(), ax).unwrap(),
                    cpu::argmax_axis(a.view(), ax).unwrap(),
                )
            };
            let (lo, hi) = want(&l);
            for (what, got_lo, got_hi) in [
                (
                    "i64",
                    always.argmin_axis(&l, ax),
                    always.argmax_axis(&l, ax),
                ),
                (
                    "f64",
                    always.argmin_axis(&d, ax),
                    always.argmax_axis(&d, ax),
                ),
                (
                    "bf16",
                    always.argmin_axis(&b, ax),
                    always.argmax_axis(&b, ax),
                ),
                (
                    "f16",
                    always.argmin_axis(&h, ax),
                    always.argmax_axis(&h, ax),
                ),
                (
                    "i32",
                    always.argmin_axis(&i, ax),
                    always.argmax_axis(&i, ax),
                ),
            ] {
                assert_eq!(got_lo.unwrap(), lo, "{ctx}: {what} argmin");
                assert_eq!(got_hi.unwrap(), hi, "{ctx}: {what} argmax");
            }
            assert_eq!(
                always.argmin_axis(&u, ax).unwrap(),
                cpu::argmin_axis(u.view(), ax).unwrap(),
                "{ctx}: u64 argmin"
            );
        }
        let m = array(shape, fortran, |r| {
            let (a, b) = (r as u32 & 7, (r >> 8) as u32 & 7);
            Mat2([1, a, b, 1u32.wrapping_add(a.wrapping_mul(b))])
        });
        assert_eq!(
            always.reduce_axis_monoid(&m, ax).unwrap(),
            never.reduce_axis_monoid(&m, ax).unwrap(),
            "{ctx}: monoid"
        );
    }
    // Along the outer axis a float sum keeps its bits when another pipeline holds the
    // staging (the same chunks are then reduced from one upload).
    let f = array(&[1000, 5000], false, |r| (r % 2001) as f32 * 0.37 - 370.0);
    let free = always.sum_axis(&f, Axis(0)).unwrap();
    let (x, mut out, mut d) = (
        vec![0u8; 100],
        Vec::<u8>::with_capacity(100),
        gpu.alloc::<u8>(100).unwrap(),
    );
    let mut inside = None;
    let ran = gpu
        .host_pipeline(&x, out.spare_capacity_mut(), &mut d, 10, |_, _| {
            if inside.is_none() {
                inside = Some(always.sum_axis(&f, Axis(0)).unwrap());
            }
            Ok(())
        })
        .unwrap();
    assert!(ran);
    let same = inside
        .unwrap()
        .iter()
        .zip(&free)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    assert!(same, "outer axis: a busy pipeline changed the float sum");
    // Layouts that are neither C nor Fortran, along every axis: axes in memory 1, 0, 2 (axis
    // 1 is the outer memory axis), a strided view (every other element of the last axis) and
    // a reversed one (two axes running backwards through memory), each gathered into C order
    // as the one-shot path gathers it. Pipelined, every operator equal
    // to the CPU, argmax too, and float sums off the outer axis the one-shot bits.
    let permuted_u = array(&[64, 600, 130], false, |r| r as u32).permuted_axes(IxDyn(&[1, 0, 2]));
    let permuted_f = array(&[64, 600, 130], false, |r| (r % 2001) as f32 * 0.37 - 370.0)
        .permuted_axes(IxDyn(&[1, 0, 2]));
    let u = array(&[600, 64, 260], false, |r| r as u32);
    let g = array(&[600, 64, 260], false, |r| (r % 2001) as f32 * 0.37 - 370.0);
    let layouts = [
        ("permuted", permuted_u.view(), permuted_f.view(), 1),
        (
            "strided",
            u.slice(s![.., .., ..;2]).into_dyn(),
            g.slice(s![.., .., ..;2]).into_dyn(),
            0,
        ),
        (
            "reversed",
            u.slice(s![..;-1, .., ..;-1]).into_dyn(),
            g.slice(s![..;-1, .., ..;-1]).into_dyn(),
            0,
        ),
    ];
    for (what, x, f, outer) in layouts {
        for axis in 0..3 {
            let ax = Axis(axis);
            let ctx = format!("{what}, axis {axis}");
            for op in [Op::Sum, Op::Max, Op::BitXor] {
                let (got, n) =
                    count_calls("cuLaunchKernel", || always.reduce_axis(&x, ax, op).unwrap());
                if let Some(n) = n {
                    assert!(n >= 3, "{ctx} {op}: {n} launches");
                }
                let want = cpu::reduce_axis(x.view(), ax, op).unwrap();
                assert_eq!(got, want, "{ctx}: u32 {op}");
            }
            assert_eq!(
                always.argmax_axis(&x, ax).unwrap(),
                cpu::argmax_axis(x.view(), ax).unwrap(),
                "{ctx}: argmax"
            );
            if axis != outer {
                let bits = |a: &ArrayD<f32>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&always.sum_axis(&f, ax).unwrap()),
                    bits(&never.sum_axis(&f, ax).unwrap()),
                    "{ctx}: f32 sum differs from one-shot"
                );
            }
        }
    }
    // Bad input keeps its error through the pipelined path.
    let x = array(&[1000, 5000], false, |r| r as u32);
    let e = always.reduce_axis(&x, Axis(2), Op::Sum).unwrap_err();
    assert!(e.to_string().contains("axis"), "{e}");
}

/// Segmented reductions of host values: segment tiles at every length (short, medium and
/// segments of millions of values) through the pipeline in chunks of whole tiles, the look-back
/// joining them across chunks. Every operator equal to the CPU, float sums and monoids to the
/// one-shot bits, arg indices within their segments, sizes around the chunk.
#[test]
fn segmented_reductions_of_host_values() {
    let _serial = one_pipeline_at_a_time();
    let Some(gpu) = gpu_or_skip() else { return };
    let c = PIPELINE_CHUNK_BYTES / 4;
    // (values, segment lengths, pipelined)
    let cases: [(usize, std::ops::Range<u64>, bool); 6] = [
        (5 * c + 77, 0..9, true),
        (4 * c - 1, 1..200, true),
        (4 * c + 1, 0..3, true),
        (3 * c, 1000..3000, true),
        (3 * c + 5, 1 << 20..1 << 21, true),
        (1, 1..2, true),
    ];
    let always = Reduce::new(&gpu).pipelining(Pipelining::Always);
    let never = Reduce::new(&gpu).pipelining(Pipelining::Never);
    for (n, lengths, piped) in cases {
        let offsets = offsets_over(n, lengths.clone(), n as u64);
        let ctx = format!("n={n} lengths {lengths:?}");
        let x = ints(n, 7);
        for op in Op::ALL {
            let (got, launched) = count_calls("cuLaunchKernel", || {
                always.segmented_reduce(&x, &offsets, op).unwrap()
            });
            if let (Some(k), true) = (launched, n > 2 * c) {
                assert_eq!(k >= 3, piped, "{ctx} {op}: {k} launches");
            }
            let want = cpu::segmented_reduce(&x, &offsets, op).unwrap();
            assert_eq!(got, want, "{ctx}: u32 {op} differs from the CPU");
        }
        assert_eq!(
            always.segmented_argmin(&x, &offsets).unwrap(),
            cpu::segmented_argmin(&x, &offsets).unwrap(),
            "{ctx}: argmin"
        );
        assert_eq!(
            always.segmented_argmax(&x, &offsets).unwrap(),
            cpu::segmented_argmax(&x, &offsets).unwrap(),
            "{ctx}: argmax"
        );
        let i: Vec<i32> = x.iter().map(|&v| v as i32).collect();
        assert_eq!(
            always.segmented_reduce_wide(&i, &offsets, Op::Sum).unwrap(),
            never.segmented_reduce_wide(&i, &offsets, Op::Sum).unwrap(),
            "{ctx}: widening sum"
        );
        let f: Vec<f32> = typical(n, 9);
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        assert_eq!(
            bits(always.segmented_sum(&f, &offsets).unwrap()),
            bits(never.segmented_sum(&f, &offsets).unwrap()),
            "{ctx}: f32 sum differs from one-shot"
        );
        let h: Vec<f16> = f.iter().map(|&v| f16::from_f32(v)).collect();
        assert_eq!(
            bits(always.segmented_sum(&h, &offsets).unwrap()),
            bits(never.segmented_sum(&h, &offsets).unwrap()),
            "{ctx}: f16 sum differs from one-shot"
        );
        let m: Vec<Mat2<u32>> = x
            .iter()
            .map(|&r| {
                let (a, b) = (r & 7, (r >> 8) & 7);
                Mat2([1, a, b, 1u32.wrapping_add(a.wrapping_mul(b))])
            })
            .collect();
        assert_eq!(
            always.segmented_reduce_monoid(&m, &offsets).unwrap(),
            never.segmented_reduce_monoid(&m, &offsets).unwrap(),
            "{ctx}: monoid"
        );
    }
    // Bad offsets keep their error through the pipelined path.
    let x = ints(4 * c, 1);
    let e = always
        .segmented_sum(&x, &[0u64, 5, 3, (4 * c) as u64][..])
        .unwrap_err();
    assert!(e.to_string().contains("offsets"), "{e}");
}
