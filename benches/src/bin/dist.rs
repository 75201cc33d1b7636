//! The weak-scaling table of gpu-dist on whatever GPUs are present: per shard 2^k f32 (k = 28
//! unless `--log2 k`), the sharded sum, inclusive scan and correlation (width 31) with one
//! shard, with 8 shards on one GPU, and with one shard per GPU where there are several, each
//! beside the plain primitive
//! over the same total data on one GPU (timed in the same run; medians of 7 after 5 warm-ups,
//! host clock around calls that wait for their result). Built with the `nccl` feature, also the
//! one-shard sum and scan through a one-rank NCCL communicator beside the in-process transport.
//!
//!
//! `--weak` instead: weak scaling over 1, 2, 4, … of the visible GPUs (one shard each, per-GPU
//! size 2^k, default k = 30, data generated on the devices), sum, inclusive scan and
//! correlation (w 31) through the in-process transport (and NCCL with the `nccl` feature),
//! each GPU count's throughput over one GPU's, beside a device-to-device copy of one shard.
//!
//! `--huge [--fraction F]` instead: a u32 array of F (default 0.75) of each GPU's memory per
//! GPU over every GPU (1.5× one GPU's memory on two, 3× on four), generated on the devices,
//! reduced, scanned in place and checked (sums in closed form, samples at every shard's ends).
//!
//! ```text
//! cargo run --release -p gpu-prims-benches --features cuda --bin dist -- [--log2 K]
//! cargo run --release -p gpu-prims-benches --features nccl --bin dist -- --weak [--log2 K]
//! cargo run --release -p gpu-prims-benches --features cuda --bin dist -- --huge
//! ```

#[cfg(feature = "cuda")]
fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dist: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn main() {
    eprintln!("dist: built without the `cuda` feature");
}

#[cfg(feature = "cuda")]
fn run() -> gpu_core::Result<()> {
    use gpu_conv1d::{Conv1d, Options};
    use gpu_core::{Gpu, Op};
    use gpu_dist::{
        InProcess, ShardLayout, ShardedArray, ShardedConv1d, ShardedReduce, ShardedScan,
    };
    use gpu_reduce::Reduce;
    use gpu_scan::Scan;
    use std::time::Instant;

    let args: Vec<String> = std::env::args().collect();
    let log2: u32 = args
        .iter()
        .position(|a| a == "--log2")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(28);
    let gpus: Vec<Gpu> = (0..Gpu::count()?).map(Gpu::new).collect::<Result<_, _>>()?;
    if args.iter().any(|a| a == "--weak") {
        let log2 = if args.iter().any(|a| a == "--log2") {
            log2
        } else {
            30
        };
        return weak(&gpus, 1usize << log2);
    }
    if args.iter().any(|a| a == "--huge") {
        let fraction: f64 = args
            .iter()
            .position(|a| a == "--fraction")
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.75);
        return huge(&gpus, fraction);
    }
    let per_shard = 1usize << log2;
    let first = gpus
        .first()
        .cloned()
        .ok_or_else(|| gpu_core::Error::invalid("gpus", "none"))?;
    println!(
        "# gpu-dist weak scaling: {} GPU(s), {} ({} per shard, f32)",
        gpus.len(),
        first.properties().name,
        per_shard
    );
    println!("| operation | shards | GPUs | sharded ms | plain ms (same total, one GPU) | sharded / plain |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let median = |f: &mut dyn FnMut() -> gpu_core::Result<()>| -> gpu_core::Result<f64> {
        for _ in 0..5 {
            f()?;
        }
        let mut t = Vec::new();
        for _ in 0..7 {
            let start = Instant::now();
            f()?;
            t.push(start.elapsed().as_secs_f64() * 1e3);
        }
        t.sort_by(f64::total_cmp);
        Ok(t[3])
    };
    let mut setups: Vec<(usize, Vec<Gpu>)> =
        vec![(1, vec![first.clone()]), (8, vec![first.clone(); 8])];
    if gpus.len() > 1 {
        setups.push((gpus.len(), gpus.clone()));
    }
    for (shards, devices) in setups {
        let total = shards * per_shard;
        let host: Vec<f32> = (0..total).map(|i| (i % 1000) as f32 * 0.001).collect();
        let layout = ShardLayout::even(total, shards)?;
        let a = ShardedArray::from_host(&devices, &host, layout)?;
        let distinct = {
            let mut d: Vec<usize> = devices.iter().map(|g| g.properties().ordinal).collect();
            d.sort_unstable();
            d.dedup();
            d.len()
        };
        // Engines made and outputs allocated once, in both columns: the primitives' time.
        let comm = InProcess::new(shards);
        let mask: Vec<f32> = (0..31).map(|i| (i as f32 - 15.0) / 32.0).collect();
        let (reduce, scan) = (ShardedReduce::new(&comm), ShardedScan::new(&comm));
        let sharded = ShardedConv1d::correlation(&comm, &mask, Options::new());
        let mut out = a.alloc_like()?;
        let sharded_sum = median(&mut || reduce.sum(&a).map(drop))?;
        let sharded_scan = median(&mut || scan.scan_into(&a, &mut out, Op::Sum))?;
        let sharded_conv = median(&mut || sharded.run_into(&a, &mut out))?;
        drop((a, out));
        let plain = first.upload(&host)?;
        drop(host);
        let mut out = first.alloc::<f32>(total)?;
        let (reduce, scan) = (Reduce::new(&first), Scan::new(&first));
        let plain_sum = median(&mut || reduce.sum(&plain).map(drop))?;
        let plain_scan = median(&mut || scan.scan_into(&plain, &mut out, Op::Sum))?;
        let conv = Conv1d::correlation(&first, &mask, Options::new())?;
        let plain_conv = median(&mut || conv.run_into(&plain, &mut out))?;
        for (what, s, p) in [
            ("sum", sharded_sum, plain_sum),
            ("inclusive scan", sharded_scan, plain_scan),
            ("correlation, same, zero, w 31", sharded_conv, plain_conv),
        ] {
            println!(
                "| {what} | {shards} | {distinct} | {s:.3} | {p:.3} | {:.3} |",
                s / p
            );
        }
    }
    #[cfg(feature = "nccl")]
    {
        // One shard through a one-rank NCCL communicator against the in-process transport.
        use gpu_dist::Nccl;
        let host: Vec<f32> = (0..per_shard).map(|i| (i % 1000) as f32 * 0.001).collect();
        let a = ShardedArray::from_host(
            std::slice::from_ref(&first),
            &host,
            ShardLayout::even(per_shard, 1)?,
        )?;
        let nccl = Nccl::in_process(std::slice::from_ref(&first))?;
        let local = InProcess::new(1);
        println!();
        println!("| operation | transport | ms | NCCL / in-process |");
        println!("| --- | --- | ---: | ---: |");
        let mut out = a.alloc_like()?;
        let (n_reduce, l_reduce) = (ShardedReduce::new(&nccl), ShardedReduce::new(&local));
        let (n_scanner, l_scanner) = (ShardedScan::new(&nccl), ShardedScan::new(&local));
        let n_sum = median(&mut || n_reduce.sum(&a).map(drop))?;
        let l_sum = median(&mut || l_reduce.sum(&a).map(drop))?;
        let n_scan = median(&mut || n_scanner.scan_into(&a, &mut out, Op::Sum))?;
        let l_scan = median(&mut || l_scanner.scan_into(&a, &mut out, Op::Sum))?;
        for (what, n, l) in [("sum", n_sum, l_sum), ("inclusive scan", n_scan, l_scan)] {
            println!("| {what} | in-process | {l:.3} | |");
            println!("| {what} | NCCL, one rank | {n:.3} | {:.3} |", n / l);
        }
    }
    Ok(())
}

/// Median of 15 timed calls after 5 warm-ups (GPUs idle until then raise their clocks), in
/// ms (host clock; every call waits). 15, not 7: calls of about a millisecond on two GPUs
/// varied by ±3% from run to run with 7.
#[cfg(feature = "cuda")]
fn median_ms(f: &mut dyn FnMut() -> gpu_core::Result<()>) -> gpu_core::Result<f64> {
    for _ in 0..5 {
        f()?;
    }
    let mut t = Vec::new();
    for _ in 0..15 {
        let start = std::time::Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64() * 1e3);
    }
    t.sort_by(f64::total_cmp);
    Ok(t[7])
}

/// The weak-scaling table: 1, 2, 4, … GPUs, `per_gpu` f32 each.
#[cfg(feature = "cuda")]
fn weak(gpus: &[gpu_core::Gpu], per_gpu: usize) -> gpu_core::Result<()> {
    use gpu_conv1d::Options;
    use gpu_core::Op;
    use gpu_dist::{
        Communicator, InProcess, ShardLayout, ShardedArray, ShardedConv1d, ShardedReduce,
        ShardedScan,
    };
    let first = gpus
        .first()
        .ok_or_else(|| gpu_core::Error::invalid("gpus", "none"))?;
    let copy = {
        let a = first.zeros::<f32>(per_gpu)?;
        let mut b = first.alloc::<f32>(per_gpu)?;
        median_ms(&mut || {
            b.copy_range_from(0, &a, 0..per_gpu, first.stream())?;
            first.stream().synchronize()
        })?
    };
    println!(
        "# gpu-dist weak scaling: {} x {}, {per_gpu} f32 per GPU; device-to-device copy of one \
         shard on GPU 0: {copy:.3} ms",
        gpus.len(),
        first.properties().name
    );
    println!("| operation | transport | GPUs | ms | G elements/s | throughput / one GPU's |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    let mask: Vec<f32> = (0..31).map(|i| (i as f32 - 15.0) / 32.0).collect();
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |k| Some(k * 2))
        .take_while(|&k| k <= gpus.len())
        .collect();
    if !counts.contains(&gpus.len()) {
        counts.push(gpus.len());
    }
    let mut base: std::collections::HashMap<(String, &str), f64> = Default::default();
    for k in counts {
        let devices = &gpus[..k];
        let layout = ShardLayout::even(k * per_gpu, k)?;
        let a = ShardedArray::<f32>::generate(devices, layout, 0, |gpu, range| {
            gpu.iota::<f32>(range.len())
        })?;
        let local = InProcess::new(k);
        #[cfg(feature = "nccl")]
        let nccl = gpu_dist::Nccl::in_process(devices)?;
        #[allow(unused_mut)] // NCCL joins it with the `nccl` feature
        let mut transports: Vec<(&str, &dyn Communicator)> = vec![("in-process", &local)];
        #[cfg(feature = "nccl")]
        transports.push(("NCCL", &nccl));
        for (name, comm) in transports {
            // The engines made once (their masks and scratch kept), the outputs allocated
            // once: the primitives' time, as the copy's.
            let (reduce, scan) = (ShardedReduce::new(comm), ShardedScan::new(comm));
            let conv = ShardedConv1d::correlation(comm, &mask, Options::new());
            let mut scanned = a.alloc_like()?;
            let mut convolved = a.alloc_like()?;
            let zeros = vec![0u64; comm.local_ranks().len()];
            let rows = [
                (
                    "all-gather of 8 bytes per rank (the exchange alone)",
                    median_ms(&mut || gpu_dist::all_gather_values(comm, &zeros).map(drop))?,
                ),
                ("sum", median_ms(&mut || reduce.sum(&a).map(drop))?),
                (
                    "inclusive scan",
                    median_ms(&mut || scan.scan_into(&a, &mut scanned, Op::Sum))?,
                ),
                (
                    "correlation, same, w 31",
                    median_ms(&mut || conv.run_into(&a, &mut convolved))?,
                ),
            ];
            for (what, ms) in rows {
                if what.starts_with("all-gather") {
                    println!("| {what} | {name} | {k} | {ms:.3} | – | – |");
                    continue;
                }
                let one = *base.entry((what.to_string(), name)).or_insert(ms);
                let rate = (k * per_gpu) as f64 / ms / 1e6;
                println!(
                    "| {what} | {name} | {k} | {ms:.3} | {rate:.1} | {:.2} |",
                    k as f64 * one / ms
                );
            }
        }
    }
    Ok(())
}

/// An array of `fraction` of each GPU's memory per GPU over every GPU: made, reduced,
/// scanned in place and checked.
#[cfg(feature = "cuda")]
fn huge(gpus: &[gpu_core::Gpu], fraction: f64) -> gpu_core::Result<()> {
    use gpu_core::{DeviceSlice, Error, Input, Op};
    use gpu_dist::{InProcess, ShardLayout, ShardedArray, ShardedReduce, ShardedScan};
    use std::time::Instant;
    let one = gpus
        .iter()
        .map(|g| g.properties().total_memory)
        .min()
        .ok_or_else(|| Error::invalid("gpus", "none"))?;
    let per_gpu = ((one as f64 * fraction) as usize / 4) & !1023;
    let n = per_gpu * gpus.len();
    println!(
        "# huge: {n} u32 ({:.1} GiB, {:.2}x one GPU's {:.1} GiB) over {} GPUs",
        (n * 4) as f64 / (1u64 << 30) as f64,
        (n * 4) as f64 / one as f64,
        one as f64 / (1u64 << 30) as f64,
        gpus.len()
    );
    let comm = InProcess::new(gpus.len());
    let t = Instant::now();
    let mut a = ShardedArray::filled(gpus, ShardLayout::even(n, gpus.len())?, 0, 1u32)?;
    println!("filled with ones in {:.2?}", t.elapsed());
    let r = ShardedReduce::new(&comm);
    let t = Instant::now();
    let total = r.reduce_wide(&a, Op::Sum)?;
    println!("sum (u64 accumulation) = {total} in {:.2?}", t.elapsed());
    let t = Instant::now();
    ShardedScan::new(&comm).scan_in_place(&mut a, Op::Sum)?;
    println!("inclusive scan in place in {:.2?}", t.elapsed());
    // Element i is now (i + 1) mod 2^32: check each shard's first and last 4096 elements.
    let mut checked = 0usize;
    for (s, shard) in a.shards().iter().enumerate() {
        let range = a.layout().range(s);
        let k = 4096.min(shard.len());
        for local in [0..k, shard.len() - k..shard.len()] {
            let got = DeviceSlice::new(shard, local.clone())?
                .stage(shard.gpu())?
                .to_vec()?;
            for (j, v) in local.clone().zip(got) {
                let want = ((range.start + j + 1) as u64 & 0xffff_ffff) as u32;
                if v != want {
                    return Err(Error::invalid(
                        "scan",
                        format!("element {} is {v}, {want} expected", range.start + j),
                    ));
                }
                checked += 1;
            }
        }
    }
    // The wrapping sum of the scan: n(n + 1)/2 mod 2^32.
    let t = Instant::now();
    let sum = r.sum(&a)?;
    let want = ((n as u128 * (n as u128 + 1) / 2) & 0xffff_ffff) as u32;
    println!(
        "sum of the scan (u32, wrapping) = {sum} in {:.2?}",
        t.elapsed()
    );
    if total != n as u64 || sum != want {
        return Err(Error::invalid(
            "huge",
            format!("sum {total} (want {n}), sum of the scan {sum} (want {want})"),
        ));
    }
    println!("huge: ok ({checked} sampled elements and both sums exact)");
    Ok(())
}
