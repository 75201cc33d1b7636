//! Grids sized by occupancy: the launch plans that need a loaded kernel (so above both
//! `launch` and `module`).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::lanes::LANES_BLOCK;
use crate::launch::{grid_for, LaunchConfig};
use crate::module::Kernel;

impl Kernel {
    /// The grid that keeps every SM full and no more: SM count × blocks resident per SM
    /// (occupancy API) for this kernel at `block` threads, for persistent and grid-stride
    /// kernels.
    pub fn resident_grid(&self, block: u32, dynamic_shared: usize) -> Result<u32> {
        let per_sm = self.max_active_blocks_per_sm(block, dynamic_shared)?;
        if per_sm == 0 {
            return Err(Error::invalid(
                "block",
                format!(
                    "kernel `{}` cannot run {block} threads per block with {dynamic_shared} bytes of shared memory",
                    self.name()
                ),
            ));
        }
        Ok(self.gpu().properties().sm_count.max(1) * per_sm)
    }

    /// [`resident_grid`](Kernel::resident_grid) at the lane kernels' block size
    /// ([`LANES_BLOCK`], no dynamic shared memory): the blocks a [`LanePlan`] should fill.
    /// Cached per device and kernel, so planning a shaped call costs no driver query.
    ///
    /// [`LanePlan`]: crate::LanePlan
    pub fn lane_target_blocks(&self) -> Result<u64> {
        type Key = (usize, String);
        static CACHE: OnceLock<Mutex<HashMap<Key, u64>>> = OnceLock::new();
        let key = (self.gpu().properties().ordinal, self.name().to_string());
        let cache = CACHE.get_or_init(Default::default);
        if let Some(&b) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(b);
        }
        let blocks = self.resident_grid(LANES_BLOCK, 0)? as u64;
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, blocks);
        Ok(blocks)
    }

    /// A grid-stride launch over `items`, `items_per_thread` per thread per step: as many
    /// blocks as the items need, at most the resident grid.
    pub fn grid_stride_config(
        &self,
        items: u64,
        block: u32,
        items_per_thread: u32,
        dynamic_shared: usize,
    ) -> Result<LaunchConfig> {
        let resident = self.resident_grid(block, dynamic_shared)?;
        let grid = grid_for(
            items,
            block as u64 * items_per_thread.max(1) as u64,
            resident,
        );
        Ok(LaunchConfig::new(grid, block).with_shared_bytes(dynamic_shared as u32))
    }
}
