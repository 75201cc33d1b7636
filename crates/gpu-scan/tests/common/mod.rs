//! Helpers shared by the GPU tests.
#![allow(dead_code)]

use gpu_core::data::SplitMix64;
use gpu_core::Element;

/// Small integers in −8..=8: every prefix sum of a random walk of them stays exact in f32, so
/// GPU and CPU results agree bit for bit whatever the grouping.
pub fn small_integers<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut r = SplitMix64::new(seed);
    (0..n)
        .map(|_| T::from_f64((r.next_u64() % 17) as f64 - 8.0))
        .collect()
}

/// Equal element by element, NaN matching NaN.
pub fn same_bits<T: Element>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
}

/// Scans `n` values of `data::exact(n, op, seed)` with `scan` on its GPU and compares them with
/// the CPU scan bit for bit (data on which every grouping is exact); panics naming `what`,
/// the type, operator and length at the first difference.
#[cfg(feature = "cuda")]
pub fn check_scan<T: Element>(
    scan: &gpu_scan::Scan,
    n: usize,
    op: gpu_core::Op,
    seed: u64,
    what: &str,
) {
    let x: Vec<T> = gpu_core::data::exact(n, op, seed);
    let gpu = scan.gpu();
    let dx = gpu.upload(&x).unwrap();
    let mut out = gpu.alloc::<T>(n).unwrap();
    scan.scan_into(&dx, &mut out, op).unwrap();
    let want = gpu_scan::cpu::scan(&x, op, scan.scan_options().kind).unwrap();
    let got = out.to_vec().unwrap();
    if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: {} {op} n={n}: first difference at {i}: got {:?}, want {:?}",
            T::NAME,
            got[i],
            want[i]
        );
    }
}
