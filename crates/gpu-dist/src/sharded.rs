//! A flat array split into shards across devices (a device may hold several shards), in rank
//! order: shard `s` is elements `layout.range(s)` of the concatenated data.

use std::ops::Range;

use gpu_core::{DeviceArray, Error, Gpu, Pod, Result};

use crate::ShardLayout;

/// An array held as shards on devices, each a [`DeviceArray`] on its own device, in rank
/// order. Moving data in and out runs one thread per shard, so the shards' transfers overlap
/// (each device's copy engines, or one device's several streams).
///
/// A process may hold only some ranks' shards (one process per GPU over NCCL): the array then
/// knows the whole layout and holds ranks [`local_ranks`](Self::local_ranks) of it.
pub struct ShardedArray<T: Pod> {
    layout: ShardLayout,
    first: usize,
    shards: Vec<DeviceArray<T>>,
}

impl<T: Pod> ShardedArray<T> {
    /// Splits host `data` by `layout` over `devices` (one per shard, in rank order; the same
    /// device may appear several times) and uploads the shards, in parallel.
    pub fn from_host(devices: &[Gpu], data: &[T], layout: ShardLayout) -> Result<Self> {
        layout.check_total("data", data.len())?;
        check_devices(devices, layout.shards())?;
        let shards = on_each_shard_threads(layout.shards(), |s| {
            devices[s].upload(&data[layout.range(s)])
        })?;
        Ok(Self {
            layout,
            first: 0,
            shards,
        })
    }

    /// The array made of `shards`, in rank order, as they are (no copy): the layout follows
    /// their lengths.
    pub fn from_shards(shards: Vec<DeviceArray<T>>) -> Result<Self> {
        let counts: Vec<usize> = shards.iter().map(DeviceArray::len).collect();
        let layout = ShardLayout::from_counts(&counts)?;
        Ok(Self {
            layout,
            first: 0,
            shards,
        })
    }

    /// This process's part of an array split by `layout`: `shards` are ranks `first..first +
    /// shards.len()`, each as long as the layout says (no copy). A process of a multi-process
    /// communicator holds its own ranks' shards this way.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::Gpu;
    /// use gpu_dist::{ShardLayout, ShardedArray};
    /// let gpu = Gpu::default_device()?;
    /// let layout = ShardLayout::even(10, 2)?; // 5 + 5
    /// // Rank 1's process: elements 5..10 only.
    /// let x: Vec<u32> = (5..10).collect();
    /// let a = ShardedArray::from_local_shards(layout, 1, vec![gpu.upload(&x)?])?;
    /// assert_eq!((a.local_ranks(), a.local_range()), (1..2, 5..10));
    /// # Ok(()) }
    /// ```
    pub fn from_local_shards(
        layout: ShardLayout,
        first: usize,
        shards: Vec<DeviceArray<T>>,
    ) -> Result<Self> {
        check_local(&layout, first, shards.len())?;
        for (i, shard) in shards.iter().enumerate() {
            let want = layout.range(first + i).len();
            if shard.len() != want {
                return Err(Error::invalid(
                    "shards",
                    format!(
                        "shard of rank {} holds {} elements, the layout {want}",
                        first + i,
                        shard.len()
                    ),
                ));
            }
        }
        Ok(Self {
            layout,
            first,
            shards,
        })
    }

    /// Ranks `first..first + devices.len()` of `layout`, each shard made on its device by
    /// `make(gpu, range)` (`range`: the shard's elements of the whole array), in parallel:
    /// data generated where it lives, never passing through the host.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::Gpu;
    /// use gpu_dist::{ShardLayout, ShardedArray};
    /// let gpu = Gpu::default_device()?;
    /// let layout = ShardLayout::even(1 << 20, 4)?;
    /// let a = ShardedArray::<f32>::generate(&vec![gpu; 4], layout, 0, |gpu, range| {
    ///     gpu.iota::<f32>(range.len()) // 0, 1, 2, … in each shard
    /// })?;
    /// assert_eq!(a.len(), 1 << 20);
    /// # Ok(()) }
    /// ```
    pub fn generate(
        devices: &[Gpu],
        layout: ShardLayout,
        first: usize,
        make: impl Fn(&Gpu, Range<usize>) -> Result<DeviceArray<T>> + Sync,
    ) -> Result<Self> {
        check_local(&layout, first, devices.len())?;
        let shards = on_each_shard_threads(devices.len(), |i| {
            let range = layout.range(first + i);
            let want = range.len();
            let shard = make(&devices[i], range)?;
            if shard.len() != want || !shard.gpu().same_device(&devices[i]) {
                return Err(Error::invalid(
                    "make",
                    format!(
                        "made {} elements on device {} for rank {}: {want} on device {} expected",
                        shard.len(),
                        shard.gpu().properties().ordinal,
                        first + i,
                        devices[i].properties().ordinal
                    ),
                ));
            }
            Ok(shard)
        })?;
        Ok(Self {
            layout,
            first,
            shards,
        })
    }

    /// Ranks `first..first + devices.len()` of `layout`, allocated on the devices (contents
    /// unspecified): an output to write with the `_into` forms, again and again.
    pub fn alloc(devices: &[Gpu], layout: ShardLayout, first: usize) -> Result<Self> {
        Self::generate(devices, layout, first, |gpu, range| {
            gpu.alloc::<T>(range.len())
        })
    }

    /// A new array of this one's layout and ranks on the same devices (contents unspecified).
    pub fn alloc_like(&self) -> Result<Self> {
        self.alloc_with(self.layout.clone())
    }

    /// A new array of `layout` (as many shards as this one's layout) holding this array's
    /// ranks on the same devices (contents unspecified).
    pub(crate) fn alloc_with(&self, layout: ShardLayout) -> Result<Self> {
        let devices: Vec<Gpu> = self.shards.iter().map(|s| s.gpu().clone()).collect();
        Self::alloc(&devices, layout, self.first)
    }

    /// Checks that `out` has `layout` and this array's ranks, each shard on its input's
    /// device: an output of a sharded algorithm.
    pub(crate) fn check_output<U: Pod>(
        &self,
        out: &ShardedArray<U>,
        layout: &ShardLayout,
    ) -> Result<()> {
        if out.layout() != layout || out.local_ranks() != self.local_ranks() {
            return Err(Error::invalid(
                "out",
                format!(
                    "ranks {:?} of {:?} elements: ranks {:?} of {:?} expected",
                    out.local_ranks(),
                    out.layout().counts().collect::<Vec<_>>(),
                    self.local_ranks(),
                    layout.counts().collect::<Vec<_>>()
                ),
            ));
        }
        for (i, (a, b)) in self.shards.iter().zip(out.shards()).enumerate() {
            if !a.gpu().same_device(b.gpu()) {
                return Err(Error::invalid(
                    "out",
                    format!("shard {i} lives on another device than the input's"),
                ));
            }
        }
        Ok(())
    }

    /// How the elements are split.
    pub fn layout(&self) -> &ShardLayout {
        &self.layout
    }

    /// The number of elements in all shards (of every process).
    pub fn len(&self) -> usize {
        self.layout.total()
    }

    /// Whether every shard is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ranks whose shards this process holds (all of them unless made by
    /// [`from_local_shards`](Self::from_local_shards) or [`generate`](Self::generate)).
    pub fn local_ranks(&self) -> Range<usize> {
        self.first..self.first + self.shards.len()
    }

    /// The elements of the whole array that this process's shards hold.
    pub fn local_range(&self) -> Range<usize> {
        let r = self.local_ranks();
        if r.is_empty() {
            return 0..0;
        }
        self.layout.range(r.start).start..self.layout.range(r.end - 1).end
    }

    /// This process's shards, in rank order (rank `local_ranks().start + i` is shard `i`).
    pub fn shards(&self) -> &[DeviceArray<T>] {
        &self.shards
    }

    /// This process's shards, mutably (their lengths cannot change).
    pub(crate) fn shards_mut(&mut self) -> &mut [DeviceArray<T>] {
        &mut self.shards
    }

    /// The shards back, in rank order.
    pub fn into_shards(self) -> Vec<DeviceArray<T>> {
        self.shards
    }

    /// An array of `layout` holding this process's ranks of it as `shards` (a sharded
    /// algorithm's result).
    pub(crate) fn local_result(
        &self,
        layout: ShardLayout,
        shards: Vec<DeviceArray<T>>,
    ) -> Result<Self> {
        Self::from_local_shards(layout, self.first, shards)
    }

    /// The whole array on the host (the shards downloaded in parallel); an error when this
    /// process holds only some of the shards ([`local_to_vec`](Self::local_to_vec) then).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        if self.shards.len() != self.layout.shards() {
            return Err(Error::invalid(
                "self",
                format!(
                    "this process holds ranks {:?} of {}: local_to_vec gives their elements",
                    self.local_ranks(),
                    self.layout.shards()
                ),
            ));
        }
        self.local_to_vec()
    }

    /// This process's elements ([`local_range`](Self::local_range) of the whole array) on the
    /// host, the shards downloaded in parallel.
    pub fn local_to_vec(&self) -> Result<Vec<T>> {
        let n = self.local_range().len();
        let mut out = gpu_core::host_output_vec::<T>(n);
        out.resize(n, zero());
        let mut parts: Vec<&mut [T]> = Vec::with_capacity(self.shards.len());
        let mut rest = &mut out[..];
        for shard in &self.shards {
            let (part, tail) = rest.split_at_mut(shard.len());
            parts.push(part);
            rest = tail;
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .into_iter()
                .zip(&self.shards)
                .map(|(part, shard)| scope.spawn(move || shard.copy_to(part)))
                .collect();
            join_in_rank_order(handles)
        })?;
        Ok(out)
    }
}

impl<T: gpu_core::Element> ShardedArray<T> {
    /// Ranks `first..first + devices.len()` of `layout`, every element `value`, set on the
    /// devices.
    pub fn filled(devices: &[Gpu], layout: ShardLayout, first: usize, value: T) -> Result<Self> {
        Self::generate(devices, layout, first, |gpu, range| {
            let mut a = gpu.alloc::<T>(range.len())?;
            a.fill(value, gpu.stream())?;
            gpu.stream().synchronize()?;
            Ok(a)
        })
    }
}

/// Checks one device per shard.
fn check_devices(devices: &[Gpu], shards: usize) -> Result<()> {
    if devices.len() != shards {
        return Err(Error::invalid(
            "devices",
            format!("{} devices for {shards} shards", devices.len()),
        ));
    }
    Ok(())
}

/// Checks that ranks `first..first + count` lie in `layout`.
fn check_local(layout: &ShardLayout, first: usize, count: usize) -> Result<()> {
    if first
        .checked_add(count)
        .map_or(true, |end| end > layout.shards())
    {
        return Err(Error::invalid(
            "first",
            format!(
                "ranks {first}..{} of a layout of {} shards",
                first.saturating_add(count),
                layout.shards()
            ),
        ));
    }
    Ok(())
}

impl<T: Pod> std::fmt::Debug for ShardedArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedArray")
            .field("counts", &self.layout.counts().collect::<Vec<_>>())
            .field("local_ranks", &self.local_ranks())
            .finish_non_exhaustive()
    }
}

/// A zeroed `T` (every `Pod` accepts the all-zero bytes).
fn zero<T: Pod>() -> T {
    // SAFETY: T: Pod: every bit pattern, all zeros included, is a value.
    unsafe { std::mem::zeroed() }
}

/// Runs `work(s)` for every shard `s`, the shards side by side on rayon's threads (kept from
/// call to call: a thread started per shard and call cost more than a small reduction), a
/// single shard on the calling thread; the results in rank order, or the first error in rank
/// order. No shard's work may wait for another's.
pub(crate) fn on_each_shard<R: Send>(
    shards: usize,
    work: impl Fn(usize) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    if shards == 1 {
        return Ok(vec![work(0)?]);
    }
    use rayon::prelude::*;
    let results: Vec<Result<R>> = (0..shards)
        .into_par_iter()
        .with_max_len(1)
        .map(&work)
        .collect();
    results.into_iter().collect()
}

/// [`on_each_shard`] on threads of its own per shard (started for the call): for transfers,
/// which take host staging locks that a rayon thread must not hold while it waits for other
/// tasks.
pub(crate) fn on_each_shard_threads<R: Send>(
    shards: usize,
    work: impl Fn(usize) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    if shards == 1 {
        return Ok(vec![work(0)?]);
    }
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..shards).map(|s| scope.spawn(move || work(s))).collect();
        join_in_rank_order(handles)
    })
}

/// Runs `work(s, shard)` for every shard of `shards` as [`on_each_shard`] does; the first
/// error in rank order.
pub(crate) fn on_each_shard_mut<T: Pod>(
    shards: &mut [DeviceArray<T>],
    work: impl Fn(usize, &mut DeviceArray<T>) -> Result<()> + Sync,
) -> Result<()> {
    if let [only] = shards {
        return work(0, only);
    }
    use rayon::prelude::*;
    let results: Vec<Result<()>> = shards
        .par_iter_mut()
        .with_max_len(1)
        .enumerate()
        .map(|(s, shard)| work(s, shard))
        .collect();
    results.into_iter().collect()
}

/// Joins `handles` in order: their values, or the first error in that order (a panicking
/// thread re-raises its panic here, as `std::thread::scope` would).
fn join_in_rank_order<R>(
    handles: Vec<std::thread::ScopedJoinHandle<'_, Result<R>>>,
) -> Result<Vec<R>> {
    let results: Vec<Result<R>> = handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        .collect();
    results.into_iter().collect()
}

/// One value per device, made on first use (a primitive's engine with its uploaded mask or
/// reused scratch), so repeated calls allocate nothing per device.
pub(crate) struct PerDevice<V> {
    made: std::sync::Mutex<Vec<(usize, V)>>,
}

impl<V: Clone> PerDevice<V> {
    pub(crate) fn new() -> Self {
        Self {
            made: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The value for `gpu`, made by `make` the first time.
    pub(crate) fn get(&self, gpu: &Gpu, make: impl FnOnce() -> Result<V>) -> Result<V> {
        let ordinal = gpu.properties().ordinal;
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, v)) = made.iter().find(|(o, _)| *o == ordinal) {
            return Ok(v.clone());
        }
        let v = make()?;
        made.push((ordinal, v.clone()));
        Ok(v)
    }
}
