//! Non-blocking host-to-host scans: the data move in, the scan runs on a thread of its own
//! (through the host pipeline where [`ScanOptions::pipelining`](crate::ScanOptions) takes it),
//! and the caller waits on a [`Pending`] handle when it needs the result.

use gpu_core::{Element, Op, Pending, PinnedBuffer};

use crate::Scan;

impl Scan<'static> {
    /// Starts the scan of `x` (moved in) with `op` and returns at once; [`Pending::wait`] gives
    /// the result, as [`scan`](Scan::scan) would have.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op, Pipelining};
    /// let gpu = Gpu::default_device()?;
    /// let scan = gpu_scan::Scan::new(&gpu).pipelining(Pipelining::Auto);
    /// let pending = scan.scan_async(vec![1u32; 1 << 26], Op::Sum);
    /// // ... the host is free here ...
    /// assert_eq!(pending.wait()?[(1 << 26) - 1], 1 << 26);
    /// # Ok(()) }
    /// ```
    pub fn scan_async<T: Element>(&self, x: Vec<T>, op: Op) -> Pending<Vec<T>> {
        let scan = self.clone();
        Pending::spawn(move || scan.scan(&x, op))
    }

    /// Starts the scan of the page-locked `x` into the page-locked `out` (the same length;
    /// both moved in, both given back by [`Pending::wait`]) and returns at once: the fastest
    /// host-to-host form, the DMA engines reading and writing both directly.
    pub fn scan_pinned_async<T: Element>(
        &self,
        x: PinnedBuffer<T>,
        mut out: PinnedBuffer<T>,
        op: Op,
    ) -> Pending<(PinnedBuffer<T>, PinnedBuffer<T>)> {
        let scan = self.clone();
        Pending::spawn(move || {
            scan.scan_to_slice(x.as_slice()?, out.as_mut_slice()?, op)?;
            Ok((x, out))
        })
    }
}
