//! The scratch of a decoupled look-back launch (`kernels/include/gpu_prims/lookback.cuh`):
//! one layout for every kernel that looks back (the flat scan, look-back rows, segment tiles),
//! whichever crate launches it.

use crate::error::{Error, Result};

/// Scratch regions start on this alignment (bytes).
const ALIGN: usize = 256;

fn align_up(bytes: usize) -> usize {
    bytes.div_ceil(ALIGN) * ALIGN
}

/// Where a look-back launch's tile counter and per-tile status live in its scratch buffer.
///
/// Every look-back kernel (flat scans, look-back rows, segment tiles) reads the epoch-tagged
/// status ([`epoch`](Self::epoch)): values of 4, 8 and 16 bytes take two slots per tile
/// (aggregate, inclusive prefix) of one 64-bit word per 4-byte piece, each beside the run's
/// epoch; wider values a 32-bit flag per tile plus two value arrays.
/// Everything before `zero_bytes` must be zero before each launch (a launch over zeroed status
/// is run 1), or hold only older runs' words of the same layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusLayout {
    /// Byte offset of the 32-bit tile counter (always 0).
    pub counter: usize,
    /// Byte offset of the per-tile flags (values larger than 4 bytes only).
    pub flags: Option<usize>,
    /// Byte offset of the per-tile aggregates.
    pub aggregates: usize,
    /// Byte offset of the per-tile inclusive prefixes.
    pub inclusives: usize,
    /// Bytes from the start that must be zeroed before a launch (a multiple of 4).
    pub zero_bytes: usize,
    /// Total bytes.
    pub total_bytes: usize,
}

impl StatusLayout {
    /// The layout of the epoch-tagged status (`kernels/include/gpu_prims/lookback_epoch.cuh`)
    /// for `tiles` tiles of values of `value_size` bytes: values of 4, 8 and 16 bytes take
    /// [`epoch_status_words`] 64-bit words per slot (each a 4-byte piece beside the epoch: no
    /// flags), wider ones a flag per tile and two value arrays.
    ///
    /// ```
    /// use gpu_core::StatusLayout;
    /// let l = StatusLayout::epoch(1000, 8).unwrap();
    /// assert_eq!(l.flags, None);
    /// assert!(l.inclusives >= l.aggregates + 16 * 1000);
    /// assert!(StatusLayout::epoch(1000, 32).unwrap().flags.is_some());
    /// ```
    pub fn epoch(tiles: u64, value_size: usize) -> Result<Self> {
        match epoch_status_words(value_size) {
            0 => Self::flagged(tiles, value_size),
            words => {
                let tiles = usize::try_from(tiles)
                    .map_err(|_| Error::invalid("len", "too many tiles for this platform"))?;
                Self::packed(tiles, 8 * words)
            }
        }
    }

    /// Slots of `slot_bytes` bytes for the aggregates and the inclusive prefixes, no flags,
    /// everything zeroed.
    fn packed(tiles: usize, slot_bytes: usize) -> Result<Self> {
        let words = tiles
            .checked_mul(slot_bytes)
            .map(align_up)
            .ok_or_else(|| Error::invalid("len", "scratch size overflows"))?;
        Ok(StatusLayout {
            counter: 0,
            flags: None,
            aggregates: ALIGN,
            inclusives: ALIGN + words,
            zero_bytes: ALIGN + 2 * words,
            total_bytes: ALIGN + 2 * words,
        })
    }

    /// The flagged layout for `tiles` tiles of values of `value_size` bytes: one 64-bit word
    /// per slot for 4-byte values, else a 32-bit flag per tile and two value arrays (what
    /// [`epoch`](Self::epoch) gives values wider than 16 bytes; no kernel reads it for others).
    fn flagged(tiles: u64, value_size: usize) -> Result<Self> {
        let tiles = usize::try_from(tiles)
            .map_err(|_| Error::invalid("len", "too many tiles for this platform"))?;
        let bytes = |per: usize| {
            tiles
                .checked_mul(per)
                .map(align_up)
                .ok_or_else(|| Error::invalid("len", "scratch size overflows"))
        };
        Ok(if value_size == 4 {
            Self::packed(tiles, 8)?
        } else {
            let flags = bytes(4)?;
            let values = bytes(value_size)?;
            StatusLayout {
                counter: 0,
                flags: Some(ALIGN),
                aggregates: ALIGN + flags,
                inclusives: ALIGN + flags + values,
                zero_bytes: ALIGN + flags,
                total_bytes: ALIGN + flags + 2 * values,
            }
        })
    }
}

/// 64-bit words per slot of the epoch-tagged status for values of `value_size` bytes: one for
/// 4 bytes, one per 4-byte piece for 8 and 16, 0 (flags and fences) otherwise; the kernels'
/// `gp::epoch_status_words`.
pub fn epoch_status_words(value_size: usize) -> usize {
    match value_size {
        4 => 1,
        8 | 16 => value_size / 4,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_aligned_and_zero_what_the_kernel_polls() {
        let packed = StatusLayout::flagged(1000, 4).unwrap();
        assert_eq!(packed.flags, None);
        assert_eq!(packed.zero_bytes, packed.total_bytes);
        assert!(packed.inclusives >= packed.aggregates + 8 * 1000);
        let wide = StatusLayout::flagged(1000, 16).unwrap();
        assert_eq!(wide.flags, Some(ALIGN));
        assert_eq!(wide.zero_bytes, ALIGN + align_up(4 * 1000));
        assert!(wide.total_bytes >= wide.inclusives + 16 * 1000);
        for l in [packed, wide] {
            assert_eq!(l.aggregates % ALIGN, 0);
            assert_eq!(l.inclusives % ALIGN, 0);
        }
        assert!(StatusLayout::flagged(u64::MAX, 16).is_err());
        // The epoch-tagged status: 4-byte values as before, 8 and 16 bytes split into words.
        assert_eq!(StatusLayout::epoch(1000, 4).unwrap(), packed);
        for size in [8usize, 16] {
            let split = StatusLayout::epoch(1000, size).unwrap();
            assert_eq!(split.flags, None);
            assert_eq!(split.zero_bytes, split.total_bytes);
            assert_eq!(split.aggregates % ALIGN, 0);
            assert_eq!(split.inclusives % ALIGN, 0);
            assert!(split.inclusives >= split.aggregates + 2 * size * 1000);
            assert!(split.total_bytes >= split.inclusives + 2 * size * 1000);
        }
        assert_eq!(
            StatusLayout::epoch(1000, 32).unwrap(),
            StatusLayout::flagged(1000, 32).unwrap()
        );
        assert!(StatusLayout::epoch(u64::MAX, 8).is_err());
    }
}
