//! Deterministic generated data for tests, benchmarks and the report.

use crate::element::Element;
use crate::op::Op;

/// SplitMix64: tiny, fast, and the same stream on every platform.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` values of `T` from `seed`: integers uniform in `[lo, hi]`, floats uniform in `[lo, hi)`.
pub fn uniform<T: Element>(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<T> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            if T::IS_FLOAT {
                T::from_f64(lo + (hi - lo) * rng.next_f64())
            } else {
                let span = (hi - lo).floor() as u64 + 1;
                T::from_f64(lo + (rng.next_u64() % span.max(1)) as f64)
            }
        })
        .collect()
}

/// `n` f32 values whose sums and products depend on the order they are combined in: magnitudes
/// from 2^-30 to 2^30, both signed zeros, and (where `nan`) about one NaN in 64, for tests
/// that a result is bit for bit that of a given order.
///
/// ```
/// let x = gpu_core::data::order_sensitive(1000, 3, true);
/// assert!(x.iter().any(|v| v.is_nan()) && x.iter().any(|v| v.to_bits() == (-0.0f32).to_bits()));
/// ```
pub fn order_sensitive(n: usize, seed: u64, nan: bool) -> Vec<f32> {
    let mut r = SplitMix64::new(seed);
    (0..n)
        .map(|_| match r.next_u64() % 64 {
            0 => -0.0,
            1 => 0.0,
            2 if nan => f32::NAN,
            k => ((r.next_u64() % 2001) as f32 - 1000.0) * 2f32.powi((k % 61) as i32 - 30),
        })
        .collect()
}

/// Values that exercise an operator without trivially saturating it: small integers (so sums
/// and products wrap only at large n), signed where the type allows, floats in [-1, 1).
pub fn typical<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let signed = T::from_f64(-1.0).to_f64() < 0.0;
    if T::IS_FLOAT {
        uniform(n, seed, -1.0, 1.0)
    } else if signed {
        uniform(n, seed, -1000.0, 1000.0)
    } else {
        uniform(n, seed, 0.0, 2000.0)
    }
}

/// Values on which every operator gives exact results in every type, so GPU and CPU results
/// compare bit for bit whatever the combine order: small integers (signed where the type
/// allows), or ±1 for float products.
pub fn exact<T: Element>(n: usize, op: Op, seed: u64) -> Vec<T> {
    let mut r = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let k = r.next_u64();
            if T::IS_FLOAT && op == Op::Product {
                T::from_f64(if k & 1 == 0 { 1.0 } else { -1.0 })
            } else if T::from_f64(-1.0).to_f64() < 0.0 {
                T::from_f64((k % 41) as f64 - 20.0)
            } else {
                T::from_f64((k % 41) as f64)
            }
        })
        .collect()
}

/// The operators `T` supports.
pub fn ops_for<T: Element>() -> Vec<Op> {
    Op::ALL
        .iter()
        .copied()
        .filter(|op| op.check::<T>().is_ok())
        .collect()
}

/// CSR offsets of `n` segments whose lengths are `len` of successive random numbers.
pub fn offsets_with(n: usize, seed: u64, len: impl Fn(u64) -> u64) -> Vec<u64> {
    let mut r = SplitMix64::new(seed);
    let mut o = vec![0u64];
    for _ in 0..n {
        let l = len(r.next_u64());
        o.push(o.last().unwrap() + l);
    }
    o
}

/// CSR offsets of segments covering exactly `values` values, their lengths drawn from
/// `lengths` (empty segments where it starts at 0; the last one cut to fit).
///
/// ```
/// let o = gpu_core::data::offsets_over(1000, 1..9, 3);
/// assert_eq!((o[0], *o.last().unwrap()), (0, 1000));
/// assert!(o.windows(2).all(|w| (1..9).contains(&(w[1] - w[0])) || w[1] == 1000));
/// ```
pub fn offsets_over(values: usize, lengths: std::ops::Range<u64>, seed: u64) -> Vec<u64> {
    let mut r = SplitMix64::new(seed);
    let (mut o, mut at) = (vec![0u64], 0u64);
    let span = lengths.end.saturating_sub(lengths.start).max(1);
    while at < values as u64 {
        at = (at + lengths.start + r.next_u64() % span).min(values as u64);
        o.push(at);
    }
    o
}

/// CSR offsets from quickcheck-drawn lengths: every `every % 16 + 1`-th segment long (up to
/// 40 000 values, so segments cross many tiles and blocks), the others up to 16 (zeros
/// included).
pub fn random_offsets(lens: &[u16], every: u8) -> Vec<u64> {
    let every = every as usize % 16 + 1;
    let mut o = vec![0u64];
    for (i, &l) in lens.iter().enumerate() {
        let len = if i % every == 0 {
            l as u64 % 40_000
        } else {
            l as u64 % 17
        };
        o.push(o.last().unwrap() + len);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let a = uniform::<i32>(1000, 7, -3.0, 3.0);
        assert_eq!(a, uniform::<i32>(1000, 7, -3.0, 3.0));
        assert!(a.iter().all(|&x| (-3..=3).contains(&x)));
        assert!(a.contains(&-3) && a.contains(&3));
        let f = typical::<f32>(1000, 1);
        assert!(f.iter().all(|&x| (-1.0..1.0).contains(&x)));
        let u = typical::<u64>(1000, 1);
        assert!(u.iter().all(|&x| x <= 2000));
        assert!(exact::<f32>(100, Op::Product, 3)
            .iter()
            .all(|x| x.abs() == 1.0));
        assert!(exact::<u32>(100, Op::Sum, 3).iter().all(|&x| x <= 40));
        assert!(!ops_for::<f64>().contains(&Op::BitAnd));
        let o = random_offsets(&[5, 40_001, 3], 1);
        assert_eq!(o, vec![0, 5, 5, 8]);
        let o = offsets_with(3, 1, |k| k % 2);
        assert!(o.windows(2).all(|w| w[0] <= w[1] && w[1] - w[0] < 2));
    }
}
