//! Segmented scans of host values through the host pipeline. The segment-tiles scan reads the
//! values as the flat look-back scan reads an array, whatever the segment lengths, so the
//! pipeline chunks it as it chunks a flat scan: chunks of whole tiles of the whole array's
//! plan, one launch each on the work stream, the tile counter and status zeroed once, each
//! chunk's first tile looking back into the previous chunk's. The tiles and every combination
//! are those of the one-shot launch: the results are equal bit for bit.

use std::mem::MaybeUninit;

use gpu_core::{Pod, Result, Segments, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS};

use super::lanes::SegmentsRun;
use super::{LaneKind, Scanner};
use crate::TileStaging;

impl Scanner {
    /// Scans `values` within `segments` into `output` (as long) through the host pipeline:
    /// `Ok(true)` with every element written, `Ok(false)` with nothing done where it does not
    /// apply (no values, a tile larger than a chunk, or another pipeline of the `Gpu` holds
    /// its staging).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn segments_host_pipelined<T: Pod>(
        &mut self,
        kind: &LaneKind<'_>,
        values: &[T],
        segments: &Segments,
        exclusive: bool,
        staging: TileStaging,
        output: &mut [MaybeUninit<T>],
    ) -> Result<bool> {
        let (n, size) = (values.len(), std::mem::size_of::<T>());
        if n == 0 || output.len() != n {
            return Ok(false);
        }
        let tile = self.segment_tiles_shape(kind, staging)?.1 as usize;
        let tiles_per_chunk = PIPELINE_CHUNK_BYTES / (tile * size);
        if tiles_per_chunk == 0 {
            return Ok(false);
        }
        let chunk = (tiles_per_chunk * tile).min(n.next_multiple_of(tile));
        let gpu = self.gpu.clone();
        // Three chunks on the device: each chunk's tiles are scanned in place in its slot,
        // addressed from a base that stands for value 0.
        let mut ring = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        self.release_scratch()?;
        let mut run: Option<SegmentsRun> = None;
        gpu.host_pipeline_ring(values, output, &mut ring, chunk, |range, data, stream| {
            let tiles = range.len().div_ceil(tile) as u64;
            self.in_order(stream, |s| {
                if run.is_none() {
                    run =
                        Some(s.segments_begin(kind, segments, exclusive, staging, false, stream)?);
                }
                let run = run.as_ref().expect("begun above");
                s.segment_tiles(run, data, data, tiles, stream)
            })
        })
    }
}
