//! Segmented reductions of host values through the upload-only host pipeline. The
//! segment-tiles reduction reads the values as flat tiles whatever the segment lengths, its
//! tiles taken from a counter and joined by a look-back, so chunks of whole tiles of the whole
//! array's plan upload into a device ring and are reduced by one launch each, the counter and
//! status zeroed once: the tiles and every combination are those of the one-shot launch, and
//! the results equal its bits. Host values take segment tiles at every segment length (see
//! `Reduce::plan_segments`), so long segments stream too.

use gpu_core::{LaneAccess, Pod, Result, Segments, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS};

use super::engine::Desc;
use super::shaped::SegmentTilesRun;
use super::workspace::with_pooled;
use super::Reduce;

impl Reduce<'_> {
    /// `desc` over each of `segments` of the host `values` through the host pipeline:
    /// `Some(results)` or `None` with nothing done where it does not apply (a stream is set,
    /// below the pipelining size, or another pipeline holds the staging).
    pub(super) fn segments_host_pipelined<T: Pod, V: Pod>(
        &self,
        values: &[T],
        segments: &Segments,
        desc: &Desc,
    ) -> Result<Option<Vec<V>>> {
        let (n, size) = (values.len(), std::mem::size_of::<T>());
        if self.stream.is_some()
            || n == 0
            || !self.pipelining.applies(std::mem::size_of_val(values))
        {
            return Ok(None);
        }
        let plan = self.plan_segments(segments, desc, true)?;
        let LaneAccess::SegmentTiles { tile, .. } = plan.access else {
            return Ok(None);
        };
        let tile_len = tile as usize;
        let tiles_per_chunk = PIPELINE_CHUNK_BYTES / (tile_len * size);
        if tiles_per_chunk == 0 {
            return Ok(None);
        }
        let chunk = (tiles_per_chunk * tile_len).min(n.next_multiple_of(tile_len));
        let gpu = &self.gpu;
        let out = gpu.alloc::<V>(segments.count())?;
        let mut ring = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        let ran = with_pooled(gpu, |ws| {
            ws.forget_stream()?;
            let mut run: Option<SegmentTilesRun> = None;
            gpu.host_stream_in(values, &mut ring, chunk, |range, at, stream| {
                ws.begin(stream)?;
                let r = (|| {
                    if run.is_none() {
                        run = Some(self.segment_tiles_begin(
                            segments,
                            desc,
                            (plan, tile),
                            ws,
                            stream,
                        )?);
                    }
                    let run = run.as_ref().expect("begun above");
                    // The chunk's tiles read their values from a base standing for value 0.
                    let base = at.wrapping_sub((range.start * size) as u64);
                    let tiles = range.len().div_ceil(tile_len) as u64;
                    self.segment_tiles_launch(run, base, out.device_ptr(), tiles, stream)
                })();
                ws.end(stream)?;
                r
            })
        })?;
        if !ran {
            return Ok(None);
        }
        Ok(Some(out.to_vec()?))
    }
}
