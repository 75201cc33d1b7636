//! Which epoch a flat look-back run tags its status words with, and when the scratch must be
//! zeroed first (`kernels/include/gpu_prims/lookback_epoch.cuh`).
//!
//! The flat look-back kernels count a status slot as published only when it carries their run's
//! epoch, and take tile indices from the counter minus the run's `base`. So consecutive runs
//! reuse one status array without the zeroing launch each would otherwise need (3.5-4 µs on an
//! H200, a quarter of a 2^20 scan), as long as every word holds zero or an older run's tags in
//! the same layout. The layout is sized for a power-of-two capacity of tiles, so scans of
//! similar lengths share it; anything else (a new or reallocated scratch, another use of it, a
//! failed launch) zeroes it again.

use gpu_core::{Result, StatusLayout};

/// The last epoch before the status is zeroed again: the wide status keeps the epoch above two
/// status bits of a 32-bit flag word.
pub(super) const MAX_EPOCH: u32 = (1 << 30) - 1;

/// Fewest tiles a status layout holds.
const MIN_CAPACITY: u64 = 64;

/// What one run launches with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RunEpoch {
    /// Tags the run's status words (1 ..= MAX_EPOCH).
    pub epoch: u32,
    /// The tile counter's value when the run starts.
    pub base: u32,
    /// The layout of the run's status in the scratch.
    pub layout: StatusLayout,
    /// Whether the counter and status words must be zeroed before the run.
    pub zero: bool,
}

/// The scratch's status words as the last runs left them.
#[derive(Debug, Default)]
pub(super) struct StatusEpochs {
    /// Capacity (tiles), value size and last epoch of the layout the words were written in;
    /// `None`: not known to be reusable.
    last: Option<(u64, usize, u32)>,
    /// The counter's value once every launch enqueued so far has run (wrapping).
    counter: u32,
}

impl StatusEpochs {
    /// The next run of `tiles` tiles with status values of `value_size` bytes: the last layout
    /// and the next epoch where they serve, else a fresh layout to be zeroed (epoch 1, base 0).
    pub(super) fn begin(&mut self, tiles: u64, value_size: usize) -> Result<RunEpoch> {
        if let Some((capacity, size, epoch)) = self.last {
            if size == value_size && tiles <= capacity && epoch < MAX_EPOCH {
                self.last = Some((capacity, size, epoch + 1));
                return Ok(RunEpoch {
                    epoch: epoch + 1,
                    base: self.counter,
                    layout: StatusLayout::epoch(capacity, value_size)?,
                    zero: false,
                });
            }
        }
        let capacity = tiles.max(1).next_power_of_two().max(MIN_CAPACITY);
        let layout = StatusLayout::epoch(capacity, value_size)?;
        self.last = Some((capacity, value_size, 1));
        self.counter = 0;
        Ok(RunEpoch {
            epoch: 1,
            base: 0,
            layout,
            zero: true,
        })
    }

    /// `tiles` more blocks were launched, each taking one tile from the counter.
    /// The counter's value now: the `base` of the next launch of the current run.
    pub(super) fn counter(&self) -> u32 {
        self.counter
    }

    pub(super) fn launched(&mut self, tiles: u64) {
        // A launch has fewer than 2^32 blocks; the counter wraps as the kernels' does.
        self.counter = self.counter.wrapping_add(tiles as u32);
    }

    /// The words are no longer known to hold only tags of this layout: the next run zeroes.
    pub(super) fn forget(&mut self) {
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_reuse_the_layout_until_it_no_longer_fits() {
        let mut e = StatusEpochs::default();
        let first = e.begin(100, 4).unwrap();
        assert_eq!((first.epoch, first.base, first.zero), (1, 0, true));
        assert_eq!(first.layout, StatusLayout::epoch(128, 4).unwrap());
        e.launched(100);
        // Shorter and equal runs reuse the layout with the next epoch, after the counter.
        let second = e.begin(7, 4).unwrap();
        assert_eq!((second.epoch, second.base, second.zero), (2, 100, false));
        assert_eq!(second.layout, first.layout);
        e.launched(7);
        let third = e.begin(128, 4).unwrap();
        assert_eq!((third.epoch, third.base, third.zero), (3, 107, false));
        e.launched(128);
        // A longer run, or another value size, zeroes a new layout.
        let longer = e.begin(129, 4).unwrap();
        assert_eq!((longer.epoch, longer.base, longer.zero), (1, 0, true));
        assert_eq!(longer.layout, StatusLayout::epoch(256, 4).unwrap());
        e.launched(129);
        let wide = e.begin(3, 8).unwrap();
        assert_eq!((wide.epoch, wide.zero), (1, true));
        assert_eq!(wide.layout, StatusLayout::epoch(64, 8).unwrap());
        // Forgotten words are zeroed again.
        e.launched(3);
        e.forget();
        assert!(e.begin(3, 8).unwrap().zero);
    }

    #[test]
    fn epochs_stop_below_the_flag_limit_and_the_counter_wraps() {
        let mut e = StatusEpochs::default();
        e.begin(10, 16).unwrap();
        e.last = Some((64, 16, MAX_EPOCH - 1));
        e.counter = u32::MAX - 2;
        let last = e.begin(10, 16).unwrap();
        assert_eq!(
            (last.epoch, last.base, last.zero),
            (MAX_EPOCH, u32::MAX - 2, false)
        );
        e.launched(10);
        assert_eq!(e.counter, 7);
        let again = e.begin(10, 16).unwrap();
        assert_eq!((again.epoch, again.base, again.zero), (1, 0, true));
    }
}
