//! The sharded convolution: each shard's window (its outputs' inputs: its own elements, its
//! neighbours' halos, the boundary's ghosts, per `halo::ConvGeometry`) gathered on its device,
//! then convolved there in `valid` mode, which reads nothing past the window. Halo pieces from
//! the same device are device-to-device copies; from another device they pass through the
//! host (halos are at most `w − 1` elements per side).

use gpu_conv1d::{Boundary, Conv1d, Mode, Operation, Options, Real};
use gpu_core::{enqueue_layout_copy_at, DeviceArray, DeviceSlice, Error, Input, Result};

use crate::halo::ConvGeometry;
use crate::reduce::check_shards;
use crate::sharded::on_each_shard;
use crate::{Communicator, ShardedArray};

/// Correlations and convolutions of [`ShardedArray`]s, as
/// [`gpu_conv1d::Conv1d`] of the concatenated signal: every mode and boundary (wrap across the
/// ends included, halos wider than a shard included). The output is sharded by
/// [`ConvGeometry::output`] (as the input in `same` mode). Every rank must be in this process
/// (the in-process transport): the device-side halo exchange over NCCL is not built yet.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// use gpu_conv1d::Options;
/// use gpu_core::Gpu;
/// use gpu_dist::{InProcess, ShardLayout, ShardedArray, ShardedConv1d};
/// let gpu = Gpu::default_device()?;
/// let x = vec![1.0f32; 10];
/// let a = ShardedArray::from_host(&vec![gpu; 3], &x, ShardLayout::even(10, 3)?)?;
/// let comm = InProcess::new(3);
/// let y = ShardedConv1d::correlation(&comm, &[1.0, 1.0, 1.0], Options::new()).run(&a)?;
/// assert_eq!(y.to_vec()?[..3], [2.0, 3.0, 3.0]); // zero ghosts at the ends
/// # Ok(()) }
/// ```
pub struct ShardedConv1d<'c, T: Real> {
    comm: &'c dyn Communicator,
    operation: Operation,
    mask: Vec<T>,
    options: Options,
}

impl<'c, T: Real> ShardedConv1d<'c, T> {
    /// Cross-correlation with `mask` (as [`Conv1d::correlation`]).
    pub fn correlation(comm: &'c dyn Communicator, mask: &[T], options: Options) -> Self {
        Self::new(comm, Operation::Correlation, mask, options)
    }

    /// Convolution with `mask` (the mask reversed, as [`Conv1d::convolution`]).
    pub fn convolution(comm: &'c dyn Communicator, mask: &[T], options: Options) -> Self {
        Self::new(comm, Operation::Convolution, mask, options)
    }

    /// `operation` with `mask` and `options` (mode, boundary, strategy).
    pub fn new(
        comm: &'c dyn Communicator,
        operation: Operation,
        mask: &[T],
        options: Options,
    ) -> Self {
        Self {
            comm,
            operation,
            mask: mask.to_vec(),
            options,
        }
    }

    /// The geometry of this convolution over `x`'s layout (its output layout, each shard's
    /// window).
    pub fn geometry(&self, x: &ShardedArray<T>) -> Result<ConvGeometry> {
        ConvGeometry::new(x.layout(), self.mask.len(), self.options.mode)
    }

    /// The result over the concatenated signal, sharded by the geometry's output layout on
    /// the input shards' devices.
    pub fn run(&self, x: &ShardedArray<T>) -> Result<ShardedArray<T>> {
        check_shards(self.comm, x)?;
        if self.comm.local_ranks().len() != self.comm.ranks() {
            return Err(Error::invalid(
                "comm",
                "the sharded convolution needs every rank in this process (the halo exchange \
                 over NCCL is not built yet)",
            ));
        }
        let g = self.geometry(x)?;
        let boundary = self.options.boundary;
        let outs = on_each_shard(x.shards().len(), |s| self.shard(x, &g, s, boundary))?;
        ShardedArray::from_shards(outs)
    }

    /// Shard `s`'s outputs: its window gathered, then convolved in `valid` mode.
    fn shard(
        &self,
        x: &ShardedArray<T>,
        g: &ConvGeometry,
        s: usize,
        boundary: Boundary,
    ) -> Result<DeviceArray<T>> {
        let gpu = x.shards()[s].gpu();
        let n_out = g.output().range(s).len();
        let mut out = gpu.alloc::<T>(n_out)?;
        if n_out == 0 {
            return Ok(out);
        }
        let (len, pieces) = g.window(s, boundary);
        let window = gpu.zeros::<T>(len)?;
        let size = std::mem::size_of::<T>() as u64;
        let stream = gpu.stream();
        // Pieces from other devices, staged here first (kept alive until the wait below).
        let mut staged: Vec<DeviceArray<T>> = Vec::new();
        for p in &pieces {
            let src = &x.shards()[p.shard];
            let from = if src.gpu().same_device(gpu) {
                src.device_ptr() + p.start as u64 * size
            } else {
                let slice = DeviceSlice::new(src, p.start..p.start + p.len)?;
                let host = slice.stage(src.gpu())?.to_vec()?;
                staged.push(gpu.upload(&host)?);
                staged.last().expect("pushed").device_ptr()
            };
            // SAFETY: `from` addresses p.len elements (inside the source shard, checked by the
            // geometry, or a staged copy of them) and window[p.at..p.at + p.len] lies inside
            // the window (positions below its length); distinct allocations, alive until the
            // stream has run (the conv below waits on the same stream).
            unsafe {
                enqueue_layout_copy_at::<T>(
                    gpu,
                    from,
                    &[1],
                    window.device_ptr() + p.at as u64 * size,
                    &[1],
                    &[p.len],
                    stream,
                )?;
            }
        }
        let valid = self.options.mode(Mode::Valid).boundary(Boundary::Zero);
        let conv = Conv1d::new(gpu, self.operation, &self.mask, valid)?;
        conv.run_into(&window, &mut out)?;
        drop(staged);
        Ok(out)
    }
}
