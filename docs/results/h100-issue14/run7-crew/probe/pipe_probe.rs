//! One-off probe (not committed): host pipeline transfer rates, no kernels.
use gpu_core::{Gpu, PIPELINE_RING_SLOTS};
use std::mem::MaybeUninit;
use std::time::Instant;

fn time(reps: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[0], v[v.len() / 2])
}

fn main() -> gpu_core::Result<()> {
    let gpu = Gpu::new(0)?;
    let n = 1usize << 28;
    let input: Vec<u32> = (0..n as u32).collect();
    let mut out: Vec<MaybeUninit<u32>> = vec![MaybeUninit::new(0); n];
    let pin_in = gpu.pinned_from(&input)?;
    let mut pin_out = gpu.pinned::<u32>(n)?;
    let chunks: Vec<usize> = std::env::var("CHUNKS_MIB")
        .unwrap_or("8".into())
        .split(',')
        .map(|c| c.parse::<usize>().unwrap() << 18)
        .collect();
    for &chunk in &chunks {
        let mut ring = gpu.alloc::<u32>(PIPELINE_RING_SLOTS * chunk)?;
        let label = format!("chunk {} MiB", chunk >> 18);
        let (a, b) = time(7, || {
            gpu.host_pipeline_ring(&input, &mut out, &mut ring, chunk, |_, _, _| Ok(()))
                .unwrap();
        });
        println!("{label}: two-way pageable      min {a:7.2} ms  median {b:7.2} ms");
        // SAFETY-free check: the output must equal the input.
        let ok = out
            .iter()
            .zip(&input)
            .all(|(o, i)| unsafe { o.assume_init() } == *i);
        println!("  ok {ok}");
        let (a, b) = time(7, || {
            let o = pin_out.as_mut_slice().unwrap();
            // SAFETY: u32 and MaybeUninit<u32> share layout.
            let o: &mut [MaybeUninit<u32>] = unsafe { std::mem::transmute(o) };
            gpu.host_pipeline_ring(
                pin_in.as_slice().unwrap(),
                o,
                &mut ring,
                chunk,
                |_, _, _| Ok(()),
            )
            .unwrap();
        });
        println!("{label}: two-way pinned        min {a:7.2} ms  median {b:7.2} ms");
        let (a, b) = time(7, || {
            gpu.host_stream_in(&input, &mut ring, chunk, |_, _, _| Ok(()))
                .unwrap();
        });
        println!("{label}: upload-only pageable  min {a:7.2} ms  median {b:7.2} ms");
        let (a, b) = time(7, || {
            gpu.host_stream_in(pin_in.as_slice().unwrap(), &mut ring, chunk, |_, _, _| {
                Ok(())
            })
            .unwrap();
        });
        println!("{label}: upload-only pinned    min {a:7.2} ms  median {b:7.2} ms");
    }
    let mut dev = gpu.alloc::<u32>(n)?;
    let (a, b) = time(7, || dev.copy_from(&input).unwrap());
    println!("one-shot staged upload pageable   min {a:7.2} ms  median {b:7.2} ms");
    let mut empty = gpu.alloc::<u32>(0)?;
    let chunk = 2usize << 20;
    let (a, b) = time(7, || {
        assert!(gpu
            .host_pipeline_between(&input, &mut dev, &mut [], &mut empty, chunk, |_, _| Ok(0..0))
            .unwrap());
    });
    println!("pipeline engine upload pageable   min {a:7.2} ms  median {b:7.2} ms");
    let mut back: Vec<MaybeUninit<u32>> = vec![MaybeUninit::new(0); n];
    let (a, b) = time(7, || {
        assert!(gpu
            .host_pipeline_between(&[] as &[u32], &mut empty, &mut back, &mut dev, chunk, |_, _| Ok(0..n))
            .unwrap());
    });
    let ok = back.iter().zip(&input).all(|(o, i)| unsafe { o.assume_init() } == *i);
    println!("pipeline engine download pageable min {a:7.2} ms  median {b:7.2} ms  ok {ok}");
    let mut back = vec![0u32; n];
    let (a, b) = time(7, || dev.copy_to(&mut back).unwrap());
    println!(
        "one-shot staged download pageable min {a:7.2} ms  median {b:7.2} ms  ok {}",
        back == input
    );
    Ok(())
}
