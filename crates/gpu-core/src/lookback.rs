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
/// 4-byte values use two 64-bit words per tile (aggregate, inclusive prefix), each holding a
/// "published" flag and the value; larger values use a 32-bit flag per tile plus two value
/// arrays. Everything before `zero_bytes` must be zero before each launch.
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
    /// The layout for `tiles` tiles of values of `value_size` bytes.
    pub fn new(tiles: u64, value_size: usize) -> Result<Self> {
        let tiles = usize::try_from(tiles)
            .map_err(|_| Error::invalid("len", "too many tiles for this platform"))?;
        let bytes = |per: usize| {
            tiles
                .checked_mul(per)
                .map(align_up)
                .ok_or_else(|| Error::invalid("len", "scratch size overflows"))
        };
        Ok(if value_size == 4 {
            let words = bytes(8)?;
            StatusLayout {
                counter: 0,
                flags: None,
                aggregates: ALIGN,
                inclusives: ALIGN + words,
                zero_bytes: ALIGN + 2 * words,
                total_bytes: ALIGN + 2 * words,
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_aligned_and_zero_what_the_kernel_polls() {
        let packed = StatusLayout::new(1000, 4).unwrap();
        assert_eq!(packed.flags, None);
        assert_eq!(packed.zero_bytes, packed.total_bytes);
        assert!(packed.inclusives >= packed.aggregates + 8 * 1000);
        let wide = StatusLayout::new(1000, 16).unwrap();
        assert_eq!(wide.flags, Some(ALIGN));
        assert_eq!(wide.zero_bytes, ALIGN + align_up(4 * 1000));
        assert!(wide.total_bytes >= wide.inclusives + 16 * 1000);
        for l in [packed, wide] {
            assert_eq!(l.aggregates % ALIGN, 0);
            assert_eq!(l.inclusives % ALIGN, 0);
        }
        assert!(StatusLayout::new(u64::MAX, 16).is_err());
    }
}
