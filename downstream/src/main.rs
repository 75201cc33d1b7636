//! What a user's first program does: the CPU paths always, the GPU paths with `--features
//! cuda` (reporting, not failing, when there is no GPU unless `GPU_PRIMS_REQUIRE_GPU=1`).

use gpu_conv1d::{Boundary, Mode};
use gpu_core::Op;
use gpu_scan::ScanKind;

fn main() {
    let x: Vec<f32> = (0..1000).map(|i| (i % 7) as f32 - 3.0).collect();
    let total = gpu_reduce::cpu::reduce(&x, Op::Sum).expect("cpu sum");
    let running = gpu_scan::cpu::scan(&x, Op::Sum, ScanKind::Inclusive).expect("cpu scan");
    let mask = [0.25f32, 0.5, 0.25];
    let smooth =
        gpu_conv1d::cpu::correlate(&x, &mask, Mode::Same, Boundary::Zero).expect("cpu conv");
    assert_eq!(running.len(), x.len());
    assert_eq!(running[x.len() - 1], total);
    assert_eq!(smooth.len(), x.len());
    let header_bytes: usize = gpu_sync::HEADERS.iter().map(|(_, text)| text.len()).sum();
    assert!(header_bytes > 0);
    println!("cpu: sum {total}, scan and conv1d of {} values", x.len());
    #[cfg(feature = "cuda")]
    gpu(&x, total, &running, &smooth, &mask);
}

#[cfg(feature = "cuda")]
fn gpu(x: &[f32], total: f32, running: &[f32], smooth: &[f32], mask: &[f32]) {
    use gpu_reduce::DeviceReduce;
    let gpu = match gpu_core::Gpu::default_device() {
        Ok(gpu) => gpu,
        Err(e) if !gpu_core::testing::gpu_required() => {
            println!("gpu: skipped ({e})");
            return;
        }
        Err(e) => panic!("GPU_PRIMS_REQUIRE_GPU is set but there is no GPU: {e}"),
    };
    let d = gpu.upload(x).expect("upload");
    assert_eq!(d.sum().expect("gpu sum"), total);
    let options = gpu_scan::ScanOptions::default();
    let scanned = gpu_scan::scan(&gpu, x, Op::Sum, &options).expect("gpu scan");
    assert_eq!(scanned, running);
    let conv = gpu_conv1d::correlate(&gpu, x, mask, gpu_conv1d::Options::default()).expect("conv");
    assert_eq!(conv, smooth);
    println!("gpu: {} agrees with the CPU", gpu.properties().name);
}
