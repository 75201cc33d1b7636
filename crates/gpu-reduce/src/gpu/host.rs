//! Reductions of host data through the device's upload-only host pipeline
//! ([`Gpu::host_stream_in`](gpu_core::Gpu::host_stream_in)): the data upload chunk by chunk into
//! a small device ring (three 8 MiB slots, whatever the input's size), each chunk is reduced into
//! its own partial while the next ones upload, and the partials are folded on the device in
//! chunk order. Every guarantee of the device-array reduction holds (order for
//! non-commutative monoids, run-to-run identical floats: when another pipeline holds the
//! device's staging, the same chunks are reduced from one upload instead); float sums and
//! products are associated by chunks, so they can differ in the last bits from the one-launch
//! reduction of the same data in a device array. argmin and argmax take the one-shot path (their partial indices are local to
//! a chunk).

use gpu_core::{Pod, Result, Stream, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS};

use super::engine::{Desc, Engine};
use super::{workspace, Reduce, Workspace};
use crate::algorithm::Operation;

impl Reduce<'_> {
    /// Whether [`Reduce::pipelining`] sends `bytes` of host data through the pipeline.
    pub(super) fn takes_pipeline(&self, desc: &Desc, bytes: usize) -> bool {
        self.stream.is_none()
            && self.pipelining.applies(bytes)
            && !matches!(desc.operation, Operation::ArgMin | Operation::ArgMax)
    }

    /// The reduction `desc` of `host` (not empty) by chunks: through the host pipeline, or,
    /// when another pipeline of the device holds it, over the whole input uploaded at once in
    /// the same chunks, so that the value is the same bit for bit either way (contention never
    /// changes a float sum). Returns the result's bytes.
    pub(super) fn run_pipelined<T: Pod>(&self, desc: &Desc, host: &[T]) -> Result<Vec<u8>> {
        let gpu = &self.gpu;
        let settings = self.settings();
        settings.validate(desc.operation)?;
        let chunk = (PIPELINE_CHUNK_BYTES / desc.input_size.max(1))
            .max(1)
            .min(host.len());
        let chunks = host.len().div_ceil(chunk);
        let partials = gpu.alloc::<u8>(chunks * desc.value_size)?;
        let partial = |k: usize| partials.device_ptr() + (k * desc.value_size) as u64;
        let chunk_reduction = |ws: &mut Workspace, at: u64, len: usize, k: usize, s: &Stream| {
            Engine {
                gpu,
                desc,
                settings,
                ws,
                stream: s,
            }
            .enqueue(at, len as u64, partial(k), false)
        };
        workspace::with_pooled(gpu, |ws| {
            ws.forget_stream()?;
            let mut ring = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
            let ran = gpu.host_stream_in(host, &mut ring, chunk, |r, at, stream| {
                chunk_reduction(&mut *ws, at, r.len(), r.start / chunk, stream)
            })?;
            drop(ring);
            let stream = gpu.stream();
            let _staged; // kept alive until the stream has run (synchronised below)
            if !ran {
                let whole = gpu.upload(host)?;
                let size = std::mem::size_of::<T>();
                for k in 0..chunks {
                    let start = k * chunk;
                    let len = chunk.min(host.len() - start);
                    let at = whole.device_ptr() + (start * size) as u64;
                    chunk_reduction(&mut *ws, at, len, k, stream)?;
                }
                _staged = whole;
            }
            // The partials, in chunk order, folded by the same algorithm over the partials'
            // kind (wide sums for widening sums, f32 for 16-bit sums, the monoid itself).
            let fold = Desc {
                operation: desc.operation,
                kind: desc.partials_kind.clone(),
                partials_kind: desc.partials_kind.clone(),
                input_size: desc.value_size,
                value_size: desc.value_size,
            };
            let out = ws.result_ptr();
            ws.poison_bytes(out, desc.value_size, stream)?;
            Engine {
                gpu,
                desc: &fold,
                settings,
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
}
