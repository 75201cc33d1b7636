//! The generated inputs of the benchmarks and the report.
//!
//! Values are small integers (in `[-8, 8]`, from [`gpu_core::data::uniform`]) converted to the
//! element type, with one planted maximum (`+64`) and one planted minimum (`-64`) at fixed
//! positions. Small integers keep every partial sum of a float reduction, scan or convolution
//! exactly representable (their magnitude stays far below 2^24 for any summation order at the
//! sizes used), so GPU results can be checked tightly whatever order the algorithm combines in;
//! the planted extremes make `max`/`min` have one right answer at one place. The bandwidth of the
//! primitives does not depend on the values.
//!
//! Generation runs in chunks of 2^20 elements on the rayon pool, chunk `i` seeded with
//! `seed + i`, so 2^30 elements take about a second and the data are the same on every machine.

use gpu_core::Element;
use rayon::prelude::*;

/// Elements per independently seeded chunk.
pub const CHUNK: usize = 1 << 20;
/// The planted maximum.
pub const PLANTED_MAX: f64 = 64.0;
/// The planted minimum.
pub const PLANTED_MIN: f64 = -64.0;

/// `n` values of `T` from `seed` (see the module documentation).
pub fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut out = vec![T::default(); n];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(i, chunk)| {
            let v =
                gpu_core::data::uniform::<i32>(chunk.len(), seed.wrapping_add(i as u64), -8.0, 8.0);
            for (d, s) in chunk.iter_mut().zip(v) {
                *d = T::from_f64(s as f64);
            }
        });
    if n >= 4 {
        out[n / 7 * 5] = T::from_f64(PLANTED_MAX);
        out[n / 13 * 3] = T::from_f64(PLANTED_MIN);
    }
    out
}

/// A convolution mask of width `w`: small integers in `[-3, 3]` converted to `T` (never all
/// zero for `w ≥ 1`).
pub fn mask<T: Element>(w: usize, seed: u64) -> Vec<T> {
    let mut m: Vec<T> = gpu_core::data::uniform::<i32>(w, seed, -3.0, 3.0)
        .into_iter()
        .map(|v| T::from_f64(v as f64))
        .collect();
    if let Some(mid) = m.get_mut(w / 2) {
        *mid = T::from_f64(2.0);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_small_integers_with_planted_extremes() {
        let a = values::<f32>(3 * CHUNK + 5, 9);
        assert_eq!(a, values::<f32>(3 * CHUNK + 5, 9));
        assert!(a.iter().all(|x| x.fract() == 0.0 && x.abs() <= 64.0));
        assert_eq!(a.iter().filter(|&&x| x == 64.0).count(), 1);
        assert_eq!(a.iter().filter(|&&x| x == -64.0).count(), 1);
        let b = values::<i32>(3 * CHUNK + 5, 9);
        assert!(a.iter().zip(&b).all(|(&x, &y)| x == y as f32));
        assert_eq!(values::<i32>(0, 1).len(), 0);
        assert_eq!(mask::<f32>(7, 1).len(), 7);
        assert_eq!(mask::<f32>(7, 1)[3], 2.0);
    }
}
