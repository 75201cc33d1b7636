//! Launch planning, kept apart from the launches: persistent grids, the demonstration's
//! schedules, and the index arithmetic of the kernels (mirrored here so it can be tested on
//! the CPU).

use std::fmt;
use std::ops::Range;

use gpu_core::{Error, Result};

/// How the demonstration kernels hand items to blocks (see `run_demo`, `cuda` feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// Persistent grid; block `b` takes the contiguous chunk
    /// [`static_chunk`]`(n, grid, b)`: equal item counts, decided before the launch.
    Static,
    /// Persistent grid; block `b` takes items `b, b + grid, b + 2·grid, …`: equal item counts,
    /// interleaved, decided before the launch.
    Strided,
    /// One block per item (grid = n, at most the device's grid limit, then strided): no
    /// persistent blocks; the hardware block scheduler starts a new block whenever one exits.
    BlockPerItem,
    /// Persistent grid; blocks take `batch` consecutive items at a time from the global work
    /// queue whenever they are free. `batch` ≥ 1.
    Queue {
        /// Items per atomic fetch.
        batch: u32,
    },
}

impl Schedule {
    /// All four schedules, the queue with batches of `batch` items.
    pub fn all(batch: u32) -> [Schedule; 4] {
        [
            Schedule::Static,
            Schedule::Strided,
            Schedule::BlockPerItem,
            Schedule::Queue { batch },
        ]
    }

    /// Refuses a queue batch of 0.
    pub fn validate(&self) -> Result<()> {
        if let Schedule::Queue { batch: 0 } = self {
            return Err(Error::invalid(
                "batch",
                "a queue batch needs at least one item",
            ));
        }
        Ok(())
    }

    /// A short label for tables and benchmark ids: `static`, `strided`, `block-per-item`,
    /// `queue-b<batch>`.
    pub fn label(&self) -> String {
        match self {
            Schedule::Static => "static".into(),
            Schedule::Strided => "strided".into(),
            Schedule::BlockPerItem => "block-per-item".into(),
            Schedule::Queue { batch } => format!("queue-b{batch}"),
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// The persistent grid: `resident` blocks (SMs × blocks resident per SM), or fewer when the
/// launch has fewer `work_units` to hand out (never 0). A `resident` of 0 means the kernel
/// cannot run at that block size, an error.
pub fn persistent_grid(resident: u32, work_units: Option<u64>) -> Result<u32> {
    if resident == 0 {
        return Err(Error::invalid(
            "block",
            "no block of this size fits on an SM (occupancy 0)",
        ));
    }
    Ok(match work_units {
        Some(units) => units.clamp(1, resident as u64) as u32,
        None => resident,
    })
}

/// The items block `block_index` of `grid` takes under [`Schedule::Static`]:
/// `[b·per, min(n, (b+1)·per))` with `per = ceil(n / grid)`, as `sync_demo_static` computes
/// it. Empty for blocks past the end; together the chunks cover `0..n` exactly once.
pub fn static_chunk(n: u64, grid: u32, block_index: u32) -> Range<u64> {
    let grid = grid.max(1) as u64;
    let per = n.div_ceil(grid);
    let begin = (block_index as u64).saturating_mul(per).min(n);
    let end = begin.saturating_add(per).min(n);
    begin..end
}

/// What `WorkQueue::fetch_batch` hands a block that read `start` from the cursor: `None`
/// when the queue is empty (`start ≥ total`), else `[start, min(total, start + batch))`.
/// A batch of 0 is taken as 1, as on the device.
pub fn queue_batch(start: u64, batch: u64, total: u64) -> Option<Range<u64>> {
    let step = batch.max(1);
    if start >= total {
        return None;
    }
    let end = if total - start < step {
        total
    } else {
        start + step
    };
    Some(start..end)
}

/// Items a queue has handed out, from the cursor read after a launch: `min(cursor, total)`
/// (each block's final, failed fetch moves the cursor past `total`).
pub fn queue_taken(cursor: u64, total: u64) -> u64 {
    cursor.min(total)
}

/// The demonstration's grid for `n` items under `schedule`, given the kernel's resident grid
/// and the device's grid limit; `None` when there is nothing to launch (`n == 0`).
pub fn demo_grid(
    schedule: Schedule,
    n: u64,
    resident: u32,
    max_grid_x: u32,
) -> Result<Option<u32>> {
    schedule.validate()?;
    if n == 0 {
        return Ok(None);
    }
    let grid = match schedule {
        Schedule::Static | Schedule::Strided => persistent_grid(resident, Some(n))?,
        Schedule::Queue { batch } => persistent_grid(resident, Some(n.div_ceil(batch as u64)))?,
        Schedule::BlockPerItem => n.clamp(1, max_grid_x.max(1) as u64) as u32,
    };
    Ok(Some(grid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn persistent_grids() {
        assert_eq!(persistent_grid(264, None).unwrap(), 264);
        assert_eq!(persistent_grid(264, Some(5)).unwrap(), 5);
        assert_eq!(persistent_grid(264, Some(0)).unwrap(), 1);
        assert_eq!(persistent_grid(264, Some(1 << 40)).unwrap(), 264);
        let e = persistent_grid(0, None).unwrap_err();
        assert!(e.to_string().contains("occupancy 0"), "{e}");
    }

    #[test]
    fn schedules_validate_and_label() {
        assert!(Schedule::Queue { batch: 0 }.validate().is_err());
        for s in Schedule::all(8) {
            assert!(s.validate().is_ok());
        }
        assert_eq!(Schedule::Queue { batch: 8 }.to_string(), "queue-b8");
        assert_eq!(Schedule::BlockPerItem.label(), "block-per-item");
    }

    #[test]
    fn demo_grids() {
        assert_eq!(demo_grid(Schedule::Static, 0, 528, 1 << 31).unwrap(), None);
        assert_eq!(
            demo_grid(Schedule::Static, 10, 528, 1 << 31).unwrap(),
            Some(10)
        );
        assert_eq!(
            demo_grid(Schedule::Strided, 1 << 20, 528, 1 << 31).unwrap(),
            Some(528)
        );
        assert_eq!(
            demo_grid(Schedule::Queue { batch: 4 }, 1000, 528, 1 << 31).unwrap(),
            Some(250)
        );
        assert_eq!(
            demo_grid(Schedule::BlockPerItem, 1 << 20, 528, 65535).unwrap(),
            Some(65535)
        );
        assert!(demo_grid(Schedule::Queue { batch: 0 }, 10, 528, 1 << 31).is_err());
    }

    #[test]
    fn static_chunks_small_cases() {
        assert_eq!(static_chunk(10, 4, 0), 0..3);
        assert_eq!(static_chunk(10, 4, 3), 9..10);
        assert_eq!(static_chunk(2, 4, 3), 2..2);
        assert_eq!(static_chunk(0, 4, 0), 0..0);
    }

    #[test]
    fn queue_batches_small_cases() {
        assert_eq!(queue_batch(0, 4, 10), Some(0..4));
        assert_eq!(queue_batch(8, 4, 10), Some(8..10));
        assert_eq!(queue_batch(10, 4, 10), None);
        assert_eq!(queue_batch(3, 0, 10), Some(3..4));
        assert_eq!(queue_batch(0, 1, 0), None);
        assert_eq!(queue_taken(17, 10), 10);
        assert_eq!(queue_taken(7, 10), 7);
    }

    quickcheck! {
        // The static chunks partition 0..n in order.
        fn static_chunks_partition(n: u32, grid: u16) -> bool {
            let (n, grid) = (n as u64 % 100_000, grid as u32 % 3000 + 1);
            let mut next = 0;
            for b in 0..grid {
                let r = static_chunk(n, grid, b);
                if r.start != next.min(n) || r.end < r.start { return false; }
                next = r.end;
            }
            next == n
        }

        // However blocks interleave their fetches, the batches they get partition 0..total and
        // the final cursor gives taken == total.
        fn queue_batches_partition(total: u32, batch: u16, blocks: u8, picks: Vec<u8>) -> bool {
            let (total, batch, blocks) = (total as u64 % 50_000, batch as u64 % 300, blocks as usize % 40 + 1);
            let mut cursor = 0u64;
            let mut done = vec![false; blocks];
            let mut seen = vec![0u8; total as usize];
            let mut k = 0usize;
            while done.iter().any(|d| !d) {
                // The next block to fetch: chosen by `picks`, skipping finished ones.
                let mut b = picks.get(k).copied().unwrap_or(0) as usize % blocks;
                k += 1;
                while done[b] { b = (b + 1) % blocks; }
                let start = cursor;
                cursor += batch.max(1);
                match queue_batch(start, batch, total) {
                    None => done[b] = true,
                    Some(r) => for i in r { seen[i as usize] += 1; },
                }
            }
            seen.iter().all(|&s| s == 1) && queue_taken(cursor, total) == total
                && cursor <= total + blocks as u64 * batch.max(1) + batch.max(1)
        }
    }
}
