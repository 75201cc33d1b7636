//! How per-shard partial results become one: always in rank order, so that ordered monoids
//! keep their order and float results do not depend on timing or on the transport.

/// The left fold of `parts` in rank order (`None` when there are none).
///
/// ```
/// # use gpu_dist::combine::fold_in_rank_order;
/// let words = ["a", "b", "c"].map(String::from);
/// assert_eq!(fold_in_rank_order(words, |a, b| a + &b), Some("abc".to_string()));
/// ```
pub fn fold_in_rank_order<T>(
    parts: impl IntoIterator<Item = T>,
    combine: impl Fn(T, T) -> T,
) -> Option<T> {
    parts.into_iter().reduce(combine)
}

/// Which of two shards' candidates of an argmin (`smaller` true) or argmax wins: each is
/// `(value, global index, is NaN)`, `a` from the earlier shard. The first NaN wins, then the
/// strictly better value; ties keep the earlier shard's (its index is smaller), as the
/// single-GPU `argmin`/`argmax` (PyTorch's rule).
pub fn arg_pick<V: PartialOrd>(
    a: (V, usize, bool),
    b: (V, usize, bool),
    smaller: bool,
) -> (V, usize, bool) {
    if a.2 || b.2 {
        return if a.2 { a } else { b };
    }
    let better = if smaller { b.0 < a.0 } else { b.0 > a.0 };
    if better {
        b
    } else {
        a
    }
}

/// The exclusive prefix of shard totals in rank order: `out[s]` is the fold of the totals of
/// shards `0..s` (the identity for shard 0), what the sharded scan adds to shard `s`.
///
/// ```
/// # use gpu_dist::combine::exclusive_offsets;
/// assert_eq!(exclusive_offsets(&[3, 0, 4], 0, |a, b| a + b), [0, 3, 3]);
/// ```
pub fn exclusive_offsets<T: Copy>(
    totals: &[T],
    identity: T,
    combine: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut acc = identity;
    totals
        .iter()
        .map(|&t| {
            let before = acc;
            acc = combine(acc, t);
            before
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arg_pick_follows_the_single_gpu_rule() {
        // Ties keep the earlier shard; a NaN anywhere wins, the first one first.
        assert_eq!(arg_pick((1.0, 3, false), (1.0, 9, false), true).1, 3);
        assert_eq!(arg_pick((2.0, 3, false), (1.0, 9, false), true).1, 9);
        assert_eq!(arg_pick((2.0, 3, false), (1.0, 9, false), false).1, 3);
        assert_eq!(arg_pick((2.0, 3, false), (f64::NAN, 9, true), true).1, 9);
        assert_eq!(
            arg_pick((f64::NAN, 3, true), (f64::NAN, 9, true), false).1,
            3
        );
    }

    #[test]
    fn offsets_fold_in_rank_order() {
        // Affine maps x -> a·x + b composed in rank order (not commutative).
        let compose = |(a1, b1): (i64, i64), (a2, b2): (i64, i64)| (a2 * a1, a2 * b1 + b2);
        let totals = [(2, 1), (3, 0), (1, 5), (-1, 2)];
        let got = exclusive_offsets(&totals, (1, 0), compose);
        let mut acc = (1, 0);
        for (s, &t) in totals.iter().enumerate() {
            assert_eq!(got[s], acc, "shard {s}");
            acc = compose(acc, t);
        }
        assert_ne!(compose(totals[0], totals[1]), compose(totals[1], totals[0]));
        assert_eq!(exclusive_offsets(&[1u32, 2, 3], 0, |a, b| a + b), [0, 1, 3]);
        assert_eq!(exclusive_offsets::<u32>(&[], 0, |a, b| a + b), []);
    }
}
