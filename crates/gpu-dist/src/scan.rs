//! Sharded scans: each shard's total (gpu-reduce), the totals all-gathered and scanned
//! exclusively in rank order, then each shard scanned from its offset (gpu-scan's
//! `scan_from_into`; the first shard by the plain scan, whose offset is the identity). Exact
//! operators give the single-GPU values; float running sums are grouped by shards.

use gpu_core::{DeviceArray, Element, Error, Op, Result};
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

    /// Every rank's offset for a scan with `op` (the shards' totals by gpu-reduce); an
    /// `InvalidArgument` for the 16-bit floats.
    fn op_offsets<T: Element>(&self, x: &ShardedArray<T>, op: Op) -> Result<Vec<T>> {
        if T::computes_wider() {
            return Err(Error::invalid(
                "T",
                format!(
                    "no sharded {} scans yet (gpu-scan has no seeded 16-bit scans)",
                    T::NAME
                ),
            ));
        }
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
