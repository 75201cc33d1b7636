//! The GPU side: the crate's kernels, the last-block counter, the work queue, the
//! persistent-grid helper and the demonstration.

use std::time::Duration;

use gpu_core::{kernel_args, DeviceArray, Error, Gpu, GpuTimer, Kernel, LaunchConfig, Pod};
use gpu_core::{Result, Stream};

use crate::args::WorkQueueArgs;
use crate::cpu::{demo_reference, DemoItem, DEMO_BLOCK, DEMO_LCG_A, DEMO_LCG_C};
use crate::kernels::SYNC_PTX;
use crate::plan::{self, Schedule};

// ---- Last-block counter --------------------------------------------------------------------

/// The device-resident counter `gp::is_last_block` needs: one `u32` in global memory, zero
/// when created.
///
/// The last block of each launch resets it to 0, so one counter serves any number of
/// launches that run one after the other (on one stream) with no reset in between. Give each
/// stream (each launch that may overlap another) its own counter. After a launch that failed
/// part way, [`reset`](LastBlockCounter::reset) it.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// let gpu = gpu_core::Gpu::default_device()?;
/// let counter = gpu_sync::LastBlockCounter::new(&gpu)?;
/// // ... launch kernels that take `counter.device_ptr()` as their `unsigned int* counter` ...
/// assert_eq!(counter.read(gpu.stream())?, 0); // every launch's last block reset it
/// # Ok(()) }
/// ```
pub struct LastBlockCounter {
    word: DeviceArray<u32>,
}

impl LastBlockCounter {
    /// A new counter on `gpu`, holding 0.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(LastBlockCounter {
            word: gpu.zeros::<u32>(1)?,
        })
    }

    /// The counter's device address: the kernel's `unsigned int* counter` argument.
    pub fn device_ptr(&self) -> u64 {
        self.word.device_ptr()
    }

    /// The counter's value after the work on `stream` (waits for `stream`). 0 between
    /// launches that completed.
    pub fn read(&self, stream: &Stream) -> Result<u32> {
        stream.synchronize()?;
        Ok(self.word.to_vec()?[0])
    }

    /// Sets the counter to 0, on `stream` (needed only after a launch that did not finish).
    pub fn reset(&self, stream: &Stream) -> Result<()> {
        self.word.memset_bytes(0, stream)
    }

    /// The device the counter lives on.
    pub fn gpu(&self) -> &Gpu {
        self.word.gpu()
    }
}

impl std::fmt::Debug for LastBlockCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastBlockCounter")
            .field("device_ptr", &format_args!("{:#x}", self.device_ptr()))
            .finish()
    }
}

// ---- Work queue ----------------------------------------------------------------------------

/// A global work queue: items in device memory plus the `u64` cursor that `gp::WorkQueue`
/// hands them out through.
///
/// A kernel gets [`args`](WorkQueue::args) (the device's `gp::WorkQueue`) and the items'
/// pointer [`items_ptr`](WorkQueue::items_ptr); its blocks fetch indices until the queue is
/// empty. The cursor starts at 0; [`reset`](WorkQueue::reset) it before each further launch
/// that should see every item again (a launch that finds the queue empty takes nothing).
/// [`taken`](WorkQueue::taken) reads back how many items were handed out.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_core::{kernel_args, Gpu};
/// let gpu = Gpu::default_device()?;
/// let items: Vec<u32> = (0..10_000).collect();
/// let queue = gpu_sync::WorkQueue::new(&gpu, &items)?;
/// # let kernel: gpu_core::Kernel = todo!();
/// // `kernel` is yours: my_kernel(gp::WorkQueue q, const unsigned int* items, ...).
/// let config = gpu_sync::persistent_config(&kernel, 256, 0)?;
/// // SAFETY: the arguments match my_kernel's parameters; the queue outlives the launch.
/// unsafe { kernel.launch(config, gpu.stream(), &kernel_args![queue.args(), queue.items_ptr()])? };
/// assert_eq!(queue.taken(gpu.stream())?, 10_000);
/// queue.reset(gpu.stream())?; // before launching over the same items again
/// # Ok(()) }
/// ```
pub struct WorkQueue<T: Pod> {
    items: DeviceArray<T>,
    cursor: DeviceArray<u64>,
}

impl<T: Pod> WorkQueue<T> {
    /// Uploads `items` and makes a cursor holding 0 (waits for both).
    pub fn new(gpu: &Gpu, items: &[T]) -> Result<Self> {
        Self::from_device(gpu.upload(items)?)
    }

    /// A queue over items already on the device, cursor at 0.
    pub fn from_device(items: DeviceArray<T>) -> Result<Self> {
        let cursor = items.gpu().zeros::<u64>(1)?;
        Ok(WorkQueue { items, cursor })
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the queue has no items at all (not whether they have been taken).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The items.
    pub fn items(&self) -> &DeviceArray<T> {
        &self.items
    }

    /// The items, for overwriting (same length) between launches.
    pub fn items_mut(&mut self) -> &mut DeviceArray<T> {
        &mut self.items
    }

    /// Device address of the first item (0 for an empty queue).
    pub fn items_ptr(&self) -> u64 {
        self.items.device_ptr()
    }

    /// Device address of the `u64` cursor.
    pub fn cursor_ptr(&self) -> u64 {
        self.cursor.device_ptr()
    }

    /// The kernel argument `gp::WorkQueue { cursor, total }`.
    pub fn args(&self) -> WorkQueueArgs {
        WorkQueueArgs {
            cursor: self.cursor_ptr(),
            total: self.len() as u64,
        }
    }

    /// Sets the cursor back to 0, on `stream`: the next launch on `stream` sees every item.
    pub fn reset(&self, stream: &Stream) -> Result<()> {
        self.cursor.memset_bytes(0, stream)
    }

    /// The raw cursor after the work on `stream` (waits for `stream`): above the item count
    /// once a launch has emptied the queue.
    pub fn cursor(&self, stream: &Stream) -> Result<u64> {
        stream.synchronize()?;
        Ok(self.cursor.to_vec()?[0])
    }

    /// How many items have been handed out since the last reset, after the work on `stream`
    /// (waits for `stream`): `min(cursor, len)`.
    pub fn taken(&self, stream: &Stream) -> Result<u64> {
        Ok(plan::queue_taken(self.cursor(stream)?, self.len() as u64))
    }

    /// The device the queue lives on.
    pub fn gpu(&self) -> &Gpu {
        self.items.gpu()
    }

    /// Gives back the items.
    pub fn into_items(self) -> DeviceArray<T> {
        self.items
    }
}

impl<T: Pod> std::fmt::Debug for WorkQueue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkQueue")
            .field("len", &self.len())
            .field("type", &std::any::type_name::<T>())
            .finish()
    }
}

// ---- Persistent grids ----------------------------------------------------------------------

/// The launch of a persistent-blocks kernel: as many blocks of `block` threads as are resident
/// on the whole GPU at once (SMs × blocks per SM from the occupancy API, through
/// [`Kernel::resident_grid`]), each looping over work until there is none left.
///
/// `dynamic_shared` is the dynamic shared memory per block, in bytes (above 48 KiB call
/// [`Kernel::set_max_dynamic_shared`] first). A block size of 0, or above what the kernel
/// allows, is an [`Error::InvalidArgument`].
pub fn persistent_config(kernel: &Kernel, block: u32, dynamic_shared: u32) -> Result<LaunchConfig> {
    persistent_config_capped(kernel, block, dynamic_shared, None)
}

/// [`persistent_config`] with at most `max_blocks` blocks (at least 1), for launches with
/// fewer units of work than resident blocks; `None` for no cap.
pub fn persistent_config_capped(
    kernel: &Kernel,
    block: u32,
    dynamic_shared: u32,
    max_blocks: Option<u64>,
) -> Result<LaunchConfig> {
    let most = kernel.max_threads_per_block()?;
    if block == 0 || block > most {
        return Err(Error::invalid(
            "block",
            format!(
                "{block} threads: kernel `{}` takes 1 to {most} threads per block",
                kernel.name()
            ),
        ));
    }
    let resident = kernel.resident_grid(block, dynamic_shared as usize)?;
    let grid = plan::persistent_grid(resident, max_blocks)?;
    Ok(LaunchConfig::new(grid, block).with_shared_bytes(dynamic_shared))
}

// ---- Demonstration -------------------------------------------------------------------------

/// The uneven-workload demonstration on the device: the items (in a [`WorkQueue`]) and one
/// result per item, ready to be run under any [`Schedule`] any number of times.
///
/// [`enqueue`](Demo::enqueue) is the part to time: for the queue it resets the cursor (an
/// 8-byte memset) and launches; otherwise it only launches. Results are compared with
/// [`demo_reference`].
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_sync::{heavy_tailed_items, Demo, HeavyTail, Schedule};
/// let gpu = gpu_core::Gpu::default_device()?;
/// let items = heavy_tailed_items(1 << 18, 7, &HeavyTail::default())?;
/// let mut demo = Demo::new(&gpu, &items)?;
/// let timer = gpu_core::GpuTimer::new(&gpu)?;
/// for schedule in [Schedule::Static, Schedule::Queue { batch: 1 }] {
///     let (_, t) = timer.time(gpu.stream(), || demo.enqueue(schedule, gpu.stream()))?;
///     println!("{schedule}: {t:?}");
/// }
/// assert_eq!(demo.results(gpu.stream())?, gpu_sync::demo_reference(&items));
/// # Ok(()) }
/// ```
pub struct Demo {
    queue: WorkQueue<DemoItem>,
    out: DeviceArray<u32>,
    /// sync_demo_static, sync_demo_strided, sync_demo_queue.
    kernels: [Kernel; 3],
    /// Their resident grids at DEMO_BLOCK threads (with the table's shared memory), computed
    /// once so that `enqueue` does no more host work than the launch itself (it runs between
    /// timing events).
    resident: [u32; 3],
    /// LCG steps per table word of the per-block setup (0: none).
    setup: u32,
}

impl Demo {
    /// Uploads `items`, allocates the results (filled with `0xFFFF_FFFF` until a run writes
    /// them) and loads the kernels (waits for all of it). No per-block setup.
    pub fn new(gpu: &Gpu, items: &[DemoItem]) -> Result<Self> {
        Self::with_setup(gpu, items, 0)
    }

    /// [`new`](Demo::new) with a per-block setup: every block first builds a table of
    /// [`DEMO_TABLE_WORDS`](crate::DEMO_TABLE_WORDS) words in shared memory, `setup` LCG steps
    /// each, before its first item — the cost persistent blocks pay once and one block per
    /// item pays for every item. Results as
    /// [`demo_reference_with_setup`](crate::demo_reference_with_setup).
    pub fn with_setup(gpu: &Gpu, items: &[DemoItem], setup: u32) -> Result<Self> {
        let queue = WorkQueue::new(gpu, items)?;
        let out = gpu.alloc::<u32>(items.len())?;
        out.memset_bytes(0xFF, gpu.stream())?;
        gpu.stream().synchronize()?;
        let kernels = [
            gpu.kernel(&SYNC_PTX, "sync_demo_static")?,
            gpu.kernel(&SYNC_PTX, "sync_demo_strided")?,
            gpu.kernel(&SYNC_PTX, "sync_demo_queue")?,
        ];
        let shared = table_bytes(setup);
        let resident = [
            kernels[0].resident_grid(DEMO_BLOCK, shared as usize)?,
            kernels[1].resident_grid(DEMO_BLOCK, shared as usize)?,
            kernels[2].resident_grid(DEMO_BLOCK, shared as usize)?,
        ];
        Ok(Demo {
            queue,
            out,
            kernels,
            resident,
            setup,
        })
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        self.queue.gpu()
    }

    /// LCG steps per table word of the per-block setup (0: none).
    pub fn setup(&self) -> u32 {
        self.setup
    }

    fn kernel_index(schedule: Schedule) -> usize {
        match schedule {
            Schedule::Static => 0,
            Schedule::Strided | Schedule::BlockPerItem => 1,
            Schedule::Queue { .. } => 2,
        }
    }

    /// The launch `schedule` uses ([`DEMO_BLOCK`] threads per block; the grid from
    /// [`plan::demo_grid`]), or `None` when there are no items (nothing is launched).
    pub fn config(&self, schedule: Schedule) -> Result<Option<LaunchConfig>> {
        let resident = self.resident[Self::kernel_index(schedule)];
        let max_grid_x = self.gpu().properties().max_grid_x;
        let grid = plan::demo_grid(schedule, self.len() as u64, resident, max_grid_x)?;
        let shared = table_bytes(self.setup);
        Ok(grid.map(|g| LaunchConfig::new(g, DEMO_BLOCK).with_shared_bytes(shared)))
    }

    /// Runs the items under `schedule` on `stream` (returns at once; the launch is enqueued):
    /// for the queue, a cursor reset then the launch; otherwise the launch alone. Returns the
    /// launch, `None` when there are no items.
    pub fn enqueue(&mut self, schedule: Schedule, stream: &Stream) -> Result<Option<LaunchConfig>> {
        let Some(config) = self.config(schedule)? else {
            return Ok(None);
        };
        let kernel = &self.kernels[Self::kernel_index(schedule)];
        let (items, out, n) = (
            self.queue.items_ptr(),
            self.out.device_ptr(),
            self.len() as u64,
        );
        let (a, c, setup) = (DEMO_LCG_A, DEMO_LCG_C, self.setup);
        match schedule {
            Schedule::Static | Schedule::Strided | Schedule::BlockPerItem => {
                // SAFETY: sync_demo_{static,strided}(const DemoItem* items, u64 n, u32* out,
                // u32 a, u32 c, u32 setup) read items[0..n) and write out[0..n); both arrays
                // hold n elements and live in `self` (freeing device memory waits for the
                // kernels still using it); with setup > 0 the launch carries the table's
                // dynamic shared memory (`config`).
                unsafe {
                    kernel.launch(config, stream, &kernel_args![items, n, out, a, c, setup])?
                };
            }
            Schedule::Queue { batch } => {
                self.queue.reset(stream)?;
                let (q, batch) = (self.queue.args(), batch as u64);
                // SAFETY: sync_demo_queue(gp::WorkQueue q, u64 batch, const DemoItem* items,
                // u32* out, u32 a, u32 c, u32 setup): `q` is the 16-byte {cursor, total = n}
                // matching gp::WorkQueue; items and out hold n elements; all live in `self`;
                // the table's shared memory comes with `config`.
                unsafe {
                    kernel.launch(
                        config,
                        stream,
                        &kernel_args![q, batch, items, out, a, c, setup],
                    )?
                };
            }
        }
        Ok(Some(config))
    }

    /// The per-item results of the last run, after the work on `stream` (waits for `stream`).
    pub fn results(&self, stream: &Stream) -> Result<Vec<u32>> {
        stream.synchronize()?;
        self.out.to_vec()
    }

    /// Fills the results with `0xFFFF_FFFF` again, on `stream` (so a later run must write
    /// every one of them to pass a check).
    pub fn clear_results(&mut self, stream: &Stream) -> Result<()> {
        self.out.memset_bytes(0xFF, stream)
    }

    /// Items the queue handed out in its last run (waits for `stream`); `len()` after a
    /// complete [`Schedule::Queue`] run.
    pub fn taken(&self, stream: &Stream) -> Result<u64> {
        self.queue.taken(stream)
    }
}

/// Dynamic shared memory of the demonstration kernels: the table, when there is a setup.
fn table_bytes(setup: u32) -> u32 {
    if setup == 0 {
        0
    } else {
        crate::DEMO_TABLE_WORDS * 4
    }
}

impl std::fmt::Debug for Demo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Demo").field("len", &self.len()).finish()
    }
}

/// One checked, timed run of the demonstration (see [`run_demo`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DemoRun {
    /// The schedule that ran.
    pub schedule: Schedule,
    /// Its launch (`None`: no items, nothing launched).
    pub config: Option<LaunchConfig>,
    /// Device time of [`Demo::enqueue`] (CUDA events around it on the stream).
    pub kernel_time: Duration,
    /// One result per item.
    pub results: Vec<u32>,
    /// Results that differ from [`demo_reference`] (0 when correct).
    pub mismatches: usize,
    /// For [`Schedule::Queue`]: items the queue handed out (the item count when correct).
    pub taken: Option<u64>,
}

impl DemoRun {
    /// Whether every result matched the CPU reference and a queue handed out every item.
    pub fn is_correct(&self) -> bool {
        let all_taken = match self.taken {
            Some(t) => t == self.results.len() as u64,
            None => true,
        };
        self.mismatches == 0 && all_taken
    }
}

/// Runs the demonstration once: uploads `items`, times one [`Demo::enqueue`] under `schedule`
/// on `stream` with CUDA events, downloads the results and compares them with
/// [`demo_reference`].
///
/// One launch right after the upload includes first-launch effects; for steady figures keep a
/// [`Demo`] and time repeated [`Demo::enqueue`] calls.
pub fn run_demo(
    gpu: &Gpu,
    items: &[DemoItem],
    schedule: Schedule,
    stream: &Stream,
) -> Result<DemoRun> {
    schedule.validate()?;
    let mut demo = Demo::new(gpu, items)?;
    let timer = GpuTimer::new(gpu)?;
    let (config, kernel_time) = timer.time(stream, || demo.enqueue(schedule, stream))?;
    let results = demo.results(stream)?;
    let reference = demo_reference(items);
    let mismatches = results
        .iter()
        .zip(&reference)
        .filter(|(a, b)| a != b)
        .count();
    let taken = match schedule {
        Schedule::Queue { .. } if config.is_some() => Some(demo.taken(stream)?),
        Schedule::Queue { .. } => Some(0),
        _ => None,
    };
    Ok(DemoRun {
        schedule,
        config,
        kernel_time,
        results,
        mismatches,
        taken,
    })
}
