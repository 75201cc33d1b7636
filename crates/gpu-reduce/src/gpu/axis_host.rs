//! Axis reductions of host arrays through the host pipeline. An array in any order of its axes is
//! a sequence of slices along its outer memory axis; a reduction along any other axis keeps
//! every lane inside one slice. Chunks of whole slices upload into a device ring, each is
//! reduced into its block of results (launched with the whole array's plan, so every lane gets
//! the one-shot arithmetic), and the results download while the next chunks upload: no
//! whole-array allocation on the device, whatever the array's size. Along the outer axis each
//! chunk of slices is reduced into a row of partials, and the partials are reduced along the
//! chunks at the end, in chunk order, as the flat reduction folds its chunks' partials;
//! argmin and argmax merge each chunk's indices into the lanes' best pairs as it goes.

use std::mem::MaybeUninit;
use std::ops::Range;

use gpu_core::{
    aligned_count, axis_lanes, grid_for, kernel_args, Element, HostNd, LaneBatches, LaunchConfig,
    Pod, Result, Stream, PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS,
};
use ndarray::ArrayD;

use super::engine::Desc;
use super::shaped::{AxisChoice, Out};
use super::workspace::{with_pooled, Workspace};
use super::{arg_index, Reduce};
use crate::algorithm::Operation;
use crate::kernels::REDUCE_PTX;
use crate::value::Extreme;

/// A host array seen in C order: shape, strides and the axis followed
/// ([`HostNd::c_order_view`]).
type View = (Vec<usize>, Vec<isize>, usize);

/// How a host array's chunks are reduced: the lanes of `count` slices and the choice for them.
struct ChunkPlan {
    /// The array in C order (reversed for Fortran order), the axis followed.
    shape: Vec<usize>,
    strides: Vec<isize>,
    axis: usize,
    /// Slices per chunk (the last chunk may hold fewer).
    per_chunk: usize,
    /// Elements of one slice, and results of one slice.
    slice: usize,
    results: usize,
    /// The whole array's choice, in the C-order view.
    whole: AxisChoice,
}

impl ChunkPlan {
    /// The lanes of `count` slices.
    fn lanes(&self, count: usize) -> Result<LaneBatches> {
        let mut shape = self.shape.clone();
        shape[0] = count;
        axis_lanes(&shape, &self.strides, self.axis)
    }
}

impl Reduce<'_> {
    /// `desc` along `axis` of `host` through the host pipeline: `Some(array)` (in the input's
    /// order) or `None` with nothing done where it does not apply: a stream is set, the input is
    /// below the pipelining size, one slice (or sixteen bytes' worth) exceeds a pipeline chunk,
    /// a chunk's lanes would not take the whole array's arithmetic, or another pipeline holds
    /// the staging. Along the outer memory axis (lanes crossing the slices):
    /// [`outer_axis_pipelined`](Self::outer_axis_pipelined).
    pub(super) fn axis_host_pipelined<T: Pod, V: Pod>(
        &self,
        host: &HostNd<'_, T>,
        axis: usize,
        desc: &Desc,
    ) -> Result<Option<ArrayD<V>>> {
        let total = host.data.len();
        let size = std::mem::size_of::<T>();
        if self.stream.is_some()
            || total == 0
            || !self.pipelining.applies(std::mem::size_of_val(&*host.data))
        {
            return Ok(None);
        }
        gpu_core::check_axis(axis, host.shape.len())?;
        self.settings().validate(desc.operation)?;
        let view = host.c_order_view(axis);
        if view.2 == 0 {
            return self.outer_axis_pipelined::<T, V>(host, axis, view, desc);
        }
        let Some(plan) = self.chunk_plan(host, axis, view, desc)? else {
            return Ok(None);
        };
        let slices = plan.shape[0];
        let chunk = plan.per_chunk * plan.slice;
        let out_len = slices * plan.results;
        // Every chunk length in every ring slot (their alignments differ) must take the
        // whole array's choice.
        let gpu = self.gpu.clone();
        let mut ring_in = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        let mut ring_out = gpu.alloc::<V>(PIPELINE_RING_SLOTS * plan.per_chunk * plan.results)?;
        let last = slices % plan.per_chunk;
        let mut choices = Vec::new();
        for count in std::iter::once(plan.per_chunk).chain((last > 0).then_some(last)) {
            let lanes = plan.lanes(count)?;
            for s in 0..PIPELINE_RING_SLOTS {
                let at = ring_in.device_ptr() + (s * chunk * size) as u64;
                match plan.whole.for_lanes(&lanes, at, size) {
                    Some(choice) => choices.push(((count, s), lanes.clone(), choice)),
                    None => return Ok(None),
                }
            }
        }
        let mut out = gpu_core::host_output_vec::<V>(out_len);
        let spare: &mut [MaybeUninit<V>] = &mut out.spare_capacity_mut()[..out_len];
        let value_size = std::mem::size_of::<V>();
        let ran = with_pooled(&gpu, |ws| {
            ws.forget_stream()?;
            gpu.host_pipeline_rings(
                &host.data,
                &mut ring_in,
                0,
                spare,
                &mut ring_out,
                chunk,
                |step, stream| {
                    let count = step.range.len() / plan.slice;
                    let slot = (step.range.start / chunk) % PIPELINE_RING_SLOTS;
                    let (_, lanes, choice) = choices
                        .iter()
                        .find(|(key, _, _)| *key == (count, slot))
                        .expect("every chunk length and slot was planned");
                    let input = step.input.wrapping_add((step.range.start * size) as u64);
                    let o = Out {
                        ptr: step
                            .output
                            .wrapping_add((step.produced * value_size) as u64),
                        size: value_size,
                    };
                    self.enqueue_choice(choice, input, lanes, desc, &o, ws, stream)?;
                    Ok(step.produced..step.produced + count * plan.results)
                },
            )
        })?;
        if !ran {
            return Ok(None);
        }
        // SAFETY: the pipeline wrote all `out_len` results when it returned true; `V: Pod`
        // accepts the bytes it copied.
        unsafe { out.set_len(out_len) };
        result_array(host, axis, out).map(Some)
    }

    /// `desc` along the outer memory axis of `host` (axis 0 of its C-order view): chunks of
    /// whole slices each reduced into a row of partials (one per result) while the next
    /// upload, then the rows of partials reduced along the chunks, in chunk order, by the same
    /// algorithm over the partials' kind. Exact operators give the one-shot values; float sums
    /// and products are associated by chunks (deterministic: when another pipeline holds the
    /// staging, the same chunks are reduced from one upload). At most
    /// [`OUTER_PARTIALS_MAX_BYTES`] of rows are kept: when they are full, they are reduced
    /// into the first row (the same order, so exact operators keep the one-shot values, and
    /// floats a grouping fixed by the shape). `None` for argmin and argmax (a chunk's index is
    /// local to it: [`outer_axis_arg_pipelined`](Self::outer_axis_arg_pipelined)), fewer than
    /// two slices, a slice (or sixteen bytes' worth) over a chunk, or
    /// a row of partials over half the bound.
    fn outer_axis_pipelined<T: Pod, V: Pod>(
        &self,
        host: &HostNd<'_, T>,
        axis: usize,
        (shape, strides, _): View,
        desc: &Desc,
    ) -> Result<Option<ArrayD<V>>> {
        let (total, size, value_size) = (
            host.data.len(),
            std::mem::size_of::<T>(),
            std::mem::size_of::<V>(),
        );
        let slices = shape[0];
        if matches!(desc.operation, Operation::ArgMin | Operation::ArgMax)
            || desc.value_size != value_size
            || slices < 2
        {
            return Ok(None);
        }
        let Some((slice, per_chunk)) = outer_chunking(total, slices, size) else {
            return Ok(None);
        };
        let chunks = slices.div_ceil(per_chunk);
        let rows = (OUTER_PARTIALS_MAX_BYTES / (slice * value_size)).min(chunks);
        if rows < 2 {
            return Ok(None);
        }
        let chunk = per_chunk * slice;
        let gpu = &self.gpu;
        let partials = gpu.alloc::<V>(rows * slice)?;
        let out = gpu.alloc::<V>(slice)?;
        // Rows `0..count` of partials reduced along them into `to` (`slice` values), in order.
        let fold = |count: usize, to: u64, ws: &mut Workspace, s: &Stream| {
            let lanes = axis_lanes(&[count, slice], &[slice as isize, 1], 0)?;
            let o = Out {
                ptr: to,
                size: value_size,
            };
            self.enqueue_axis(partials.device_ptr(), &lanes, &desc.fold(), &o, ws, s)
                .map(drop)
        };
        // Chunk k's slices (`range` of the input, at `at`) reduced along them into the next
        // row; full rows first folded into row 0 (through `out`, which no launch reads yet).
        let next = std::cell::Cell::new(0usize);
        let chunk_reduction = |ws: &mut Workspace, at: u64, range: Range<usize>, s: &Stream| {
            if next.get() == rows {
                fold(rows, out.device_ptr(), ws, s)?;
                // SAFETY: `out` and row 0 of `partials` each hold `slice` values of V, distinct
                // allocations alive until the stream has run (both outlive with_pooled's wait).
                unsafe {
                    gpu_core::enqueue_layout_copy_at::<V>(
                        gpu,
                        out.device_ptr(),
                        &[1],
                        partials.device_ptr(),
                        &[1],
                        &[slice],
                        s,
                    )?;
                }
                next.set(1);
            }
            let mut chunk_shape = shape.clone();
            chunk_shape[0] = range.len() / slice;
            let lanes = axis_lanes(&chunk_shape, &strides, 0)?;
            let row = Out {
                ptr: partials.device_ptr() + (next.get() * slice * value_size) as u64,
                size: value_size,
            };
            next.set(next.get() + 1);
            self.enqueue_axis(at, &lanes, desc, &row, ws, s).map(drop)
        };
        with_pooled(gpu, |ws| {
            let _staged = self.reduce_chunks(ws, &host.data, chunk, chunk_reduction)?;
            // The rows of partials left, reduced along the chunks.
            let stream = gpu.stream();
            fold(next.get(), out.device_ptr(), ws, stream)?;
            stream.synchronize()
        })?;
        result_array(host, axis, out.to_vec()?).map(Some)
    }

    /// argmin / argmax (`which`) along the outer memory axis of `host` through the host
    /// pipeline: chunks of whole slices, each reduced along its slices into a row of indices
    /// local to the chunk (the one-shot kernels), then, while the chunk is still on the device,
    /// merged into each lane's best (value, index) pair so far (`reduce_merge_lanes_<kind>`,
    /// the kernels' total order, so every index is the one-shot one). `None` where `axis` is
    /// not the outer memory axis or the pipeline does not apply (as
    /// [`axis_host_pipelined`](Self::axis_host_pipelined)).
    pub(super) fn outer_axis_arg_pipelined<T: Element>(
        &self,
        host: &HostNd<'_, T>,
        axis: usize,
        which: Extreme,
        desc: &Desc,
    ) -> Result<Option<ArrayD<u64>>> {
        let (total, size) = (host.data.len(), std::mem::size_of::<T>());
        if self.stream.is_some()
            || total == 0
            || !self.pipelining.applies(std::mem::size_of_val(&*host.data))
        {
            return Ok(None);
        }
        gpu_core::check_axis(axis, host.shape.len())?;
        self.settings().validate(desc.operation)?;
        let (shape, strides, c_axis) = host.c_order_view(axis);
        let slices = shape[0];
        if c_axis != 0 || slices < 2 {
            return Ok(None);
        }
        let Some((slice, per_chunk)) = outer_chunking(total, slices, size) else {
            return Ok(None);
        };
        let chunk = per_chunk * slice;
        let gpu = &self.gpu;
        let local = gpu.alloc::<u64>(slice)?;
        let best = gpu.alloc::<u8>(slice * desc.value_size)?;
        let merge = gpu.kernel(&REDUCE_PTX, &format!("reduce_merge_lanes_{}", desc.kind))?;
        let config = LaunchConfig::new(grid_for(slice as u64, 256, 65535), 256);
        with_pooled(gpu, |ws| {
            let _staged = self.reduce_chunks(ws, &host.data, chunk, |ws, at, range, s| {
                let count = range.len() / slice;
                let mut chunk_shape = shape.clone();
                chunk_shape[0] = count;
                let lanes = axis_lanes(&chunk_shape, &strides, 0)?;
                let row = Out {
                    ptr: local.device_ptr(),
                    size: 8,
                };
                self.enqueue_axis(at, &lanes, desc, &row, ws, s)?;
                let (lanes, count, local, best) = (
                    slice as u64,
                    count as u64,
                    local.device_ptr(),
                    best.device_ptr(),
                );
                let (base, first) = ((range.start / slice) as u64, u32::from(range.start == 0));
                // SAFETY: reduce_merge_lanes_<kind>(const In* in, u64 lanes, u64 count, const
                // u64* local, u64 base, ArgVal* best, u32 first) matches (u64 × 6, u32). The
                // chunk at `at` holds `count` ≥ 1 whole slices of `lanes` values of T (its
                // launch reads them before the slot is refilled: the pipeline orders the
                // stream); `local` and `best` hold `lanes` indices and pairs, written in chunk
                // order on this one stream, and outlive it (with_pooled waits).
                unsafe {
                    merge.launch(
                        config,
                        s,
                        &kernel_args![at, lanes, count, local, base, best, first],
                    )
                }
            })?;
            gpu.stream().synchronize()
        })?;
        let out = best
            .to_vec()?
            .chunks_exact(desc.value_size)
            .map(|pair| arg_index(which, pair, slices).map(|i| i as u64))
            .collect::<Result<Vec<u64>>>()?;
        result_array(host, axis, out).map(Some)
    }

    /// The chunking of `host` along `axis` and the whole array's choice, or `None` where the
    /// pipeline does not apply (see [`axis_host_pipelined`](Self::axis_host_pipelined)).
    fn chunk_plan<T: Pod>(
        &self,
        host: &HostNd<'_, T>,
        axis: usize,
        (shape, strides, c_axis): View,
        desc: &Desc,
    ) -> Result<Option<ChunkPlan>> {
        let (total, size) = (host.data.len(), std::mem::size_of::<T>());
        let slices = shape[0];
        if slices < 2 {
            return Ok(None);
        }
        let slice = total / slices;
        // Whole slices per chunk, a multiple of what keeps every chunk 16-byte aligned in its
        // slot (the packed and vector kernels need it).
        let align = aligned_count(slice * size);
        let per_chunk = (PIPELINE_CHUNK_BYTES / (slice * size)).min(slices) / align * align;
        if per_chunk == 0 {
            return Ok(None);
        }
        // The one-shot launch's choice (a fresh device array, 16-byte aligned) must be the
        // C-order view's: then every lane is reduced as the one-shot call reduces it.
        let one_shot = self.choose_axis(0, &axis_lanes(&host.shape, &host.strides, axis)?, desc)?;
        let whole = self.choose_axis(0, &axis_lanes(&shape, &strides, c_axis)?, desc)?;
        if whole != one_shot {
            return Ok(None);
        }
        Ok(Some(ChunkPlan {
            results: slice / shape[c_axis],
            shape,
            strides,
            axis: c_axis,
            per_chunk,
            slice,
            whole,
        }))
    }
}

/// Elements per slice and whole slices per chunk of `total` elements of `size` bytes in
/// `slices` slices along the outer memory axis: a multiple of what keeps every chunk 16-byte
/// aligned in its slot. `None` where one such multiple exceeds a pipeline chunk.
fn outer_chunking(total: usize, slices: usize, size: usize) -> Option<(usize, usize)> {
    let slice = total / slices;
    let align = aligned_count(slice * size);
    let per_chunk = (PIPELINE_CHUNK_BYTES / (slice * size)).min(slices) / align * align;
    (per_chunk > 0).then_some((slice, per_chunk))
}

/// Bytes of partials an outer-axis reduction keeps on the device (rows of results, one per
/// chunk, folded into the first row when full).
const OUTER_PARTIALS_MAX_BYTES: usize = 64 << 20;

/// The results of `host` reduced along `axis`, in memory order of the C-order view, as an array
/// of the result's shape in the input's order.
fn result_array<T: Clone, V>(host: &HostNd<'_, T>, axis: usize, out: Vec<V>) -> Result<ArrayD<V>> {
    let mut shape = host.shape.clone();
    shape.remove(axis);
    host.array_in_order(&shape, Some(axis), out)
}
