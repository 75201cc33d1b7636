//! Launch planning: block and grid sizes from the device, kept apart from the kernels.

use crate::error::{Error, Result};

/// Grid, block and dynamic shared memory of one launch (1-D).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid (≥ 1).
    pub grid: u32,
    /// Threads per block (≥ 1).
    pub block: u32,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// A launch of `grid` blocks of `block` threads, no dynamic shared memory.
    pub const fn new(grid: u32, block: u32) -> Self {
        LaunchConfig {
            grid,
            block,
            shared_bytes: 0,
        }
    }

    /// The same launch with `bytes` of dynamic shared memory per block.
    pub const fn with_shared_bytes(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// Refuses empty grids and blocks, which the driver would reject with a vaguer error.
    pub fn validate(&self) -> Result<()> {
        if self.grid == 0 {
            return Err(Error::invalid("grid", "a launch needs at least one block"));
        }
        if self.block == 0 {
            return Err(Error::invalid("block", "a block needs at least one thread"));
        }
        Ok(())
    }
}

/// Blocks needed to cover `items` when each block takes `items_per_block`, capped at
/// `max_grid` (a grid-stride loop covers the rest), and never 0.
pub fn grid_for(items: u64, items_per_block: u64, max_grid: u32) -> u32 {
    let needed = items.div_ceil(items_per_block.max(1));
    needed.clamp(1, max_grid.max(1) as u64) as u32
}

/// Checks a user-chosen block size: a power of two within `min..=max`.
pub fn check_block_size(name: &'static str, block: u32, min: u32, max: u32) -> Result<()> {
    if !block.is_power_of_two() || block < min || block > max {
        return Err(Error::invalid(
            name,
            format!("{block} threads: must be a power of two between {min} and {max}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_are_never_empty_and_capped() {
        assert_eq!(grid_for(0, 256, 132), 1);
        assert_eq!(grid_for(1, 256, 132), 1);
        assert_eq!(grid_for(257, 256, 132), 2);
        assert_eq!(grid_for(1 << 40, 256, 264), 264);
        assert_eq!(grid_for(10, 0, 0), 1);
    }

    #[test]
    fn block_sizes_checked() {
        assert!(check_block_size("block", 256, 32, 1024).is_ok());
        let e = check_block_size("block", 100, 32, 1024).unwrap_err();
        assert!(e.to_string().contains("power of two"));
        assert!(check_block_size("block", 2048, 32, 1024).is_err());
        assert!(check_block_size("block", 16, 32, 1024).is_err());
        assert!(LaunchConfig::new(0, 32).validate().is_err());
    }
}
