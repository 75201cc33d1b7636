//! Kernel-argument layouts shared with the device headers.

/// The kernel argument that is `gp::WorkQueue` on the device: `{ u64* cursor; u64 total; }`,
/// passed by value.
///
/// Get it from `WorkQueue::args` (`cuda` feature) and pass it where the kernel takes
/// a `gp::WorkQueue` (`kernel_args![queue.args(), …]`); the items themselves go in a separate
/// pointer argument.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WorkQueueArgs {
    /// Device address of the `u64` cursor: the next index to hand out.
    pub cursor: u64,
    /// Number of items: indices `0..total` are handed out.
    pub total: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_gp_work_queue() {
        // struct WorkQueue { u64* cursor; u64 total; }: 16 bytes, 8-aligned, in this order.
        assert_eq!(std::mem::size_of::<WorkQueueArgs>(), 16);
        assert_eq!(std::mem::align_of::<WorkQueueArgs>(), 8);
        assert_eq!(std::mem::offset_of!(WorkQueueArgs, cursor), 0);
        assert_eq!(std::mem::offset_of!(WorkQueueArgs, total), 8);
        assert!(crate::SYNC_CUH.contains("struct WorkQueue {\n    u64* cursor;\n    u64 total;\n"));
    }
}
