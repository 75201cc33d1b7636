//! A flat array split into shards across devices (a device may hold several shards), in rank
//! order: shard `s` is elements `layout.range(s)` of the concatenated data.

use gpu_core::{DeviceArray, Error, Gpu, Pod, Result};

use crate::ShardLayout;

/// An array held as shards on devices, each a [`DeviceArray`] on its own device, in rank
/// order. Moving data in and out runs one thread per shard, so the shards' transfers overlap
/// (each device's copy engines, or one device's several streams).
pub struct ShardedArray<T: Pod> {
    layout: ShardLayout,
    shards: Vec<DeviceArray<T>>,
}

impl<T: Pod> ShardedArray<T> {
    /// Splits host `data` by `layout` over `devices` (one per shard, in rank order; the same
    /// device may appear several times) and uploads the shards, in parallel.
    pub fn from_host(devices: &[Gpu], data: &[T], layout: ShardLayout) -> Result<Self> {
        layout.check_total("data", data.len())?;
        if devices.len() != layout.shards() {
            return Err(Error::invalid(
                "devices",
                format!("{} devices for {} shards", devices.len(), layout.shards()),
            ));
        }
        let shards = on_each_shard(layout.shards(), |s| {
            devices[s].upload(&data[layout.range(s)])
        })?;
        Ok(Self { layout, shards })
    }

    /// The array made of `shards`, in rank order, as they are (no copy): the layout follows
    /// their lengths.
    pub fn from_shards(shards: Vec<DeviceArray<T>>) -> Result<Self> {
        let counts: Vec<usize> = shards.iter().map(DeviceArray::len).collect();
        let layout = ShardLayout::from_counts(&counts)?;
        Ok(Self { layout, shards })
    }

    /// How the elements are split.
    pub fn layout(&self) -> &ShardLayout {
        &self.layout
    }

    /// The number of elements in all shards.
    pub fn len(&self) -> usize {
        self.layout.total()
    }

    /// Whether every shard is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The shards, in rank order.
    pub fn shards(&self) -> &[DeviceArray<T>] {
        &self.shards
    }

    /// The shards back, in rank order.
    pub fn into_shards(self) -> Vec<DeviceArray<T>> {
        self.shards
    }

    /// The concatenated data on the host (the shards downloaded in parallel).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = gpu_core::host_output_vec::<T>(self.len());
        out.resize(self.len(), zero());
        let mut parts: Vec<&mut [T]> = Vec::with_capacity(self.shards.len());
        let mut rest = &mut out[..];
        for count in self.layout.counts() {
            let (part, tail) = rest.split_at_mut(count);
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

impl<T: Pod> std::fmt::Debug for ShardedArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedArray")
            .field("counts", &self.layout.counts().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// A zeroed `T` (every `Pod` accepts the all-zero bytes).
fn zero<T: Pod>() -> T {
    // SAFETY: T: Pod: every bit pattern, all zeros included, is a value.
    unsafe { std::mem::zeroed() }
}

/// Runs `work(s)` for every shard `s` on a thread of its own (a single shard on the calling
/// thread); the results in rank order, or the first error in rank order.
pub(crate) fn on_each_shard<R: Send>(
    shards: usize,
    work: impl Fn(usize) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    // One shard: on this thread (a thread's start costs more than a small reduction).
    if shards == 1 {
        return Ok(vec![work(0)?]);
    }
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..shards).map(|s| scope.spawn(move || work(s))).collect();
        join_in_rank_order(handles)
    })
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
