//! One-off (ninth session): first-call latency of gpu-reduce alone, so that two builds (256 KiB
//! and 512 KiB archive frames) fit one device call. Copied to crates/gpu-reduce/examples/ to
//! build; prints `case open_s first_s second_s`.
use gpu_core::Gpu;
use gpu_reduce::{Algorithm, DeviceReduce, Reduce};
use std::time::Instant;

fn main() -> gpu_core::Result<()> {
    let case = std::env::args().nth(1).unwrap_or_else(|| "reduce".into());
    let t = Instant::now();
    let gpu = Gpu::default_device()?;
    let n = 1000;
    let f32s: Vec<f32> = (0..n).map(|i| (i % 17) as f32 * 0.5).collect();
    let i64s: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1009).collect();
    let x32 = gpu.upload(&f32s)?;
    let xi64 = gpu.upload(&i64s)?;
    let cols = ndarray::Array2::from_shape_fn((1000, 64), |(r, c)| ((r + c) % 7) as f32);
    let offsets: Vec<u64> = (0..=200u64).map(|i| (i * 5).min(n as u64)).collect();
    let rows = ndarray::Array2::from_shape_fn((1000, 1000), |(r, c)| ((r + c) % 7) as f32);
    let long_values: Vec<f32> = (0..100_000).map(|i| (i % 13) as f32).collect();
    let long_offsets: Vec<u64> = (0..=100u64).map(|i| i * 1000).collect();
    let long_values = gpu.upload(&long_values)?;
    gpu.synchronize()?;
    let open_s = t.elapsed().as_secs_f64();
    let call = || -> gpu_core::Result<()> {
        match case.as_str() {
            "reduce" => assert_eq!(x32.sum()?, f32s.iter().sum::<f32>()),
            "reduce-other" => {
                let r = Reduce::new(&gpu).algorithm(Algorithm::TwoPass);
                assert!(r.argmax(&xi64)?.is_some());
            }
            "reduce-axis" => {
                let s = Reduce::new(&gpu).sum_axis(&cols, ndarray::Axis(0))?;
                assert_eq!(s, cols.sum_axis(ndarray::Axis(0)).into_dyn());
            }
            "reduce-segments" => {
                let s = Reduce::new(&gpu).segmented_sum(&f32s, &offsets[..])?;
                assert_eq!(s.len(), 200);
            }
            "reduce-max" => assert!(x32.max()?.is_some()),
            // (twelfth session) rows of 1000 by a warp each and segments of 1000: the plans
            // that launch the in-warp lane kernels since then.
            "reduce-rows" => {
                let s = Reduce::new(&gpu).sum_axis(&rows, ndarray::Axis(1))?;
                assert_eq!(s, rows.sum_axis(ndarray::Axis(1)).into_dyn());
            }
            "reduce-segments-long" => {
                let s = Reduce::new(&gpu).segmented_sum(&long_values, &long_offsets[..])?;
                assert_eq!(s.len(), 100);
            }
            other => panic!("unknown case {other}"),
        }
        Ok(())
    };
    let t1 = Instant::now();
    call()?;
    let first_s = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    call()?;
    let second_s = t2.elapsed().as_secs_f64();
    println!("{case}\t{open_s:.4}\t{first_s:.4}\t{second_s:.4}");
    Ok(())
}
