//! Copies between N-D layouts on the device (`kernels/include/gpu_prims/layout_copy.cuh`): a
//! row-major copy of a transposed or reversed view, or results written into an output of
//! another layout. Axes contiguous on both sides are merged first, so most copies are 1-D
//! (the copy engine when both sides are contiguous, else the rows kernel) or a transpose (the
//! tiles kernel).

use crate::array_nd::{DeviceArrayD, ShapedInput, StagedNd};
use crate::device::Gpu;
use crate::driver::check;
use crate::driver_code;
use crate::error::{Error, Result};
use crate::fill::CORE_PTX;
use crate::launch::{grid_for, LaunchConfig};
use crate::stream::Stream;
use crate::Pod;

/// Axes the kernel takes after merging (`gp::LAYOUT_MAX_DIMS`).
const MAX_DIMS: usize = 8;
/// Threads per block of both kernels (the tiles kernel is 32 × 8).
const BLOCK: u32 = 256;
/// Side of the tiles kernel's shared-memory tile (`gp::LAYOUT_TILE`).
const TILE: u64 = 32;

/// `gp::CopyLayout`, the kernel argument (by value).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct CopyLayout {
    ndim: u32,
    a: u32,
    b: u32,
    unused: u32,
    shape: [u64; MAX_DIMS],
    src: [i64; MAX_DIMS],
    dst: [i64; MAX_DIMS],
}

/// The axes of a copy as (length, source stride, destination stride), in the destination's
/// memory order (largest stride first), axes of length 1 dropped and neighbours contiguous on
/// both sides merged. Empty for a single element.
fn merged_axes(shape: &[usize], src: &[isize], dst: &[isize]) -> Vec<(u64, i64, i64)> {
    let mut axes: Vec<(u64, i64, i64)> = shape
        .iter()
        .zip(src.iter().zip(dst))
        .filter(|(&n, _)| n > 1)
        .map(|(&n, (&s, &d))| (n as u64, s as i64, d as i64))
        .collect();
    // Any axis order gives the same element mapping; the destination's order lets the most
    // axes merge for the usual row-major output.
    axes.sort_by_key(|&(_, s, d)| {
        (
            std::cmp::Reverse(d.unsigned_abs()),
            std::cmp::Reverse(s.unsigned_abs()),
        )
    });
    let mut merged: Vec<(u64, i64, i64)> = Vec::with_capacity(axes.len());
    for (n, s, d) in axes {
        if let Some(last) = merged.last_mut() {
            let (ln, ls, ld) = *last;
            if ls == s * n as i64 && ld == d * n as i64 {
                *last = (ln * n, s, d);
                continue;
            }
        }
        merged.push((n, s, d));
    }
    merged
}

/// Enqueues on `stream` the copy of an array of `shape` at device address `src` (element
/// `src_strides`) into the array of the same shape at `dst` (`dst_strides`): the layout copy
/// [`DeviceArrayD::assign_staged`] runs (one coalesced pass; elements of 1, 2, 4, 8 or 16
/// bytes), for memory the caller addresses itself, such as a slot of a host pipeline's ring
/// ([`PipelineStep`](crate::PipelineStep)). Returns without waiting.
///
/// # Safety
/// Every index of `shape` must land, under both stride sets, inside memory of `gpu`'s context
/// that stays allocated until the stream has run the copy, and no destination element may
/// overlap a source element.
pub unsafe fn enqueue_layout_copy_at<T: Pod>(
    gpu: &Gpu,
    src: u64,
    src_strides: &[isize],
    dst: u64,
    dst_strides: &[isize],
    shape: &[usize],
    stream: &Stream,
) -> Result<()> {
    if src_strides.len() != shape.len() || dst_strides.len() != shape.len() {
        return Err(Error::invalid(
            "strides",
            format!(
                "{} and {} strides for {} dimensions",
                src_strides.len(),
                dst_strides.len(),
                shape.len()
            ),
        ));
    }
    enqueue_layout_copy::<T>(gpu, src, src_strides, dst, dst_strides, shape, stream)
}

/// Enqueues on `stream` the copy of the elements of an array of `shape` at `src` (element
/// `strides`) into the array of the same shape at `dst` (`dst_strides`), both of `T` in
/// `gpu`'s memory and not overlapping. The caller guarantees every index lands inside both
/// allocations (as `DeviceArrayD` and `StagedNd` do).
pub(crate) fn enqueue_layout_copy<T: Pod>(
    gpu: &Gpu,
    src: u64,
    src_strides: &[isize],
    dst: u64,
    dst_strides: &[isize],
    shape: &[usize],
    stream: &Stream,
) -> Result<()> {
    if shape.contains(&0) {
        return Ok(());
    }
    let bits = match std::mem::size_of::<T>() {
        1 => 8,
        2 => 16,
        4 => 32,
        8 => 64,
        16 => 128,
        size => {
            return Err(Error::invalid(
                "T",
                format!("layout copies move elements of 1, 2, 4, 8 or 16 bytes, not {size}"),
            ))
        }
    };
    let mut axes = merged_axes(shape, src_strides, dst_strides);
    if axes.is_empty() {
        axes.push((1, 1, 1));
    }
    // Contiguous on both sides: the copy engine (the rows kernel walks one row per block, so a
    // single long row would run on one block).
    if let [(n, 1, 1)] = axes[..] {
        gpu.bind()?;
        // SAFETY: the caller guarantees both arrays hold these n elements from `src` and `dst`
        // and do not overlap.
        return check("cuMemcpyDtoDAsync", unsafe {
            driver_code!(cuMemcpyDtoDAsync_v2(
                dst,
                src,
                n as usize * std::mem::size_of::<T>(),
                stream.as_raw()
            ))
        });
    }
    if axes.len() > MAX_DIMS {
        return Err(Error::invalid(
            "shape",
            format!(
                "{} axes that no neighbour merges with (at most {MAX_DIMS} supported)",
                axes.len()
            ),
        ));
    }
    let mut layout = CopyLayout {
        ndim: axes.len() as u32,
        ..CopyLayout::default()
    };
    for (k, &(n, s, d)) in axes.iter().enumerate() {
        layout.shape[k] = n;
        layout.src[k] = s;
        layout.dst[k] = d;
    }
    let unit_src = axes.iter().position(|a| a.1.unsigned_abs() == 1);
    let unit_dst = axes.iter().position(|a| a.2.unsigned_abs() == 1);
    let total: u64 = axes.iter().map(|a| a.0).product();
    let max_grid = gpu.properties().max_grid_x;
    match (unit_src, unit_dst) {
        (Some(a), Some(b)) if a != b => {
            layout.a = a as u32;
            layout.b = b as u32;
            let tiles = axes[a].0.div_ceil(TILE)
                * axes[b].0.div_ceil(TILE)
                * (total / (axes[a].0 * axes[b].0));
            let kernel = gpu.kernel(&CORE_PTX, &format!("copy_layout_tiles_b{bits}"))?;
            let config = LaunchConfig::new(grid_for(tiles, 1, max_grid), BLOCK);
            // SAFETY: copy_layout_tiles_bN(const T* src, T* dst, CopyLayout l): every index of
            // the merged shape lands inside both arrays (the caller's guarantee), which do not
            // overlap; 256 threads as the kernel's 32 × 8 tile mapping expects; CopyLayout is
            // #[repr(C)] like gp::CopyLayout.
            unsafe { kernel.launch(config, stream, &crate::kernel_args![src, dst, layout]) }
        }
        _ => {
            // Walk the destination's unit-stride axis (writes coalesced), else the source's,
            // else the innermost.
            let b = unit_dst.or(unit_src).unwrap_or(axes.len() - 1);
            layout.a = b as u32;
            layout.b = b as u32;
            let n = axes[b].0;
            let width = n.next_power_of_two().min(BLOCK as u64) as u32;
            let rows = total / n;
            let per_block = (BLOCK / width) as u64;
            let kernel = gpu.kernel(&CORE_PTX, &format!("copy_layout_rows_b{bits}"))?;
            let config = LaunchConfig::new(grid_for(rows, per_block, max_grid), BLOCK);
            // SAFETY: copy_layout_rows_bN(const T* src, T* dst, CopyLayout l, u64 rows,
            // u32 width): as above; rows · shape[b] = the element count, width divides the
            // block (a power of two ≤ 256).
            unsafe {
                kernel.launch(
                    config,
                    stream,
                    &crate::kernel_args![src, dst, layout, rows, width],
                )
            }
        }
    }
}

impl<T: Pod> DeviceArrayD<T> {
    /// Copies the elements of `src` (an ndarray array or view, uploaded first, or a
    /// [`DeviceArrayD`]) into this array, which has the same shape and keeps its own layout;
    /// waits for the device. A transposed layout costs one pass through memory, staged in
    /// shared memory so reads and writes stay coalesced.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// use gpu_core::{DeviceArrayD, Gpu};
    /// let gpu = Gpu::default_device()?;
    /// let x = ndarray::array![[1, 2, 3], [4, 5, 6]];
    /// let mut t = DeviceArrayD::<i32>::zeros(&gpu, &[3, 2])?;
    /// t.assign(&x.t())?;                                  // a transpose on the device
    /// assert_eq!(t.to_array()?, x.t().into_dyn());
    /// assert!(t.is_standard_layout());
    /// # Ok(()) }
    /// ```
    pub fn assign<I: ShapedInput<T> + ?Sized>(&mut self, src: &I) -> Result<()> {
        let gpu = self.gpu().clone();
        let staged = src.stage_nd(&gpu)?;
        self.assign_staged(&staged, gpu.stream())?;
        gpu.stream().synchronize()
    }

    /// Enqueues on `stream` the copy of `src` (staged on this array's device, same shape)
    /// into this array; returns without waiting. `src` must stay alive until the stream has
    /// run it.
    pub fn assign_staged(&mut self, src: &StagedNd<'_, T>, stream: &Stream) -> Result<()> {
        if src.shape() != self.shape() {
            return Err(Error::invalid(
                "src",
                format!(
                    "has shape {:?}, the destination {:?}",
                    src.shape(),
                    self.shape()
                ),
            ));
        }
        let gpu = self.gpu().clone();
        let (dst, strides) = (self.device_ptr(), self.strides().to_vec());
        enqueue_layout_copy::<T>(
            &gpu,
            src.device_ptr(),
            src.strides(),
            dst,
            &strides,
            src.shape(),
            stream,
        )
    }

    /// A row-major copy of this array on the same device (waits for it).
    pub fn to_standard_layout(&self) -> Result<DeviceArrayD<T>> {
        let gpu = self.gpu().clone();
        let mut out = DeviceArrayD::from_device(gpu.alloc::<T>(self.len())?, self.shape())?;
        out.assign(self)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::merged_axes;

    #[test]
    fn contiguous_axes_merge() {
        // Row-major to row-major: one axis.
        assert_eq!(
            merged_axes(&[4, 5, 6], &[30, 6, 1], &[30, 6, 1]),
            vec![(120, 1, 1)]
        );
        // A transpose: two axes, unit strides on different ones.
        assert_eq!(
            merged_axes(&[3, 2], &[1, 3], &[2, 1]),
            vec![(3, 1, 2), (2, 3, 1)]
        );
        // A reversed axis merges with nothing but keeps its sign.
        assert_eq!(
            merged_axes(&[4, 5], &[5, -1], &[5, 1]),
            vec![(4, 5, 5), (5, -1, 1)]
        );
        // Length-1 axes vanish; a single element has no axes.
        assert_eq!(merged_axes(&[1, 1], &[7, 3], &[1, 1]), vec![]);
        // Batch of transposes: the batch axis merges with nothing, the others stay.
        assert_eq!(
            merged_axes(&[2, 3, 4], &[12, 1, 3], &[12, 4, 1]),
            vec![(2, 12, 12), (3, 1, 4), (4, 3, 1)]
        );
    }
}
