// The passes around cuFFT for masks too long for one block's transform (gpu-conv1d's
// `cufft.rs`): overlap-save on segments of N = 2^log_n points, transformed by batched cuFFT
// plans (real to complex in place, and back). Segment s of a row spans positions
// s·L + off + k, k < N, with L = N − w + 1 outputs: the first L points of the circular
// correlation of its span with the mask, as in conv1d_fft.cuh. A batch holds segments
// first … first + segs − 1, segment first + b at b·pitch reals (pitch = N + 2: cuFFT's in-place
// layout, N/2 + 1 complex values). Device layer: grid-stride loops, one element per step.
#pragma once
#include <gpu_prims/conv1d_boundary.cuh>
#include <gpu_prims/types.cuh>

namespace gp {

// The batch's spans read through the boundary rule, widened to the transform's type A.
template <class T, class A>
__device__ __forceinline__ void cufft_gather(const T* __restrict__ row, u64 n, i64 off, u64 L,
                                             u32 log_n, u64 first, u64 segs, int boundary,
                                             A* __restrict__ batch) {
    const u64 N = u64(1) << log_n;
    const u64 pitch = N + 2;
    const u64 total = segs << log_n;
    for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < total;
         i += u64(gridDim.x) * blockDim.x) {
        const u64 b = i >> log_n, k = i & (N - 1);
        const i64 p = i64((first + b) * L) + off + i64(k);
        const i64 q = boundary_index(p, i64(n), boundary);
        batch[b * pitch + k] = q < 0 ? A(0) : A(widen(row[q]));
    }
}

// Each segment's spectrum times conj(spectrum of the mask) · scale (scale = 1/N: cuFFT's
// inverse is unnormalised), in place; `z` holds segs · (N/2 + 1) complex values as (re, im).
template <class A>
__device__ __forceinline__ void cufft_multiply(A* __restrict__ z, const A* __restrict__ mask,
                                               u64 half, u64 segs, A scale) {
    const u64 total = segs * half;
    for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < total;
         i += u64(gridDim.x) * blockDim.x) {
        const u64 k = i % half;
        const A a = z[2 * i], b = z[2 * i + 1];
        const A c = mask[2 * k] * scale, d = -mask[2 * k + 1] * scale;
        z[2 * i] = a * c - b * d;
        z[2 * i + 1] = a * d + b * c;
    }
}

// The first L points of each segment of the batch, the outputs (first + b)·L + j below n_out,
// written as T (rounded once for the 16-bit floats).
template <class T, class A>
__device__ __forceinline__ void cufft_scatter(const A* __restrict__ batch, u64 n_out, u64 L,
                                              u32 log_n, u64 first, u64 segs,
                                              T* __restrict__ y) {
    const u64 N = u64(1) << log_n;
    const u64 pitch = N + 2;
    const u64 total = segs << log_n;
    for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < total;
         i += u64(gridDim.x) * blockDim.x) {
        const u64 b = i >> log_n, j = i & (N - 1);
        const u64 o = (first + b) * L + j;
        if (j < L && o < n_out) y[o] = narrow<T>(batch[b * pitch + j]);
    }
}

}  // namespace gp

#define GP_CONV1D_CUFFT_ENTRIES(tname, T, A)                                                      \
    extern "C" __global__ void __launch_bounds__(256) conv1d_cufft_gather_##tname(               \
        const T* __restrict__ row, gp::u64 n, gp::i64 off, gp::u64 L, gp::u32 log_n,             \
        gp::u64 first, gp::u64 segs, int boundary, A* __restrict__ batch) {                      \
        gp::cufft_gather<T, A>(row, n, off, L, log_n, first, segs, boundary, batch);             \
    }                                                                                             \
    extern "C" __global__ void __launch_bounds__(256) conv1d_cufft_scatter_##tname(              \
        const A* __restrict__ batch, gp::u64 n_out, gp::u64 L, gp::u32 log_n, gp::u64 first,     \
        gp::u64 segs, T* __restrict__ y) {                                                        \
        gp::cufft_scatter<T, A>(batch, n_out, L, log_n, first, segs, y);                          \
    }
#define GP_CONV1D_CUFFT_MULTIPLY(tname, A)                                                        \
    extern "C" __global__ void __launch_bounds__(256) conv1d_cufft_multiply_##tname(             \
        A* __restrict__ z, const A* __restrict__ mask, gp::u64 half, gp::u64 segs, A scale) {    \
        gp::cufft_multiply<A>(z, mask, half, segs, scale);                                        \
    }
