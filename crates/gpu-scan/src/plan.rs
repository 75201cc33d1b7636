//! Launch plans: block sizes, items per thread, tiles, recursion levels and scratch layouts.
//!
//! Pure arithmetic, kept apart from the launches (and built without the `cuda` feature) so it can
//! be tested anywhere. The kernels in `kernels/scan.cu` mirror these numbers.

pub use gpu_core::StatusLayout;
use gpu_core::{check_block_size, Error, Result};

use crate::{Algorithm, TileStaging};

/// Smallest block size the GPU algorithms accept (one warp).
pub const MIN_BLOCK: u32 = 32;
/// Largest block size the GPU algorithms accept.
pub const MAX_BLOCK: u32 = 1024;
/// Default block size of the report's algorithms (Hillis–Steele, Blelloch, padded Blelloch):
/// the best point of the report's sweep.
pub const DEFAULT_REPORT_BLOCK: u32 = 512;
/// Default block size of the look-back scan (values other than 4 bytes; 4-byte values see
/// [`default_lookback_block`]).
pub const DEFAULT_LOOKBACK_BLOCK: u32 = 256;
/// Bytes of values each look-back thread holds for values other than 4 bytes
/// (`ScanTileShape` in `scan_tile.cuh`).
pub const LOOKBACK_BYTES_PER_THREAD: usize = 64;
/// Bytes of values each look-back thread holds for 4-byte values (32 per thread).
pub const LOOKBACK_BYTES_PER_THREAD_4: usize = 128;

/// Bytes of values each thread of the staged look-back tile holds (`ScanStagedShape` in
/// `scan_tile_staged.cuh`): 6 16-byte vectors in registers and 8 in shared memory.
pub const STAGED_BYTES_PER_THREAD: usize = 14 * 16;
/// Values per thread of the f16/bf16 look-back tile (kernels' `ScanConvertTile`: 32 f32 values
/// in registers, as the f32 tile). A tile of raw 16-bit vectors with 64 values per thread
/// spilled registers under the 1024-thread launch bound and measured slower on an H100
/// (0.59× against 0.64× a copy for f16 at 2^28; docs/scan.md).
pub const HALF_ITEMS: u32 = 32;
/// Dynamic shared memory per thread of the staged look-back tile, in bytes.
pub const STAGED_SHARED_BYTES_PER_THREAD: usize = 8 * 16;
/// Values per thread of the f16/bf16 look-back tile with 16-bit results on compute capability
/// 8.0+ (`ScanRunShape` in `scan_tile_runs.cuh`): a run of 7 16-byte chunks per thread, staged
/// in shared memory and scanned serially by its thread.
pub const HALF_RUN_ITEMS: u32 = 7 * 8;
/// Dynamic shared memory per thread of the f16/bf16 thread-run tile (its 7 chunks).
pub const HALF_RUN_SHARED_BYTES_PER_THREAD: usize = 7 * 16;
/// Default block of the thread-run tile: 1024 threads × 112 bytes, two blocks per SM (0.86× a
/// copy for f16 at 2^28 on an H100, against 0.82 for 256 or 512 threads; docs/scan.md).
pub const DEFAULT_HALF_RUN_BLOCK: u32 = 1024;
/// Values per thread of the f16/bf16 look-back tile with f32 results on compute capability 8.0+
/// (`ScanStagedConvertShape` in `scan_tile_staged.cuh`): 4 vectors of 8 in registers (as f32)
/// and 6 in shared memory.
pub const HALF_STAGED_ITEMS: u32 = 10 * 8;
/// Dynamic shared memory per thread of that tile: each of its 6 staged vectors takes 32 bytes
/// (its 8 values as f32 once scanned).
pub const HALF_STAGED_SHARED_BYTES_PER_THREAD: usize = 6 * 32;
/// Default block of that tile: 256 threads × 192 bytes, four blocks per SM (f16 into f32 at 2^28
/// on an H100: 0.71× a copy of the bytes moved, against 0.64 for 512 and 0.62 for 1024 threads;
/// docs/scan.md).
pub const DEFAULT_HALF_STAGED_BLOCK: u32 = 256;
/// Default block of the staged look-back tile: 1024 threads × 224 bytes, one block per SM.
pub const DEFAULT_STAGED_BLOCK: u32 = 1024;
/// [`TileStaging::Auto`] stages tiles from this many values on (where the staged tile was
/// measured faster on an H100: docs/perf-notes.md).
pub const STAGED_MIN_LEN: usize = 1 << 25;
/// Lowest compute capability with the staged tile (cp.async).
pub const STAGED_MIN_COMPUTE: (u32, u32) = (8, 0);
/// Lowest compute capability with the L2-prefetching staged tiles (`kernels/scan_sm90.cu`: the
/// bulk prefetch).
pub const PREFETCH_MIN_COMPUTE: (u32, u32) = (9, 0);

/// Lowest compute capability with the warp-specialised flat scan (`kernels/scan_sm90.cu`:
/// cp.async.bulk and mbarrier waits).
pub const WARP_SPECIALIZED_MIN_COMPUTE: (u32, u32) = (9, 0);
/// Bytes per tile of the warp-specialised flat scan: 32 KiB (`WsScanShape` in
/// `gpu_prims/scan_warp_specialized.cuh`).
pub const WARP_SPECIALIZED_TILE_BYTES: usize = 32768;
/// Threads per block of the warp-specialised flat scan (12 warps: producer, look-back, two
/// reducers, eight consumers).
pub const WARP_SPECIALIZED_BLOCK: u32 = 384;
/// Dynamic shared memory of one warp-specialised block: six tile buffers after 1 KiB for their
/// barriers and totals (the kernel's `SMEM` is at most this: `WsScanShape` asserts it).
pub const WARP_SPECIALIZED_SHARED_BYTES: usize = 1024 + 6 * WARP_SPECIALIZED_TILE_BYTES;

/// Scratch regions start on this alignment (bytes).
const ALIGN: usize = 256;

fn align_up(bytes: usize) -> usize {
    bytes.div_ceil(ALIGN) * ALIGN
}

fn block_for(algorithm: Algorithm, block: Option<u32>) -> Result<u32> {
    let default = match algorithm {
        Algorithm::LookBack | Algorithm::LookBackDeterministic | Algorithm::Auto => {
            DEFAULT_LOOKBACK_BLOCK
        }
        _ => DEFAULT_REPORT_BLOCK,
    };
    let block = block.unwrap_or(default);
    check_block_size("block_size", block, MIN_BLOCK, MAX_BLOCK)?;
    Ok(block)
}

/// A tuned staged block: a whole number of warps in 32..=1024. gpu_core::tuning checks its keys
/// the same way; this guards a [`LookbackTuning`] built field by field.
fn check_warp_block(block: u32) -> Result<()> {
    if block % 32 != 0 || !(MIN_BLOCK..=MAX_BLOCK).contains(&block) {
        return Err(Error::invalid(
            "tuning",
            format!(
                "staged look-back block of {block} threads: must be a multiple of 32 in 32..=1024"
            ),
        ));
    }
    Ok(())
}

/// Values per thread of the look-back scan for values of `value_size` bytes.
pub fn lookback_items(value_size: usize) -> u32 {
    let bytes = if value_size == 4 {
        LOOKBACK_BYTES_PER_THREAD_4
    } else {
        LOOKBACK_BYTES_PER_THREAD
    };
    (bytes / value_size.max(1)).max(1) as u32
}

/// The look-back scan's default block for `n` values of `value_size` bytes. 4-byte values: the
/// largest tiles (1024 threads × 32 values, one block per SM) from 2^25 values on, where they
/// were measured fastest on an H100 (docs/perf-notes.md); 512 threads from 2^21, 256 below, so
/// that smaller inputs still spread over every SM. Other sizes: [`DEFAULT_LOOKBACK_BLOCK`].
pub fn default_lookback_block(n: usize, value_size: usize) -> u32 {
    LookbackTuning::default().register_block(n, value_size)
}

/// The look-back scan's policies on one device: gpu_core::tuning's `scan.*` keys (block sizes by
/// input length, where tiles start to be staged). [`Default`] holds the built-in values of a GPU
/// of ordinary memory bandwidth (measured on the H100), which [`default_lookback_block`],
/// [`DEFAULT_STAGED_BLOCK`] and [`STAGED_MIN_LEN`] name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookbackTuning {
    /// Block of 4-byte register tiles below `medium_from` values (`scan.block_small`).
    pub block_small: u32,
    /// `scan.medium_from`.
    pub medium_from: usize,
    /// Block from `medium_from` (`scan.block_medium`).
    pub block_medium: u32,
    /// `scan.large_from`.
    pub large_from: usize,
    /// Block from `large_from` (`scan.block_large`).
    pub block_large: u32,
    /// [`TileStaging::Auto`] stages tiles from this many values on (`scan.staged_from`).
    pub staged_from: usize,
    /// Block of staged tiles below `large_from` values (`scan.staged_block_medium`; any whole
    /// number of warps), halved to whole warps where shared memory is short.
    pub staged_block_medium: u32,
    /// Block of staged tiles from `large_from` values (`scan.staged_block`; any whole number
    /// of warps), halved to whole warps where shared memory is short.
    pub staged_block: u32,
    /// Staged flat scans of at least this many values prefetch a later tile's input into L2
    /// (`scan.prefetch_from`; compute capability 9.0+; not the look-back rows, which gained
    /// nothing, nor a host pipeline's chunks).
    pub prefetch_from: usize,
    /// The same for the staged segment tiles and the long-span columns scans of
    /// device-resident data (`scan.shaped_prefetch_from`, counting one launch's values; a key
    /// of its own because the columns scans' tiles share the distance): on the H100 these
    /// gained with it (16 × 2^24 segments 0.85 → 0.91-0.93× a copy, one tile of long columns
    /// 0.85-0.86 → 0.87-0.88), as the flat scans did (2^28 f32 0.92 → 0.95, bf16 0.85 → 0.93).
    pub shaped_prefetch_from: usize,
    /// How far ahead, in bytes of input (`scan.prefetch_kib` · 1024): per scan, shared by the
    /// column tiles of a columns scan.
    pub prefetch_bytes: u64,
    /// Long-span columns scans of at least this many values (one launch's) hold
    /// `gpu_core::COLUMN_STAGED_ROWS` more vector rows a thread in shared memory, spans twice
    /// as long (`scan.column_staged_from`; compute capability 9.0+, the kernels of
    /// `kernels/scan_sm90.cu`).
    pub column_staged_from: usize,
    /// Flat scans of at least this many values whose operator and type have a warp-specialised
    /// kernel (sum, prod, min and max of 4- and 8-byte values, float sums and products with
    /// either look-back) run it where input and output are
    /// 16-byte aligned and the options leave block and staging to the device
    /// (`scan.warp_specialized_from`; compute capability 9.0+: `kernels/scan_sm90.cu`).
    pub warp_specialized_from: usize,
}

impl Default for LookbackTuning {
    fn default() -> Self {
        LookbackTuning {
            block_small: DEFAULT_LOOKBACK_BLOCK,
            medium_from: 1 << 21,
            block_medium: 512,
            large_from: 1 << 25,
            block_large: 1024,
            staged_from: STAGED_MIN_LEN,
            staged_block_medium: DEFAULT_STAGED_BLOCK,
            staged_block: DEFAULT_STAGED_BLOCK,
            prefetch_from: 1 << 27,
            shaped_prefetch_from: 1 << 27,
            prefetch_bytes: 7 << 20,
            column_staged_from: 1 << 24,
            warp_specialized_from: 1 << 24,
        }
    }
}

impl LookbackTuning {
    /// The policies from a lookup of gpu_core::tuning keys (`|k| gpu.tuned(k)`).
    pub fn from_keys(value: impl Fn(&str) -> u64) -> Self {
        let count = |k: &str| usize::try_from(value(k)).unwrap_or(usize::MAX);
        LookbackTuning {
            block_small: value("scan.block_small") as u32,
            medium_from: count("scan.medium_from"),
            block_medium: value("scan.block_medium") as u32,
            large_from: count("scan.large_from"),
            block_large: value("scan.block_large") as u32,
            staged_from: count("scan.staged_from"),
            staged_block_medium: value("scan.staged_block_medium") as u32,
            staged_block: value("scan.staged_block") as u32,
            prefetch_from: count("scan.prefetch_from"),
            shaped_prefetch_from: count("scan.shaped_prefetch_from"),
            prefetch_bytes: value("scan.prefetch_kib").saturating_mul(1024),
            column_staged_from: count("scan.column_staged_from"),
            warp_specialized_from: count("scan.warp_specialized_from"),
        }
    }

    /// How many tiles ahead a staged flat scan of `n` values prefetches with `plan`, on a device
    /// of `compute` capability: `prefetch_bytes` in whole tiles (at least one), or 0 (no
    /// prefetch: register tiles, a shorter input, an older GPU).
    pub fn prefetch_tiles(
        &self,
        plan: &LookbackPlan,
        n: usize,
        value_size: usize,
        compute: (u32, u32),
    ) -> u64 {
        if !plan.staged {
            return 0;
        }
        self.prefetch_ahead(n as u64, plan.tile * value_size as u64, compute)
    }

    /// How many tiles of `tile_bytes` bytes of input ahead of its own a look-back tile of a
    /// staged flat scan of `n` values prefetches, on a device of `compute` capability:
    /// `prefetch_bytes` in whole tiles (at least one), or 0 (a shorter input, an older GPU).
    pub fn prefetch_ahead(&self, n: u64, tile_bytes: u64, compute: (u32, u32)) -> u64 {
        if n < self.prefetch_from as u64 || compute < PREFETCH_MIN_COMPUTE {
            return 0;
        }
        (self.prefetch_bytes / tile_bytes.max(1)).max(1)
    }

    /// How many spans (or tiles) of `span_bytes` bytes ahead of its own a long-span columns
    /// scan or a segmented scan of `n` values (one launch's) prefetches, where `chains` chains
    /// of spans run side by side (a columns scan's column tiles; 1 for the segment tiles), on a
    /// device of `compute` capability: the chains share `prefetch_bytes`, so that what is
    /// prefetched can still be in L2 when it is read. 0: none (a shorter input, an older GPU,
    /// or less than a span for each chain: the H100's 16384 × 16384 columns, 128 chains
    /// prefetching 7 MiB each, lost 8 % with it).
    pub fn shaped_prefetch_ahead(
        &self,
        n: u64,
        span_bytes: u64,
        chains: u64,
        compute: (u32, u32),
    ) -> u64 {
        if n < self.shaped_prefetch_from as u64 || compute < PREFETCH_MIN_COMPUTE {
            return 0;
        }
        let ahead = self.prefetch_bytes / chains.max(1) / span_bytes.max(1);
        if chains <= 1 {
            ahead.max(1)
        } else {
            ahead
        }
    }

    /// Whether a long-span columns scan of `n` values (one launch's) on a device of `compute`
    /// capability stages half of each span in shared memory
    /// (`gpu_core::LanePlan::with_staged_spans`).
    pub fn column_staged(&self, n: u64, compute: (u32, u32)) -> bool {
        n >= self.column_staged_from as u64 && compute >= PREFETCH_MIN_COMPUTE
    }

    /// Whether a flat scan of `n` values on a device of `compute` capability takes the
    /// warp-specialised kernel (the caller checks the operator, type, alignment and options).
    pub fn warp_specialized(&self, n: u64, compute: (u32, u32)) -> bool {
        n >= self.warp_specialized_from as u64 && compute >= WARP_SPECIALIZED_MIN_COMPUTE
    }

    /// The staged tiles' block for `n` values.
    pub fn staged_block(&self, n: usize) -> u32 {
        if n >= self.large_from {
            self.staged_block
        } else {
            self.staged_block_medium
        }
    }

    /// The register tiles' block for `n` values of `value_size` bytes: by length for 4-byte
    /// values, [`DEFAULT_LOOKBACK_BLOCK`] for others.
    pub fn register_block(&self, n: usize, value_size: usize) -> u32 {
        if value_size != 4 {
            DEFAULT_LOOKBACK_BLOCK
        } else if n >= self.large_from {
            self.block_large
        } else if n >= self.medium_from {
            self.block_medium
        } else {
            self.block_small
        }
    }
}

/// Whether a device of compute capability `compute` runs the staged look-back tiles.
pub fn staged_tiles_available(compute: (u32, u32)) -> bool {
    compute >= STAGED_MIN_COMPUTE
}

/// Whether the look-back scan of `n` values of `value_size` bytes stages its tiles: `staging` as
/// asked, on a device of `compute` capability, where `kernel` says whether the operator has a
/// staged kernel (every operator on 4- and 8-byte values; not the matrix and affine monoids).
/// [`TileStaging::Staged`] where it cannot run is an error; [`TileStaging::Auto`] stages when it
/// can and `n ≥ STAGED_MIN_LEN`.
pub fn use_staged(
    staging: TileStaging,
    n: usize,
    compute: (u32, u32),
    kernel: bool,
) -> Result<bool> {
    use_staged_from(staging, n, compute, kernel, STAGED_MIN_LEN)
}

/// [`use_staged`] with [`TileStaging::Auto`] staging from `staged_from` values on (a device's
/// tuned [`LookbackTuning::staged_from`]).
pub fn use_staged_from(
    staging: TileStaging,
    n: usize,
    compute: (u32, u32),
    kernel: bool,
    staged_from: usize,
) -> Result<bool> {
    let possible = kernel && staged_tiles_available(compute);
    match staging {
        TileStaging::Registers => Ok(false),
        TileStaging::Auto => Ok(possible && n >= staged_from),
        TileStaging::Staged if possible => Ok(true),
        TileStaging::Staged if !kernel => Err(Error::invalid(
            "staging",
            "staged tiles exist for the element operators (sum, prod, min, max, and, or, xor), \
             not for the matrix and affine monoids",
        )),
        TileStaging::Staged => Err(Error::invalid(
            "staging",
            format!(
                "staged tiles need compute capability {}.{} or later (cp.async); this device is {}.{}",
                STAGED_MIN_COMPUTE.0, STAGED_MIN_COMPUTE.1, compute.0, compute.1
            ),
        )),
    }
}

/// One launch of the single-pass look-back scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookbackPlan {
    /// Threads per block.
    pub block: u32,
    /// Values per thread.
    pub items: u32,
    /// Whether the tile is staged (the `scan_sm80` kernels) or all in registers.
    pub staged: bool,
    /// Dynamic shared memory per block, in bytes (staged tiles only).
    pub shared_bytes: usize,
    /// Values per tile (= per block).
    pub tile: u64,
    /// Tiles (= blocks in the grid).
    pub tiles: u64,
    /// How many tiles ahead each tile prefetches its successor's input into L2
    /// (`kernels/scan_sm90.cu`), 0 for none: [`LookbackTuning::prefetch_tiles`], set by the
    /// flat scans of long inputs on fast-memory GPUs.
    pub prefetch_tiles: u64,
    /// Scratch layout for the status of exactly `tiles` tiles (the epoch-tagged one:
    /// [`StatusLayout::epoch`]). A `Scan` lays its status out
    /// for a power-of-two number of tiles at least this large, shared by runs of similar
    /// lengths (the status is reused from call to call, not zeroed: docs/scan.md).
    pub layout: StatusLayout,
}

/// The look-back plan for `n > 0` values of `value_size` bytes with register tiles (`staged`
/// false) or staged tiles (see [`use_staged`]); `block` defaults to [`default_lookback_block`]
/// (registers) or [`DEFAULT_STAGED_BLOCK`] (staged; halved until its shared memory fits in
/// `max_shared` bytes, the device's per-block limit) and must be a power of two in 32..=1024.
pub fn lookback(
    n: usize,
    value_size: usize,
    block: Option<u32>,
    staged: bool,
    max_shared: usize,
) -> Result<LookbackPlan> {
    lookback_tuned(
        n,
        value_size,
        block,
        staged,
        max_shared,
        &LookbackTuning::default(),
    )
}

/// [`lookback`] with a device's tuned default blocks.
pub fn lookback_tuned(
    n: usize,
    value_size: usize,
    block: Option<u32>,
    staged: bool,
    max_shared: usize,
    tuning: &LookbackTuning,
) -> Result<LookbackPlan> {
    if staged && !matches!(value_size, 4 | 8) {
        return Err(Error::invalid(
            "staging",
            format!("staged tiles hold 4- or 8-byte values, not {value_size}-byte ones"),
        ));
    }
    let shape = if staged {
        TileShape {
            items: (STAGED_BYTES_PER_THREAD / value_size) as u32,
            shared_per_thread: STAGED_SHARED_BYTES_PER_THREAD,
            block: tuning.staged_block(n),
        }
    } else {
        TileShape {
            items: lookback_items(value_size),
            shared_per_thread: 0,
            block: tuning.register_block(n, value_size),
        }
    };
    lookback_tiles(n, value_size, shape, block, max_shared)
}

/// The look-back plan of a 16-bit float scan (f32 values in the status), with results in the
/// element type or in f32 (`to_f32`): [`HALF_ITEMS`] per thread in register tiles; in staged
/// tiles [`HALF_RUN_ITEMS`] (16-bit results) or [`HALF_STAGED_ITEMS`] (f32 results); `block`
/// and `max_shared` as for [`lookback`].
pub fn lookback_half(
    n: usize,
    block: Option<u32>,
    staged: bool,
    to_f32: bool,
    max_shared: usize,
) -> Result<LookbackPlan> {
    let shape = match (staged, to_f32) {
        (false, _) => TileShape {
            items: HALF_ITEMS,
            shared_per_thread: 0,
            block: default_lookback_block(n, 4),
        },
        (true, false) => TileShape {
            items: HALF_RUN_ITEMS,
            shared_per_thread: HALF_RUN_SHARED_BYTES_PER_THREAD,
            block: DEFAULT_HALF_RUN_BLOCK,
        },
        (true, true) => TileShape {
            items: HALF_STAGED_ITEMS,
            shared_per_thread: HALF_STAGED_SHARED_BYTES_PER_THREAD,
            block: DEFAULT_HALF_STAGED_BLOCK,
        },
    };
    lookback_tiles(n, 4, shape, block, max_shared)
}

/// Values per thread, dynamic shared memory per thread and default block of one look-back
/// tile.
struct TileShape {
    items: u32,
    shared_per_thread: usize,
    block: u32,
}

fn lookback_tiles(
    n: usize,
    value_size: usize,
    shape: TileShape,
    block: Option<u32>,
    max_shared: usize,
) -> Result<LookbackPlan> {
    let staged = shape.shared_per_thread > 0;
    let block = match block {
        // The caller's block: a power of two, as for every algorithm.
        Some(b) => block_for(Algorithm::LookBack, Some(b))?,
        // The default, tuned per device: for staged tiles any whole number of warps (a tile is
        // its warps' segments), halved to whole warps until its shared memory fits.
        None if staged => {
            check_warp_block(shape.block)?;
            let mut b = shape.block;
            while b > MIN_BLOCK && b as usize * shape.shared_per_thread > max_shared {
                b = (b / 2).div_ceil(32) * 32;
            }
            b
        }
        None => block_for(Algorithm::LookBack, Some(shape.block))?,
    };
    let shared_bytes = block as usize * shape.shared_per_thread;
    if shared_bytes > max_shared {
        return Err(Error::invalid(
            "block_size",
            format!(
                "{block} threads with staged tiles need {shared_bytes} bytes of shared memory \
                 per block; this device allows {max_shared}"
            ),
        ));
    }
    let items = shape.items;
    let tile = block as u64 * items as u64;
    let tiles = (n as u64).div_ceil(tile);
    Ok(LookbackPlan {
        block,
        items,
        staged,
        shared_bytes,
        tile,
        tiles,
        prefetch_tiles: 0,
        layout: StatusLayout::epoch(tiles, value_size)?,
    })
}

/// One level of the report's recursive multi-block scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    /// Values scanned at this level (n at level 0, then the previous level's block count).
    pub len: u64,
    /// Blocks launched at this level.
    pub blocks: u64,
    /// Byte offset in the scratch buffer of this level's block sums (`blocks` values), when
    /// there is more than one block.
    pub sums: Option<usize>,
}

/// The report's multi-block scheme: block scans, block sums scanned recursively, added back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecursivePlan {
    /// Threads per block.
    pub block: u32,
    /// Values per block: the block size (Hillis–Steele) or twice it (Blelloch).
    pub per_block: u64,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: usize,
    /// Levels, from the input (level 0) to the last single-block level.
    pub levels: Vec<Level>,
    /// Scratch bytes for all levels' block sums.
    pub scratch_bytes: usize,
}

/// Shared memory one block of a report algorithm needs, in bytes.
pub fn shared_bytes(algorithm: Algorithm, block: u32, value_size: usize) -> usize {
    let b = block as usize;
    let slots = match algorithm {
        Algorithm::BlellochPadded => 2 * b + (2 * b) / 32,
        _ => 2 * b,
    };
    slots * value_size
}

/// The plan of a report algorithm (`HillisSteele`, `Blelloch`, `BlellochPadded`) for `n > 0`
/// values of `value_size` bytes; `block` defaults to [`DEFAULT_REPORT_BLOCK`] and must be a power
/// of two in 32..=1024.
pub fn recursive(
    algorithm: Algorithm,
    n: usize,
    value_size: usize,
    block: Option<u32>,
) -> Result<RecursivePlan> {
    let per_block = match algorithm {
        Algorithm::HillisSteele => 1,
        Algorithm::Blelloch | Algorithm::BlellochPadded => 2,
        other => {
            return Err(Error::invalid(
                "algorithm",
                format!("{other:?} is not one of the report's multi-block algorithms"),
            ))
        }
    };
    let block = block_for(algorithm, block)?;
    let per_block = per_block * block as u64;
    let mut levels = Vec::new();
    let mut len = n as u64;
    let mut offset = 0usize;
    loop {
        let blocks = len.div_ceil(per_block).max(1);
        let sums = if blocks > 1 {
            let at = offset;
            let bytes = usize::try_from(blocks)
                .ok()
                .and_then(|b| b.checked_mul(value_size))
                .ok_or_else(|| Error::invalid("len", "scratch size overflows"))?;
            offset += align_up(bytes);
            Some(at)
        } else {
            None
        };
        levels.push(Level { len, blocks, sums });
        if blocks == 1 {
            break;
        }
        len = blocks;
    }
    Ok(RecursivePlan {
        block,
        per_block,
        shared_bytes: shared_bytes(algorithm, block, value_size),
        levels,
        scratch_bytes: offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_keys_default_to_the_documented_blocks() {
        let h100 = gpu_core::DeviceProfile::new("H100", (9, 0), 132, 3.35e12);
        let t = gpu_core::Tuning::new();
        let built_in = LookbackTuning::from_keys(|k| t.value(k, &h100));
        assert_eq!(built_in, LookbackTuning::default());
        for n in [1, 1 << 20, 1 << 21, 1 << 24, 1 << 25, 1 << 28] {
            assert_eq!(built_in.register_block(n, 4), default_lookback_block(n, 4));
        }
        let mut t = gpu_core::Tuning::new();
        t.set("scan.staged_block", 512).unwrap();
        t.set("scan.staged_from", 1 << 22).unwrap();
        t.set("scan.block_medium", 1024).unwrap();
        let tuned = LookbackTuning::from_keys(|k| t.value(k, &h100));
        let shared = 227 * 1024;
        let p = lookback_tuned(1 << 28, 4, None, true, shared, &tuned).unwrap();
        assert_eq!((p.block, p.tile), (512, 512 * 56));
        let p = lookback_tuned(1 << 23, 4, None, false, shared, &tuned).unwrap();
        assert_eq!(p.block, 1024);
        // The caller's block wins over the tuned one.
        let p = lookback_tuned(1 << 23, 4, Some(128), false, shared, &tuned).unwrap();
        assert_eq!(p.block, 128);
        assert!(
            use_staged_from(TileStaging::Auto, 1 << 22, (9, 0), true, tuned.staged_from).unwrap()
        );
        assert!(!use_staged(TileStaging::Auto, 1 << 22, (9, 0), true).unwrap());
    }

    #[test]
    fn staged_flat_scans_prefetch_on_long_inputs_of_fast_memory_from_compute_9() {
        let h100 = gpu_core::DeviceProfile::new("H100", (9, 0), 132, 3.35e12);
        let h200 = gpu_core::DeviceProfile::new("H200", (9, 0), 132, 4.8e12);
        let t = gpu_core::Tuning::new();
        let ordinary = LookbackTuning::from_keys(|k| t.value(k, &h100));
        let fast = LookbackTuning::from_keys(|k| t.value(k, &h200));
        // Both GPUs from 2^27 since the fortieth session (the H100's 2^28 cumsum: f32 0.92 ->
        // 0.95, bf16 0.85 -> 0.93 a copy).
        for at in [ordinary, fast] {
            assert_eq!((at.prefetch_from, at.prefetch_bytes), (1 << 27, 7 << 20));
        }
        let shared = 227 * 1024;
        let n = 1 << 28;
        let staged = lookback_tuned(n, 4, None, true, shared, &fast).unwrap();
        assert_eq!(staged.prefetch_tiles, 0, "the flat scan's caller sets it");
        // 7 MiB of 224 KiB tiles (1024 threads × 56 values × 4 bytes); 8-byte values in tiles of
        // their own bytes.
        assert_eq!(fast.prefetch_tiles(&staged, n, 4, (9, 0)), 32);
        let staged8 = lookback_tuned(n, 8, None, true, shared, &fast).unwrap();
        assert_eq!(
            fast.prefetch_tiles(&staged8, n, 8, (9, 0)),
            (7 << 20) / (staged8.tile * 8)
        );
        assert_eq!(fast.prefetch_tiles(&staged, (1 << 27) - 1, 4, (9, 0)), 0);
        assert_eq!(fast.prefetch_tiles(&staged, n, 4, (8, 0)), 0);
        assert_eq!(ordinary.prefetch_tiles(&staged, n, 4, (9, 0)), 32);
        let registers = lookback_tuned(n, 4, None, false, shared, &fast).unwrap();
        assert_eq!(fast.prefetch_tiles(&registers, n, 4, (9, 0)), 0);
        // The staged long column spans: the H200 from 2^24 values, compute 9.0+ only.
        assert!(fast.column_staged(1 << 24, (9, 0)));
        assert!(!fast.column_staged((1 << 24) - 1, (9, 0)));
        assert!(!fast.column_staged(1 << 28, (8, 0)));
        // The H100 stages them too since the thirty-eighth session (docs/shapes.md).
        assert!(ordinary.column_staged(1 << 24, (9, 0)));
        assert!(!ordinary.column_staged((1 << 24) - 1, (9, 0)));
        let near = LookbackTuning {
            prefetch_bytes: 1,
            ..fast
        };
        assert_eq!(near.prefetch_tiles(&staged, n, 4, (9, 0)), 1);
        assert_eq!(fast.prefetch_ahead((1 << 27) - 1, 56 << 10, (9, 0)), 0);
        assert_eq!(ordinary.prefetch_ahead((1 << 27) - 1, 56 << 10, (9, 0)), 0);
        assert_eq!(ordinary.prefetch_ahead(1 << 28, 56 << 10, (8, 0)), 0);
        assert_eq!(
            fast.prefetch_ahead(1 << 28, 8 << 20, (9, 0)),
            1,
            "at least one"
        );
    }

    #[test]
    fn shaped_scans_prefetch_from_2_pow_27_on_both_gpus_sharing_the_distance() {
        let h100 = gpu_core::DeviceProfile::new("H100", (9, 0), 132, 3.35e12);
        let h200 = gpu_core::DeviceProfile::new("H200", (9, 0), 132, 4.8e12);
        let t = gpu_core::Tuning::new();
        let ordinary = LookbackTuning::from_keys(|k| t.value(k, &h100));
        let fast = LookbackTuning::from_keys(|k| t.value(k, &h200));
        for at in [ordinary, fast] {
            assert_eq!(at.shaped_prefetch_from, 1 << 27);
            // One launch's values and their own span (tile) bytes: staged segment tiles of 256
            // threads × 56 f32 (56 KiB), one chain; one tile of long column spans of 128 KiB.
            assert_eq!(at.shaped_prefetch_ahead(1 << 28, 56 << 10, 1, (9, 0)), 128);
            assert_eq!(at.shaped_prefetch_ahead(1 << 28, 128 << 10, 1, (9, 0)), 56);
            // 262144 × 1024 f32 along axis 0: 8 column tiles share the 7 MiB.
            assert_eq!(at.shaped_prefetch_ahead(1 << 28, 128 << 10, 8, (9, 0)), 7);
            // 16384 × 16384: 128 tiles of 64 KiB spans, 56 KiB each, less than a span: none.
            assert_eq!(at.shaped_prefetch_ahead(1 << 28, 64 << 10, 128, (9, 0)), 0);
            assert_eq!(
                at.shaped_prefetch_ahead((1 << 27) - 1, 56 << 10, 1, (9, 0)),
                0
            );
            assert_eq!(at.shaped_prefetch_ahead(1 << 28, 56 << 10, 1, (8, 0)), 0);
            assert_eq!(
                at.shaped_prefetch_ahead(1 << 28, 8 << 20, 1, (9, 0)),
                1,
                "at least one for a single chain"
            );
        }
        // The flat scans' key stays apart (the same value since the fortieth session).
        let apart = LookbackTuning {
            prefetch_from: 1 << 40,
            ..ordinary
        };
        assert_eq!(
            apart.shaped_prefetch_ahead(1 << 28, 56 << 10, 1, (9, 0)),
            128
        );
        assert_eq!(apart.prefetch_ahead(1 << 28, 56 << 10, (9, 0)), 0);
    }

    #[test]
    fn staged_blocks_take_whole_warps() {
        let h200 = gpu_core::DeviceProfile::new("NVIDIA H200", (9, 0), 132, 4.8e12);
        let mut t = gpu_core::Tuning::new();
        t.set("scan.staged_block_medium", 768).unwrap();
        let tuned = LookbackTuning::from_keys(|k| t.value(k, &h200));
        // 24 warps: 2^24 values in 391 tiles.
        let p = lookback_tuned(1 << 24, 4, None, true, BIG, &tuned).unwrap();
        assert_eq!((p.block, p.tile, p.tiles), (768, 768 * 56, 391));
        assert_eq!(p.shared_bytes, 768 * STAGED_SHARED_BYTES_PER_THREAD);
        // Halved to whole warps where shared memory is short: 768 -> 384 -> 192.
        let p = lookback_tuned(1 << 24, 4, None, true, 192 * 128, &tuned).unwrap();
        assert_eq!(p.block, 192);
        let t = LookbackTuning {
            staged_block_medium: 736,
            ..tuned
        };
        let p = lookback_tuned(1 << 24, 8, None, true, 50_000, &t).unwrap();
        assert!(p.shared_bytes <= 50_000);
        // 736 -> 368, rounded up to whole warps: 384 (48 KiB).
        assert_eq!(p.block, 384);
        // A caller's block stays a power of two; a bad tuned block is refused, not launched.
        assert!(lookback_tuned(1 << 24, 4, Some(768), true, BIG, &tuned).is_err());
        let bad = LookbackTuning {
            staged_block_medium: 500,
            ..tuned
        };
        assert!(lookback_tuned(1 << 24, 4, None, true, BIG, &bad).is_err());
    }

    /// Shared memory per block of an H100 (opt-in).
    const BIG: usize = 227 * 1024;

    #[test]
    fn items_match_the_kernel_shape() {
        assert_eq!(lookback_items(4), 32);
        assert_eq!(lookback_items(8), 8);
        assert_eq!(lookback_items(16), 4);
        assert_eq!(lookback_items(32), 2);
    }

    #[test]
    fn lookback_tiles_cover_n() {
        let p = lookback(123_123_123, 4, None, false, BIG).unwrap();
        assert_eq!((p.block, p.items), (1024, 32));
        assert_eq!(p.tile, 32768);
        assert_eq!(p.tiles, 123_123_123u64.div_ceil(32768));
        assert_eq!(
            lookback(1 << 20, 4, None, false, BIG).unwrap().tile,
            256 * 32
        );
        assert_eq!(
            lookback(1 << 22, 4, None, false, BIG).unwrap().tile,
            512 * 32
        );
        assert_eq!(
            lookback(1 << 28, 8, None, false, BIG).unwrap().tile,
            256 * 8
        );
        assert_eq!(
            lookback(1 << 28, 4, Some(128), false, BIG).unwrap().tile,
            128 * 32
        );
        assert!(p.layout.flags.is_none());
        assert_eq!(p.layout.zero_bytes, p.layout.total_bytes);
        let q = lookback(1, 32, Some(32), false, BIG).unwrap();
        assert_eq!((q.tile, q.tiles), (64, 1));
        let flags = q.layout.flags.unwrap();
        assert!(q.layout.zero_bytes > flags && q.layout.aggregates >= q.layout.zero_bytes);
        assert!(q.layout.inclusives + 32 <= q.layout.total_bytes);
    }

    #[test]
    fn staged_tiles() {
        let p = lookback(1 << 28, 4, None, true, BIG).unwrap();
        assert_eq!((p.block, p.items, p.shared_bytes), (1024, 56, 1024 * 128));
        assert_eq!(p.tiles, (1u64 << 28).div_ceil(1024 * 56));
        let q = lookback(1000, 8, Some(64), true, BIG).unwrap();
        assert_eq!(
            (q.items, q.tile, q.tiles, q.shared_bytes),
            (28, 64 * 28, 1, 64 * 128)
        );
        // 8-byte values: the status split into epoch-tagged words, no flags.
        assert!(q.layout.flags.is_none());
        let e = lookback(10, 16, None, true, BIG).unwrap_err();
        assert!(e.to_string().contains("staging"), "{e}");
        assert_eq!(lookback(10, 4, None, false, BIG).unwrap().shared_bytes, 0);
        // A device with 99 KiB per block gets 512 threads by default, and an error for 1024.
        assert_eq!(
            lookback(1 << 28, 4, None, true, 99 * 1024).unwrap().block,
            512
        );
        let e = lookback(1 << 28, 4, Some(1024), true, 99 * 1024).unwrap_err();
        assert!(e.to_string().contains("shared memory"), "{e}");
    }

    #[test]
    fn half_tiles() {
        let r = lookback_half(1 << 28, None, false, false, BIG).unwrap();
        assert_eq!((r.block, r.items, r.shared_bytes), (1024, 32, 0));
        assert_eq!(lookback_half(1 << 28, None, false, true, BIG).unwrap(), r);
        // 16-bit results: thread runs of 56 values, 1024 threads × 112 bytes.
        let p = lookback_half(1 << 28, None, true, false, BIG).unwrap();
        assert_eq!((p.block, p.items, p.shared_bytes), (1024, 56, 1024 * 112));
        assert_eq!(p.tiles, (1u64 << 28).div_ceil(1024 * 56));
        // f32 values in the status: no flags array.
        assert!(p.layout.flags.is_none());
        // f32 results: 80 values per thread, 256 threads × 192 bytes by default.
        let q = lookback_half(1 << 28, None, true, true, BIG).unwrap();
        assert_eq!((q.block, q.items, q.shared_bytes), (256, 80, 256 * 192));
        let q = lookback_half(1000, Some(1024), true, true, BIG).unwrap();
        assert_eq!((q.tile, q.tiles, q.shared_bytes), (81920, 1, 1024 * 192));
        // A 64 KiB device: 512 threads for the runs, 256 for the f32 tile; 1024 of those fail.
        assert_eq!(
            lookback_half(1 << 28, None, true, false, 64 * 1024)
                .unwrap()
                .block,
            512
        );
        assert_eq!(
            lookback_half(1 << 28, None, true, true, 64 * 1024)
                .unwrap()
                .block,
            256
        );
        let e = lookback_half(1 << 28, Some(1024), true, true, 163 * 1024).unwrap_err();
        assert!(e.to_string().contains("shared memory"), "{e}");
    }

    #[test]
    fn staging_choice() {
        let big = STAGED_MIN_LEN;
        let h100 = (9, 0);
        let v100 = (7, 0);
        assert!(use_staged(TileStaging::Auto, big, h100, true).unwrap());
        assert!(!use_staged(TileStaging::Auto, big - 1, h100, true).unwrap());
        assert!(!use_staged(TileStaging::Auto, big, v100, true).unwrap());
        assert!(!use_staged(TileStaging::Auto, big, h100, false).unwrap());
        assert!(!use_staged(TileStaging::Registers, big, h100, true).unwrap());
        assert!(use_staged(TileStaging::Staged, 1, (8, 0), true).unwrap());
        let e = use_staged(TileStaging::Staged, 1, v100, true).unwrap_err();
        assert!(e.to_string().contains("compute capability 8.0"), "{e}");
        let e = use_staged(TileStaging::Staged, 1, h100, false).unwrap_err();
        assert!(e.to_string().contains("monoids"), "{e}");
    }

    #[test]
    fn recursion_levels() {
        let p = recursive(Algorithm::HillisSteele, 1 << 20, 4, Some(32)).unwrap();
        let lens: Vec<u64> = p.levels.iter().map(|l| l.len).collect();
        assert_eq!(lens, vec![1 << 20, 1 << 15, 1 << 10, 32]);
        assert!(p.levels.last().unwrap().sums.is_none());
        let p = recursive(Algorithm::Blelloch, 2048, 8, Some(1024)).unwrap();
        assert_eq!(p.levels.len(), 1);
        assert_eq!(p.scratch_bytes, 0);
        let p = recursive(Algorithm::BlellochPadded, 2049, 8, Some(1024)).unwrap();
        assert_eq!(p.levels.len(), 2);
        assert_eq!(p.shared_bytes, (2048 + 64) * 8);
    }

    #[test]
    fn bad_block_sizes_are_clear_errors() {
        for bad in [0, 16, 48, 100, 2048] {
            let e = recursive(Algorithm::Blelloch, 10, 4, Some(bad)).unwrap_err();
            assert!(e.to_string().contains("block_size"), "{e}");
            assert!(lookback(10, 4, Some(bad), false, BIG).is_err());
            assert!(lookback(10, 4, Some(bad), true, BIG).is_err());
        }
        assert!(recursive(Algorithm::Serial, 10, 4, None).is_err());
    }
}
