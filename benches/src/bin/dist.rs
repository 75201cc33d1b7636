//! The weak-scaling table of gpu-dist on whatever GPUs are present: per shard 2^k f32 (k = 28
//! unless `--log2 k`), the sharded sum, inclusive scan and correlation (width 31) with one
//! shard, with 8 shards on one GPU, and with one shard per GPU where there are several, each
//! beside the plain primitive
//! over the same total data on one GPU (timed in the same run; medians of 7 after 2 warm-ups,
//! host clock around calls that wait for their result). Built with the `nccl` feature, also the
//! one-shard sum and scan through a one-rank NCCL communicator beside the in-process transport.
//!
//! ```text
//! cargo run --release -p gpu-prims-benches --features cuda --bin dist -- [--log2 K]
//! cargo run --release -p gpu-prims-benches --features nccl --bin dist -- [--log2 K]
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
    let per_shard = 1usize << log2;
    let gpus: Vec<Gpu> = (0..Gpu::count()?).map(Gpu::new).collect::<Result<_, _>>()?;
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
        for _ in 0..2 {
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
        let comm = InProcess::new(shards);
        let sharded_sum = median(&mut || ShardedReduce::new(&comm).sum(&a).map(drop))?;
        let sharded_scan = median(&mut || ShardedScan::new(&comm).scan(&a, Op::Sum).map(drop))?;
        let mask: Vec<f32> = (0..31).map(|i| (i as f32 - 15.0) / 32.0).collect();
        let sharded_conv = median(&mut || {
            ShardedConv1d::correlation(&comm, &mask, Options::new())
                .run(&a)
                .map(drop)
        })?;
        drop(a);
        let plain = first.upload(&host)?;
        drop(host);
        let plain_sum = median(&mut || Reduce::new(&first).sum(&plain).map(drop))?;
        let plain_scan = median(&mut || {
            let mut out = first.alloc::<f32>(total)?;
            Scan::new(&first).scan_into(&plain, &mut out, Op::Sum)
        })?;
        let conv = Conv1d::correlation(&first, &mask, Options::new())?;
        let plain_conv = median(&mut || {
            let mut out = first.alloc::<f32>(total)?;
            conv.run_into(&plain, &mut out)
        })?;
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
        let n_sum = median(&mut || ShardedReduce::new(&nccl).sum(&a).map(drop))?;
        let l_sum = median(&mut || ShardedReduce::new(&local).sum(&a).map(drop))?;
        let n_scan = median(&mut || ShardedScan::new(&nccl).scan(&a, Op::Sum).map(drop))?;
        let l_scan = median(&mut || ShardedScan::new(&local).scan(&a, Op::Sum).map(drop))?;
        for (what, n, l) in [("sum", n_sum, l_sum), ("inclusive scan", n_scan, l_scan)] {
            println!("| {what} | in-process | {l:.3} | |");
            println!("| {what} | NCCL, one rank | {n:.3} | {:.3} |", n / l);
        }
    }
    Ok(())
}
