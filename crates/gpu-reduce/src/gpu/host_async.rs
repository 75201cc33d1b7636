//! Non-blocking reductions of host data: the data move in, the reduction runs on a thread of
//! its own, and the caller waits on a [`Pending`] handle when it needs the value.

use gpu_core::{Element, Op, Pending, PinnedBuffer};

use super::Reduce;

impl Reduce<'static> {
    /// Starts `x[0] op x[1] op …` over `x` (moved in) and returns at once;
    /// [`Pending::wait`] gives the value, as [`reduce`](Reduce::reduce) would have.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{Gpu, Op};
    /// let gpu = Gpu::default_device()?;
    /// let pending = gpu_reduce::Reduce::new(&gpu).reduce_async(vec![1u32; 1 << 26], Op::Sum);
    /// // ... the host is free here ...
    /// assert_eq!(pending.wait()?, 1 << 26);
    /// # Ok(()) }
    /// ```
    pub fn reduce_async<T: Element>(&self, x: Vec<T>, op: Op) -> Pending<T::Accumulator> {
        let reduce = self.clone();
        Pending::spawn(move || reduce.reduce(&x, op))
    }

    /// As [`reduce_async`](Reduce::reduce_async) over page-locked data (read by the DMA engine
    /// directly), the buffer given back with the value.
    pub fn reduce_pinned_async<T: Element>(
        &self,
        x: PinnedBuffer<T>,
        op: Op,
    ) -> Pending<(T::Accumulator, PinnedBuffer<T>)> {
        let reduce = self.clone();
        Pending::spawn(move || {
            let v = reduce.reduce(x.as_slice()?, op)?;
            Ok((v, x))
        })
    }
}
