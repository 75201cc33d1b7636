//! Summaries of repeated timings, and CPU timing.

use std::hint::black_box;
use std::time::Instant;

/// Median, minimum and maximum of repeated timings, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Median of the samples.
    pub median_ms: f64,
    /// Fastest sample.
    pub min_ms: f64,
    /// Slowest sample.
    pub max_ms: f64,
    /// Number of samples.
    pub samples: usize,
}

impl Stats {
    /// The summary of `samples` (milliseconds), or `None` when there are none.
    pub fn from_ms(mut samples: Vec<f64>) -> Option<Stats> {
        samples.retain(|x| x.is_finite());
        if samples.is_empty() {
            return None;
        }
        samples.sort_by(f64::total_cmp);
        let k = samples.len();
        let median = if k % 2 == 1 {
            samples[k / 2]
        } else {
            0.5 * (samples[k / 2 - 1] + samples[k / 2])
        };
        Some(Stats {
            median_ms: median,
            min_ms: samples[0],
            max_ms: samples[k - 1],
            samples: k,
        })
    }

    /// Bandwidth in GB/s (10^9 bytes per second) when `bytes` move in the median time.
    pub fn gbps(&self, bytes: u64) -> f64 {
        bytes as f64 / (self.median_ms * 1e-3) / 1e9
    }
}

/// Runs `f` `warmup` times untimed, then `reps` times timed with the wall clock; returns the
/// summary and the last result.
pub fn time_cpu<R>(warmup: usize, reps: usize, mut f: impl FnMut() -> R) -> (Stats, R) {
    for _ in 0..warmup {
        black_box(f());
    }
    let reps = reps.max(1);
    let mut samples = Vec::with_capacity(reps);
    let mut last = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = black_box(f());
        samples.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(r);
    }
    let stats = Stats::from_ms(samples).expect("at least one sample");
    (stats, last.expect("at least one run"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        let s = Stats::from_ms(vec![3.0, 1.0, 2.0]).unwrap();
        assert_eq!(
            (s.median_ms, s.min_ms, s.max_ms, s.samples),
            (2.0, 1.0, 3.0, 3)
        );
        assert_eq!(Stats::from_ms(vec![4.0, 1.0]).unwrap().median_ms, 2.5);
        assert!(Stats::from_ms(vec![]).is_none());
        assert!((Stats::from_ms(vec![1.0]).unwrap().gbps(1_000_000) - 1.0).abs() < 1e-12);
        let (s, r) = time_cpu(1, 3, || 7);
        assert_eq!((s.samples, r), (3, 7));
    }
}
