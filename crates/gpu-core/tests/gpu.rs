//! gpu-core on a real GPU: skipped (visibly) without one, failing with GPU_PRIMS_REQUIRE_GPU=1.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::{data, Element, Error, Gpu, GpuTimer, LaunchConfig, Ptx};
use ndarray::{s, Array1, Array2};

fn round_trip<T: Element>(gpu: &Gpu, n: usize) {
    let host: Vec<T> = data::typical(n, n as u64 + 11);
    let dev = gpu.upload(&host).unwrap();
    assert_eq!(dev.len(), n);
    let back = dev.to_vec().unwrap();
    assert!(back == host, "{} round trip of {n} differs", T::NAME);
}

#[test]
fn gpu_round_trips_every_type_small_and_medium() {
    let Some(gpu) = gpu_or_skip() else { return };
    // (3 << 21) + 7 crosses the staged-transfer threshold with a partial last chunk.
    for n in [0usize, 1, 31, 32, 33, (1 << 20) + 3, (3 << 21) + 7] {
        round_trip::<i32>(&gpu, n);
        round_trip::<u32>(&gpu, n);
        round_trip::<i64>(&gpu, n);
        round_trip::<u64>(&gpu, n);
        round_trip::<f32>(&gpu, n);
        round_trip::<f64>(&gpu, n);
    }
}

#[test]
fn gpu_round_trip_2_pow_28() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1usize << 28;
    let host: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let dev = gpu.upload(&host).unwrap();
    assert!(dev.to_vec().unwrap() == host);
    // Device-side generated data: every element written.
    let iota = gpu.iota::<u32>(n).unwrap().to_vec().unwrap();
    assert!(iota.iter().enumerate().all(|(i, &v)| v == i as u32));
}

#[test]
fn gpu_non_contiguous_views_are_gathered_in_logical_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    let a = Array1::from_iter((0..1000).map(|i| i as f64));
    let strided = gpu.upload_view(a.slice(s![3..;7])).unwrap();
    assert_eq!(strided.to_vec().unwrap(), a.slice(s![3..;7]).to_vec());
    let reversed = gpu.upload_view(a.slice(s![..;-1])).unwrap();
    assert_eq!(
        reversed.to_vec().unwrap(),
        a.iter().rev().copied().collect::<Vec<_>>()
    );
    let m = Array2::from_shape_fn((5, 7), |(i, j)| (i * 7 + j) as i32);
    let t = m.t();
    let dev = gpu.upload_array(&t).unwrap();
    assert_eq!(dev.to_vec().unwrap(), t.iter().copied().collect::<Vec<_>>());
    let column = gpu.upload_view(m.column(2)).unwrap();
    assert_eq!(column.to_vec().unwrap(), vec![2, 9, 16, 23, 30]);
    assert_eq!(dev.to_array1().unwrap().len(), 35);
}

#[test]
fn gpu_async_copies_through_pinned_buffers() {
    let Some(gpu) = gpu_or_skip() else { return };
    let stream = gpu.new_stream().unwrap();
    let n = (1 << 22) + 5;
    let host: Vec<i64> = data::typical(n, 3);
    let pinned = gpu.pinned_from(&host).unwrap();
    let dev = gpu.upload_async(&pinned, &stream).unwrap();
    let mut back = gpu.pinned::<i64>(n).unwrap();
    dev.copy_to_pinned_async(&mut back, &stream).unwrap();
    // No explicit synchronisation: reading the buffer waits for the copy.
    assert!(back.as_slice().unwrap() == &host[..]);
    let empty = gpu.pinned::<f32>(0).unwrap();
    assert_eq!(gpu.upload_async(&empty, &stream).unwrap().len(), 0);
}

/// Synchronous copies from and into page-locked slices (large enough for the staged path,
/// which they skip: the DMA engine reads and writes them directly), whole and from an offset
/// inside the buffer, give the same bytes as pageable ones.
#[test]
fn gpu_sync_copies_of_pinned_slices() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (5 << 20) + 3; // 40 MiB of u64, past the staging threshold
    let host: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    let pinned = gpu.pinned_from(&host).unwrap();
    let dev = gpu.upload(pinned.as_slice().unwrap()).unwrap();
    assert!(dev.to_vec().unwrap() == host);
    let inner = gpu.upload(&pinned.as_slice().unwrap()[7..]).unwrap();
    let mut back = gpu.pinned::<u64>(n - 7).unwrap();
    inner.copy_to(back.as_mut_slice().unwrap()).unwrap();
    assert!(back.as_slice().unwrap() == &host[7..]);
    let mut whole = gpu.pinned::<u64>(n).unwrap();
    dev.copy_to(whole.as_mut_slice().unwrap()).unwrap();
    assert!(whole.as_slice().unwrap() == &host[..]);
}

#[test]
fn gpu_timer_measures_a_copy() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1 << 24;
    let a = gpu.iota::<f32>(n).unwrap();
    let mut b = gpu.alloc::<f32>(n).unwrap();
    let timer = GpuTimer::new(&gpu).unwrap();
    let ((), t) = timer
        .time(gpu.stream(), || b.copy_from_device(&a, gpu.stream()))
        .unwrap();
    assert!(t.as_secs_f64() > 0.0 && t.as_secs_f64() < 1.0, "{t:?}");
    assert_eq!(b.to_vec().unwrap()[12345], 12345.0);
}

#[test]
fn gpu_allocation_beyond_device_memory_is_out_of_memory() {
    let Some(gpu) = gpu_or_skip() else { return };
    let total = gpu.properties().total_memory;
    match gpu.alloc::<u8>(total * 4) {
        Err(Error::OutOfMemory { requested, free }) => {
            assert_eq!(requested, total * 4);
            assert!(free <= total);
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert!(matches!(
        gpu.alloc::<u64>(usize::MAX / 4),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn gpu_properties_are_plausible() {
    let Some(gpu) = gpu_or_skip() else { return };
    let p = gpu.properties();
    eprintln!("{p:#?}");
    assert!(p.sm_count > 0 && p.warp_size == 32 && p.max_threads_per_block >= 1024);
    assert!(p.constant_memory >= 64 * 1024 && p.l2_cache > 0 && p.total_memory > 0);
    assert!(p.compute_capability.0 >= 7);
    let (free, total) = gpu.memory_info().unwrap();
    assert!(free <= total && total == p.total_memory);
    assert!(Gpu::new(0).unwrap().same_device(&gpu));
    assert!(matches!(Gpu::new(1000), Err(Error::NoDevice(_))));
}

static BROKEN: Ptx = Ptx::new(
    "gpu-core-tests/broken",
    ".version 8.0\n.target sm_70\n.address_size 64\nthis is not ptx\n",
);

#[test]
fn gpu_bad_ptx_reports_the_jit_log() {
    let Some(gpu) = gpu_or_skip() else { return };
    match gpu.kernel(&BROKEN, "anything") {
        Err(Error::PtxLoad { module, log, .. }) => {
            assert_eq!(module, "gpu-core-tests/broken");
            assert!(!log.trim().is_empty(), "empty JIT log");
        }
        Err(e) => panic!("expected PtxLoad, got {e}"),
        Ok(_) => panic!("broken PTX loaded"),
    }
}

#[test]
fn gpu_fill_and_zero_sized_launch_refused() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut a = gpu.alloc::<f64>(1000).unwrap();
    a.fill(2.5, gpu.stream()).unwrap();
    assert!(a.to_vec().unwrap().iter().all(|&x| x == 2.5));
    let z = gpu.zeros::<u64>(77).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![0; 77]);
    assert!(LaunchConfig::new(0, 128).validate().is_err());
}

/// f16 and bf16: bit-exact transfers (NaN payloads and subnormals too), fills, iota rounded
/// to nearest even on the device as `half` rounds on the host, N-D arrays.
#[test]
fn gpu_half_types_round_trip_fill_and_iota() {
    let Some(gpu) = gpu_or_skip() else { return };
    fn check<T: Element<Accumulator = f32>>(
        gpu: &Gpu,
        from_bits: fn(u16) -> T,
        to_bits: fn(T) -> u16,
    ) {
        // Every bit pattern, NaNs, infinities and subnormals included.
        let all: Vec<T> = (0..=u16::MAX).map(from_bits).collect();
        let back = gpu.upload(&all).unwrap().to_vec().unwrap();
        assert!(
            back.iter()
                .zip(&all)
                .all(|(a, b)| to_bits(*a) == to_bits(*b)),
            "{}",
            T::NAME
        );
        let mut a = gpu.alloc::<T>(1001).unwrap();
        let v = T::from_f64(-2.5);
        a.fill(v, gpu.stream()).unwrap();
        assert!(a.to_vec().unwrap().iter().all(|&x| x == v), "{}", T::NAME);
        let n = 300_000;
        let iota = gpu.iota::<T>(n).unwrap().to_vec().unwrap();
        for (i, &x) in iota.iter().enumerate() {
            // The device rounds i to f32 first, then to the 16-bit type (exact below 2^24).
            let want = T::from_accumulator(i as f32);
            assert!(
                to_bits(x) == to_bits(want),
                "{} iota[{i}] = {x:?}, want {want:?}",
                T::NAME
            );
        }
        let m = Array2::from_shape_fn((33, 65), |(r, c)| T::from_f64((r * 65 + c) as f64 / 8.0));
        let d = gpu_core::DeviceArrayD::from_array(gpu, &m).unwrap();
        assert_eq!(d.to_array().unwrap(), m.into_dyn());
    }
    check::<gpu_core::f16>(&gpu, gpu_core::f16::from_bits, gpu_core::f16::to_bits);
    check::<gpu_core::bf16>(&gpu, gpu_core::bf16::from_bits, gpu_core::bf16::to_bits);
}

#[test]
fn gpu_handle_is_shared_across_threads() {
    let Some(gpu) = gpu_or_skip() else { return };
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let gpu = &gpu;
            s.spawn(move || {
                // Large enough to take the staged path, so threads share the staging buffers.
                let v: Vec<u32> = (0..(5 << 20) + t).map(|i| i.wrapping_mul(t + 1)).collect();
                assert_eq!(gpu.upload(&v).unwrap().to_vec().unwrap(), v);
            });
        }
    });
}

/// Staged transfers started from rayon tasks while other staged transfers run their host copies
/// on the same pool: each either gets the staging buffers or takes the driver's path, none waits
/// for another (a blocking lock here could deadlock).
#[test]
fn gpu_staged_transfers_from_rayon_tasks() {
    use rayon::prelude::*;
    let Some(gpu) = gpu_or_skip() else { return };
    (0..8u32).into_par_iter().for_each(|t| {
        let v: Vec<u32> = (0..(9 << 20) + t)
            .map(|i| i ^ t.wrapping_mul(0x9E37_79B9))
            .collect();
        let d = gpu.upload(&v).unwrap();
        assert_eq!(d.to_vec().unwrap(), v, "task {t}");
    });
}

#[test]
fn gpu_length_beyond_2_pow_31() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = (1usize << 31) + 17;
    assert!(gpu.iota::<u32>(0).unwrap().is_empty());
    let big = gpu.iota::<u32>(n).unwrap();
    let all = big.to_vec().unwrap();
    assert_eq!(all.len(), n);
    assert_eq!(
        &all[n - 3..],
        &[(n - 3) as u32, (n - 2) as u32, (n - 1) as u32]
    );
    assert_eq!(all[1 << 31], 1u32 << 31);
}

/// `copy_range_from`: a range of one array into another at an offset (the rest untouched),
/// empty ranges, and ranges past either end as clear errors.
#[test]
fn gpu_copy_range_from() {
    let Some(gpu) = gpu_or_skip() else { return };
    let src = gpu.upload(&(0..100u32).collect::<Vec<_>>()).unwrap();
    let mut dst = gpu.zeros::<u32>(50).unwrap();
    let s = gpu.stream();
    dst.copy_range_from(10, &src, 90..100, s).unwrap();
    dst.copy_range_from(0, &src, 5..5, s).unwrap();
    s.synchronize().unwrap();
    let got = dst.to_vec().unwrap();
    let mut want = vec![0u32; 50];
    want[10..20].copy_from_slice(&(90..100).collect::<Vec<_>>());
    assert_eq!(got, want);
    let e = dst
        .copy_range_from(45, &src, 0..10, s)
        .unwrap_err()
        .to_string();
    assert!(e.contains("at"), "{e}");
    let e = dst
        .copy_range_from(0, &src, 95..105, s)
        .unwrap_err()
        .to_string();
    assert!(e.contains("range"), "{e}");
}

/// `copy_range_from_peer` between every ordered pair of visible devices (on one GPU: the
/// same-device copy), ordered after the source device's work by an event; its range errors.
#[test]
fn gpu_copy_range_from_peer() {
    let Some(gpus) = gpu_core::testing::gpus_or_skip(1) else {
        return;
    };
    let n = (1usize << 20) + 3;
    for a in &gpus {
        for b in &gpus {
            let ctx = format!("{} -> {}", a.properties().ordinal, b.properties().ordinal);
            let src = a.upload(&(0..n as u32).collect::<Vec<_>>()).unwrap();
            // Overwritten on `a`'s stream just before the copy: the event orders the read.
            src.memset_bytes(7, a.stream()).unwrap();
            let ready = a.new_event(false).unwrap();
            ready.record(a.stream()).unwrap();
            let mut dst = b.zeros::<u32>(n + 10).unwrap();
            b.stream().wait(&ready).unwrap();
            dst.copy_range_from_peer(10, &src, 0..n, b.stream())
                .unwrap();
            dst.copy_range_from_peer(0, &src, 3..3, b.stream()).unwrap();
            b.synchronize().unwrap();
            let got = dst.to_vec().unwrap();
            assert!(got[..10].iter().all(|&v| v == 0), "{ctx}");
            assert!(got[10..].iter().all(|&v| v == 0x0707_0707), "{ctx}");
            let e = dst
                .copy_range_from_peer(11, &src, 0..n, b.stream())
                .unwrap_err()
                .to_string();
            assert!(e.contains("at"), "{ctx}: {e}");
            let e = dst
                .copy_range_from_peer(0, &src, n - 1..n + 1, b.stream())
                .unwrap_err()
                .to_string();
            assert!(e.contains("range"), "{ctx}: {e}");
        }
    }
    if let [a, b, ..] = &gpus[..] {
        eprintln!(
            "peer access {} -> {}: {}",
            a.properties().ordinal,
            b.properties().ordinal,
            a.enable_peer_access(b).unwrap()
        );
    }
}
