//! Non-blocking host-to-host convolutions: the signal moves in, the convolution runs on a
//! thread of its own (through the host pipeline where
//! [`Options::pipelining`](crate::Options::pipelining) takes it), and the caller waits on a
//! [`Pending`] handle when it needs the result.

use gpu_core::{Pending, PinnedBuffer};

use crate::gpu::Conv1d;
use crate::Real;

impl<T: Real> Conv1d<'static, T> {
    /// Starts the convolution of `x` (moved in) and returns at once; [`Pending::wait`] gives
    /// the result, as [`run`](Conv1d::run) would have.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_conv1d::{Conv1d, Options};
    /// let gpu = gpu_core::Gpu::default_device()?;
    /// let conv = Conv1d::correlation(&gpu, &[1.0f32; 7], Options::new())?;
    /// let pending = conv.run_async(vec![1.0f32; 1 << 24]);
    /// // ... the host is free here ...
    /// assert_eq!(pending.wait()?[1000], 7.0);
    /// # Ok(()) }
    /// ```
    pub fn run_async(&self, x: Vec<T>) -> Pending<Vec<T>> {
        let conv = self.clone();
        Pending::spawn(move || conv.run(&x))
    }

    /// Starts the convolution of the page-locked `x` into the page-locked `out` (holding
    /// [`output_len`](Conv1d::output_len)`(x.len())` elements; both moved in, both given back
    /// by [`Pending::wait`]) and returns at once.
    pub fn run_pinned_async(
        &self,
        x: PinnedBuffer<T>,
        mut out: PinnedBuffer<T>,
    ) -> Pending<(PinnedBuffer<T>, PinnedBuffer<T>)> {
        let conv = self.clone();
        Pending::spawn(move || {
            conv.run_to_slice(x.as_slice()?, out.as_mut_slice()?)?;
            Ok((x, out))
        })
    }
}
