//! Shard layouts and the rank-order combine, on the CPU (no GPU needed).

use gpu_dist::combine::{arg_pick, exclusive_offsets, fold_in_rank_order};
use gpu_dist::{Communicator, InProcess, ShardLayout};
use quickcheck::quickcheck;

quickcheck! {
    /// Every element lies in exactly the shard `shard_of` names, for any counts (zeros
    /// included), and the counts come back as given.
    fn shard_of_names_the_holding_shard(counts: Vec<u8>) -> bool {
        let counts: Vec<usize> = counts.into_iter().map(usize::from).collect();
        let Ok(l) = ShardLayout::from_counts(&counts) else { return counts.is_empty() };
        l.counts().eq(counts.iter().copied())
            && (0..l.total()).all(|i| l.shard_of(i).is_some_and(|s| l.range(s).contains(&i)))
            && l.shard_of(l.total()).is_none()
    }

    /// A rank-order fold of an ordered combine (concatenation) is the whole sequence, however
    /// it is split.
    fn rank_order_keeps_sequence_order(words: Vec<u8>, shards: u8) -> bool {
        let shards = usize::from(shards % 17) + 1;
        let l = ShardLayout::even(words.len(), shards).unwrap();
        let parts = (0..shards).map(|s| words[l.range(s)].to_vec());
        fold_in_rank_order(parts, |mut a, b| { a.extend(b); a }) == Some(words)
    }

    /// The argmin over shards (each shard's first minimum, combined with `arg_pick`) is the
    /// first minimum of the whole, for any split.
    fn arg_pick_gives_the_first_extreme(values: Vec<i8>, shards: u8) -> bool {
        let shards = usize::from(shards % 9) + 1;
        let l = ShardLayout::even(values.len(), shards).unwrap();
        let candidates = (0..shards).filter(|&s| !l.range(s).is_empty()).map(|s| {
            let part = &values[l.range(s)];
            let v = *part.iter().min().unwrap();
            let first = part.iter().position(|&x| x == v).unwrap();
            (v, l.range(s).start + first, false)
        });
        let want = values.iter().enumerate().min_by_key(|&(i, &v)| (v, i)).map(|(i, _)| i);
        fold_in_rank_order(candidates, |a, b| arg_pick(a, b, true)).map(|c| c.1) == want
    }
}

#[test]
fn offsets_and_transport() {
    assert_eq!(
        exclusive_offsets(&[5i64, -2, 7], 0, |a, b| a + b),
        [0, 5, 3]
    );
    let comm = InProcess::new(4);
    assert_eq!(comm.ranks(), 4);
    let all = comm
        .all_gather(&[vec![0u8, 1], vec![2, 3], vec![4, 5], vec![6, 7]])
        .unwrap();
    assert_eq!(all, (0..8).collect::<Vec<u8>>());
    let e = comm
        .all_gather(&vec![vec![0u8]; 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 contributions for 4"), "{e}");
}
