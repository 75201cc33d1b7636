//! Deterministic generated data for tests, benchmarks and the report.

use crate::element::Element;

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
    }
}
