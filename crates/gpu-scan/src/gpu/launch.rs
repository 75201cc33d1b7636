//! The launches behind [`Scanner`]: kernel choice, scratch, grid and the three device-level
//! algorithm shapes (in order, decoupled look-back, recursive block sums).

use std::mem::MaybeUninit;

use gpu_core::{
    grid_for, kernel_args, Element, Error, Gpu, Kernel, LaunchConfig, Op, Result, Stream,
    PIPELINE_CHUNK_BYTES, PIPELINE_RING_SLOTS,
};

use super::status_epochs::RunEpoch;
use super::{cpu_algorithm_async, Scanner, HELPER_BLOCK};
use crate::kernels::{SCAN_PTX, SCAN_SM80_PTX, SCAN_SM90_PTX};
use crate::plan::{self, Level, LookbackPlan, RecursivePlan, StatusLayout};
use crate::{is_exact, Algorithm, ScanKind, ScanMonoid, ScanOptions, TileStaging};

/// What the kernel names and the plans need to know about (operator, value type).
pub(crate) struct Combo {
    /// Kernel name suffix: `sum_f32`, `mat2_u64`, ...
    pub(super) suffix: String,
    /// Whether every grouping gives the same result.
    pub(crate) exact: bool,
    /// Bytes per value.
    pub(super) size: usize,
    /// Bytes per input value (2 for f16 and bf16, whose status holds f32).
    in_size: usize,
    /// Whether `scan_sm80.cu` has staged look-back kernels for it (the element operators,
    /// 16-bit floats included).
    staged_kernel: bool,
    /// Only the look-back kernels exist (f16 and bf16).
    lookback_only: bool,
    /// 16-bit values with f32 results (their staged tile has another shape).
    to_f32: bool,
    /// Whether `scan_sm90.cu` has a warp-specialised flat kernel for it (sum, prod, min and max
    /// of 4- and 8-byte values; float sums and products also with the fixed-order look-back).
    warp_specialized: bool,
}

impl Combo {
    /// `op` over `T`, results in `T`.
    pub(crate) fn op<T: Element>(op: Op) -> Result<Self> {
        Self::with_output::<T>(op, T::NAME)
    }

    /// `op` over `T`, results in `T::Accumulator` (f32 for f16 and bf16).
    pub(crate) fn op_accumulated<T: Element>(op: Op) -> Result<Self> {
        Self::with_output::<T>(op, T::Accumulator::NAME)
    }

    fn with_output<T: Element>(op: Op, out: &str) -> Result<Self> {
        crate::check_op::<T>(op)?;
        let wider = T::computes_wider();
        Ok(Combo {
            // f16/bf16: scan_lookback_sum_f16_to_f16, scan_lookback_det_sum_bf16_to_f32, ...
            suffix: if wider {
                format!("{}_{}_to_{out}", op.name(), T::NAME)
            } else {
                format!("{}_{}", op.name(), T::NAME)
            },
            exact: is_exact::<T>(op),
            // The look-back status holds accumulator values (f32; the tile: plan::lookback_half).
            size: std::mem::size_of::<T::Accumulator>(),
            in_size: std::mem::size_of::<T>(),
            // Every operator of 4- and 8-byte values and of the 16-bit floats (sum, min, max).
            staged_kernel: true,
            lookback_only: wider,
            to_f32: wider && out == f32::NAME,
            warp_specialized: !wider
                && matches!(std::mem::size_of::<T>(), 4 | 8)
                && matches!(op, Op::Sum | Op::Product | Op::Min | Op::Max),
        })
    }

    pub(crate) fn monoid<M: ScanMonoid>() -> Self {
        Combo {
            suffix: M::NAME.to_string(),
            exact: M::EXACT,
            size: std::mem::size_of::<M>(),
            in_size: std::mem::size_of::<M>(),
            staged_kernel: false,
            lookback_only: false,
            to_f32: false,
            warp_specialized: false,
        }
    }
}

impl Scanner {
    /// Enqueues the scan of `n` elements at `input` into `output` (both this device's memory,
    /// kept alive by the caller until the stream has run): the raw form behind [`crate::Scan`].
    pub(crate) fn enqueue_op<T: Element>(
        &mut self,
        input: u64,
        output: u64,
        n: usize,
        op: Op,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        let combo = Combo::op::<T>(op)?;
        self.enqueue(&combo, input, output, n, options, stream)
    }

    /// [`enqueue_op`](Self::enqueue_op) with results in the accumulator type.
    pub(crate) fn enqueue_op_accumulated<T: Element>(
        &mut self,
        input: u64,
        output: u64,
        n: usize,
        op: Op,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        let combo = Combo::op_accumulated::<T>(op)?;
        self.enqueue(&combo, input, output, n, options, stream)
    }

    /// [`enqueue_op`](Self::enqueue_op) for monoid values.
    pub(crate) fn enqueue_monoid<M: ScanMonoid>(
        &mut self,
        input: u64,
        output: u64,
        n: usize,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        self.enqueue(&Combo::monoid::<M>(), input, output, n, options, stream)
    }

    pub(super) fn check_arrays(&self, gpu: &Gpu) -> Result<()> {
        if !gpu.same_device(&self.gpu) {
            return Err(Error::invalid(
                "array",
                "lives on another device (or context) than the scanner",
            ));
        }
        Ok(())
    }

    /// Device address of at least `bytes` of scratch (0 when none is needed), for any use but
    /// the flat look-back's epoch-tagged status, which it may overwrite: that is zeroed again.
    pub(super) fn scratch(&mut self, bytes: usize) -> Result<u64> {
        self.epochs.forget();
        self.scratch_keeping_status(bytes)
    }

    /// [`scratch`](Self::scratch), keeping what the status words are known to hold: for
    /// [`epoch_status`](Self::epoch_status), which zeroes any buffer it has not written.
    fn scratch_keeping_status(&mut self, bytes: usize) -> Result<u64> {
        if bytes == 0 {
            return Ok(0);
        }
        let words = bytes.div_ceil(8);
        let too_small = match &self.scratch {
            Some(s) => s.len() < words,
            None => true,
        };
        if too_small {
            // Free the old buffer first (cuMemFree waits for work still using it).
            self.scratch = None;
            self.scratch = Some(self.gpu.alloc::<u64>(words)?);
        }
        Ok(self.scratch.as_ref().map_or(0, |s| s.device_ptr()))
    }

    pub(super) fn check_kernel(&self, kernel: &Kernel, block: u32) -> Result<()> {
        let max = kernel.max_threads_per_block()?;
        if block > max {
            return Err(Error::invalid(
                "block_size",
                format!(
                    "{block} threads: kernel `{}` can run at most {max} per block on this device",
                    kernel.name()
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn grid(&self, blocks: u64) -> Result<u32> {
        let max = self.gpu.properties().max_grid_x as u64;
        if blocks > max {
            return Err(Error::invalid(
                "len",
                format!("needs {blocks} blocks in one launch; the device allows {max}"),
            ));
        }
        Ok(blocks as u32)
    }

    pub(super) fn enqueue(
        &mut self,
        combo: &Combo,
        input: u64,
        output: u64,
        n: usize,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        let algorithm = options.algorithm.resolve(combo.exact);
        // Plans first: bad block sizes are reported even for empty inputs.
        match algorithm {
            Algorithm::Serial | Algorithm::Rayon => Err(cpu_algorithm_async(algorithm)),
            Algorithm::LookBack | Algorithm::LookBackDeterministic | Algorithm::Auto => {
                let (plan, deterministic) = self.lookback_plan(combo, algorithm, options, n)?;
                if n == 0 {
                    return Ok(());
                }
                let warp_specialized =
                    self.takes_warp_specialized(combo, options, input, output, n);
                self.in_order(stream, |s| {
                    if warp_specialized {
                        let run = s.warp_specialized_begin(combo, deterministic, n, stream)?;
                        s.warp_specialized_tiles(&run, input, output, n, 0, options.kind, stream)
                    } else {
                        s.lookback(
                            combo,
                            deterministic,
                            &plan,
                            input,
                            output,
                            n,
                            options.kind,
                            stream,
                        )
                    }
                })
            }
            Algorithm::HillisSteele | Algorithm::Blelloch | Algorithm::BlellochPadded => {
                if combo.lookback_only {
                    return Err(Error::invalid(
                        "algorithm",
                        format!(
                            "{algorithm:?} is not built for 16-bit floats (`{}`): they scan \
                             with the look-back (Auto, LookBack, LookBackDeterministic)",
                            combo.suffix
                        ),
                    ));
                }
                let plan = plan::recursive(algorithm, n.max(1), combo.size, options.block_size)?;
                if n == 0 {
                    return Ok(());
                }
                self.in_order(stream, |s| {
                    s.recursive(combo, algorithm, &plan, input, output, options.kind, stream)
                })
            }
        }
    }

    /// The look-back plan of `n` values (tile staging and block as `options` ask) and whether
    /// its look-back is the deterministic one.
    fn lookback_plan(
        &self,
        combo: &Combo,
        algorithm: Algorithm,
        options: &ScanOptions,
        n: usize,
    ) -> Result<(LookbackPlan, bool)> {
        lookback_plan_on(&self.gpu, combo, algorithm, options, n)
    }

    /// The scan of host `input` with `op` into `output` through the device's host pipeline
    /// ([`Gpu::host_pipeline_ring`]): chunks of whole tiles, uploaded into a three-chunk
    /// device ring, scanned in place there and downloaded on three streams, each chunk's launch continuing the tile counter and
    /// look-back status of the launch before it, so the results are the one-shot scan's, bit for
    /// bit. `Ok(false)`, with nothing done, where it does not apply: an algorithm other than the
    /// look-back, a tile larger than a chunk, or the pipeline's staging busy with another call.
    pub(crate) fn scan_host_pipelined<T: Element>(
        &mut self,
        input: &[T],
        output: &mut [MaybeUninit<T>],
        op: Op,
        options: &ScanOptions,
    ) -> Result<bool> {
        let combo = Combo::op::<T>(op)?;
        let algorithm = options.algorithm.resolve(combo.exact);
        if !matches!(
            algorithm,
            Algorithm::LookBack | Algorithm::LookBackDeterministic | Algorithm::Auto
        ) {
            return Ok(false);
        }
        let n = input.len();
        let (plan, deterministic) = self.lookback_plan(&combo, algorithm, options, n)?;
        if n > 0 && warp_specialized_on(&self.gpu, &combo, options, n) {
            return self.scan_host_pipelined_ws(&combo, deterministic, input, output, options);
        }
        // Each chunk's tiles sit in a ring slot of their own: nothing to prefetch ahead.
        let plan = LookbackPlan {
            prefetch_tiles: 0,
            ..plan
        };
        let size = std::mem::size_of::<T>();
        let tiles_per_chunk = PIPELINE_CHUNK_BYTES / (plan.tile as usize * size);
        if tiles_per_chunk == 0 || n == 0 {
            return Ok(false);
        }
        let chunk =
            (tiles_per_chunk * plan.tile as usize).min(n.next_multiple_of(plan.tile as usize));
        let gpu = self.gpu.clone();
        // Three chunks on the device, whatever the input: each chunk's tiles are scanned in its
        // slot, addressed from a base that stands for element 0 (the kernels read and write
        // only the tiles the counter hands them, this chunk's).
        let mut ring = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        // The pipeline's streams are made for this call: without this, whether the first
        // launch waits for the scratch's last user depends on how their handles compare with
        // the last stream's (the call sequence varied from run to run; H100, thirty-ninth
        // session's fault-injection test).
        self.release_scratch()?;
        let mut run: Option<LookbackRun> = None;
        gpu.host_pipeline_ring(input, output, &mut ring, chunk, |range, data, stream| {
            let tiles = (range.len() as u64).div_ceil(plan.tile);
            self.in_order(stream, |s| {
                if run.is_none() {
                    run = Some(s.lookback_begin(
                        &combo,
                        deterministic,
                        &plan,
                        options.kind,
                        None,
                        stream,
                    )?);
                }
                let run = run.as_ref().expect("begun above");
                s.lookback_tiles(run, data, data, n, tiles, stream)
            })
        })
    }

    /// [`scan_host_pipelined`](Self::scan_host_pipelined) where the one-shot scan of a device
    /// copy of `input` would take the warp-specialised kernel: the same kernel over each
    /// chunk's whole tiles (the ring's slots start on 32 KiB boundaries), each launch
    /// continuing the run's status from the chunk before, so the bits are that scan's.
    fn scan_host_pipelined_ws<T: Element>(
        &mut self,
        combo: &Combo,
        deterministic: bool,
        input: &[T],
        output: &mut [MaybeUninit<T>],
        options: &ScanOptions,
    ) -> Result<bool> {
        let n = input.len();
        let size = std::mem::size_of::<T>();
        let tile = plan::WARP_SPECIALIZED_TILE_BYTES / size;
        let chunk = (PIPELINE_CHUNK_BYTES / plan::WARP_SPECIALIZED_TILE_BYTES * tile)
            .min(n.next_multiple_of(tile));
        let gpu = self.gpu.clone();
        let mut ring = gpu.alloc::<T>(PIPELINE_RING_SLOTS * chunk)?;
        // As the look-back pipeline: streams made for this call, no wait on the scratch.
        self.release_scratch()?;
        let mut run: Option<WarpSpecializedRun> = None;
        gpu.host_pipeline_ring(input, output, &mut ring, chunk, |range, data, stream| {
            // `data` stands for element 0: this chunk's values start range.start on, a whole
            // number of tiles in.
            let at = data.wrapping_add((range.start * size) as u64);
            let first_tile = (range.start / tile) as u64;
            self.in_order(stream, |s| {
                if run.is_none() {
                    run = Some(s.warp_specialized_begin(combo, deterministic, n, stream)?);
                }
                let run = run.as_ref().expect("begun above");
                s.warp_specialized_tiles(run, at, at, range.len(), first_tile, options.kind, stream)
            })
        })
    }

    /// Waits for the scratch's last user and forgets its stream, before work on a stream made
    /// for one call (a host pipeline's): its launches then need no wait, and make the same
    /// driver calls however the new stream's handle compares with the last one.
    pub(super) fn release_scratch(&mut self) -> Result<()> {
        self.done.synchronize()?;
        self.last_stream = None;
        Ok(())
    }

    /// Runs `enqueue` after making sure the scratch is not still in use on another stream, and
    /// records completion.
    pub(crate) fn in_order(
        &mut self,
        stream: &Stream,
        enqueue: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let raw = stream.as_raw() as usize;
        if self.last_stream.is_some_and(|prev| prev != raw) {
            self.done.synchronize()?;
        }
        enqueue(self)?;
        self.done.record(stream)?;
        self.last_stream = Some(raw);
        Ok(())
    }

    /// The scratch (at least `bytes`) with its first `words` 32-bit words zeroed on `stream`
    /// (`scan_lookback_init`): a look-back launch's counter and flags. Returns its address.
    pub(super) fn zeroed_scratch(
        &mut self,
        bytes: usize,
        words: u64,
        stream: &Stream,
    ) -> Result<u64> {
        debug_assert!(words as usize * 4 <= bytes);
        let base = self.scratch(bytes)?;
        self.zero_words(base, words, stream)?;
        Ok(base)
    }

    /// Zeroes `words` 32-bit words of the scratch from `base` on `stream` (`scan_lookback_init`).
    fn zero_words(&self, base: u64, words: u64, stream: &Stream) -> Result<()> {
        debug_assert!(self
            .scratch
            .as_ref()
            .is_some_and(|s| s.size_bytes() as u64 >= 4 * words));
        let init = self.gpu.kernel(&SCAN_PTX, "scan_lookback_init")?;
        let init_config =
            LaunchConfig::new(grid_for(words, HELPER_BLOCK as u64 * 4, 1024), HELPER_BLOCK);
        // SAFETY: scan_lookback_init(u32* words, u64 count) zeroes `count` 32-bit words from
        // `base`, the start of the scratch, which holds at least 4·count bytes (asserted by
        // the callers' sizing: the scratch was sized for the layout being zeroed).
        unsafe { init.launch(init_config, stream, &kernel_args![base, words]) }
    }

    /// The status of a flat look-back run of `tiles` tiles with `value_size`-byte values: the
    /// scratch laid out for it, zeroed only where the last runs' words cannot be reused
    /// ([`status_epochs`](super::status_epochs)), and the run's epoch and counter base.
    pub(super) fn epoch_status(
        &mut self,
        tiles: u64,
        value_size: usize,
        stream: &Stream,
    ) -> Result<(LookbackStatus, RunEpoch)> {
        let run = self.epochs.begin(tiles, value_size)?;
        // A reused layout was written in this buffer, which only grows while epochs last.
        debug_assert!(
            run.zero
                || (self.scratch.as_ref())
                    .is_some_and(|s| s.size_bytes() >= run.layout.total_bytes)
        );
        let placed = self
            .scratch_keeping_status(run.layout.total_bytes)
            .and_then(|base| {
                if run.zero {
                    self.zero_words(base, (run.layout.zero_bytes / 4) as u64, stream)?;
                }
                Ok(base)
            });
        match placed {
            Ok(base) => Ok((LookbackStatus::at(base, &run.layout), run)),
            Err(e) => {
                // The new layout's words were not zeroed: never reuse them.
                self.epochs.forget();
                Err(e)
            }
        }
    }

    /// The scratch laid out as `layout` for a look-back launch, zeroed where the layout says.
    pub(super) fn zeroed_status(
        &mut self,
        layout: &StatusLayout,
        stream: &Stream,
    ) -> Result<LookbackStatus> {
        let base =
            self.zeroed_scratch(layout.total_bytes, (layout.zero_bytes / 4) as u64, stream)?;
        Ok(LookbackStatus::at(base, layout))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn lookback(
        &mut self,
        combo: &Combo,
        deterministic: bool,
        plan: &LookbackPlan,
        input: u64,
        output: u64,
        n: usize,
        kind: ScanKind,
        stream: &Stream,
    ) -> Result<()> {
        let run = self.lookback_begin(combo, deterministic, plan, kind, None, stream)?;
        self.lookback_tiles(&run, input, output, n, plan.tiles, stream)
    }

    /// [`warp_specialized_on`] for these addresses: both on 16-byte boundaries.
    fn takes_warp_specialized(
        &self,
        combo: &Combo,
        options: &ScanOptions,
        input: u64,
        output: u64,
        n: usize,
    ) -> bool {
        warp_specialized_on(&self.gpu, combo, options, n) && input % 16 == 0 && output % 16 == 0
    }

    /// Loads the warp-specialised kernel for `combo` (the fixed-order look-back where
    /// `deterministic` and grouping matters) and takes the status of a run of `n` values (one
    /// launch, or a host pipeline's chunks, each continuing the status of those before it).
    pub(super) fn warp_specialized_begin(
        &mut self,
        combo: &Combo,
        deterministic: bool,
        n: usize,
        stream: &Stream,
    ) -> Result<WarpSpecializedRun> {
        let tile = (plan::WARP_SPECIALIZED_TILE_BYTES / combo.size) as u64;
        let det = if deterministic && !combo.exact {
            "det_"
        } else {
            ""
        };
        let kernel = self
            .gpu
            .kernel(&SCAN_SM90_PTX, &format!("scan_ws_{det}{}", combo.suffix))?;
        self.check_kernel(&kernel, plan::WARP_SPECIALIZED_BLOCK)?;
        kernel.set_max_dynamic_shared(plan::WARP_SPECIALIZED_SHARED_BYTES)?;
        let (status, epoch) = self.epoch_status((n as u64).div_ceil(tile), combo.size, stream)?;
        Ok(WarpSpecializedRun {
            kernel,
            tile,
            status,
            epoch: epoch.epoch,
        })
    }

    /// Enqueues the warp-specialised scan of the `n > 0` values at `input` into `output`
    /// (distinct, or the same array; see [`takes_warp_specialized`](Self::takes_warp_specialized)),
    /// whose first tile is tile `first_tile` of `run` (0 for a whole input): one persistent
    /// block per SM (or per tile, if fewer).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn warp_specialized_tiles(
        &mut self,
        run: &WarpSpecializedRun,
        input: u64,
        output: u64,
        n: usize,
        first_tile: u64,
        kind: ScanKind,
        stream: &Stream,
    ) -> Result<()> {
        let tiles = (n as u64).div_ceil(run.tile);
        let grid = self.grid(tiles.min(u64::from(self.gpu.properties().sm_count)).max(1))?;
        let LookbackStatus {
            counter,
            flags,
            aggregates,
            inclusives,
        } = run.status;
        let config = LaunchConfig::new(grid, plan::WARP_SPECIALIZED_BLOCK)
            .with_shared_bytes(plan::WARP_SPECIALIZED_SHARED_BYTES as u32);
        // The arguments are pointers to these locals, which outlive the launch. The counter
        // stands where the run's earlier launches left it.
        let (n, exclusive) = (n as u64, u32::from(kind == ScanKind::Exclusive));
        let (epoch, base) = (run.epoch, self.epochs.counter());
        let args = kernel_args![
            input, output, n, exclusive, counter, flags, aggregates, inclusives, epoch, base,
            first_tile
        ];
        // SAFETY: scan_ws_[det_]<op>_<type>(const V* in, V* out, u64 n, u32 exclusive,
        // u32* counter, u32* flags, void* aggs, void* incs, u32 epoch, u32 base, u64 first_tile),
        // V the value type of `combo` (4 or 8 bytes): `in` and `out` hold at least n values
        // (checked by the callers; they may be the same array) and are 16-byte aligned
        // (takes_warp_specialized; a pipeline's slots hold whole 32 KiB tiles), `grid` blocks of
        // WARP_SPECIALIZED_BLOCK threads with WARP_SPECIALIZED_SHARED_BYTES of dynamic shared
        // memory (at least the kernel's WsScanShape::SMEM) take tiles of `run.tile` values from
        // the counter until it passes ⌈n / tile⌉ (one index past it each), publishing status
        // slots first_tile.. of the run, whose earlier slots the launches before (same stream)
        // publish; the scratch holds the counter and the status of every tile of the run as its
        // layout places them, every word zero or tagged by an earlier epoch of that layout, the
        // counter at `base` (lookback_epoch.cuh's preconditions).
        let launched = unsafe { run.kernel.launch(config, stream, &args) };
        // Each block's producer takes one index past the last tile.
        self.counted(launched, tiles + u64::from(grid))
    }

    /// Enqueues the scan of `n` values at `input` into `output` (distinct, or the same array)
    /// continued from `seed`: the seeded look-back, one pass (the staged tiles where `options`
    /// and the device allow), always in fixed order.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_seeded(
        &mut self,
        combo: &Combo,
        input: u64,
        output: u64,
        n: usize,
        seed: SeedValue,
        options: &ScanOptions,
        stream: &Stream,
    ) -> Result<()> {
        let (plan, _) = self.lookback_plan(combo, Algorithm::LookBackDeterministic, options, n)?;
        // The seeded kernels do not prefetch (gpu-dist's shards and a stream's batches).
        let plan = LookbackPlan {
            prefetch_tiles: 0,
            ..plan
        };
        if n == 0 {
            return Ok(());
        }
        self.in_order(stream, |s| {
            let run = s.lookback_begin(combo, true, &plan, options.kind, Some(seed), stream)?;
            s.lookback_tiles(&run, input, output, n, plan.tiles, stream)
        })
    }

    /// A look-back scan's kernel and status (epoch-tagged, zeroed on `stream` only where
    /// needed), for [`lookback_tiles`] launches: one for the whole input, or one per chunk of a
    /// host pipeline, the tiles of each launch continuing the tile counter where the previous
    /// launch on the stream left it.
    ///
    /// [`lookback_tiles`]: Self::lookback_tiles
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lookback_begin(
        &mut self,
        combo: &Combo,
        deterministic: bool,
        plan: &LookbackPlan,
        kind: ScanKind,
        seed: Option<SeedValue>,
        stream: &Stream,
    ) -> Result<LookbackRun> {
        debug_assert!(seed.is_none() || plan.prefetch_tiles == 0);
        let (ptx, family) = if plan.prefetch_tiles > 0 {
            (&SCAN_SM90_PTX, "lookback_staged_pf")
        } else if plan.staged {
            (&SCAN_SM80_PTX, "lookback_staged")
        } else {
            (&SCAN_PTX, "lookback")
        };
        // Seeded kernels are always the fixed-order look-back.
        let det = match (seed, deterministic) {
            (Some(_), _) => "seeded_",
            (None, true) => "det_",
            (None, false) => "",
        };
        let name = format!("scan_{family}_{det}{}", combo.suffix);
        let kernel = self.gpu.kernel(ptx, &name)?;
        self.check_kernel(&kernel, plan.block)?;
        if plan.shared_bytes > 0 {
            kernel.set_max_dynamic_shared(plan.shared_bytes)?;
        }
        self.grid(plan.tiles)?;
        let (status, epoch) = self.epoch_status(plan.tiles, combo.size, stream)?;
        Ok(LookbackRun {
            kernel,
            plan: *plan,
            status,
            epoch: epoch.epoch,
            base: epoch.base,
            exclusive: u32::from(kind == ScanKind::Exclusive),
            seed,
        })
    }

    /// Launches the next `tiles` tiles of `run` (the first ones of the scan, or those after the
    /// previous launch's on the same stream) over `n` values at `input` / `output`.
    pub(super) fn lookback_tiles(
        &mut self,
        run: &LookbackRun,
        input: u64,
        output: u64,
        n: usize,
        tiles: u64,
        stream: &Stream,
    ) -> Result<()> {
        let grid = self.grid(tiles)?;
        let LookbackStatus {
            counter,
            flags,
            aggregates,
            inclusives,
        } = run.status;
        let (plan, exclusive, epoch, base) = (&run.plan, run.exclusive, run.epoch, run.base);
        // SAFETY: scan_lookback[_staged]_[det_]<op>_<type>(const V* in, V* out, u64 n,
        // u32 exclusive, u32* counter, u32* flags, void* aggs, void* incs, u32 epoch, u32 base),
        // V the value type of `combo`: `in` and `out` hold at least n values (checked by the
        // callers; they may be the same array), the launches of one run have `plan.tiles`
        // blocks of `block` threads in all, covering n (tile = block · items, items as the
        // kernel's shape), each block taking the next tile from the counter (a launch after
        // another on the same stream continues where it stopped, and reads only tiles whose
        // data its callers have placed by then), staged kernels get the plan's shared_bytes
        // (block · the tile shape's bytes per thread) they index, and the scratch holds the
        // counter and the status of at least `plan.tiles` tiles as the run's layout places
        // them, every word zero or tagged by an earlier epoch of that layout, and the counter
        // at `base` before the run (`epoch_status` and `StatusEpochs`: lookback_epoch.cuh's
        // preconditions).
        // Seeded kernels take one more argument, the seed `V` by value (its bytes, at the front
        // of a buffer at least as large and as aligned); the prefetching ones (scan_sm90:
        // scan_lookback_staged_pf_*, never seeded) one more too, u64 prefetch_tiles ≥ 1: each
        // tile prefetches values of `in` below n only (a hint; it writes nothing).
        let config =
            LaunchConfig::new(grid, plan.block).with_shared_bytes(plan.shared_bytes as u32);
        // The arguments are pointers to these locals, which outlive the launch.
        let (n, prefetch_tiles) = (n as u64, plan.prefetch_tiles);
        let mut args = kernel_args![
            input, output, n, exclusive, counter, flags, aggregates, inclusives, epoch, base
        ]
        .to_vec();
        if let Some(seed) = &run.seed {
            args.extend(kernel_args![seed.0]);
        } else if prefetch_tiles > 0 {
            args.extend(kernel_args![prefetch_tiles]);
        }
        let launched = unsafe { run.kernel.launch(config, stream, &args) };
        self.counted(launched, tiles)
    }

    /// A look-back launch's result, counted: `tiles` blocks took a tile from the counter, or,
    /// after an error, whether any ran is unknown and the counter and words are not trusted.
    pub(super) fn counted(&mut self, launched: Result<()>, tiles: u64) -> Result<()> {
        match launched {
            Ok(()) => self.epochs.launched(tiles),
            Err(_) => self.epochs.forget(),
        }
        launched
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn recursive(
        &mut self,
        combo: &Combo,
        algorithm: Algorithm,
        plan: &RecursivePlan,
        input: u64,
        output: u64,
        kind: ScanKind,
        stream: &Stream,
    ) -> Result<()> {
        let family = match algorithm {
            Algorithm::HillisSteele => "hillis_steele",
            Algorithm::Blelloch => "blelloch",
            _ => "blelloch_padded",
        };
        let scan = self
            .gpu
            .kernel(&SCAN_PTX, &format!("scan_{family}_{}", combo.suffix))?;
        let add = self
            .gpu
            .kernel(&SCAN_PTX, &format!("scan_add_block_sums_{}", combo.suffix))?;
        self.check_kernel(&scan, plan.block)?;
        self.check_kernel(&add, plan.block)?;
        let props = self.gpu.properties();
        if plan.shared_bytes > props.shared_memory_per_block {
            if plan.shared_bytes > props.shared_memory_per_block_optin {
                return Err(Error::invalid(
                    "block_size",
                    format!(
                        "{} threads of {}-byte values need {} bytes of shared memory; the device \
                         allows {}",
                        plan.block,
                        combo.size,
                        plan.shared_bytes,
                        props.shared_memory_per_block_optin
                    ),
                ));
            }
            scan.set_max_dynamic_shared(plan.shared_bytes)?;
        }
        self.grid(plan.levels[0].blocks)?;
        let base = self.scratch(plan.scratch_bytes)?;
        let sums = |level: &Level| level.sums.map_or(0, |o| base + o as u64);
        let exclusive = u32::from(kind == ScanKind::Exclusive);
        // Down: scan every block of every level, each level's block totals being the next level.
        for (k, level) in plan.levels.iter().enumerate() {
            let (src, dst, excl) = if k == 0 {
                (input, output, exclusive)
            } else {
                let p = sums(&plan.levels[k - 1]);
                (p, p, 1u32)
            };
            let config = LaunchConfig::new(level.blocks as u32, plan.block)
                .with_shared_bytes(plan.shared_bytes as u32);
            // SAFETY: scan_<family>_<op>_<type>(const V* in, V* out, V* sums, u64 n,
            // u32 exclusive) reads in[0..n) and writes out[0..n) (the caller's arrays hold n
            // values at level 0; level k > 0 scans level k−1's sums in place, `len` values in
            // scratch) and, when `sums` is not null, sums[0..blocks), sized by the plan. The
            // dynamic shared memory is the plan's size for this algorithm and block.
            unsafe {
                scan.launch(
                    config,
                    stream,
                    &kernel_args![src, dst, sums(level), level.len, excl],
                )?;
            }
        }
        // Up: once level k+1 is fully scanned (exclusive), add it in front of level k's blocks.
        for k in (0..plan.levels.len() - 1).rev() {
            let level = &plan.levels[k];
            let dst = if k == 0 {
                output
            } else {
                sums(&plan.levels[k - 1])
            };
            // SAFETY: scan_add_block_sums_<op>_<type>(V* out, const V* sums, u64 n,
            // u64 per_block) updates out[0..n) using sums[0..blocks) (blocks = n / per_block
            // rounded up, the grid); both arrays are sized as in the launches above.
            unsafe {
                add.launch(
                    LaunchConfig::new(level.blocks as u32, plan.block),
                    stream,
                    &kernel_args![dst, sums(level), level.len, plan.per_block],
                )?;
            }
        }
        Ok(())
    }
}

/// A warp-specialised run's kernel, tile and status ([`Scanner::warp_specialized_begin`]).
pub(super) struct WarpSpecializedRun {
    kernel: Kernel,
    /// Values a tile.
    tile: u64,
    status: LookbackStatus,
    epoch: u32,
}

/// A look-back scan ready to launch tile range by tile range ([`Scanner::lookback_begin`]).
pub(super) struct LookbackRun {
    kernel: Kernel,
    plan: LookbackPlan,
    status: LookbackStatus,
    /// The run's status tag and the counter's value before it (lookback_epoch.cuh).
    epoch: u32,
    base: u32,
    exclusive: u32,
    /// The value a seeded scan continues from.
    seed: Option<SeedValue>,
}

/// Device addresses of a look-back launch's tile counter and status words (0: no flags).
#[derive(Clone, Copy)]
pub(super) struct LookbackStatus {
    pub counter: u64,
    pub flags: u64,
    pub aggregates: u64,
    pub inclusives: u64,
}

impl LookbackStatus {
    /// The addresses `layout` gives a scratch starting at `base`.
    fn at(base: u64, layout: &StatusLayout) -> Self {
        LookbackStatus {
            counter: base + layout.counter as u64,
            flags: layout.flags.map_or(0, |f| base + f as u64),
            aggregates: base + layout.aggregates as u64,
            inclusives: base + layout.inclusives as u64,
        }
    }
}

/// A seed passed by value to a seeded look-back kernel: the value's bytes at the front of 32
/// bytes aligned for 8 (the largest scanned value, `Mat2<f64>`, is 32 bytes).
#[derive(Clone, Copy)]
pub(crate) struct SeedValue([u64; 4]);

impl SeedValue {
    /// The bytes of `v`; an error for a value larger than 32 bytes.
    pub(crate) fn new<T: gpu_core::Pod>(v: T) -> Result<Self> {
        let size = std::mem::size_of::<T>();
        if size > 32 || std::mem::align_of::<T>() > 8 {
            return Err(Error::invalid(
                "seed",
                format!("a value of {size} bytes (at most 32)"),
            ));
        }
        let mut words = [0u64; 4];
        // SAFETY: `v` is a live T of `size` ≤ 32 bytes, all initialised (Pod: no padding);
        // `words` holds 32 bytes; the two do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                &v as *const T as *const u8,
                words.as_mut_ptr() as *mut u8,
                size,
            )
        };
        Ok(Self(words))
    }
}

/// Whether the flat scan of `n` values on `gpu` runs the warp-specialised kernel where its
/// input and output are 16-byte aligned (its bulk copies and vector stores): the operator and
/// type have one, the algorithm is a look-back one, the options leave block and staging to the
/// device, and the device's tuning takes it at this length (`scan.warp_specialized_from`,
/// compute capability 9.0+) with the shared memory it needs.
pub(crate) fn warp_specialized_on(
    gpu: &Gpu,
    combo: &Combo,
    options: &ScanOptions,
    n: usize,
) -> bool {
    let props = gpu.properties();
    let tuning = plan::LookbackTuning::from_keys(|k| gpu.tuned(k));
    combo.warp_specialized
        // Float sums and products with the fixed-order look-back too (`scan_ws_det_*`); the
        // host pipeline runs the same tiles chunk by chunk, so its bits are the one-shot scan's.
        && matches!(
            options.algorithm.resolve(combo.exact),
            Algorithm::LookBack | Algorithm::LookBackDeterministic
        )
        && options.block_size.is_none()
        && options.staging == TileStaging::Auto
        && tuning.warp_specialized(n as u64, props.compute_capability)
        && props.shared_memory_per_block_optin >= plan::WARP_SPECIALIZED_SHARED_BYTES
}

/// The look-back plan of `n` values on `gpu` (tile staging and block as `options` ask, else as
/// the device's tuning gives them) and whether its look-back is the deterministic one.
pub(crate) fn lookback_plan_on(
    gpu: &Gpu,
    combo: &Combo,
    algorithm: Algorithm,
    options: &ScanOptions,
    n: usize,
) -> Result<(LookbackPlan, bool)> {
    let props = gpu.properties();
    let tuning = plan::LookbackTuning::from_keys(|k| gpu.tuned(k));
    let staged = plan::use_staged_from(
        options.staging,
        n,
        props.compute_capability,
        combo.staged_kernel,
        tuning.staged_from,
    )?;
    let plan = if combo.lookback_only {
        plan::lookback_half(
            n.max(1),
            options.block_size,
            staged,
            combo.to_f32,
            props.shared_memory_per_block_optin,
        )?
    } else {
        plan::lookback_tuned(
            n.max(1),
            combo.size,
            options.block_size,
            staged,
            props.shared_memory_per_block_optin,
            &tuning,
        )?
    };
    // The flat scan of `n` values prefetches ahead where the device's tuning says so (the host
    // pipeline and the seeded scans clear it: their tiles are not all in one array), the
    // distance counted in bytes of input.
    let plan = LookbackPlan {
        prefetch_tiles: tuning.prefetch_tiles(&plan, n, combo.in_size, props.compute_capability),
        ..plan
    };
    Ok((
        plan,
        algorithm == Algorithm::LookBackDeterministic && !combo.exact,
    ))
}
