//! The sharded convolution: each shard's outputs computed on its device. A shard long enough
//! runs the plain `same`-mode convolution over its own elements (one pass, in place of the
//! output) and recomputes the outputs at its two edges from small windows (its neighbours'
//! halos, the boundary's ghosts: `halo::ConvGeometry`); a short shard, or one at the end of a
//! `full`/`valid` signal, convolves its whole window in `valid` mode. Halo pieces from the same
//! device are device-to-device copies; from another device of this process, peer copies
//! (NVLink or PCIe); ranks of other processes all-gather their first and last `w − 1`
//! elements. The windows and edge outputs are made once per layout and kept between calls.

use std::sync::{Mutex, TryLockError};

use gpu_conv1d::{Conv1d, Mode, Operation, Options, Real};
use gpu_core::{DeviceArray, DeviceSlice, Error, Event, Gpu, Input, Result};

use crate::comm::{slice_bytes, values_from_bytes};
use crate::halo::{clip, ConvGeometry, Piece};
use crate::reduce::check_shards;
use crate::sharded::{on_each_shard, PerDevice};
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
    /// The windows of the last layout run (a call finding it busy makes its own).
    prepared: Mutex<Option<Prepared<T>>>,
}

/// What calls over one layout on one set of devices need, made by the first: each local
/// shard's plan (windows zeroed once: the pieces refilled per call cover the same positions
/// every time) and an event per local shard marking its input ready.
struct Prepared<T: Real> {
    layout: crate::ShardLayout,
    first: usize,
    devices: Vec<Gpu>,
    plans: Vec<Mutex<ShardPlan<T>>>,
    ready: Vec<Event>,
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

/// A window, the pieces gathered into it each call, a buffer for its `valid` outputs, and
/// where they go in the shard's output.
struct Part<T: Real> {
    window: DeviceArray<T>,
    pieces: Vec<Piece>,
    y: DeviceArray<T>,
    at: usize,
}

impl<T: Real> Prepared<T> {
    /// Whether these windows are `x`'s: the same layout, local ranks and devices.
    fn fits(&self, x: &ShardedArray<T>) -> bool {
        self.layout == *x.layout()
            && self.first == x.local_ranks().start
            && self.devices.len() == x.shards().len()
            && self.plans.len() == x.shards().len()
            && self
                .devices
                .iter()
                .zip(x.shards())
                .all(|(d, s)| d.same_device(s.gpu()))
    }
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
            prepared: Mutex::new(None),
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
    /// ranks on the same devices: after the first call over a layout, nothing is allocated.
    /// Calls from several threads at once are safe; one of them uses the kept windows, the
    /// others make their own.
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
        let mut own = None;
        let mut kept = match self.prepared.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        };
        let slot = kept.as_deref_mut().unwrap_or(&mut own);
        if !slot.as_ref().is_some_and(|p| p.fits(x)) {
            *slot = None; // free the old windows first
            *slot = Some(self.prepare(x, &g)?);
        }
        let prepared = slot.as_ref().expect("prepared above");
        // Every local shard's input is ready where its device's stream now ends; a peer copy
        // from it waits for that point on the reading device.
        for (shard, ready) in x.shards().iter().zip(&prepared.ready) {
            ready.record(shard.gpu().stream())?;
        }
        // Everything is enqueued from this thread (launches and copies are asynchronous: a
        // thread per shard would cost more than they do), then every stream waited for. Step
        // 1: every window gathered, before any shard's convolution is enqueued (a window
        // filled on a device's stream behind that device's convolution would wait for it).
        let shards = x.shards().len();
        let mut enqueued = (0..shards).try_for_each(|i| {
            let mut plan = prepared.plans[i].lock().unwrap_or_else(|p| p.into_inner());
            self.fill(x, i, &mut plan, &prepared.ready, edges.as_ref())
        });
        // Step 2: every shard's outputs, the long passes over the shards first (so that every
        // device starts its long work before the host enqueues the small edge work).
        for edges in [false, true] {
            if enqueued.is_ok() {
                enqueued = out
                    .shards_mut()
                    .iter_mut()
                    .enumerate()
                    .try_for_each(|(i, out)| {
                        let mut plan = prepared.plans[i].lock().unwrap_or_else(|p| p.into_inner());
                        self.enqueue_shard(x, i, &mut plan, out, edges)
                    });
            }
        }
        // The next call refills the windows (perhaps from another device's stream), and an
        // own set is freed on return: every stream must be done with them, even after an error.
        let mut waited = enqueued;
        for (i, shard) in x.shards().iter().enumerate() {
            if !x.shards()[..i]
                .iter()
                .any(|s| s.gpu().same_device(shard.gpu()))
            {
                let done = shard.gpu().stream().synchronize();
                waited = waited.and(done);
            }
        }
        waited
    }

    /// The windows of every local shard of `x` (allocated and zeroed; filled per call).
    fn prepare(&self, x: &ShardedArray<T>, g: &ConvGeometry) -> Result<Prepared<T>> {
        let plans = on_each_shard(x.shards().len(), |i| self.plan_shard(x, g, i))?;
        let ready = x
            .shards()
            .iter()
            .map(|s| s.gpu().new_event(false))
            .collect::<Result<Vec<_>>>()?;
        Ok(Prepared {
            layout: x.layout().clone(),
            first: x.local_ranks().start,
            devices: x.shards().iter().map(|s| s.gpu().clone()).collect(),
            plans: plans.into_iter().map(Mutex::new).collect(),
            ready,
        })
    }

    /// How this process's shard `i` makes its outputs: the windows it needs, zeroed, with the
    /// pieces to gather into them on each call.
    fn plan_shard(&self, x: &ShardedArray<T>, g: &ConvGeometry, i: usize) -> Result<ShardPlan<T>> {
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
                    parts.push(Part {
                        window: gpu.zeros::<T>(hi - lo)?,
                        pieces: clip(&pieces, lo, hi),
                        y: gpu.alloc::<T>(hi - lo + 1 - w)?,
                        at,
                    });
                }
            }
            return Ok(ShardPlan { same: true, parts });
        }
        Ok(ShardPlan {
            same: false,
            parts: vec![Part {
                window: gpu.zeros::<T>(len)?,
                pieces,
                y: gpu.alloc::<T>(0)?,
                at: 0,
            }],
        })
    }

    /// Gathers this call's pieces into shard `i`'s windows, on its device's stream.
    fn fill(
        &self,
        x: &ShardedArray<T>,
        i: usize,
        plan: &mut ShardPlan<T>,
        ready: &[Event],
        edges: Option<&Edges<T>>,
    ) -> Result<()> {
        let gpu = x.shards()[i].gpu();
        let stream = gpu.stream();
        let local = x.local_ranks();
        let mut waited = vec![false; ready.len()];
        for part in &mut plan.parts {
            for p in &part.pieces {
                let range = p.start..p.start + p.len;
                if local.contains(&p.shard) {
                    let j = p.shard - local.start;
                    let src = &x.shards()[j];
                    if !src.gpu().same_device(gpu) && !std::mem::replace(&mut waited[j], true) {
                        stream.wait(&ready[j])?;
                    }
                    part.window.copy_range_from_peer(p.at, src, range, stream)?;
                } else {
                    let edges = edges.ok_or_else(|| {
                        Error::invalid("comm", "a halo of another process without its edges")
                    })?;
                    let count = x.layout().range(p.shard).len();
                    let staged = gpu.upload(edges.piece(p, count)?)?;
                    part.window
                        .copy_range_from(p.at, &staged, 0..p.len, stream)?;
                    // `staged` is freed at the end of this iteration: the copy must have run.
                    stream.synchronize()?;
                }
            }
        }
        Ok(())
    }

    /// Step 2 for this process's shard `i`: its outputs into `out`, as `plan` says, enqueued on
    /// its device's stream: the pass over the whole shard (`edges` false), or the edges'
    /// outputs copied over that pass's (`edges` true).
    fn enqueue_shard(
        &self,
        x: &ShardedArray<T>,
        i: usize,
        plan: &mut ShardPlan<T>,
        out: &mut DeviceArray<T>,
        edges: bool,
    ) -> Result<()> {
        let shard = &x.shards()[i];
        let gpu = shard.gpu();
        let stream = gpu.stream();
        let conv = self.conv(gpu)?;
        // `valid` mode, zero boundary: a window holds every input its outputs read.
        let valid = conv
            .clone()
            .mode(Mode::Valid)
            .boundary(gpu_conv1d::Boundary::Zero)
            .stream(stream);
        match (plan.same, edges) {
            // A whole window in `valid` mode.
            (false, false) => match plan.parts.first() {
                Some(part) => valid.run_into(&part.window, out),
                None => Ok(()),
            },
            (false, true) => Ok(()),
            // The `same` pass: right everywhere but at the edges.
            (true, false) => conv
                .mode(Mode::Same)
                .boundary(gpu_conv1d::Boundary::Zero)
                .stream(stream)
                .run_into(shard, out),
            // Each edge's outputs, copied over the pass's (after it on the stream).
            (true, true) => plan.parts.iter_mut().try_for_each(|part| {
                valid.run_into(&part.window, &mut part.y)?;
                out.copy_range_from(part.at, &part.y, 0..part.y.len(), stream)
            }),
        }
    }
}
