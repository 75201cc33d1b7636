//! How `bin tune` turns measurements into tuning values: pure arithmetic on ×copy figures, kept
//! apart from the GPU sweeps so the rules are tested anywhere.

/// Geometric mean (0 for none; values floored at 1e-12, so a failed candidate's 0 drags its
/// mean to nearly 0 instead of making it undefined).
pub fn geo_mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    (v.iter().map(|x| x.max(1e-12).ln()).sum::<f64>() / v.len() as f64).exp()
}

/// Index of the largest value (the first of equals; 0 for an empty slice).
pub fn best_index(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, x) in v.iter().enumerate() {
        if *x > v[best] {
            best = i;
        }
    }
    best
}

/// The first index from which every later entry of `wins` is true (`None` where the last is
/// false): where staged tiles start to win for good, over lengths in increasing order.
pub fn wins_from(wins: &[bool]) -> Option<usize> {
    (0..wins.len()).find(|&i| wins[i..].iter().all(|&w| w))
}

/// Where a path should start among increasing `widths`, given its `gain` at each (its ×copy
/// over the other path's): the start whose widths from there on gain most in total (sum of log
/// gains), the crossing interpolated between it and the width before where the gains cross 1;
/// `None` where no start gains in total.
pub fn crossover(widths: &[usize], gain: &[f64]) -> Option<usize> {
    assert_eq!(widths.len(), gain.len(), "one gain per width");
    let total = |i: usize| gain[i..].iter().map(|g| g.ln()).sum::<f64>();
    let i = (0..widths.len()).max_by(|&a, &b| total(a).total_cmp(&total(b)).then(b.cmp(&a)))?;
    if total(i) <= 0.0 {
        return None;
    }
    if i == 0 {
        return Some(widths[0]);
    }
    let (w0, w1) = (widths[i - 1] as f64, widths[i] as f64);
    let (g0, g1) = (gain[i - 1], gain[i]);
    let t = if g1 > g0 {
        ((1.0 - g0) / (g1 - g0)).clamp(0.0, 1.0)
    } else {
        1.0
    };
    Some((w0 + t * (w1 - w0)).ceil() as usize)
}

/// The L2 prefetch's keys from `scores[length][candidate]` (lengths increasing; candidate 0
/// without the prefetch, the others at increasing distances): the distance that scores best at
/// the longest length, and the first length from which it beats no prefetch at every longer one
/// (`None`: it does not win at the longest).
pub fn prefetch_choice(scores: &[Vec<f64>]) -> (usize, Option<usize>) {
    let Some(last) = scores.last() else {
        return (0, None);
    };
    if last.len() < 2 {
        return (0, None);
    }
    let best = 1 + best_index(&last[1..]);
    let wins: Vec<bool> = scores.iter().map(|s| s[best] > s[0]).collect();
    (best, wins_from(&wins))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_and_best() {
        assert_eq!(geo_mean(&[]), 0.0);
        assert!((geo_mean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
        assert!(geo_mean(&[1.0, 0.0]) < 1e-5);
        assert_eq!(best_index(&[0.5, 0.9, 0.9, 0.1]), 1);
        assert_eq!(best_index(&[]), 0);
    }

    #[test]
    fn prefetch_takes_the_best_distance_at_the_longest_length() {
        // The H200's scan harness (session 5, call B), f32: 2^26, 2^27, 2^28; off, 16, 32, 64.
        let s = vec![
            vec![0.798, 0.792, 0.783, 0.768],
            vec![0.818, 0.821, 0.833, 0.817],
            vec![0.831, 0.851, 0.866, 0.848],
        ];
        assert_eq!(prefetch_choice(&s), (2, Some(1)));
        assert_eq!(prefetch_choice(&[vec![0.9, 0.8, 0.85]]), (2, None));
        assert_eq!(prefetch_choice(&[]), (0, None));
        assert_eq!(prefetch_choice(&[vec![0.9]]), (0, None));
    }

    #[test]
    fn staged_tiles_win_from_the_first_of_the_last_run() {
        assert_eq!(wins_from(&[false, true, false, true, true]), Some(3));
        assert_eq!(wins_from(&[true, true]), Some(0));
        assert_eq!(wins_from(&[true, false]), None);
        assert_eq!(wins_from(&[]), None);
    }

    #[test]
    fn crossovers_follow_the_total_gain() {
        // The H200's f32 sweep (call U): the FFT wins everywhere but at the fixed-width w 63,
        // by 1.4 %; starting at 33 gains most.
        let w = [33, 40, 48, 56, 63, 64, 72, 80, 96, 127];
        let g = [
            1.149, 1.133, 1.176, 1.244, 0.986, 1.296, 1.386, 1.469, 1.557, 1.448,
        ];
        assert_eq!(crossover(&w, &g), Some(33));
        // Its f64 sweep: the fixed-width w 63 loses 23 %, so the FFT starts past it, at the
        // interpolated crossing between 63 and 64.
        let w = [48, 63, 64, 72, 80, 96, 127];
        let g = [1.046, 0.770, 1.135, 1.212, 1.264, 1.401, 1.293];
        assert_eq!(crossover(&w, &g), Some(64));
        // cuFFT against the block FFT: a crossing between 12287 and 14335.
        let w = [4095, 6143, 8191, 10239, 12287, 14335];
        let g = [0.355, 0.401, 0.455, 0.592, 0.813, 1.525];
        let c = crossover(&w, &g).unwrap();
        assert!((12288..14335).contains(&c), "{c}");
        // Nowhere a gain: no crossover.
        assert_eq!(crossover(&[1, 2], &[0.9, 0.95]), None);
        assert_eq!(crossover(&[], &[]), None);
    }
}
