//! Segments of a flat array, CSR style, checked once and kept on the device: what segmented
//! reductions and scans take.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::lanes::{segment_tile_bounds, SegmentLanes, SegmentTiles};
use crate::memory::DeviceArray;
use crate::shape::check_offsets;

/// Tile bounds uploaded so far: (tile size, bounds on the device).
type TileBoundsCache = Vec<(u64, Arc<DeviceArray<u64>>)>;
/// Segments longer than a bound found so far: (bound, (how many, their values)).
type LongCountCache = Vec<(u64, (u64, u64))>;
/// Short-segment layouts uploaded so far: ((longest short segment, segments per block), layout).
type ShortLayoutCache = Vec<((u64, u32), Arc<ShortSegmentLayout>)>;

/// How a thread-per-segment reduction takes these segments ([`Segments::short_layout`]): blocks
/// of consecutive segments none longer than a bound, and the longer ones apart.
#[derive(Debug)]
pub struct ShortSegmentLayout {
    /// Blocks of the short-segments kernel.
    pub blocks: u64,
    /// `[first, end)` segment indices of each block (2 per block) on the device; `None` when no
    /// segment is long: block `b` then takes segments `b · per_block ..`.
    pub ranges: Option<DeviceArray<u64>>,
    /// The long segments, if any.
    pub long: Option<LongSegments>,
}

/// The segments a short-segments run leaves to the lane kernels.
#[derive(Debug)]
pub struct LongSegments {
    /// `[start, end)` value positions of each (2 per segment), on the device.
    pub pairs: DeviceArray<u64>,
    /// Their segment indices, on the device (where their results go).
    pub list: DeviceArray<u64>,
    /// How many.
    pub count: u64,
    /// Their mean length, rounded down.
    pub mean_len: u64,
}

/// The short-segment layout of `offsets` on the host: (`[first, end)` per block, long segments'
/// `[start, end)` pairs, their indices). Blocks hold at most `per_block` consecutive segments of
/// at most `max_len` values; a longer segment ends the block before it.
pub fn short_segment_layout(
    offsets: &[u64],
    max_len: u64,
    per_block: u64,
) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let (mut ranges, mut pairs, mut list) = (Vec::new(), Vec::new(), Vec::new());
    let mut first: Option<u64> = None;
    for (j, w) in offsets.windows(2).enumerate() {
        let j = j as u64;
        if w[1] - w[0] > max_len {
            if let Some(a) = first.take() {
                ranges.extend([a, j]);
            }
            pairs.extend([w[0], w[1]]);
            list.push(j);
        } else {
            match first {
                None => first = Some(j),
                Some(a) if j - a == per_block => {
                    ranges.extend([a, j]);
                    first = Some(j);
                }
                Some(_) => {}
            }
        }
    }
    if let Some(a) = first {
        ranges.extend([a, offsets.len() as u64 - 1]);
    }
    (ranges, pairs, list)
}

/// Checked segment offsets on the device: `offsets[i]..offsets[i + 1]` is segment `i` of an
/// array of [`values_len`](Segments::values_len) values (first offset 0, non-decreasing, last
/// equal to the length; empty segments allowed). Build once, use for many operations.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{Gpu, Segments};
/// let gpu = Gpu::default_device()?;
/// let s = Segments::new(&gpu, &[0, 2, 2, 5], 5)?;
/// assert_eq!((s.count(), s.values_len()), (3, 5));
/// assert!(Segments::new(&gpu, &[0, 3, 2, 5], 5).is_err()); // decreasing: refused
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Segments {
    device: Arc<DeviceArray<u64>>,
    host: Arc<[u64]>,
    /// Tile bounds already uploaded, by tile size (few: one per kernel family and value size).
    tile_bounds: Arc<Mutex<TileBoundsCache>>,
    /// The longest segment's length, found on first use.
    max_len: Arc<OnceLock<u64>>,
    /// Short-segment layouts already uploaded (few: one per value size class).
    short_layouts: Arc<Mutex<ShortLayoutCache>>,
    /// (bound, (count, values)) of the segments longer than the bound, found on first use.
    long_counts: Arc<Mutex<LongCountCache>>,
}

impl std::fmt::Debug for Segments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segments")
            .field("count", &self.count())
            .field("values_len", &self.values_len())
            .finish()
    }
}

impl Segments {
    /// Checks `offsets` against `values_len` ([`check_offsets`]) and uploads them to `gpu`.
    pub fn new(gpu: &Gpu, offsets: &[u64], values_len: usize) -> Result<Self> {
        check_offsets(offsets, values_len)?;
        Ok(Segments {
            device: Arc::new(gpu.upload(offsets)?),
            host: offsets.into(),
            tile_bounds: Arc::default(),
            max_len: Arc::default(),
            short_layouts: Arc::default(),
            long_counts: Arc::default(),
        })
    }

    /// Number of segments.
    pub fn count(&self) -> usize {
        self.host.len() - 1
    }

    /// Number of values the segments cover.
    pub fn values_len(&self) -> usize {
        *self.host.last().expect("checked: at least one offset") as usize
    }

    /// Mean segment length, rounded down (0 without segments).
    pub fn mean_len(&self) -> u64 {
        (self.values_len() as u64)
            .checked_div(self.count() as u64)
            .unwrap_or(0)
    }

    /// Length of the longest segment (0 without segments); computed on the host on first use
    /// (one pass over the offsets) and kept.
    pub fn max_len(&self) -> u64 {
        *self
            .max_len
            .get_or_init(|| self.host.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0))
    }

    /// How many segments are longer than `max_len` values, and their values in all: one pass
    /// over the offsets on the host on first use per bound, then cached (shared by clones). What
    /// a plan weighs before it asks for [`short_layout`](Self::short_layout), which uploads.
    pub fn longer_than(&self, max_len: u64) -> (u64, u64) {
        if self.max_len() <= max_len {
            return (0, 0);
        }
        let mut cache = self.long_counts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, c)) = cache.iter().find(|(b, _)| *b == max_len) {
            return *c;
        }
        let c = self
            .host
            .windows(2)
            .map(|w| w[1] - w[0])
            .filter(|&l| l > max_len)
            .fold((0, 0), |(n, v), l| (n + 1, v + l));
        cache.push((max_len, c));
        c
    }

    /// The offsets on the host.
    pub fn offsets(&self) -> &[u64] {
        &self.host
    }

    /// Length of segment `i`.
    pub fn len_of(&self, i: usize) -> u64 {
        self.host[i + 1] - self.host[i]
    }

    /// The offsets on the device.
    pub fn device_offsets(&self) -> &DeviceArray<u64> {
        &self.device
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        self.device.gpu()
    }

    /// The segments as the segment-tiles kernels' argument for tiles of `tile` values, with the
    /// device buffer it points into (keep it alive until the launch is done). The bounds are
    /// computed on the host and uploaded once per tile size, then shared by every clone.
    pub fn tiles(&self, tile: u64) -> Result<(SegmentTiles, Arc<DeviceArray<u64>>)> {
        let bounds = {
            let mut cache = self.tile_bounds.lock().unwrap_or_else(|p| p.into_inner());
            match cache.iter().find(|(t, _)| *t == tile) {
                Some((_, b)) => Arc::clone(b),
                None => {
                    let host = segment_tile_bounds(&self.host, tile);
                    let b = Arc::new(self.gpu().upload(&host)?);
                    cache.push((tile, Arc::clone(&b)));
                    b
                }
            }
        };
        let arg = SegmentTiles {
            offsets: self.device.device_ptr(),
            bounds: bounds.device_ptr(),
            count: self.count() as u64,
            len: self.values_len() as u64,
        };
        Ok((arg, bounds))
    }

    /// The segments as a thread-per-segment reduction takes them: blocks of at most
    /// `per_block` consecutive segments none longer than `max_len` values, and the longer ones
    /// apart (for the lane kernels). Computed on the host (one pass over the offsets) and
    /// uploaded once per (`max_len`, `per_block`), then shared by every clone.
    pub fn short_layout(&self, max_len: u64, per_block: u32) -> Result<Arc<ShortSegmentLayout>> {
        let mut cache = self.short_layouts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, l)) = cache.iter().find(|(k, _)| *k == (max_len, per_block)) {
            return Ok(Arc::clone(l));
        }
        let layout = if self.max_len() <= max_len {
            ShortSegmentLayout {
                blocks: (self.count() as u64).div_ceil(per_block.max(1) as u64),
                ranges: None,
                long: None,
            }
        } else {
            let (ranges, pairs, list) =
                short_segment_layout(&self.host, max_len, per_block.max(1) as u64);
            let count = list.len() as u64;
            let long_values: u64 = pairs.chunks(2).map(|p| p[1] - p[0]).sum();
            ShortSegmentLayout {
                blocks: ranges.len() as u64 / 2,
                ranges: Some(self.gpu().upload(&ranges)?),
                long: Some(LongSegments {
                    pairs: self.gpu().upload(&pairs)?,
                    list: self.gpu().upload(&list)?,
                    count,
                    mean_len: long_values / count.max(1),
                }),
            }
        };
        let layout = Arc::new(layout);
        cache.push(((max_len, per_block), Arc::clone(&layout)));
        Ok(layout)
    }

    /// The segments as the lane kernels' argument.
    pub fn lanes(&self) -> SegmentLanes {
        SegmentLanes {
            offsets: self.device.device_ptr(),
            count: self.count() as u64,
        }
    }
}

/// What segmented entry points accept as segments: a checked [`Segments`] (used as it is) or
/// offsets on the host (`&[u64]`, `Vec<u64>`, `[u64; N]`: checked and uploaded per call).
pub trait SegmentOffsets {
    /// The segments on `gpu` over `values_len` values; an `InvalidArgument` naming `offsets`
    /// when they do not describe segments of that many values.
    fn segments(&self, gpu: &Gpu, values_len: usize) -> Result<Cow<'_, Segments>>;
}

impl SegmentOffsets for Segments {
    fn segments(&self, gpu: &Gpu, values_len: usize) -> Result<Cow<'_, Segments>> {
        gpu.check_same_device(self.gpu(), "offsets")?;
        if self.values_len() != values_len {
            return Err(Error::invalid(
                "offsets",
                format!(
                    "segments cover {} values, but there are {values_len}",
                    self.values_len()
                ),
            ));
        }
        Ok(Cow::Borrowed(self))
    }
}

impl SegmentOffsets for [u64] {
    fn segments(&self, gpu: &Gpu, values_len: usize) -> Result<Cow<'_, Segments>> {
        Ok(Cow::Owned(Segments::new(gpu, self, values_len)?))
    }
}

impl SegmentOffsets for Vec<u64> {
    fn segments(&self, gpu: &Gpu, values_len: usize) -> Result<Cow<'_, Segments>> {
        self.as_slice().segments(gpu, values_len)
    }
}

impl<const N: usize> SegmentOffsets for [u64; N] {
    fn segments(&self, gpu: &Gpu, values_len: usize) -> Result<Cow<'_, Segments>> {
        self.as_slice().segments(gpu, values_len)
    }
}

#[cfg(test)]
mod tests {
    use super::short_segment_layout;

    #[test]
    fn short_layout_cuts_blocks_at_long_segments() {
        // Lengths 1, 5, 2, 9, 0, 1, 1, 7 with blocks of 2 and segments of at most 4 values:
        // 5, 9 and 7 are long.
        let offsets = [0u64, 1, 6, 8, 17, 17, 18, 19, 26];
        let (ranges, pairs, list) = short_segment_layout(&offsets, 4, 2);
        assert_eq!(ranges, [0, 1, 2, 3, 4, 6, 6, 7]);
        assert_eq!(pairs, [1, 6, 8, 17, 19, 26]);
        assert_eq!(list, [1, 3, 7]);
        // No long segment: full blocks and a partial last one.
        let (ranges, pairs, list) = short_segment_layout(&offsets, 100, 3);
        assert_eq!(ranges, [0, 3, 3, 6, 6, 8]);
        assert!(pairs.is_empty() && list.is_empty());
        // Every segment long, or none at all.
        let (ranges, _, list) = short_segment_layout(&offsets, 0, 2);
        assert_eq!((ranges, list.len()), (vec![4, 5], 7));
        assert_eq!(short_segment_layout(&[0], 4, 2), (vec![], vec![], vec![]));
    }
}
