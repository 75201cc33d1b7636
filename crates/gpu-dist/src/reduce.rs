//! Sharded reductions: each shard reduced on its own device by gpu-reduce's default
//! algorithm, the per-shard partials all-gathered through the communicator and combined in rank
//! order on every rank. Exact operators give the single-GPU value; float sums are grouped by
//! shards (run-to-run identical for a given layout, whatever the transport).

use gpu_core::{DeviceSlice, Element, Error, Input, Op, Pod, Result};
use std::any::Any;
use std::sync::Mutex;

use gpu_reduce::{DeviceMonoid, Reduce, Widen, Workspace};

use crate::combine::{arg_pick, fold_in_rank_order};
use crate::comm::{all_gather_values, values_from_bytes, DeviceBytes};
use crate::sharded::on_each_shard;
use crate::{Communicator, ShardedArray};

/// Reductions of [`ShardedArray`]s over a [`Communicator`] (the same names as
/// [`gpu_reduce::Reduce`]); every rank gets the result.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::Gpu;
/// use gpu_dist::{InProcess, ShardLayout, ShardedArray, ShardedReduce};
/// let gpu = Gpu::default_device()?;
/// let x: Vec<f32> = (0..1000).map(|i| (i % 7) as f32).collect();
/// let a = ShardedArray::from_host(&vec![gpu; 3], &x, ShardLayout::even(x.len(), 3)?)?;
/// let comm = InProcess::new(3);
/// let r = ShardedReduce::new(&comm);
/// assert_eq!(r.max(&a)?, Some(6.0));
/// assert_eq!(r.argmax(&a)?, Some(6));
/// # Ok(()) }
/// ```
pub struct ShardedReduce<'c> {
    comm: &'c dyn Communicator,
    /// One workspace per device, kept between calls (its scratch and result slot).
    workspaces: Mutex<Vec<Workspace>>,
    /// Partial slots (a `DeviceArray` of one, per device and partial type), kept between calls
    /// (an allocation and a free per shard and call cost more than a small reduction's tail).
    slots: Mutex<Vec<Box<dyn Any + Send>>>,
}

impl<'c> ShardedReduce<'c> {
    /// Reductions whose shards exchange their partials through `comm`.
    pub fn new(comm: &'c dyn Communicator) -> Self {
        Self {
            comm,
            workspaces: Mutex::new(Vec::new()),
            slots: Mutex::new(Vec::new()),
        }
    }

    /// Every local shard's partial, enqueued by `enqueue` on its device's stream from this
    /// thread (no thread per shard: the devices run side by side anyway), then read back in
    /// rank order (the only waits), and all-gathered: every rank's partial, in rank order.
    fn enqueued<T: Pod, P: Pod + 'static>(
        &self,
        x: &ShardedArray<T>,
        enqueue: impl Fn(
            &Reduce<'_>,
            &gpu_core::DeviceArray<T>,
            &mut gpu_core::DeviceArray<P>,
            &mut Workspace,
        ) -> Result<()>,
    ) -> Result<Vec<P>> {
        check_shards(self.comm, x)?;
        // The partials' slots: one per local shard, taken from the kept ones of its device
        // (shards of one device use them in turn) and put back at the end.
        let mut outs: Vec<gpu_core::DeviceArray<P>> = Vec::with_capacity(x.shards().len());
        {
            let mut kept = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            for shard in x.shards() {
                let at = kept.iter().position(|slot| {
                    slot.downcast_ref::<gpu_core::DeviceArray<P>>()
                        .is_some_and(|a| a.gpu().same_device(shard.gpu()))
                });
                let slot = match at {
                    Some(at) => *kept.swap_remove(at).downcast().expect("matched above"),
                    None => shard.gpu().alloc::<P>(1)?,
                };
                outs.push(slot);
            }
        }
        let gathered = self.enqueue_and_gather(x, &mut outs, enqueue);
        let mut kept = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        for slot in outs {
            kept.push(Box::new(slot));
        }
        gathered
    }

    /// Each local shard's partial enqueued into `outs` on its device's stream, then
    /// all-gathered: every rank's partial, in rank order.
    fn enqueue_and_gather<T: Pod, P: Pod>(
        &self,
        x: &ShardedArray<T>,
        outs: &mut [gpu_core::DeviceArray<P>],
        enqueue: impl Fn(
            &Reduce<'_>,
            &gpu_core::DeviceArray<T>,
            &mut gpu_core::DeviceArray<P>,
            &mut Workspace,
        ) -> Result<()>,
    ) -> Result<Vec<P>> {
        {
            let mut pool = self.workspaces.lock().unwrap_or_else(|p| p.into_inner());
            for (shard, out) in x.shards().iter().zip(outs.iter_mut()) {
                let gpu = shard.gpu();
                let at = match pool.iter().position(|w| w.gpu().same_device(gpu)) {
                    Some(at) => at,
                    None => {
                        pool.push(Workspace::new(gpu)?);
                        pool.len() - 1
                    }
                };
                let reduce = Reduce::new(gpu).stream(gpu.stream());
                enqueue(&reduce, shard, out, &mut pool[at])?;
            }
        }
        // The partials go to the exchange from the devices (NCCL sends them from there with
        // no wait; the other transports read each back, waiting for its stream); the
        // workspaces outlive the work (kept here).
        let local: Vec<DeviceBytes<'_>> = outs.iter().map(DeviceBytes::of).collect();
        let all = self.comm.all_gather_device(&local)?;
        let size = std::mem::size_of::<P>();
        if all.len() != self.comm.ranks() * size {
            return Err(Error::invalid(
                "comm",
                format!(
                    "the all-gather returned {} bytes for {} ranks of {size}",
                    all.len(),
                    self.comm.ranks()
                ),
            ));
        }
        Ok(values_from_bytes(&all))
    }

    /// `partial(shard)` of each of this process's shards, on a thread each, in rank order.
    fn local<T: Pod, P: Send>(
        &self,
        x: &ShardedArray<T>,
        partial: impl Fn(&gpu_core::DeviceArray<T>) -> Result<P> + Sync,
    ) -> Result<Vec<P>> {
        check_shards(self.comm, x)?;
        on_each_shard(x.shards().len(), |s| partial(&x.shards()[s]))
    }

    /// Every rank's partial, in rank order: [`local`](Self::local), all-gathered.
    fn partials<T: Pod, P: Pod>(
        &self,
        x: &ShardedArray<T>,
        partial: impl Fn(&gpu_core::DeviceArray<T>) -> Result<P> + Sync,
    ) -> Result<Vec<P>> {
        let local = self.local(x, partial)?;
        all_gather_values(self.comm, &local)
    }

    /// Every rank's `op` over its shard, in rank order (the scans' totals).
    pub(crate) fn op_partials<T: Element>(
        &self,
        x: &ShardedArray<T>,
        op: Op,
    ) -> Result<Vec<T::Accumulator>> {
        self.enqueued(x, |r, shard, out, ws| r.reduce_into(shard, op, out, ws))
    }

    /// Every rank's monoid product of its shard, in rank order.
    pub(crate) fn monoid_partials<M: DeviceMonoid>(&self, x: &ShardedArray<M>) -> Result<Vec<M>> {
        self.enqueued(x, |r, shard, out, ws| r.reduce_monoid_into(shard, out, ws))
    }

    /// `op` over all elements (as [`Reduce::reduce`]: the identity when empty; f32 for the
    /// 16-bit floats).
    pub fn reduce<T: Element>(&self, x: &ShardedArray<T>, op: Op) -> Result<T::Accumulator> {
        let parts = self.op_partials(x, op)?;
        let identity = op.identity::<T::Accumulator>()?;
        Ok(fold_in_rank_order(parts, |a, b| T::Accumulator::combine(op, a, b)).unwrap_or(identity))
    }

    /// The sum of all elements.
    pub fn sum<T: Element>(&self, x: &ShardedArray<T>) -> Result<T::Accumulator> {
        self.reduce(x, Op::Sum)
    }

    /// The product of all elements.
    pub fn product<T: Element>(&self, x: &ShardedArray<T>) -> Result<T::Accumulator> {
        self.reduce(x, Op::Product)
    }

    /// `op` accumulated in the wider type (as [`Reduce::reduce_wide`]).
    pub fn reduce_wide<T: Widen>(&self, x: &ShardedArray<T>, op: Op) -> Result<T::Wide> {
        let parts = self.enqueued(x, |r, shard, out, ws| {
            r.reduce_wide_into(shard, op, out, ws)
        })?;
        let identity = op.identity::<T::Wide>()?;
        Ok(fold_in_rank_order(parts, |a, b| T::Wide::combine(op, a, b)).unwrap_or(identity))
    }

    /// The monoid product of all elements in sequence order (shards in rank order).
    pub fn reduce_monoid<M: DeviceMonoid>(&self, x: &ShardedArray<M>) -> Result<M> {
        let parts = self.monoid_partials(x)?;
        Ok(fold_in_rank_order(parts, M::combine).unwrap_or_else(M::identity))
    }

    /// The smallest element (NaN if there is one), `None` when empty.
    pub fn min<T: Element>(&self, x: &ShardedArray<T>) -> Result<Option<T>> {
        self.extreme(x, Op::Min)
    }

    /// The largest element (NaN if there is one), `None` when empty.
    pub fn max<T: Element>(&self, x: &ShardedArray<T>) -> Result<Option<T>> {
        self.extreme(x, Op::Max)
    }

    fn extreme<T: Element>(&self, x: &ShardedArray<T>, op: Op) -> Result<Option<T>> {
        // Empty shards give the identity, which every other value beats.
        let identity = T::identity(op).ok_or_else(|| {
            Error::invalid("op", format!("{op:?} has no identity for {}", T::NAME))
        })?;
        let parts = self.partials(x, |shard| {
            let r = Reduce::new(shard.gpu());
            let v = if op == Op::Min {
                r.min(shard)?
            } else {
                r.max(shard)?
            };
            Ok(v.unwrap_or(identity))
        })?;
        if x.is_empty() {
            return Ok(None);
        }
        Ok(fold_in_rank_order(parts, |a, b| T::combine(op, a, b)))
    }

    /// The index (in the concatenated data) of the first smallest element, or of the first
    /// NaN; `None` when empty.
    pub fn argmin<T: Element>(&self, x: &ShardedArray<T>) -> Result<Option<usize>> {
        self.arg(x, true)
    }

    /// The index of the first largest element, or of the first NaN; `None` when empty.
    pub fn argmax<T: Element>(&self, x: &ShardedArray<T>) -> Result<Option<usize>> {
        self.arg(x, false)
    }

    fn arg<T: Element>(&self, x: &ShardedArray<T>, smaller: bool) -> Result<Option<usize>> {
        // Each shard's winner: its local index (u64::MAX for an empty shard) and the element
        // there, read back alone, gathered apart (T has no room for an index beside it).
        let local = self.local(x, |shard| {
            let r = Reduce::new(shard.gpu());
            let index = if smaller {
                r.argmin(shard)?
            } else {
                r.argmax(shard)?
            };
            Ok(match index {
                Some(i) => {
                    let at = DeviceSlice::new(shard, i..i + 1)?;
                    (i as u64, at.stage(shard.gpu())?.to_vec()?[0])
                }
                None => (u64::MAX, T::default()),
            })
        })?;
        let (indices, values): (Vec<u64>, Vec<T>) = local.into_iter().unzip();
        let (indices, values) = (
            all_gather_values(self.comm, &indices)?,
            all_gather_values(self.comm, &values)?,
        );
        let candidates = indices
            .into_iter()
            .zip(values)
            .enumerate()
            .filter(|(_, (i, _))| *i != u64::MAX)
            .map(|(s, (i, v))| (v, x.layout().range(s).start + i as usize, v.is_nan()));
        Ok(fold_in_rank_order(candidates, |a, b| arg_pick(a, b, smaller)).map(|(_, i, _)| i))
    }
}

/// Checks that `x` holds exactly this process's shards of a layout of `comm.ranks()` shards.
pub(crate) fn check_shards<T: Pod>(comm: &dyn Communicator, x: &ShardedArray<T>) -> Result<()> {
    let (ranks, local) = (comm.ranks(), comm.local_ranks());
    if x.layout().shards() != ranks || x.local_ranks() != local {
        return Err(Error::invalid(
            "x",
            format!(
                "ranks {:?} here of a layout of {} shards, for a communicator of {ranks} ranks \
                 whose ranks {local:?} are in this process",
                x.local_ranks(),
                x.layout().shards(),
            ),
        ));
    }
    Ok(())
}
