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
