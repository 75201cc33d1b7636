//! The input layer every primitive accepts: host data uploaded, device data borrowed.
#![cfg(feature = "cuda")]

use gpu_core::testing::gpu_or_skip;
use gpu_core::{DeviceSlice, Input};
use ndarray::{Array2, ShapeBuilder};

#[test]
fn gpu_every_input_kind_stages_its_elements_in_logical_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    for n in [0usize, 1, 31, 32, 33, 1025, (1 << 20) + 7] {
        let host: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let dev = gpu.upload(&host).unwrap();
        assert_eq!(host.stage(&gpu).unwrap().to_vec().unwrap(), host);
        assert_eq!(host.as_slice().stage(&gpu).unwrap().to_vec().unwrap(), host);
        assert_eq!(dev.stage(&gpu).unwrap().to_vec().unwrap(), host);
        assert_eq!(host.host_slice(), Some(host.as_slice()));
        assert_eq!(dev.host_slice(), None);
        let mid = n / 3..n - n / 4;
        let slice = DeviceSlice::new(&dev, mid.clone()).unwrap();
        let staged = slice.stage(&gpu).unwrap();
        assert_eq!(staged.len(), mid.len());
        assert_eq!(staged.to_vec().unwrap(), host[mid.clone()]);
        // A device input becomes an array of its own by a copy; the original is untouched.
        let mut copy = slice.stage(&gpu).unwrap().into_device_array().unwrap();
        copy.fill(7, gpu.stream()).unwrap();
        assert_eq!(dev.to_vec().unwrap(), host);
        // Host inputs hand over their upload.
        assert!(host.stage(&gpu).unwrap().into_upload().is_some());
        assert!(dev.stage(&gpu).unwrap().into_upload().is_none());
    }
    assert!(gpu
        .upload(&[1u8, 2, 3])
        .and_then(|d| DeviceSlice::new(&d, 2..5).map(|_| ()))
        .is_err());
}

#[test]
fn gpu_ndarray_inputs_of_any_layout_stage_in_row_major_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    let a = Array2::from_shape_fn((37, 29).f(), |(i, j)| (i * 100 + j) as f64);
    let logical: Vec<f64> = a.iter().copied().collect();
    assert_eq!(a.stage(&gpu).unwrap().to_vec().unwrap(), logical);
    assert_eq!(
        a.host_slice(),
        None,
        "column-major data is not one row-major slice"
    );
    let t = a.t();
    let logical_t: Vec<f64> = t.iter().copied().collect();
    assert_eq!(t.stage(&gpu).unwrap().to_vec().unwrap(), logical_t);
    assert_eq!(t.host_slice(), Some(logical_t.as_slice()));
    let fixed = [1i64, -2, 3];
    assert_eq!(fixed.stage(&gpu).unwrap().to_vec().unwrap(), fixed);
}
