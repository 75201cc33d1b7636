//! How a flat array of `total` elements is split into shards: shard `s` holds elements
//! `starts[s] .. starts[s + 1]` of the concatenated data, in rank order. Shards may be empty.

use std::ops::Range;

use gpu_core::{Error, Result};

/// The split of `total` elements into consecutive shards, one per rank.
///
/// ```
/// use gpu_dist::ShardLayout;
/// let l = ShardLayout::even(10, 4).unwrap();
/// assert_eq!(l.counts().collect::<Vec<_>>(), [3, 3, 2, 2]);
/// assert_eq!(l.range(2), 6..8);
/// assert_eq!(l.shard_of(6), Some(2));
/// let l = ShardLayout::from_counts(&[0, 5, 0, 1]).unwrap();
/// assert_eq!((l.total(), l.shards(), l.shard_of(5)), (6, 4, Some(3)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardLayout {
    /// `shards + 1` offsets, non-decreasing, from 0 to the total.
    starts: Vec<usize>,
}

impl ShardLayout {
    /// `total` elements over `shards` shards as evenly as possible: the first
    /// `total % shards` shards hold one element more. `shards` must be at least 1.
    pub fn even(total: usize, shards: usize) -> Result<Self> {
        if shards == 0 {
            return Err(Error::invalid("shards", "0 shards: at least one is needed"));
        }
        let (base, extra) = (total / shards, total % shards);
        let mut starts = Vec::with_capacity(shards + 1);
        let mut at = 0;
        starts.push(0);
        for s in 0..shards {
            at += base + usize::from(s < extra);
            starts.push(at);
        }
        Ok(Self { starts })
    }

    /// Shards of the given element counts, in rank order (at least one shard; counts of 0
    /// allowed).
    pub fn from_counts(counts: &[usize]) -> Result<Self> {
        if counts.is_empty() {
            return Err(Error::invalid(
                "counts",
                "no shards: at least one is needed",
            ));
        }
        let mut starts = Vec::with_capacity(counts.len() + 1);
        let mut at = 0usize;
        starts.push(0);
        for &c in counts {
            at = at
                .checked_add(c)
                .ok_or_else(|| Error::invalid("counts", "the total overflows usize"))?;
            starts.push(at);
        }
        Ok(Self { starts })
    }

    /// The number of shards.
    pub fn shards(&self) -> usize {
        self.starts.len() - 1
    }

    /// The number of elements in all shards.
    pub fn total(&self) -> usize {
        self.starts[self.shards()]
    }

    /// The elements of the concatenated data that shard `shard` holds (panics past the last
    /// shard, as slice indexing does).
    pub fn range(&self, shard: usize) -> Range<usize> {
        self.starts[shard]..self.starts[shard + 1]
    }

    /// The element count of each shard, in rank order.
    pub fn counts(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.starts.windows(2).map(|w| w[1] - w[0])
    }

    /// The shard holding element `index` of the concatenated data (`None` past the end).
    pub fn shard_of(&self, index: usize) -> Option<usize> {
        if index >= self.total() {
            return None;
        }
        // The last start ≤ index: empty shards before it share its start and are skipped.
        Some(self.starts.partition_point(|&s| s <= index) - 1)
    }

    /// Checks that this layout splits `len` elements, naming `what` in the error.
    pub fn check_total(&self, what: &'static str, len: usize) -> Result<()> {
        if self.total() != len {
            return Err(Error::invalid(
                what,
                format!(
                    "{len} elements, but the layout's {} shards hold {}",
                    self.shards(),
                    self.total()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_splits_cover_everything_once() {
        for total in [0usize, 1, 2, 7, 31, 32, 33, 1000] {
            for shards in [1usize, 2, 3, 7, 16, 40] {
                let l = ShardLayout::even(total, shards).unwrap();
                assert_eq!((l.total(), l.shards()), (total, shards));
                let counts: Vec<usize> = l.counts().collect();
                let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
                assert!(hi - lo <= 1, "{total} over {shards}: {counts:?}");
                for i in 0..total {
                    let s = l.shard_of(i).unwrap();
                    assert!(l.range(s).contains(&i));
                }
                assert_eq!(l.shard_of(total), None);
            }
        }
    }

    #[test]
    fn bad_layouts_are_errors() {
        assert!(ShardLayout::even(5, 0).is_err());
        assert!(ShardLayout::from_counts(&[]).is_err());
        assert!(ShardLayout::from_counts(&[usize::MAX, 1]).is_err());
        let l = ShardLayout::from_counts(&[2, 3]).unwrap();
        assert!(l.check_total("x", 5).is_ok());
        let e = l.check_total("x", 4).unwrap_err().to_string();
        assert!(e.contains("x") && e.contains('5'), "{e}");
    }
}
