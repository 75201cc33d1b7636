//! Helpers shared by the 16-bit and host-pipeline GPU tests.
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
