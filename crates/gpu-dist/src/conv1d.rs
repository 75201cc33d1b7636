//! The sharded convolution: each shard's window (its outputs' inputs: its own elements, its
//! neighbours' halos, the boundary's ghosts, per `halo::ConvGeometry`) gathered on its device,
//! then convolved there in `valid` mode, which reads nothing past the window. Pieces from the
//! same device are device-to-device copies (`DeviceArray::copy_range_from`); from another
//! device they pass through the host (halos are at most `w − 1` elements per side).

use gpu_conv1d::{Boundary, Conv1d, Mode, Operation, Options, Real};
use gpu_core::{DeviceArray, DeviceSlice, Error, Input, Result};

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
        // One shard is the whole signal: the plain convolution, in place, as on one GPU.
        if let [shard] = x.shards() {
            let conv = Conv1d::new(shard.gpu(), self.operation, &self.mask, self.options)?;
            let mut out = shard.gpu().alloc::<T>(g.output().total())?;
            conv.run_into(shard, &mut out)?;
            return ShardedArray::from_shards(vec![out]);
        }
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
        let mut window = gpu.zeros::<T>(len)?;
        let stream = gpu.stream();
        for p in &pieces {
            let src = &x.shards()[p.shard];
            let range = p.start..p.start + p.len;
            if src.gpu().same_device(gpu) {
                window.copy_range_from(p.at, src, range, stream)?;
            } else {
                // Another device's halo: through the host (at most w − 1 elements).
                let host = DeviceSlice::new(src, range)?.stage(src.gpu())?.to_vec()?;
                let staged = gpu.upload(&host)?;
                window.copy_range_from(p.at, &staged, 0..p.len, stream)?;
                // The copy must finish before `staged` is freed (cuMemFree would wait anyway).
                stream.synchronize()?;
            }
        }
        let valid = self.options.mode(Mode::Valid).boundary(Boundary::Zero);
        let conv = Conv1d::new(gpu, self.operation, &self.mask, valid)?;
        conv.run_into(&window, &mut out)?;
        Ok(out)
    }
}
