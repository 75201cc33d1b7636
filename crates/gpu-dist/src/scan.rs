//! Sharded scans: each shard's total (gpu-reduce), the totals all-gathered and scanned
//! exclusively in rank order, then each shard scanned from its offset (gpu-scan's
//! `scan_from_into`; the first shard by the plain scan, whose offset is the identity). Shards
//! that share one device, with every rank in this process, are chained instead: scanned one
//! after another, each from the last prefix of the one before (one pass over the data, no
//! totals). Exact operators give the single-GPU values; float running sums are grouped by
//! shards.

use gpu_core::{DeviceArray, DeviceSlice, Element, Error, Input, Op, Result};
use gpu_reduce::DeviceMonoid;
use gpu_scan::{Scan, ScanKind, ScanMonoid};

use crate::combine::exclusive_offsets;
use crate::reduce::check_shards;
use crate::sharded::{on_each_shard, on_each_shard_mut, PerDevice};
use crate::{Communicator, ShardedArray, ShardedReduce};
use std::sync::Arc;

/// Scans of [`ShardedArray`]s over a [`Communicator`]: the result is sharded as the input.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{Gpu, Op};
/// use gpu_dist::{InProcess, ShardLayout, ShardedArray, ShardedScan};
/// let gpu = Gpu::default_device()?;
/// let x = vec![1u32; 10];
/// let a = ShardedArray::from_host(&vec![gpu; 3], &x, ShardLayout::even(10, 3)?)?;
/// let comm = InProcess::new(3);
/// let s = ShardedScan::new(&comm).scan(&a, Op::Sum)?;
/// assert_eq!(s.to_vec()?, (1..=10).collect::<Vec<u32>>());
/// # Ok(()) }
/// ```
pub struct ShardedScan<'c> {
    comm: &'c dyn Communicator,
    kind: ScanKind,
    /// Each device's scan engine (its scratch kept from call to call).
    scans: PerDevice<Arc<Scan<'static>>>,
    /// The shards' totals, by the sharded reduction (its workspaces kept from call to call).
    totals: ShardedReduce<'c>,
}

impl<'c> ShardedScan<'c> {
    /// Inclusive scans whose shards exchange their totals through `comm`.
    pub fn new(comm: &'c dyn Communicator) -> Self {
        Self {
            comm,
            kind: ScanKind::Inclusive,
            scans: PerDevice::new(),
            totals: ShardedReduce::new(comm),
        }
    }

    /// The scan engine of `gpu`, of this scan's kind.
    fn engine(&self, gpu: &gpu_core::Gpu) -> Result<Arc<Scan<'static>>> {
        self.scans
            .get(gpu, || Ok(Arc::new(Scan::new(gpu).kind(self.kind))))
    }

    /// Inclusive (`out[i]` includes `x[i]`, the default) or exclusive scans.
    pub fn kind(mut self, kind: ScanKind) -> Self {
        self.kind = kind;
        self.scans = PerDevice::new();
        self
    }

    /// Exclusive scans.
    pub fn exclusive(self) -> Self {
        self.kind(ScanKind::Exclusive)
    }

    /// The scan with `op` of the concatenated data (integers wrap; f16 and bf16 are not
    /// supported yet: an `InvalidArgument`).
    pub fn scan<T: Element>(&self, x: &ShardedArray<T>, op: Op) -> Result<ShardedArray<T>> {
        let mut out = x.alloc_like()?;
        self.scan_into(x, &mut out, op)?;
        Ok(out)
    }

    /// [`scan`](Self::scan) into `out`, an array of `x`'s layout and ranks on the same devices
    /// ([`ShardedArray::alloc_like`]): no allocation per call.
    pub fn scan_into<T: Element>(
        &self,
        x: &ShardedArray<T>,
        out: &mut ShardedArray<T>,
        op: Op,
    ) -> Result<()> {
        check_shards(self.comm, x)?;
        x.check_output(out, x.layout())?;
        if self.chained(x) {
            check_seeded::<T>()?;
            let scan = self.engine(x.shards()[0].gpu())?;
            let exclusive = self.kind == ScanKind::Exclusive;
            let outs = out.shards_mut();
            return chain(x, |s, seed| {
                let (shard, out) = (&x.shards()[s], &mut outs[s]);
                let before = if exclusive { Some(last(shard)?) } else { None };
                match seed {
                    None => scan.scan_into(shard, out, op)?,
                    Some(seed) => scan.scan_from_into(shard, out, op, seed)?,
                }
                let end = last(out)?;
                Ok(before.map_or(end, |b| T::combine(op, end, b)))
            });
        }
        let offsets = self.op_offsets(x, op)?;
        let first = self.comm.local_ranks().start;
        on_each_shard_mut(out.shards_mut(), |s, out| {
            let shard = &x.shards()[s];
            let scan = self.engine(shard.gpu())?;
            if first + s == 0 {
                scan.scan_into(shard, out, op)
            } else {
                scan.scan_from_into(shard, out, op, offsets[first + s])
            }
        })
    }

    /// [`scan`](Self::scan) in place: each shard replaced by its part of the scan, with no
    /// second copy of the data (an array filling most of its devices' memory).
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// use gpu_dist::{InProcess, ShardLayout, ShardedArray, ShardedScan};
    /// let gpu = Gpu::default_device()?;
    /// let mut a = ShardedArray::filled(&vec![gpu; 2], ShardLayout::even(6, 2)?, 0, 1u32)?;
    /// ShardedScan::new(&InProcess::new(2)).scan_in_place(&mut a, Op::Sum)?;
    /// assert_eq!(a.to_vec()?, [1, 2, 3, 4, 5, 6]);
    /// # Ok(()) }
    /// ```
    pub fn scan_in_place<T: Element>(&self, x: &mut ShardedArray<T>, op: Op) -> Result<()> {
        check_shards(self.comm, x)?;
        if self.chained(x) {
            check_seeded::<T>()?;
            let scan = self.engine(x.shards()[0].gpu())?;
            let exclusive = self.kind == ScanKind::Exclusive;
            let lens: Vec<usize> = x.shards().iter().map(DeviceArray::len).collect();
            let shards = x.shards_mut();
            return chain_lens(&lens, |s, seed| {
                let shard = &mut shards[s];
                // The last input, before the scan overwrites it.
                let before = if exclusive { Some(last(shard)?) } else { None };
                match seed {
                    None => scan.scan_in_place(shard, op)?,
                    Some(seed) => scan.scan_from_in_place(shard, op, seed)?,
                }
                let end = last(shard)?;
                Ok(before.map_or(end, |b| T::combine(op, end, b)))
            });
        }
        let offsets = self.op_offsets(x, op)?;
        let first = self.comm.local_ranks().start;
        on_each_shard_mut(x.shards_mut(), |s, shard| {
            let scan = self.engine(&shard.gpu().clone())?;
            if first + s == 0 {
                scan.scan_in_place(shard, op)
            } else {
                scan.scan_from_in_place(shard, op, offsets[first + s])
            }
        })
    }

    /// The scan of `Mat2`/`Affine` values in sequence order (shards in rank order).
    pub fn scan_monoid<M: ScanMonoid + DeviceMonoid>(
        &self,
        x: &ShardedArray<M>,
    ) -> Result<ShardedArray<M>> {
        check_shards(self.comm, x)?;
        if self.chained(x) {
            let scan = self.engine(x.shards()[0].gpu())?;
            let exclusive = self.kind == ScanKind::Exclusive;
            let mut out = x.alloc_like()?;
            let outs = out.shards_mut();
            chain(x, |s, seed| {
                let (shard, out) = (&x.shards()[s], &mut outs[s]);
                let before = if exclusive { Some(last(shard)?) } else { None };
                match seed {
                    None => scan.scan_monoid_into(shard, out)?,
                    Some(seed) => scan.scan_monoid_from_into(shard, out, seed)?,
                }
                let end = last(out)?;
                Ok(before.map_or(end, |b| M::combine(end, b)))
            })?;
            return Ok(out);
        }
        let offsets = self.offsets(M::identity(), M::combine, || self.totals.monoid_partials(x))?;
        let first = self.comm.local_ranks().start;
        self.each_shard(x, |s, shard, out| {
            let scan = self.engine(shard.gpu())?;
            if first + s == 0 {
                scan.scan_monoid_into(shard, out)
            } else {
                scan.scan_monoid_from_into(shard, out, offsets[first + s])
            }
        })
    }

    /// Whether `x`'s shards are scanned one after another, each from the running prefix of
    /// the ones before (read back from the device): one pass over the data, no totals. So
    /// when this process holds every rank and all on one device, whose time the shards share
    /// anyway; otherwise each shard's total is needed first, so that the devices scan side by
    /// side.
    fn chained<T: gpu_core::Pod>(&self, x: &ShardedArray<T>) -> bool {
        let shards = x.shards();
        shards.len() > 1
            && self.comm.local_ranks().len() == self.comm.ranks()
            && shards.iter().all(|s| s.gpu().same_device(shards[0].gpu()))
    }

    /// Every rank's offset for a scan with `op` (the shards' totals by gpu-reduce); an
    /// `InvalidArgument` for the 16-bit floats.
    fn op_offsets<T: Element>(&self, x: &ShardedArray<T>, op: Op) -> Result<Vec<T>> {
        check_seeded::<T>()?;
        self.offsets(
            op.identity::<T>()?,
            |a, b| T::combine(op, a, b),
            || {
                let totals = self.totals.op_partials(x, op)?;
                Ok(totals.into_iter().map(T::from_accumulator).collect())
            },
        )
    }

    /// Every rank's offset, in rank order: the exclusive scan from `identity` of the shards'
    /// totals (`totals()`: every rank's, gathered). One rank needs no totals.
    fn offsets<P: gpu_core::Pod>(
        &self,
        identity: P,
        combine: impl Fn(P, P) -> P,
        totals: impl FnOnce() -> Result<Vec<P>>,
    ) -> Result<Vec<P>> {
        if self.comm.ranks() == 1 {
            return Ok(vec![identity]);
        }
        Ok(exclusive_offsets(&totals()?, identity, combine))
    }

    /// A new array of `x`'s layout on its shards' devices, each shard written by
    /// `scan(s, shard, out)` on a thread of its own.
    fn each_shard<T: gpu_core::Pod>(
        &self,
        x: &ShardedArray<T>,
        scan: impl Fn(usize, &DeviceArray<T>, &mut DeviceArray<T>) -> Result<()> + Sync,
    ) -> Result<ShardedArray<T>> {
        let outs = on_each_shard(x.shards().len(), |s| {
            let shard = &x.shards()[s];
            let mut out = shard.gpu().alloc::<T>(shard.len())?;
            scan(s, shard, &mut out)?;
            Ok(out)
        })?;
        x.local_result(x.layout().clone(), outs)
    }
}

/// `Ok` for the types gpu-scan scans from a seed; an `InvalidArgument` for the 16-bit floats.
fn check_seeded<T: Element>() -> Result<()> {
    if T::computes_wider() {
        return Err(Error::invalid(
            "T",
            format!(
                "no sharded {} scans yet (gpu-scan has no seeded 16-bit scans)",
                T::NAME
            ),
        ));
    }
    Ok(())
}

/// The chained scan of `x`'s shards: [`chain_lens`] over their lengths.
fn chain<T: gpu_core::Pod, P: Copy>(
    x: &ShardedArray<T>,
    step: impl FnMut(usize, Option<P>) -> Result<P>,
) -> Result<()> {
    let lens: Vec<usize> = x.shards().iter().map(DeviceArray::len).collect();
    chain_lens(&lens, step)
}

/// For every non-empty shard in rank order (of `lens` elements), `step(s, seed)` scans shard
/// `s` from `seed`, the running prefix of the shards before (`None` for the first: the plain
/// scan), and returns the running prefix through it.
fn chain_lens<P: Copy>(
    lens: &[usize],
    mut step: impl FnMut(usize, Option<P>) -> Result<P>,
) -> Result<()> {
    let mut seed = None;
    for (s, &len) in lens.iter().enumerate() {
        if len > 0 {
            seed = Some(step(s, seed)?);
        }
    }
    Ok(())
}

/// The last element of a non-empty array (waits for its device's default stream).
fn last<T: gpu_core::Pod>(a: &DeviceArray<T>) -> Result<T> {
    let n = a.len();
    Ok(DeviceSlice::new(a, n - 1..n)?.stage(a.gpu())?.to_vec()?[0])
}
