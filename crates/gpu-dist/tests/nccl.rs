//! The NCCL transport on one GPU: one-rank communicators made in-process and from the
//! environment (as a launched process would be), the sharded algorithms over them equal to the
//! in-process transport's results, a two-rank communicator whose second rank never starts
//! (the timeout error, not a hang), bad ids and bad rank counts. Without libnccl, the clear
//! error naming what to install.

use std::time::{Duration, Instant};

use gpu_core::testing::gpu_or_skip;
use gpu_core::{Error, Op};
use gpu_dist::{
    Communicator, InProcess, Nccl, NcclId, ShardLayout, ShardedArray, ShardedReduce, ShardedScan,
    NCCL_ID_VAR,
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
}
