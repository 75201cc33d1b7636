//! The NCCL transport: one-rank communicators made in-process and from the environment (as a
//! launched process would be), the sharded algorithms over them equal to the in-process
//! transport's results, a two-rank communicator whose second rank never starts (the timeout
//! error, not a hang), bad ids and bad rank counts; with several GPUs, one process driving
//! them all, one process per GPU bootstrapped by a unique id (this binary run again as each
//! rank), and a rank that dies during a scan. Without libnccl, the clear error naming what to
//! install.

use std::time::{Duration, Instant};

use gpu_core::testing::{gpu_or_skip, gpus_or_skip};
use gpu_core::{Error, Gpu, Op};
use gpu_dist::{
    Communicator, DeviceBytes, InProcess, Nccl, NcclId, ShardLayout, ShardedArray, ShardedReduce,
    ShardedScan, NCCL_ID_VAR,
};

/// The tests that set or clear the id variable take turns (tests run on parallel threads).
static ENV: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn missing_library_or_a_valid_id() {
    match NcclId::new() {
        Ok(id) => {
            let hex = id.to_hex();
            assert_eq!(hex.len(), 256);
            assert_eq!(NcclId::from_hex(&hex).unwrap().to_hex(), hex);
        }
        Err(e) => {
            eprintln!("libnccl absent here: {e}");
            assert!(e.to_string().contains("install NCCL"), "{e}");
        }
    }
    for bad in ["", "zz", &"g".repeat(256)] {
        let e = NcclId::from_hex(bad).unwrap_err().to_string();
        assert!(e.contains("not an NCCL unique id"), "{e}");
    }
}

#[test]
fn one_rank_in_process_and_from_the_environment() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x: Vec<i64> = (0..1_000_003).map(|i| i % 1000 - 500).collect();
    let f: Vec<f32> = (0..1_000_003).map(|i| (i % 77) as f32 * 0.25).collect();
    let one = ShardLayout::even(x.len(), 1).unwrap();
    let a = ShardedArray::from_host(std::slice::from_ref(&gpu), &x, one.clone()).unwrap();
    let b = ShardedArray::from_host(std::slice::from_ref(&gpu), &f, one).unwrap();
    let local = InProcess::new(1);
    let made = Nccl::in_process(std::slice::from_ref(&gpu)).unwrap();
    let id = NcclId::new().unwrap();
    let env = ENV.lock().unwrap_or_else(|p| p.into_inner());
    std::env::set_var(NCCL_ID_VAR, id.to_hex());
    let joined = Nccl::join_from_env(&gpu, 0, 1).unwrap();
    drop(env);
    for (what, comm) in [("in-process", &made), ("from the environment", &joined)] {
        assert_eq!((comm.ranks(), comm.local_ranks()), (1, 0..1), "{what}");
        assert_eq!(
            comm.all_gather(&[vec![7u8, 8, 9]]).unwrap(),
            [7, 8, 9],
            "{what}"
        );
        let r = ShardedReduce::new(comm);
        assert_eq!(
            r.sum(&a).unwrap(),
            ShardedReduce::new(&local).sum(&a).unwrap(),
            "{what}"
        );
        assert_eq!(r.argmax(&b).unwrap(), Some(76), "{what}");
        assert_eq!(
            r.sum(&b).unwrap().to_bits(),
            ShardedReduce::new(&local).sum(&b).unwrap().to_bits(),
            "{what}: float sum"
        );
        let s = ShardedScan::new(comm).scan(&a, Op::Sum).unwrap();
        let want = ShardedScan::new(&local).scan(&a, Op::Sum).unwrap();
        assert_eq!(s.to_vec().unwrap(), want.to_vec().unwrap(), "{what}: scan");
    }
}

#[test]
fn a_rank_that_never_joins_times_out() {
    let Some(gpu) = gpu_or_skip() else { return };
    let id = NcclId::new().unwrap();
    let start = Instant::now();
    let e = Nccl::join_ranks(
        std::slice::from_ref(&gpu),
        &id,
        0,
        2,
        Duration::from_secs(3),
    )
    .err()
    .expect("a communicator of two ranks with one never started");
    let waited = start.elapsed();
    assert!(
        matches!(
            e,
            Error::Communication {
                timed_out: true,
                ..
            }
        ),
        "{e}"
    );
    assert!(waited < Duration::from_secs(30), "waited {waited:?}");
    eprintln!("the second rank never joined: {e} (after {waited:?})");
    // The device is still usable: a new one-rank communicator works.
    let comm = Nccl::in_process(std::slice::from_ref(&gpu)).unwrap();
    assert_eq!(comm.all_gather(&[vec![1u8]]).unwrap(), [1]);
}

#[test]
fn bad_ranks_and_devices() {
    let Some(gpu) = gpu_or_skip() else { return };
    let id = NcclId::new().unwrap();
    let e = Nccl::join(&gpu, &id, 2, 2).err().unwrap().to_string();
    assert!(e.contains("ranks"), "{e}");
    let e = Nccl::in_process(&[gpu.clone(), gpu.clone()])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("one rank per device"), "{e}");
    let env = ENV.lock().unwrap_or_else(|p| p.into_inner());
    std::env::remove_var(NCCL_ID_VAR);
    let e = Nccl::join_from_env(&gpu, 0, 1).err().unwrap().to_string();
    drop(env);
    assert!(e.contains(NCCL_ID_VAR), "{e}");
    let comm = Nccl::in_process(std::slice::from_ref(&gpu)).unwrap();
    let e = comm
        .all_gather(&[vec![1u8], vec![2]])
        .unwrap_err()
        .to_string();
    assert!(e.contains("contributions"), "{e}");
    // Contributions still on the devices: their values, and the same errors.
    let a = gpu.upload(&[5u32, 6]).unwrap();
    let b = gpu.upload(&[7u32]).unwrap();
    assert_eq!(
        comm.all_gather_device(&[DeviceBytes::of(&a)]).unwrap(),
        [5u8, 0, 0, 0, 6, 0, 0, 0]
    );
    let e = comm
        .all_gather_device(&[DeviceBytes::of(&a), DeviceBytes::of(&b)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("contributions"), "{e}");
}

/// Device contributions of two ranks driven by one process: gathered in rank order; one on
/// another device than its rank's is a clear error.
#[test]
fn device_contributions_of_two_ranks() {
    let Some(gpus) = gpus_or_skip(2) else { return };
    let comm = Nccl::in_process(&gpus[..2]).unwrap();
    let (x, y) = (
        gpus[0].upload(&[1u8]).unwrap(),
        gpus[0].upload(&[2u8]).unwrap(),
    );
    let e = comm
        .all_gather_device(&[DeviceBytes::of(&x), DeviceBytes::of(&y)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("rank 1 of this communicator"), "{e}");
    let y = gpus[1].upload(&[2u8]).unwrap();
    let got = comm
        .all_gather_device(&[DeviceBytes::of(&x), DeviceBytes::of(&y)])
        .unwrap();
    assert_eq!(got, [1, 2]);
}

/// Every visible GPU driven by this process through one NCCL communicator: the same values
/// as the in-process transport (float sums to the bit: the same grouping).
#[test]
fn one_process_driving_every_gpu() {
    use gpu_conv1d::Options;
    use gpu_dist::ShardedConv1d;
    let Some(gpus) = gpus_or_skip(1) else { return };
    let n = 10_000_019;
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1001) as f32 * 0.125 - 60.0)
        .collect();
    let layout = ShardLayout::even(n, gpus.len()).unwrap();
    let a = ShardedArray::from_host(&gpus, &x, layout).unwrap();
    let nccl = Nccl::in_process(&gpus).unwrap();
    let local = InProcess::new(gpus.len());
    let (r, l) = (ShardedReduce::new(&nccl), ShardedReduce::new(&local));
    assert_eq!(r.sum(&a).unwrap().to_bits(), l.sum(&a).unwrap().to_bits());
    assert_eq!(r.argmin(&a).unwrap(), l.argmin(&a).unwrap());
    let s = ShardedScan::new(&nccl).scan(&a, Op::Max).unwrap();
    let want = ShardedScan::new(&local).scan(&a, Op::Max).unwrap();
    assert_eq!(s.to_vec().unwrap(), want.to_vec().unwrap());
    let mask: Vec<f32> = (0..31).map(|i| i as f32 / 32.0).collect();
    let y = ShardedConv1d::correlation(&nccl, &mask, Options::new())
        .run(&a)
        .unwrap();
    let want = ShardedConv1d::correlation(&local, &mask, Options::new())
        .run(&a)
        .unwrap();
    assert_eq!(y.to_vec().unwrap(), want.to_vec().unwrap());
    eprintln!("one process, {} GPUs over NCCL: ok", gpus.len());
}

/// The variable a rank process reads: `rank,ranks,task`.
const CHILD_VAR: &str = "GPU_DIST_TEST_RANK";

/// Runs every rank of `ranks` as this test binary in a process of its own (test
/// `rank_process`), bootstrapped by one unique id, and returns each one's success and output.
/// A rank that does not finish within `limit` is killed (and fails).
fn run_ranks(ranks: usize, task: &str, limit: Duration) -> Vec<(bool, String)> {
    let id = NcclId::new().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut children: Vec<std::process::Child> = (0..ranks)
        .map(|rank| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "rank_process",
                    "--include-ignored",
                    "--nocapture",
                ])
                .env(CHILD_VAR, format!("{rank},{ranks},{task}"))
                .env(NCCL_ID_VAR, id.to_hex())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let start = Instant::now();
    let mut done = vec![None; ranks];
    while done.iter().any(Option::is_none) {
        for (rank, child) in children.iter_mut().enumerate() {
            if done[rank].is_none() {
                if let Some(status) = child.try_wait().unwrap() {
                    done[rank] = Some(status.success());
                } else if start.elapsed() > limit {
                    let _ = child.kill();
                    let _ = child.wait();
                    done[rank] = Some(false);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    children
        .into_iter()
        .zip(done)
        .map(|(child, ok)| {
            let out = child.wait_with_output().unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            (ok.unwrap_or(false), text)
        })
        .collect()
}

/// One process per GPU, each holding its own shard only: every sharded algorithm (halos of
/// the convolution through NCCL's all-gather) checked by each rank on its part.
#[test]
fn one_process_per_gpu() {
    let Some(gpus) = gpus_or_skip(2) else { return };
    let ranks = gpus.len();
    drop(gpus);
    for (rank, (ok, text)) in run_ranks(ranks, "check", Duration::from_secs(240))
        .into_iter()
        .enumerate()
    {
        assert!(
            ok && text.contains(&format!("rank {rank}: ok")),
            "rank {rank}:\n{text}"
        );
    }
    eprintln!("{ranks} processes, one GPU each: ok");
}

/// Two processes; the second dies during a scan (before it sends its total): the first gets
/// `Error::Communication` within its timeout instead of hanging.
#[test]
fn a_rank_dying_during_a_scan() {
    if gpus_or_skip(2).is_none() {
        return;
    }
    let results = run_ranks(2, "die", Duration::from_secs(120));
    let (ok, text) = &results[0];
    assert!(*ok && text.contains("rank 0: error"), "rank 0:\n{text}");
    assert!(!results[1].0, "rank 1 should have died:\n{}", results[1].1);
    let line = text.lines().find(|l| l.contains("rank 0: error")).unwrap();
    eprintln!("{line}");
}

/// One rank of [`run_ranks`] (ignored: only run by it, with [`CHILD_VAR`] set).
#[test]
#[ignore = "a rank process of one_process_per_gpu and a_rank_dying_during_a_scan"]
fn rank_process() {
    let spec = std::env::var(CHILD_VAR).expect("run by run_ranks");
    let parts: Vec<&str> = spec.split(',').collect();
    let (rank, ranks): (usize, usize) = (parts[0].parse().unwrap(), parts[1].parse().unwrap());
    let gpu = Gpu::new(rank).unwrap();
    let id = NcclId::from_hex(&std::env::var(NCCL_ID_VAR).unwrap()).unwrap();
    let timeout = Duration::from_secs(20);
    let comm = Nccl::join_ranks(std::slice::from_ref(&gpu), &id, rank, ranks, timeout).unwrap();
    match parts[2] {
        "check" => {
            check_rank(&comm, &gpu);
            println!("rank {rank}: ok");
        }
        "die" => {
            let n = 1 << 24;
            let layout = ShardLayout::even(n, ranks).unwrap();
            let a = ShardedArray::filled(std::slice::from_ref(&gpu), layout, rank, 1u32).unwrap();
            if rank == 1 {
                // Dies in the middle of the scan: its total never reaches rank 0.
                std::process::abort();
            }
            let start = Instant::now();
            let e = ShardedScan::new(&comm)
                .scan(&a, Op::Sum)
                .expect_err("a dead rank");
            let waited = start.elapsed();
            assert!(matches!(e, Error::Communication { .. }), "{e}");
            assert!(waited < timeout + Duration::from_secs(10), "{waited:?}");
            println!("rank 0: error after {waited:.1?}: {e}");
        }
        other => panic!("unknown task {other}"),
    }
}

/// Rank `comm.local_ranks().start`'s checks of its own part against the CPU.
fn check_rank(comm: &Nccl, gpu: &Gpu) {
    use gpu_conv1d::{cpu as conv_cpu, Boundary, Mode, Options};
    use gpu_dist::ShardedConv1d;
    use gpu_scan::ScanKind;
    let (rank, ranks) = (comm.local_ranks().start, comm.ranks());
    let n = 10_000_019;
    let layout = ShardLayout::even(n, ranks).unwrap();
    let own = layout.range(rank);
    let x: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1001 - 500).collect();
    let a = ShardedArray::from_local_shards(
        layout.clone(),
        rank,
        vec![gpu.upload(&x[own.clone()]).unwrap()],
    )
    .unwrap();
    let r = ShardedReduce::new(comm);
    assert_eq!(r.sum(&a).unwrap(), x.iter().sum::<i64>());
    assert_eq!(r.argmax(&a).unwrap(), gpu_reduce::cpu::argmax(&x));
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let want = gpu_scan::cpu::scan(&x, Op::Sum, kind).unwrap();
        let got = ShardedScan::new(comm).kind(kind).scan(&a, Op::Sum).unwrap();
        assert_eq!(got.local_to_vec().unwrap(), want[own.clone()], "{kind:?}");
    }
    let mut b = ShardedArray::from_local_shards(
        layout.clone(),
        rank,
        vec![gpu.upload(&x[own.clone()]).unwrap()],
    )
    .unwrap();
    ShardedScan::new(comm)
        .scan_in_place(&mut b, Op::Sum)
        .unwrap();
    let want = gpu_scan::cpu::scan(&x, Op::Sum, ScanKind::Inclusive).unwrap();
    assert_eq!(b.local_to_vec().unwrap(), want[own.clone()], "in place");
    // Dyadic values: every sum of 31 products exact in f32.
    let f: Vec<f32> = x.iter().map(|&v| (v % 16) as f32 / 8.0).collect();
    let fa =
        ShardedArray::from_local_shards(layout, rank, vec![gpu.upload(&f[own]).unwrap()]).unwrap();
    let mask: Vec<f32> = (0..31).map(|i| (i % 5) as f32 / 4.0 - 0.5).collect();
    for (mode, b) in [
        (Mode::Same, Boundary::Wrap),
        (Mode::Full, Boundary::Zero),
        (Mode::Valid, Boundary::Zero),
        (Mode::Same, Boundary::Reflect),
    ] {
        let got = ShardedConv1d::correlation(comm, &mask, Options::new().mode(mode).boundary(b))
            .run(&fa)
            .unwrap();
        let want = conv_cpu::correlate(&f, &mask, mode, b).unwrap();
        let mine = got.layout().range(rank);
        assert_eq!(got.local_to_vec().unwrap(), want[mine], "{mode:?} {b:?}");
    }
}
