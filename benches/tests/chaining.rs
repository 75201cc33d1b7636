//! Shaped results stay on the device: a scan along one axis feeds a reduction along another
//! (two crates, no trip through the host), checked against the CPU references.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::{DeviceArrayD, Op};
use gpu_reduce::DeviceReduceAxis;
use gpu_scan::{Scan, ScanKind};
use ndarray::{Array3, Axis};

#[test]
fn a_scan_along_time_feeds_a_reduction_across_channels_on_the_device() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = Array3::from_shape_fn((8, 1000, 3), |(i, j, k)| ((i + j * 3 + k) % 7) as f32);
    let d = DeviceArrayD::from_array(&gpu, &x).unwrap();
    let mut running = DeviceArrayD::<f32>::zeros(&gpu, &[8, 1000, 3]).unwrap();
    Scan::new(&gpu)
        .scan_axis_into(&d, Axis(1), Op::Max, &mut running)
        .unwrap();
    let totals = running.sum_axis(Axis(2)).unwrap(); // still on the device
    let want = gpu_scan::cpu::scan_axis(x.view(), Axis(1), Op::Max, ScanKind::Inclusive)
        .unwrap()
        .sum_axis(Axis(2))
        .into_dyn();
    assert_eq!(totals.to_array().unwrap(), want);
    let cols = running.max_axis(Axis(0)).unwrap();
    assert_eq!(cols.shape(), &[1000, 3]);
}
