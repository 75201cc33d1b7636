//! Self-checks of the guard and the queue on the device: the probe kernels the GPU tests and
//! the compute-sanitizer runs use, usable on any GPU to check this crate there.
//!
//! ```no_run
//! # fn main() -> gpu_core::Result<()> {
//! use gpu_sync::selftest::{guard_probe, queue_probe, Fetch};
//! let gpu = gpu_core::Gpu::default_device()?;
//! let counter = gpu_sync::LastBlockCounter::new(&gpu)?;
//! guard_probe(&counter, 264, 256, 100, 0, gpu.stream())?.check().unwrap();
//! queue_probe(&gpu, 1_000_000, Fetch::Batch(16), None, gpu.stream())?.check().unwrap();
//! # Ok(()) }
//! ```

use gpu_core::data::SplitMix64;
use gpu_core::{kernel_args, DeviceArray, Error, Gpu, Kernel, LaunchConfig, Result, Stream};
use rayon::prelude::*;

use crate::cpu::{guard_sum, queue_output};
use crate::gpu::{persistent_config, LastBlockCounter, WorkQueue};
use crate::kernels::SYNC_PTX;

// ---- Guard ---------------------------------------------------------------------------------

/// What [`guard_probe`] saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardReport {
    /// Blocks per launch.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Launches, back to back on one counter.
    pub launches: u32,
    /// `last_threads[launch × grid + b]`: how many threads of block `b` were told "last" in
    /// that launch (correct: `block` for exactly one `b` per launch, 0 for the others).
    pub last_threads: Vec<u32>,
    /// The sum of every thread's partial, as the last block read it, per launch.
    pub sums: Vec<u64>,
    /// The sums the CPU expects.
    pub expected_sums: Vec<u64>,
    /// The counter after the last launch (correct: 0).
    pub counter_after: u32,
}

impl GuardReport {
    /// The blocks that were told "last" (by at least one thread) in launch `launch`.
    pub fn last_blocks(&self, launch: u32) -> Vec<u32> {
        let row = launch as usize * self.grid as usize;
        (0..self.grid)
            .filter(|&b| self.last_threads[row + b as usize] != 0)
            .collect()
    }

    /// `Ok` when every launch had exactly one last block, all of whose threads knew it, that
    /// block saw every partial of its launch, and the counter ended at 0; otherwise the first
    /// few problems.
    pub fn check(&self) -> std::result::Result<(), String> {
        let mut problems = Vec::new();
        for launch in 0..self.launches {
            let last = self.last_blocks(launch);
            let row = launch as usize * self.grid as usize;
            match last.as_slice() {
                [b] if self.last_threads[row + *b as usize] == self.block => {}
                _ => problems.push(format!(
                    "launch {launch}: blocks told last {:?} (threads {:?}), expected one block with all {} threads",
                    last,
                    last.iter().map(|&b| self.last_threads[row + b as usize]).collect::<Vec<_>>(),
                    self.block
                )),
            }
            let l = launch as usize;
            if self.sums[l] != self.expected_sums[l] {
                problems.push(format!(
                    "launch {launch}: the last block summed {} instead of {} (it missed partials)",
                    self.sums[l], self.expected_sums[l]
                ));
            }
        }
        if self.counter_after != 0 {
            problems.push(format!(
                "counter ends at {} instead of 0",
                self.counter_after
            ));
        }
        if problems.is_empty() {
            return Ok(());
        }
        let n = problems.len();
        problems.truncate(10);
        Err(format!(
            "guard probe (grid {}, block {}, {} launches): {n} problem(s):\n  {}",
            self.grid,
            self.block,
            self.launches,
            problems.join("\n  ")
        ))
    }
}

fn check_probe_block(block: u32) -> Result<()> {
    if block == 0 || block % 32 != 0 || block > 1024 {
        return Err(Error::invalid(
            "block",
            format!("{block} threads: the probes take a multiple of 32, at most 1024"),
        ));
    }
    Ok(())
}

/// The longest sleep [`guard_probe`] accepts, in nanoseconds (`__nanosleep` sleeps about a
/// millisecond at most).
pub const MAX_DELAY_NS: u32 = 1_000_000;

/// Runs `sync_guard_probe` `launches` times back to back on `stream`, on `counter` and with
/// no reset in between, with `grid` blocks of `block` threads (a multiple of 32).
///
/// Every thread writes a partial; in each block the last thread first sleeps up to
/// `delay_ns` nanoseconds (0: no sleep; at most [`MAX_DELAY_NS`]), so the guard must cover writes of threads other than
/// the block's leader and the last block varies. Each launch's last block records itself and
/// sums every partial. Waits for `stream`, then returns what happened; see
/// [`GuardReport::check`].
pub fn guard_probe(
    counter: &LastBlockCounter,
    grid: u32,
    block: u32,
    launches: u32,
    delay_ns: u32,
    stream: &Stream,
) -> Result<GuardReport> {
    check_probe_block(block)?;
    if grid == 0 {
        return Err(Error::invalid("grid", "a launch needs at least one block"));
    }
    if launches == 0 {
        return Err(Error::invalid("launches", "at least one launch"));
    }
    if delay_ns > MAX_DELAY_NS {
        return Err(Error::invalid(
            "delay_ns",
            format!("{delay_ns}: at most {MAX_DELAY_NS}"),
        ));
    }
    let gpu = counter.gpu();
    let threads = grid as u64 * block as u64;
    let kernel = gpu.kernel(&SYNC_PTX, "sync_guard_probe")?;
    let most = kernel.max_threads_per_block()?;
    if block > most {
        return Err(Error::invalid(
            "block",
            format!("{block} threads: sync_guard_probe takes at most {most}"),
        ));
    }
    let partials = gpu.alloc::<u32>(threads as usize)?;
    let last_threads = gpu.zeros::<u32>(launches as usize * grid as usize)?;
    let sums = gpu.zeros::<u64>(launches as usize)?;
    let config = LaunchConfig::new(grid, block);
    for launch in 0..launches {
        // SAFETY: sync_guard_probe(unsigned* counter, u32* partials, u32* last_threads,
        // u64* sums, u32 launch, u32 delay_ns): partials holds grid·block elements,
        // last_threads launches·grid, sums launches, and launch < launches; the counter is
        // one u32. All outlive the launches (we wait for the stream below).
        unsafe {
            kernel.launch(
                config,
                stream,
                &kernel_args![
                    counter.device_ptr(),
                    partials.device_ptr(),
                    last_threads.device_ptr(),
                    sums.device_ptr(),
                    launch,
                    delay_ns
                ],
            )?;
        }
    }
    let counter_after = counter.read(stream)?;
    let expected_sums = (0..launches)
        .into_par_iter()
        .map(|l| guard_sum(threads, l))
        .collect();
    Ok(GuardReport {
        grid,
        block,
        launches,
        last_threads: last_threads.to_vec()?,
        sums: sums.to_vec()?,
        expected_sums,
        counter_after,
    })
}

// ---- Queue ---------------------------------------------------------------------------------

/// How the queue probe's blocks fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetch {
    /// `gp::WorkQueue::fetch`: one item per atomic; every thread of the block counts the item.
    Single,
    /// `gp::WorkQueue::fetch_batch` with this batch (≥ 1); one thread counts each item.
    Batch(u64),
}

impl Fetch {
    /// How much one take of an item adds to its hit counter with blocks of `block` threads.
    pub fn hits_per_take(&self, block: u32) -> u32 {
        match self {
            Fetch::Single => block,
            Fetch::Batch(_) => 1,
        }
    }
}

/// Threads per block of the queue probe.
pub const QUEUE_PROBE_BLOCK: u32 = 128;

/// A work queue of `u32` items with per-item hit counters, for checking that every item is
/// taken exactly once.
pub struct QueueProbe {
    queue: WorkQueue<u32>,
    host_items: Vec<u32>,
    out: DeviceArray<u32>,
    hits: DeviceArray<u32>,
    single: Kernel,
    batch: Kernel,
}

impl QueueProbe {
    /// `n` random items (from `seed`), hit counters and outputs at 0, cursor at 0.
    pub fn new(gpu: &Gpu, n: usize, seed: u64) -> Result<Self> {
        let mut rng = SplitMix64::new(seed);
        let host_items: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        Ok(QueueProbe {
            queue: WorkQueue::new(gpu, &host_items)?,
            host_items,
            out: gpu.zeros::<u32>(n)?,
            hits: gpu.zeros::<u32>(n)?,
            single: gpu.kernel(&SYNC_PTX, "sync_queue_probe_single")?,
            batch: gpu.kernel(&SYNC_PTX, "sync_queue_probe_batch")?,
        })
    }

    /// The queue (to reset it, or read its cursor).
    pub fn queue(&self) -> &WorkQueue<u32> {
        &self.queue
    }

    /// The launch [`launch`](QueueProbe::launch) uses: `grid` blocks, or the persistent grid.
    pub fn config(&self, fetch: Fetch, grid: Option<u32>) -> Result<LaunchConfig> {
        let kernel = match fetch {
            Fetch::Single => &self.single,
            Fetch::Batch(_) => &self.batch,
        };
        match grid {
            Some(0) => Err(Error::invalid("grid", "a launch needs at least one block")),
            Some(g) => Ok(LaunchConfig::new(g, QUEUE_PROBE_BLOCK)),
            None => persistent_config(kernel, QUEUE_PROBE_BLOCK, 0),
        }
    }

    /// Launches one probe over the queue on `stream` (without resetting the cursor), with
    /// `grid` blocks or, for `None`, the persistent grid. Returns the launch.
    pub fn launch(
        &mut self,
        fetch: Fetch,
        grid: Option<u32>,
        stream: &Stream,
    ) -> Result<LaunchConfig> {
        let config = self.config(fetch, grid)?;
        let (q, items, out, hits) = (
            self.queue.args(),
            self.queue.items_ptr(),
            self.out.device_ptr(),
            self.hits.device_ptr(),
        );
        match fetch {
            Fetch::Single => {
                // SAFETY: sync_queue_probe_single(gp::WorkQueue q, const u32* items, u32* out,
                // u32* hits): q = {cursor, total = n} (16 bytes, as gp::WorkQueue); items, out
                // and hits hold n elements, indexed only below q.total; all live in `self`.
                unsafe {
                    self.single
                        .launch(config, stream, &kernel_args![q, items, out, hits])?
                };
            }
            Fetch::Batch(batch) => {
                if batch == 0 {
                    return Err(Error::invalid("batch", "a batch needs at least one item"));
                }
                // SAFETY: sync_queue_probe_batch(gp::WorkQueue q, u64 batch, const u32* items,
                // u32* out, u32* hits): as above, plus the batch size.
                unsafe {
                    self.batch
                        .launch(config, stream, &kernel_args![q, batch, items, out, hits])?
                };
            }
        }
        Ok(config)
    }

    /// Hit counters, outputs and cursor after the work on `stream` (waits for `stream`).
    pub fn report(&self, stream: &Stream) -> Result<QueueReport> {
        let cursor = self.queue.cursor(stream)?;
        let out = self.out.to_vec()?;
        let wrong_outputs = out
            .par_iter()
            .zip(&self.host_items)
            .filter(|(&o, &v)| o != queue_output(v))
            .count();
        Ok(QueueReport {
            total: self.queue.len() as u64,
            hits: self.hits.to_vec()?,
            wrong_outputs,
            cursor,
            taken: crate::plan::queue_taken(cursor, self.queue.len() as u64),
        })
    }
}

impl std::fmt::Debug for QueueProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueProbe")
            .field("len", &self.queue.len())
            .finish()
    }
}

/// What the queue probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueReport {
    /// Items in the queue.
    pub total: u64,
    /// Per item, the sum of what every take added ([`Fetch::hits_per_take`]).
    pub hits: Vec<u32>,
    /// Items whose output is not what the kernel computes from the item (never written, or
    /// written from the wrong item).
    pub wrong_outputs: usize,
    /// The raw cursor.
    pub cursor: u64,
    /// `min(cursor, total)`.
    pub taken: u64,
}

impl QueueReport {
    /// `Ok` when every item's hit counter equals `expected_hits`, every output is right and
    /// the queue reports every item taken; otherwise a description.
    pub fn check_hits(&self, expected_hits: u32) -> std::result::Result<(), String> {
        let bad: Vec<(usize, u32)> = self
            .hits
            .iter()
            .enumerate()
            .filter(|(_, &h)| h != expected_hits)
            .map(|(i, &h)| (i, h))
            .collect();
        let mut problems = Vec::new();
        if !bad.is_empty() {
            problems.push(format!(
                "{} of {} items hit other than {expected_hits} times, e.g. (item, hits) {:?}",
                bad.len(),
                self.total,
                &bad[..bad.len().min(8)]
            ));
        }
        if self.wrong_outputs != 0 {
            problems.push(format!("{} wrong outputs", self.wrong_outputs));
        }
        if self.taken != self.total {
            problems.push(format!(
                "taken {} (cursor {}) of {}",
                self.taken, self.cursor, self.total
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!("queue probe: {}", problems.join("; ")))
        }
    }
}

/// The queue probe's report together with how it was run, from [`queue_probe`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueRun {
    /// How blocks fetched.
    pub fetch: Fetch,
    /// The launch.
    pub config: LaunchConfig,
    /// What it saw.
    pub report: QueueReport,
}

impl QueueRun {
    /// `Ok` when every item was taken exactly once (see [`QueueReport::check_hits`]).
    pub fn check(&self) -> std::result::Result<(), String> {
        self.report
            .check_hits(self.fetch.hits_per_take(self.config.block))
            .map_err(|e| format!("{e} ({:?}, {:?})", self.fetch, self.config))
    }
}

/// One probe launch over a fresh queue of `n` items: `grid` blocks (`None`: the persistent
/// grid) fetching with `fetch`. Waits for `stream`; see [`QueueRun::check`].
pub fn queue_probe(
    gpu: &Gpu,
    n: usize,
    fetch: Fetch,
    grid: Option<u32>,
    stream: &Stream,
) -> Result<QueueRun> {
    let mut probe = QueueProbe::new(gpu, n, 0x5eed ^ n as u64)?;
    let config = probe.launch(fetch, grid, stream)?;
    Ok(QueueRun {
        fetch,
        config,
        report: probe.report(stream)?,
    })
}
