//! The sharded convolution: each shard's outputs computed on its device. A shard long enough
//! runs the plain `same`-mode convolution over its own elements (one pass, in place of the
//! output) and recomputes the outputs at its two edges from small windows (its neighbours'
//! halos, the boundary's ghosts: `halo::ConvGeometry`); a short shard, or one at the end of a
//! `full`/`valid` signal, convolves its whole window in `valid` mode. Halo pieces from the same
//! device are device-to-device copies; from another device of this process they pass through
//! the host; ranks of other processes all-gather their first and last `w − 1` elements.

use gpu_conv1d::{Conv1d, Mode, Operation, Options, Real};
use gpu_core::{DeviceArray, DeviceSlice, Error, Gpu, Input, Result};

use crate::comm::{slice_bytes, values_from_bytes};
use crate::halo::{clip, ConvGeometry, Piece};
use crate::reduce::check_shards;
use crate::sharded::{on_each_shard, on_each_shard_mut, PerDevice};
use crate::{Communicator, ShardedArray};

/// Correlations and convolutions of [`ShardedArray`]s, as
/// [`gpu_conv1d::Conv1d`] of the concatenated signal: every mode and boundary (wrap across the
/// ends included, halos wider than a shard included). The output is sharded by
/// [`ConvGeometry::output`] (as the input in `same` mode). Ranks in other processes (NCCL)
/// send their halos through the communicator's all-gather.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_conv1d::Options;
/// use gpu_core::Gpu;
/// use gpu_dist::{InProcess, ShardLayout, ShardedArray, ShardedConv1d};
/// let gpu = Gpu::default_device()?;
/// let x = vec![1.0f32; 10];
/// let a = ShardedArray::from_host(&vec![gpu; 3], &x, ShardLayout::even(10, 3)?)?;
/// let comm = InProcess::new(3);
/// let y = ShardedConv1d::correlation(&comm, &[1.0, 1.0, 1.0], Options::new()).run(&a)?;
/// assert_eq!(y.to_vec()?[..3], [2.0, 3.0, 3.0]); // zero ghosts at the ends
/// # Ok(()) }
/// ```
pub struct ShardedConv1d<'c, T: Real> {
    comm: &'c dyn Communicator,
    operation: Operation,
    mask: Vec<T>,
    options: Options,
    /// Each device's convolution (its mask uploaded once).
    convs: PerDevice<Conv1d<'static, T>>,
}

/// Every rank's first and last `h` elements (fewer for a shorter shard, zero-padded), in rank
/// order: what ranks of other processes contribute to this process's windows.
struct Edges<T> {
    h: usize,
    values: Vec<T>,
}

/// How one shard's outputs are made: the `same` convolution over the shard (or not), and
/// parts convolved in `valid` mode from gathered windows (its edges; or, without the `same`
/// pass, its one whole window).
struct ShardPlan<T: Real> {
    same: bool,
    parts: Vec<Part<T>>,
}

/// A gathered window, a buffer for its `valid` outputs, and where they go in the shard's
/// output.
struct Part<T: Real> {
    window: DeviceArray<T>,
    y: DeviceArray<T>,
    at: usize,
}

impl<T: Real> Edges<T> {
    /// Each local shard's edges, all-gathered (every rank calls this).
    fn gather(comm: &dyn Communicator, x: &ShardedArray<T>, h: usize) -> Result<Self> {
        let local = on_each_shard(x.shards().len(), |i| {
            let shard = &x.shards()[i];
            let k = h.min(shard.len());
            let mut mine = vec![T::default(); 2 * h];
            let head = DeviceSlice::new(shard, 0..k)?
                .stage(shard.gpu())?
                .to_vec()?;
            let tail = DeviceSlice::new(shard, shard.len() - k..shard.len())?
                .stage(shard.gpu())?
                .to_vec()?;
            mine[..k].copy_from_slice(&head);
            mine[h..h + k].copy_from_slice(&tail);
            Ok(slice_bytes(&mine))
        })?;
        let values = values_from_bytes::<T>(&comm.all_gather(&local)?);
        if values.len() != 2 * h * comm.ranks() {
            return Err(Error::invalid(
                "comm",
                format!(
                    "the halo all-gather returned {} values for {} ranks of {}",
                    values.len(),
                    comm.ranks(),
                    2 * h
                ),
            ));
        }
        Ok(Self { h, values })
    }

    /// The elements of piece `p` (of a shard of `count` elements), from its rank's edges.
    fn piece(&self, p: &Piece, count: usize) -> Result<&[T]> {
        let k = self.h.min(count);
        let base = 2 * self.h * p.shard;
        let (lo, hi) = (p.start, p.start + p.len);
        if hi <= k {
            Ok(&self.values[base + lo..base + hi])
        } else if lo >= count - k {
            let at = base + self.h + (lo - (count - k));
            Ok(&self.values[at..at + p.len])
        } else {
            Err(Error::invalid(
                "halo",
                format!(
                    "elements {lo}..{hi} of rank {} lie beyond its {k}-element edges",
                    p.shard
                ),
            ))
        }
    }
}

impl<'c, T: Real> ShardedConv1d<'c, T> {
    /// Cross-correlation with `mask` (as [`Conv1d::correlation`]).
    pub fn correlation(comm: &'c dyn Communicator, mask: &[T], options: Options) -> Self {
        Self::new(comm, Operation::Correlation, mask, options)
    }

    /// Convolution with `mask` (the mask reversed, as [`Conv1d::convolution`]).
    pub fn convolution(comm: &'c dyn Communicator, mask: &[T], options: Options) -> Self {
        Self::new(comm, Operation::Convolution, mask, options)
    }

    /// `operation` with `mask` and `options` (mode, boundary, strategy).
    pub fn new(
        comm: &'c dyn Communicator,
        operation: Operation,
        mask: &[T],
        options: Options,
    ) -> Self {
        Self {
            comm,
            operation,
            mask: mask.to_vec(),
            options,
            convs: PerDevice::new(),
        }
    }

    /// The convolution on `gpu` with this one's options (builders give the other modes).
    fn conv(&self, gpu: &Gpu) -> Result<Conv1d<'static, T>> {
        self.convs.get(gpu, || {
            Conv1d::new(gpu, self.operation, &self.mask, self.options)
        })
    }

    /// The geometry of this convolution over `x`'s layout (its output layout, each shard's
    /// window).
    pub fn geometry(&self, x: &ShardedArray<T>) -> Result<ConvGeometry> {
        ConvGeometry::new(x.layout(), self.mask.len(), self.options.mode)
    }

    /// The result over the concatenated signal, sharded by the geometry's output layout on
    /// the input shards' devices (this process's ranks of it).
    pub fn run(&self, x: &ShardedArray<T>) -> Result<ShardedArray<T>> {
        let mut out = x.alloc_with(self.geometry(x)?.output().clone())?;
        self.run_into(x, &mut out)?;
        Ok(out)
    }

    /// [`run`](Self::run) into `out`, an array of the geometry's output layout holding `x`'s
    /// ranks on the same devices: no allocation per call.
    pub fn run_into(&self, x: &ShardedArray<T>, out: &mut ShardedArray<T>) -> Result<()> {
        check_shards(self.comm, x)?;
        let g = self.geometry(x)?;
        x.check_output(out, g.output())?;
        // Ranks of other processes: every rank's edges, gathered by all of them.
        let edges = if self.comm.local_ranks().len() != self.comm.ranks() {
            Some(Edges::gather(self.comm, x, self.mask.len() - 1)?)
        } else {
            None
        };
        // One shard is the whole signal: the plain convolution, as on one GPU.
        if let ([shard], 1) = (x.shards(), x.layout().shards()) {
            return self
                .conv(shard.gpu())?
                .run_into(shard, &mut out.shards_mut()[0]);
        }
        let plans = on_each_shard(x.shards().len(), |i| {
            self.plan_shard(x, &g, i, edges.as_ref())
        })?;
        let plans: Vec<std::sync::Mutex<ShardPlan<T>>> =
            plans.into_iter().map(std::sync::Mutex::new).collect();
        on_each_shard_mut(out.shards_mut(), |i, out| {
            let mut plan = plans[i].lock().unwrap_or_else(|p| p.into_inner());
            self.run_shard(x, i, &mut plan, out)
        })
    }

    /// Step 1 for this process's shard `i`: how its outputs are made, with every window it
    /// needs gathered (before any shard's convolution runs, so that reading a neighbour's halo
    /// never waits behind that neighbour's convolution on its stream).
    fn plan_shard(
        &self,
        x: &ShardedArray<T>,
        g: &ConvGeometry,
        i: usize,
        edges: Option<&Edges<T>>,
    ) -> Result<ShardPlan<T>> {
        let s = x.local_ranks().start + i;
        let gpu = x.shards()[i].gpu();
        let outs = g.output().range(s);
        if outs.is_empty() {
            return Ok(ShardPlan {
                same: false,
                parts: Vec::new(),
            });
        }
        let w = self.mask.len();
        let (len, pieces) = g.window(s, self.options.boundary);
        let count = x.layout().range(s).len();
        // The window starts `l` elements before the shard, as the `same` convolution of the
        // shard alone reads: then that convolution is right everywhere but at the edges.
        let same_off = Mode::Same.offset(w);
        let window_start = outs.start as i64 + self.options.mode.offset(w);
        let l = (-same_off) as usize;
        let r = w - 1 - l;
        let start = x.layout().range(s).start as i64;
        if outs.len() == count && window_start == start + same_off && count >= 2 * w {
            let mut parts = Vec::new();
            for (lo, hi, at) in [(0, l + w - 1, 0), (count - r, len, count - r)] {
                if hi - lo >= w {
                    let window = self.window(x, edges, gpu, &clip(&pieces, lo, hi), hi - lo)?;
                    let y = gpu.alloc::<T>(hi - lo + 1 - w)?;
                    parts.push(Part { window, y, at });
                }
            }
            return Ok(ShardPlan { same: true, parts });
        }
        let window = self.window(x, edges, gpu, &pieces, len)?;
        let y = gpu.alloc::<T>(0)?;
        Ok(ShardPlan {
            same: false,
            parts: vec![Part { window, y, at: 0 }],
        })
    }

    /// Step 2 for this process's shard `i`: its outputs into `out`, as `plan` says.
    fn run_shard(
        &self,
        x: &ShardedArray<T>,
        i: usize,
        plan: &mut ShardPlan<T>,
        out: &mut DeviceArray<T>,
    ) -> Result<()> {
        let shard = &x.shards()[i];
        let gpu = shard.gpu();
        let conv = self.conv(gpu)?;
        // `valid` mode, zero boundary: a window holds every input its outputs read.
        let valid = conv
            .clone()
            .mode(Mode::Valid)
            .boundary(gpu_conv1d::Boundary::Zero);
        if !plan.same {
            return match plan.parts.first() {
                Some(part) => valid.run_into(&part.window, out),
                None => Ok(()),
            };
        }
        // Everything in order on the device's stream, one wait at the end: the `same` pass,
        // then each edge's outputs, copied over the pass's (wrong) edge values.
        let stream = gpu.stream();
        let same = conv
            .mode(Mode::Same)
            .boundary(gpu_conv1d::Boundary::Zero)
            .stream(stream);
        same.run_into(shard, out)?;
        let valid = valid.stream(stream);
        for part in &mut plan.parts {
            valid.run_into(&part.window, &mut part.y)?;
            out.copy_range_from(part.at, &part.y, 0..part.y.len(), stream)?;
        }
        // The windows and outputs are freed after return: the stream must have run.
        stream.synchronize()
    }

    /// A window of `len` elements on `gpu`, zero but for `pieces`.
    fn window(
        &self,
        x: &ShardedArray<T>,
        edges: Option<&Edges<T>>,
        gpu: &Gpu,
        pieces: &[Piece],
        len: usize,
    ) -> Result<DeviceArray<T>> {
        let mut window = gpu.zeros::<T>(len)?;
        let stream = gpu.stream();
        let local = x.local_ranks();
        for p in pieces {
            let range = p.start..p.start + p.len;
            if local.contains(&p.shard) {
                let src = &x.shards()[p.shard - local.start];
                if src.gpu().same_device(gpu) {
                    window.copy_range_from(p.at, src, range, stream)?;
                    continue;
                }
                // Another device of this process: through the host (at most w − 1 elements).
                let host = DeviceSlice::new(src, range)?.stage(src.gpu())?.to_vec()?;
                let staged = gpu.upload(&host)?;
                window.copy_range_from(p.at, &staged, 0..p.len, stream)?;
                stream.synchronize()?;
            } else {
                let edges = edges.ok_or_else(|| {
                    Error::invalid("comm", "a halo of another process without its edges")
                })?;
                let count = x.layout().range(p.shard).len();
                let staged = gpu.upload(edges.piece(p, count)?)?;
                window.copy_range_from(p.at, &staged, 0..p.len, stream)?;
                stream.synchronize()?;
            }
        }
        Ok(window)
    }
}
