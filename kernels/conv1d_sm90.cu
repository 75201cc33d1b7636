// The wide fixed-width conv1d tiles with an L2 prefetch ahead of each tile (gpu-conv1d), for GPUs
// of compute capability 9.0 and later: compiled for compute_90 into its own module, which the
// Rust side loads only where a device's tuning asks for the prefetch (conv1d.prefetch_from: GPUs
// of fast memory per SM, long rows).
//
// conv1d_auto_wide_pf_w<W>_f32: conv1d.cu's conv1d_auto_wide_w<W>_f32 (the same tiles, sums and
// bits) with one more argument before the mask, u64 prefetch_tiles (at least 1): each tile's
// first thread prefetches into L2 the input span of the tile that far on, the one a block a wave
// or so later will take (gpu_prims/l2_prefetch.cuh), so DRAM keeps working while the resident
// blocks compute and later tiles load from L2 (docs/tuning.md, "L2 prefetch").
#include <gpu_prims/conv1d_fixed.cuh>
#include <gpu_prims/l2_prefetch.cuh>

#define CONV1D_FIXED_WIDE_PF(W)                                                                   \
    extern "C" __global__ void __launch_bounds__(128, 10) conv1d_auto_wide_pf_w##W##_f32(        \
        const gp::f32* __restrict__ x, gp::f32* __restrict__ y, gp::u64 rows, gp::u64 n,          \
        gp::u64 n_out, gp::i64 off, int boundary, gp::u64 tiles_per_row,                          \
        gp::u64 prefetch_tiles, gp::Conv1dFixedMask<gp::f32, W> mask) {                           \
        gp::conv1d_fixed<gp::f32, W, 24, 128>(x, y, rows, n, n_out, off, boundary, tiles_per_row, \
                                              mask, gp::L2Prefetch{prefetch_tiles});              \
    }

GP_CONV1D_FIXED_WIDE_WIDTHS(CONV1D_FIXED_WIDE_PF)
