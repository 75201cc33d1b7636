//! Sharded reductions and scans on the GPU through the in-process transport: 1, 2, 3, 7 and 16
//! shards of one device (empty shards and shards of one element included), every type and
//! operator, against the CPU reference of the concatenated data; bad input; past 2^31
//! elements.

use gpu_core::data::ops_for;
use gpu_core::testing::gpu_or_skip;
use gpu_core::{bf16, f16, Element, Gpu, Mat2, Monoid, Op};
use gpu_dist::{InProcess, ShardLayout, ShardedArray, ShardedReduce, ShardedScan};
use gpu_reduce::cpu;
use gpu_scan::ScanKind;

const SHARDS: [usize; 5] = [1, 2, 3, 7, 16];
const SIZES: [usize; 7] = [0, 1, 31, 33, 1000, 4097, (1 << 20) + 5];

/// Small integers (exact under every operator in every type).
fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            T::from_f64((x % 5) as f64)
        })
        .collect()
}

/// The layouts tested for `n` elements over `shards`: even, and one with empty shards and a
/// shard of one element where there are enough shards.
fn layouts(n: usize, shards: usize) -> Vec<ShardLayout> {
    let mut v = vec![ShardLayout::even(n, shards).unwrap()];
    if shards >= 3 && n >= 1 {
        let mut counts = vec![0usize; shards];
        counts[1] = 1;
        counts[shards - 1] = n - 1;
        v.push(ShardLayout::from_counts(&counts).unwrap());
    }
    v
}

fn check_type<T: Element>(gpu: &Gpu) {
    for n in SIZES {
        for shards in SHARDS {
            for layout in layouts(n, shards) {
                let x: Vec<T> = values(n, n as u64 + shards as u64);
                let devices = vec![gpu.clone(); shards];
                let a = ShardedArray::from_host(&devices, &x, layout.clone()).unwrap();
                let ctx = format!(
                    "{} n={n} {:?}",
                    T::NAME,
                    layout.counts().collect::<Vec<_>>()
                );
                assert_eq!(a.to_vec().unwrap(), x, "{ctx}: gathered back");
                let comm = InProcess::new(shards);
                let r = ShardedReduce::new(&comm);
                for op in ops_for::<T>() {
                    let want = cpu::reduce(&x, op).unwrap();
                    assert_eq!(r.reduce(&a, op).unwrap(), want, "{ctx} {op:?}");
                }
                assert_eq!(r.min(&a).unwrap(), cpu::min(&x), "{ctx} min");
                assert_eq!(r.max(&a).unwrap(), cpu::max(&x), "{ctx} max");
                assert_eq!(r.argmin(&a).unwrap(), cpu::argmin(&x), "{ctx} argmin");
                assert_eq!(r.argmax(&a).unwrap(), cpu::argmax(&x), "{ctx} argmax");
            }
        }
    }
}

#[test]
fn every_type_operator_and_shard_count() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_type::<i32>(&gpu);
    check_type::<u32>(&gpu);
    check_type::<i64>(&gpu);
    check_type::<u64>(&gpu);
    check_type::<f32>(&gpu);
    check_type::<f64>(&gpu);
    check_type::<f16>(&gpu);
    check_type::<bf16>(&gpu);
}

/// Ties across shards keep the first index; the first NaN wins; widening sums and ordered
/// monoids keep their meaning; float sums are the same bits run to run.
#[test]
fn ties_nans_widening_and_monoids() {
    let Some(gpu) = gpu_or_skip() else { return };
    let comm = InProcess::new(7);
    let r = ShardedReduce::new(&comm);
    let devices = vec![gpu.clone(); 7];
    let mut x = vec![3.0f32; 700];
    x[150] = 1.0;
    x[420] = 1.0; // the same minimum in a later shard
    x[600] = 9.0;
    let a = ShardedArray::from_host(&devices, &x, ShardLayout::even(700, 7).unwrap()).unwrap();
    assert_eq!(r.argmin(&a).unwrap(), Some(150));
    assert_eq!(r.argmax(&a).unwrap(), Some(600));
    x[333] = f32::NAN;
    x[555] = f32::NAN;
    let a = ShardedArray::from_host(&devices, &x, ShardLayout::even(700, 7).unwrap()).unwrap();
    assert_eq!(r.argmin(&a).unwrap(), Some(333));
    assert_eq!(r.argmax(&a).unwrap(), Some(333));
    assert!(r.min(&a).unwrap().unwrap().is_nan());
    // Widening: i32 values whose sum overflows i32.
    let big = vec![i32::MAX; 1000];
    let a = ShardedArray::from_host(&devices, &big, ShardLayout::even(1000, 7).unwrap()).unwrap();
    assert_eq!(r.reduce_wide(&a, Op::Sum).unwrap(), i32::MAX as i64 * 1000);
    // An ordered monoid: the product of 2 × 2 matrices in sequence order.
    let m: Vec<Mat2<u64>> = (0..5000u64).map(|i| Mat2([i % 3, 1, 1, i % 2])).collect();
    let want = m
        .iter()
        .fold(Mat2::identity(), |a, &b| Monoid::combine(a, b));
    let a = ShardedArray::from_host(&devices, &m, ShardLayout::even(5000, 7).unwrap()).unwrap();
    assert_eq!(r.reduce_monoid(&a).unwrap(), want);
    // Float sums: close to the f64 sum, and the same bits every run.
    let f: Vec<f32> = (0..100_000)
        .map(|i| ((i * 37) % 1001) as f32 * 0.013 - 6.0)
        .collect();
    let a = ShardedArray::from_host(&devices, &f, ShardLayout::even(f.len(), 7).unwrap()).unwrap();
    let s = r.sum(&a).unwrap();
    let want: f64 = f.iter().map(|&v| v as f64).sum();
    let scale: f64 = f.iter().map(|&v| (v as f64).abs()).sum();
    assert!((s as f64 - want).abs() <= scale * 1e-6, "{s} vs {want}");
    for _ in 0..5 {
        assert_eq!(
            r.sum(&a).unwrap().to_bits(),
            s.to_bits(),
            "not run-to-run identical"
        );
    }
}

#[test]
fn bad_input_is_an_error() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = vec![1i32; 10];
    let e = ShardedArray::from_host(
        std::slice::from_ref(&gpu),
        &x,
        ShardLayout::even(10, 2).unwrap(),
    );
    assert!(e.err().unwrap().to_string().contains("devices"));
    let e = ShardedArray::from_host(
        std::slice::from_ref(&gpu),
        &x,
        ShardLayout::even(9, 1).unwrap(),
    );
    assert!(e.err().unwrap().to_string().contains("data"));
    let a = ShardedArray::from_host(
        &[gpu.clone(), gpu.clone()],
        &x,
        ShardLayout::even(10, 2).unwrap(),
    )
    .unwrap();
    let e = ShardedReduce::new(&InProcess::new(3))
        .sum(&a)
        .unwrap_err()
        .to_string();
    assert!(e.contains("communicator of 3 ranks"), "{e}");
    // Shards from per-device arrays: the layout follows their lengths.
    let parts = vec![gpu.upload(&x[..4]).unwrap(), gpu.upload(&x[4..]).unwrap()];
    let b = ShardedArray::from_shards(parts).unwrap();
    assert_eq!(b.layout().counts().collect::<Vec<_>>(), [4, 6]);
    assert_eq!(ShardedReduce::new(&InProcess::new(2)).sum(&b).unwrap(), 10);
}

/// More than 2^31 elements over 3 shards: global indices past 2^31 and a total past u32.
#[test]
fn past_two_to_the_31() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 5;
    let mut x = vec![f16::ZERO; n];
    x[n - 2] = f16::from_f32(2.0);
    x[7] = f16::from_f32(-1.0);
    let a = ShardedArray::from_host(&vec![gpu.clone(); 3], &x, ShardLayout::even(n, 3).unwrap())
        .unwrap();
    drop(x);
    let comm = InProcess::new(3);
    let r = ShardedReduce::new(&comm);
    assert_eq!(r.argmax(&a).unwrap(), Some(n - 2));
    assert_eq!(r.argmin(&a).unwrap(), Some(7));
    assert_eq!(r.sum(&a).unwrap(), 1.0);
}

fn check_scans<T: Element>(gpu: &Gpu) {
    for n in SIZES {
        for shards in SHARDS {
            for layout in layouts(n, shards) {
                let x: Vec<T> = values(n, n as u64 * 3 + shards as u64);
                let devices = vec![gpu.clone(); shards];
                let a = ShardedArray::from_host(&devices, &x, layout.clone()).unwrap();
                let comm = InProcess::new(shards);
                let ctx = format!(
                    "{} n={n} {:?}",
                    T::NAME,
                    layout.counts().collect::<Vec<_>>()
                );
                for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                    let s = ShardedScan::new(&comm).kind(kind);
                    for op in ops_for::<T>() {
                        let got = s.scan(&a, op).unwrap();
                        assert_eq!(got.layout(), a.layout(), "{ctx}: layout kept");
                        let want = gpu_scan::cpu::scan(&x, op, kind).unwrap();
                        let got = got.to_vec().unwrap();
                        if T::IS_FLOAT && matches!(op, Op::Sum | Op::Product) {
                            // Small integers: sums exact below 2^24; products of 0-4 overflow
                            // to inf or stay 0 alike in any grouping.
                            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                                let (g, w) = (g.to_f64(), w.to_f64());
                                let ok = g == w || (g - w).abs() <= 1e-6 * w.abs();
                                assert!(ok, "{ctx} {kind:?} {op:?}: [{i}] {g} vs {w}");
                            }
                        } else {
                            assert_eq!(got, want, "{ctx} {kind:?} {op:?}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn scans_of_every_type_operator_and_shard_count() {
    let Some(gpu) = gpu_or_skip() else { return };
    check_scans::<i32>(&gpu);
    check_scans::<u32>(&gpu);
    check_scans::<i64>(&gpu);
    check_scans::<u64>(&gpu);
    check_scans::<f32>(&gpu);
    check_scans::<f64>(&gpu);
}

/// Ordered monoids keep sequence order across shards; 16-bit floats are a clear error.
#[test]
fn scans_of_monoids_and_bad_types() {
    let Some(gpu) = gpu_or_skip() else { return };
    let comm = InProcess::new(7);
    let devices = vec![gpu.clone(); 7];
    let m: Vec<Mat2<u64>> = (0..5000u64).map(|i| Mat2([i % 3, 1, 1, i % 2])).collect();
    let a = ShardedArray::from_host(&devices, &m, ShardLayout::even(5000, 7).unwrap()).unwrap();
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let got = ShardedScan::new(&comm).kind(kind).scan_monoid(&a).unwrap();
        let mut acc = Mat2::identity();
        let want: Vec<Mat2<u64>> = m
            .iter()
            .map(|&v| {
                let before = acc;
                acc = Monoid::combine(acc, v);
                if kind == ScanKind::Inclusive {
                    acc
                } else {
                    before
                }
            })
            .collect();
        assert_eq!(got.to_vec().unwrap(), want, "{kind:?}");
    }
    let h = vec![f16::ONE; 100];
    let a = ShardedArray::from_host(&devices, &h, ShardLayout::even(100, 7).unwrap()).unwrap();
    let e = ShardedScan::new(&comm)
        .scan(&a, Op::Sum)
        .unwrap_err()
        .to_string();
    assert!(e.contains("f16"), "{e}");
}

/// Dyadic values (multiples of 1/8 in -1..1): every sum of up to 128 products exact in f32.
fn dyadic<T: gpu_conv1d::Real>(n: usize, seed: u64) -> Vec<T> {
    values::<f64>(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, v)| T::from_f64((v + (i % 3) as f64 - 3.0) / 8.0))
        .collect()
}

/// Sharded correlations and convolutions against the CPU reference of the concatenated
/// signal, exactly (dyadic data): 1, 3, 7 and 16 shards (empty shards and one-element shards
/// included), every mode and boundary (wrap across the ends), masks wider than the shards.
#[test]
fn convolutions_of_every_mode_boundary_and_shard_count() {
    use gpu_conv1d::{cpu as conv_cpu, Boundary, Mode, Operation, Options};
    use gpu_dist::ShardedConv1d;
    let Some(gpu) = gpu_or_skip() else { return };
    for n in [1usize, 33, 4097, 100_003] {
        for shards in [1usize, 3, 7, 16] {
            for layout in layouts(n, shards) {
                let x: Vec<f32> = dyadic(n, n as u64 + shards as u64);
                let devices = vec![gpu.clone(); shards];
                let a = ShardedArray::from_host(&devices, &x, layout.clone()).unwrap();
                let comm = InProcess::new(shards);
                for w in [1usize, 4, 31, 127] {
                    let mask: Vec<f32> = dyadic(w, w as u64 + 99);
                    for mode in [Mode::Full, Mode::Same, Mode::Valid] {
                        for b in Boundary::ALL {
                            let ctx = format!(
                                "n={n} {:?} w={w} {mode:?} {b:?}",
                                layout.counts().collect::<Vec<_>>()
                            );
                            // The direct kernels: exact on dyadic data (Auto would take
                            // the FFT path for the 127-wide mask).
                            let options = Options::new()
                                .mode(mode)
                                .boundary(b)
                                .strategy(gpu_conv1d::Strategy::RegisterTiled);
                            let op = if w == 4 {
                                Operation::Convolution
                            } else {
                                Operation::Correlation
                            };
                            let c = ShardedConv1d::new(&comm, op, &mask, options);
                            let want = match op {
                                Operation::Correlation => conv_cpu::correlate(&x, &mask, mode, b),
                                Operation::Convolution => conv_cpu::convolve(&x, &mask, mode, b),
                            };
                            match (c.run(&a), want) {
                                (Ok(got), Ok(want)) => {
                                    assert_eq!(got.layout(), c.geometry(&a).unwrap().output());
                                    assert_eq!(got.to_vec().unwrap(), want, "{ctx}");
                                }
                                (Err(e), Err(_)) => {
                                    assert!(mode == Mode::Valid && n < w, "{ctx}: {e}");
                                }
                                (got, want) => panic!("{ctx}: {:?} vs {:?}", got.err(), want.err()),
                            }
                        }
                    }
                }
            }
        }
    }
    // f64 and f16 once each.
    let x: Vec<f64> = dyadic(5003, 1);
    let mask: Vec<f64> = dyadic(9, 2);
    let a = ShardedArray::from_host(
        &vec![gpu.clone(); 5],
        &x,
        ShardLayout::even(5003, 5).unwrap(),
    )
    .unwrap();
    let comm = InProcess::new(5);
    let got = ShardedConv1d::correlation(&comm, &mask, Options::new().boundary(Boundary::Wrap))
        .run(&a)
        .unwrap();
    let want = conv_cpu::correlate(&x, &mask, Mode::Same, Boundary::Wrap).unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "f64");
    let h: Vec<f16> = dyadic(5003, 3);
    let hm: Vec<f16> = dyadic(9, 4);
    let a = ShardedArray::from_host(
        &vec![gpu.clone(); 5],
        &h,
        ShardLayout::even(5003, 5).unwrap(),
    )
    .unwrap();
    let got = ShardedConv1d::correlation(&comm, &hm, Options::new().mode(Mode::Full))
        .run(&a)
        .unwrap();
    let want = conv_cpu::correlate(&h, &hm, Mode::Full, Boundary::Zero).unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "f16");
}

/// A communicator whose ranks are threads of this process, each acting as a process that
/// drives one rank: the multi-process paths (arrays holding one rank's shard, halos through
/// the all-gather) without NCCL, on one GPU.
struct ThreadRank {
    rank: usize,
    ranks: usize,
    exchange: std::sync::Arc<Exchange>,
}

struct Exchange {
    slots: std::sync::Mutex<Vec<Vec<u8>>>,
    barrier: std::sync::Barrier,
}

impl gpu_dist::Communicator for ThreadRank {
    fn ranks(&self) -> usize {
        self.ranks
    }

    fn local_ranks(&self) -> std::ops::Range<usize> {
        self.rank..self.rank + 1
    }

    fn all_gather(&self, local: &[Vec<u8>]) -> gpu_core::Result<Vec<u8>> {
        assert_eq!(local.len(), 1);
        self.exchange.slots.lock().unwrap()[self.rank] = local[0].clone();
        self.exchange.barrier.wait();
        let all = self.exchange.slots.lock().unwrap().concat();
        // Nobody writes the next round's slot before everyone has read this one.
        self.exchange.barrier.wait();
        Ok(all)
    }
}

/// What rank `rank` of `comm` checks of its own part of every sharded algorithm, against the
/// CPU reference of the whole data (`devices[rank % len]` holds its shard).
fn check_one_rank(comm: &dyn gpu_dist::Communicator, gpu: &Gpu, n: usize) {
    use gpu_conv1d::{cpu as conv_cpu, Boundary, Mode, Options};
    use gpu_dist::ShardedConv1d;
    let (rank, ranks) = (comm.local_ranks().start, comm.ranks());
    let layout = ShardLayout::even(n, ranks).unwrap();
    let own = layout.range(rank);
    let ctx = format!("rank {rank} of {ranks}, n={n}");
    let x: Vec<i64> = values(n, 5);
    let a = ShardedArray::from_local_shards(
        layout.clone(),
        rank,
        vec![gpu.upload(&x[own.clone()]).unwrap()],
    )
    .unwrap();
    assert_eq!(
        (a.local_ranks(), a.local_range()),
        (rank..rank + 1, own.clone())
    );
    assert_eq!(a.local_to_vec().unwrap(), x[own.clone()], "{ctx}");
    if ranks > 1 {
        assert!(a.to_vec().is_err(), "{ctx}: to_vec of a part");
    }
    let r = ShardedReduce::new(comm);
    assert_eq!(r.sum(&a).unwrap(), x.iter().sum::<i64>(), "{ctx} sum");
    assert_eq!(r.argmax(&a).unwrap(), cpu::argmax(&x), "{ctx} argmax");
    assert_eq!(r.min(&a).unwrap(), cpu::min(&x), "{ctx} min");
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let want = gpu_scan::cpu::scan(&x, Op::Sum, kind).unwrap();
        let s = ShardedScan::new(comm).kind(kind);
        let got = s.scan(&a, Op::Sum).unwrap();
        assert_eq!(
            got.local_to_vec().unwrap(),
            want[own.clone()],
            "{ctx} {kind:?}"
        );
        let mut b = ShardedArray::from_local_shards(
            layout.clone(),
            rank,
            vec![gpu.upload(&x[own.clone()]).unwrap()],
        )
        .unwrap();
        s.scan_in_place(&mut b, Op::Max).unwrap();
        let want = gpu_scan::cpu::scan(&x, Op::Max, kind).unwrap();
        assert_eq!(
            b.local_to_vec().unwrap(),
            want[own.clone()],
            "{ctx} {kind:?} in place"
        );
    }
    let f: Vec<f32> = dyadic(n, 6);
    let fa =
        ShardedArray::from_local_shards(layout, rank, vec![gpu.upload(&f[own]).unwrap()]).unwrap();
    for w in [1usize, 5, 31] {
        let mask: Vec<f32> = dyadic(w, w as u64);
        for (mode, b) in [
            (Mode::Same, Boundary::Wrap),
            (Mode::Full, Boundary::Zero),
            (Mode::Valid, Boundary::Zero),
            (Mode::Same, Boundary::Reflect),
        ] {
            let c = ShardedConv1d::correlation(comm, &mask, Options::new().mode(mode).boundary(b));
            match conv_cpu::correlate(&f, &mask, mode, b) {
                Ok(want) => {
                    let got = c.run(&fa).unwrap();
                    let mine = got.layout().range(rank);
                    assert_eq!(
                        got.local_to_vec().unwrap(),
                        want[mine],
                        "{ctx} w={w} {mode:?} {b:?}"
                    );
                }
                Err(_) => assert!(c.run(&fa).is_err(), "{ctx} w={w} {mode:?}"),
            }
        }
    }
}

/// Each rank held by its own "process" (a thread with a communicator of one local rank):
/// arrays of one rank's shard, results compared on each rank's part; shards shorter than
/// the halos.
#[test]
fn ranks_of_separate_processes() {
    let Some(gpu) = gpu_or_skip() else { return };
    let devices = gpu_core::testing::gpus_or_skip(1).unwrap_or_else(|| vec![gpu.clone()]);
    for ranks in [1usize, 2, 3, 5] {
        for n in [37usize, 100_003] {
            let exchange = std::sync::Arc::new(Exchange {
                slots: std::sync::Mutex::new(vec![Vec::new(); ranks]),
                barrier: std::sync::Barrier::new(ranks),
            });
            std::thread::scope(|scope| {
                for rank in 0..ranks {
                    let comm = ThreadRank {
                        rank,
                        ranks,
                        exchange: exchange.clone(),
                    };
                    let gpu = devices[rank % devices.len()].clone();
                    scope.spawn(move || check_one_rank(&comm, &gpu, n));
                }
            });
        }
    }
}

/// One shard per visible GPU and two (shards on the same device and on others side by
/// side): every algorithm against the CPU; the in-place scan against the scan.
#[test]
fn shards_over_every_device() {
    use gpu_conv1d::{cpu as conv_cpu, Boundary, Mode, Options};
    use gpu_dist::ShardedConv1d;
    let Some(gpus) = gpu_core::testing::gpus_or_skip(1) else {
        return;
    };
    for per in [1usize, 2] {
        let devices: Vec<Gpu> = (0..per * gpus.len())
            .map(|s| gpus[s % gpus.len()].clone())
            .collect();
        let shards = devices.len();
        let n = 1_000_003;
        let ctx = format!("{shards} shards over {} GPUs", gpus.len());
        let layout = ShardLayout::even(n, shards).unwrap();
        let comm = InProcess::new(shards);
        let x: Vec<i32> = values(n, 11);
        let a = ShardedArray::from_host(&devices, &x, layout.clone()).unwrap();
        assert_eq!(a.to_vec().unwrap(), x, "{ctx}");
        let r = ShardedReduce::new(&comm);
        assert_eq!(
            r.reduce_wide(&a, Op::Sum).unwrap(),
            x.iter().map(|&v| v as i64).sum::<i64>()
        );
        assert_eq!(r.argmax(&a).unwrap(), cpu::argmax(&x), "{ctx}");
        let want = gpu_scan::cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
        let got = ShardedScan::new(&comm).scan(&a, Op::Sum).unwrap();
        assert_eq!(got.to_vec().unwrap(), want, "{ctx} scan");
        let mut b = ShardedArray::from_host(&devices, &x, layout.clone()).unwrap();
        ShardedScan::new(&comm)
            .scan_in_place(&mut b, Op::Sum)
            .unwrap();
        assert_eq!(b.to_vec().unwrap(), want, "{ctx} scan in place");
        let f: Vec<f32> = dyadic(n, 12);
        let fa = ShardedArray::from_host(&devices, &f, layout).unwrap();
        for b in [Boundary::Zero, Boundary::Wrap, Boundary::Nearest] {
            let mask: Vec<f32> = dyadic(31, 13);
            let got = ShardedConv1d::correlation(&comm, &mask, Options::new().boundary(b))
                .run(&fa)
                .unwrap();
            let want = conv_cpu::correlate(&f, &mask, Mode::Same, b).unwrap();
            assert_eq!(got.to_vec().unwrap(), want, "{ctx} conv {b:?}");
        }
    }
}

/// One `ShardedConv1d` kept across calls: its windows (made on the first call over a layout,
/// refilled on every call) follow new data and new layouts, shards spread over every visible
/// GPU, and calls from several threads at once (all but one make windows of their own).
#[test]
fn kept_windows_follow_the_data_the_layout_and_threads() {
    use gpu_conv1d::{cpu as conv_cpu, Boundary, Mode, Options};
    use gpu_dist::ShardedConv1d;
    let Some(gpus) = gpu_core::testing::gpus_or_skip(1) else {
        return;
    };
    let n = 200_003;
    let mask: Vec<f32> = dyadic(31, 21);
    for b in [Boundary::Zero, Boundary::Wrap, Boundary::Reflect] {
        let comm = InProcess::new(6);
        let conv = ShardedConv1d::correlation(&comm, &mask, Options::new().boundary(b));
        let layouts = [
            ShardLayout::even(n, 6).unwrap(),
            ShardLayout::from_counts(&[5, 0, 100_000, 1, 29, n - 100_035]).unwrap(),
        ];
        for round in 0..4u64 {
            let layout = &layouts[(round / 2) as usize % 2];
            let devices: Vec<Gpu> = (0..6).map(|s| gpus[s % gpus.len()].clone()).collect();
            let x: Vec<f32> = dyadic(n, 30 + round);
            let a = ShardedArray::from_host(&devices, &x, layout.clone()).unwrap();
            let want = conv_cpu::correlate(&x, &mask, Mode::Same, b).unwrap();
            let mut y = a.alloc_like().unwrap();
            conv.run_into(&a, &mut y).unwrap();
            let ctx = format!(
                "{b:?} round {round} {:?}",
                layout.counts().collect::<Vec<_>>()
            );
            assert_eq!(y.to_vec().unwrap(), want, "{ctx}");
        }
        let layout = ShardLayout::even(n, 6).unwrap();
        std::thread::scope(|scope| {
            for t in 0..6u64 {
                let (conv, gpus, mask, layout) = (&conv, &gpus, &mask, &layout);
                scope.spawn(move || {
                    let devices: Vec<Gpu> = (0..6)
                        .map(|s| gpus[(s + t as usize) % gpus.len()].clone())
                        .collect();
                    for k in 0..3u64 {
                        let x: Vec<f32> = dyadic(n, 100 + 10 * t + k);
                        let a = ShardedArray::from_host(&devices, &x, layout.clone()).unwrap();
                        let want = conv_cpu::correlate(&x, mask, Mode::Same, b).unwrap();
                        let got = conv.run(&a).unwrap().to_vec().unwrap();
                        assert_eq!(got, want, "{b:?} thread {t} call {k}");
                    }
                });
            }
        });
    }
}

/// Arrays made on the devices (filled, generated), one process's part, and their errors.
#[test]
fn generated_filled_and_partial_arrays() {
    let Some(gpu) = gpu_or_skip() else { return };
    let devices = vec![gpu.clone(); 3];
    let layout = ShardLayout::from_counts(&[4, 0, 5]).unwrap();
    let a = ShardedArray::filled(&devices, layout.clone(), 0, 7i32).unwrap();
    assert_eq!(a.to_vec().unwrap(), vec![7; 9]);
    let g = ShardedArray::<u32>::generate(&devices, layout.clone(), 0, |gpu, range| {
        gpu.upload(&range.map(|i| i as u32 * 10).collect::<Vec<_>>())
    })
    .unwrap();
    assert_eq!(
        g.to_vec().unwrap(),
        (0..9).map(|i| i * 10).collect::<Vec<u32>>()
    );
    // Ranks 1..3 only.
    let part = ShardedArray::filled(&devices[..2], layout.clone(), 1, 2.5f64).unwrap();
    assert_eq!((part.local_ranks(), part.local_range()), (1..3, 4..9));
    assert_eq!(part.local_to_vec().unwrap(), vec![2.5; 5]);
    let e = part.to_vec().unwrap_err().to_string();
    assert!(e.contains("local_to_vec"), "{e}");
    let e = ShardedReduce::new(&InProcess::new(3))
        .sum(&part)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ranks 1..3"), "{e}");
    // Outputs allocated once and written again: scan_into, run_into, and outputs that do not
    // match.
    let x: Vec<i32> = (1..=9).collect();
    let a = ShardedArray::from_host(&devices, &x, layout.clone()).unwrap();
    let comm = InProcess::new(3);
    let scan = ShardedScan::new(&comm);
    let mut out = a.alloc_like().unwrap();
    for _ in 0..2 {
        scan.scan_into(&a, &mut out, Op::Sum).unwrap();
        assert_eq!(out.to_vec().unwrap(), [1, 3, 6, 10, 15, 21, 28, 36, 45]);
    }
    let mut wrong =
        ShardedArray::<i32>::alloc(&devices, ShardLayout::even(9, 3).unwrap(), 0).unwrap();
    let e = scan
        .scan_into(&a, &mut wrong, Op::Sum)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out"), "{e}");
    let f: Vec<f32> = (0..9).map(|i| i as f32).collect();
    let fa = ShardedArray::from_host(&devices, &f, layout.clone()).unwrap();
    let conv = gpu_dist::ShardedConv1d::correlation(&comm, &[1.0, 2.0], gpu_conv1d::Options::new());
    let mut y = fa.alloc_like().unwrap();
    conv.run_into(&fa, &mut y).unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        conv.run(&fa).unwrap().to_vec().unwrap()
    );
    let mut short =
        ShardedArray::<f32>::alloc(&devices, ShardLayout::from_counts(&[4, 0, 4]).unwrap(), 0)
            .unwrap();
    assert!(conv.run_into(&fa, &mut short).is_err());
    // A shard of the wrong length, ranks past the layout, a generator that lies.
    let e =
        ShardedArray::from_local_shards(layout.clone(), 0, vec![gpu.upload(&[1u8; 3]).unwrap()])
            .unwrap_err()
            .to_string();
    assert!(e.contains("layout 4"), "{e}");
    assert!(ShardedArray::<u32>::filled(&devices, layout.clone(), 1, 0).is_err());
    let e = ShardedArray::<u8>::generate(&devices[..1], layout, 0, |gpu, _| gpu.zeros::<u8>(1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected"), "{e}");
}
