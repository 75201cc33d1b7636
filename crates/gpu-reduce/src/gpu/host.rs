//! Reductions of host data through the device's upload-only host pipeline
//! ([`Gpu::host_stream_in`](gpu_core::Gpu::host_stream_in)): the data upload chunk by chunk into
//! a small device ring (three 8 MiB slots, whatever the input's size), each chunk is reduced into
//! its own partial while the next ones upload, and the partials are folded on the device in
//! chunk order. Every guarantee of the device-array reduction holds (order for
//! non-commutative monoids, run-to-run identical floats: when another pipeline holds the
//! device's staging, the same chunks are reduced from one upload instead); float sums and
//! products are associated by chunks, so they can differ in the last bits from the one-launch
//! reduction of the same data in a device array. argmin and argmax keep each chunk's (value,
//! index) pair, whose index is local to the chunk: a small kernel moves each index to the whole
//! input before the pairs are folded on the device, so the index is the one-launch reduction's.

use std::ops::Range;

use gpu_core::{
    grid_for, kernel_args, DeviceArray, Element, LaunchConfig, Pod, Result, Stream,
    PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS,
};

use super::engine::{Desc, Engine, Settings};
use super::{arg_index, workspace, Reduce, Workspace};
use crate::kernels::REDUCE_PTX;
use crate::value::Extreme;
use crate::Algorithm;

impl Reduce<'_> {
    /// Whether [`Reduce::pipelining`] sends `bytes` of host data through the pipeline.
    pub(super) fn takes_pipeline(&self, bytes: usize) -> bool {
        self.stream.is_none() && self.pipelining.applies(bytes)
    }

    /// Runs `reduce(ws, address, range, stream)` over each chunk of `chunk` elements of `host`
    /// in order: through the upload-only host pipeline (everything has run when this returns),
    /// or, when another pipeline of the device holds it, over the whole input uploaded at once
    /// in the same chunks on the device's stream, returning that upload to keep alive until
    /// the stream has run. Each chunk sits 16-byte aligned alike either way, so the same
    /// launches run and the values are the same bit for bit.
    pub(super) fn reduce_chunks<T: Pod>(
        &self,
        ws: &mut Workspace,
        host: &[T],
        chunk: usize,
        mut reduce: impl FnMut(&mut Workspace, u64, Range<usize>, &Stream) -> Result<()>,
    ) -> Result<Option<DeviceArray<T>>> {
        let gpu = &self.gpu;
        // The pipeline's streams are new: forget the last one so the calls do not depend on
        // whether a new handle equals a destroyed one.
        ws.forget_stream()?;
        let mut ring = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        if gpu.host_stream_in(host, &mut ring, chunk, |range, at, stream| {
            reduce(&mut *ws, at, range, stream)
        })? {
            return Ok(None);
        }
        drop(ring);
        let whole = gpu.upload(host)?;
        let size = std::mem::size_of::<T>();
        for start in (0..host.len()).step_by(chunk.max(1)) {
            let range = start..(start + chunk).min(host.len());
            let at = whole.device_ptr() + (start * size) as u64;
            reduce(&mut *ws, at, range, gpu.stream())?;
        }
        Ok(Some(whole))
    }

    /// Elements per chunk of a pipelined reduction of `n` values of `desc`.
    fn chunk_len(desc: &Desc, n: usize) -> usize {
        (PIPELINE_CHUNK_BYTES / desc.input_size.max(1))
            .max(1)
            .min(n)
    }

    /// Each chunk of `chunk` elements of `host` reduced by `desc` into its own partial, slot
    /// `k` of `partials` (`value_size` bytes each), through [`reduce_chunks`](Self::reduce_chunks);
    /// returns the upload to keep alive until the device's stream has run.
    fn reduce_into_partials<T: Pod>(
        &self,
        ws: &mut Workspace,
        desc: &Desc,
        host: &[T],
        chunk: usize,
        partials: &DeviceArray<u8>,
    ) -> Result<Option<DeviceArray<T>>> {
        let (gpu, settings) = (&self.gpu, self.settings());
        self.reduce_chunks(ws, host, chunk, |ws, at, range, s| {
            let partial = partials.device_ptr() + (range.start / chunk * desc.value_size) as u64;
            Engine {
                gpu,
                desc,
                settings,
                ws,
                stream: s,
            }
            .enqueue(at, range.len() as u64, partial, false)
        })
    }

    /// The reduction `desc` of `host` (not empty) by chunks: through the host pipeline, or,
    /// when another pipeline of the device holds it, over the whole input uploaded at once in
    /// the same chunks, so that the value is the same bit for bit either way (contention never
    /// changes a float sum). Returns the result's bytes.
    pub(super) fn run_pipelined<T: Pod>(&self, desc: &Desc, host: &[T]) -> Result<Vec<u8>> {
        self.fold_pipelined(desc, host, self.settings(), |_, _, _, _| Ok(()))
    }

    /// [`run_pipelined`](Self::run_pipelined)'s work: the chunks reduced into their partials
    /// (in chunk order) with the caller's settings, `before_fold(partials, chunks, chunk,
    /// stream)` enqueued, then the partials folded on the device with `fold_settings`.
    fn fold_pipelined<T: Pod>(
        &self,
        desc: &Desc,
        host: &[T],
        fold_settings: Settings,
        before_fold: impl FnOnce(&DeviceArray<u8>, usize, usize, &Stream) -> Result<()>,
    ) -> Result<Vec<u8>> {
        let gpu = &self.gpu;
        self.settings().validate(desc.operation)?;
        fold_settings.validate(desc.operation)?;
        let chunk = Self::chunk_len(desc, host.len());
        let chunks = host.len().div_ceil(chunk);
        let partials = gpu.alloc::<u8>(chunks * desc.value_size)?;
        workspace::with_pooled(gpu, |ws| {
            let _staged = self.reduce_into_partials(ws, desc, host, chunk, &partials)?;
            let stream = gpu.stream();
            before_fold(&partials, chunks, chunk, stream)?;
            let fold = desc.fold();
            let out = ws.result_ptr();
            ws.poison_bytes(out, desc.value_size, stream)?;
            Engine {
                gpu,
                desc: &fold,
                settings: fold_settings,
                ws: &mut *ws,
                stream,
            }
            .enqueue(partials.device_ptr(), chunks as u64, out, false)?;
            stream.synchronize()?;
            let mut bytes = ws.read_result()?;
            bytes.truncate(desc.value_size);
            Ok(bytes)
        })
    }

    /// argmin / argmax (`desc`, `which`) of `host` (not empty) by chunks: each chunk's (value,
    /// index) pair as [`run_pipelined`](Self::run_pipelined) makes its partials, each index
    /// made global on the device (`reduce_rebase_arg_pairs`), then the pairs folded on the
    /// device by the pairs' own second pass (the tree kernels, the only family that has one).
    /// The kernels' order is total, so any grouping gives its first extreme: the index is the
    /// one-launch reduction's.
    pub(super) fn arg_pipelined<T: Element>(
        &self,
        desc: &Desc,
        which: Extreme,
        host: &[T],
    ) -> Result<usize> {
        let fold_settings = Settings {
            algorithm: Algorithm::LastBlock,
            block: None,
            ..self.settings()
        };
        let rebase = |partials: &DeviceArray<u8>, chunks: usize, chunk: usize, s: &Stream| {
            let kernel = self.gpu.kernel(&REDUCE_PTX, "reduce_rebase_arg_pairs")?;
            let config = LaunchConfig::new(grid_for(chunks as u64, 256, 1024), 256);
            let (pairs, count, chunk) = (partials.device_ptr(), chunks as u64, chunk as u64);
            // SAFETY: reduce_rebase_arg_pairs(u64* pairs, u64 count, u64 chunk) matches (u64,
            // u64, u64); `partials` holds `chunks` pairs of 16 bytes (desc.value_size) and
            // outlives the stream's work (fold_pipelined waits before returning).
            unsafe { kernel.launch(config, s, &kernel_args![pairs, count, chunk]) }
        };
        debug_assert_eq!(desc.value_size, 16, "ArgVal pairs are 16 bytes");
        let bytes = self.fold_pipelined(desc, host, fold_settings, rebase)?;
        arg_index(which, &bytes, host.len())
    }
}
