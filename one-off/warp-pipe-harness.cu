// Standalone harness (issue 24, H200, third session): fixed-width conv1d with every warp its own
// software pipeline. A warp computes chunks of 32 * K consecutive outputs (K per lane); it keeps
// the inputs of its next S - 1 chunks in flight as cp.async copies into a ring of S shared-memory
// buffers of its own, so no block barrier ever stalls loads behind another warp's arithmetic.
// Outputs go straight from registers to global memory (chunks start on 16-byte boundaries of y;
// the input side carries the misalignment instead, as a shift D dispatched at compile time).
// Beside it, in the same run: the shipped kernel (gp::conv1d_fixed) and a device copy.
// Built on the device with nvcc -arch=sm_90: one-off/h200-pw*.sh. Not shipped.
//
// Session 5 (-DPF_ONLY builds only these): the shipped 24-output tile (10 blocks per SM)
// prefetching into L2 the input span of the tile PF blocks ahead of its own (KIND 1: one
// prefetch.global.L2 per line; 3: one cp.async.bulk.prefetch.L2 for the span), so a block
// launched later finds its inputs in L2 and DRAM works while this block computes.
//
// usage: warp-pipe-harness <log2 n> <reps> <variants,...|all>
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/conv1d_fixed.cuh>

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#endif

using gp::i64;
using gp::u32;
using gp::u64;

template <int N> __device__ __forceinline__ void async_wait_group() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// Chunk shape: CH outputs, K per lane; NSLOT inputs staged (the largest shift D = 3, the window
// K + W - 1, and the last 16-byte group a lane reads), each K slots padded by 4 floats so the
// lanes' 16-byte shared loads (stride K + 4 floats) hit distinct banks.
template <int W, int K> struct WarpChunk {
    static constexpr int CH = 32 * K;
    static constexpr int NSLOT = (CH + W + 5 + 3) / 4 * 4;
    static constexpr int NVEC = NSLOT / 4;
    static constexpr int PHYS = NSLOT + (NSLOT + K - 1) / K * 4;
    static __device__ __forceinline__ int phys(int q) { return q + (q / K) * 4; }
};

// Group G (slots lane*K + 4G .. +3) into the accumulators: input i = 4G + e - D of the lane's
// window feeds acc[k] with mask element i - k.
template <int W, int K, int D, int G>
__device__ __forceinline__ void wp_group(float (&acc)[K], const float* xt,
                                         const gp::Conv1dFixedMask<float, W>& mask) {
    constexpr int NIN = K + W - 1;
    constexpr int NG = (D + NIN + 3) / 4;
    const float4 v = *reinterpret_cast<const float4*>(xt + 4 * G + (4 * G / K) * 4);
    const float e4[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const int i = 4 * G + e - D;
        if (i >= 0 && i < NIN) {
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const int j = i - k;
                if (j >= 0 && j < W) acc[k] = __fmaf_rn(e4[e], mask.m[j], acc[k]);
            }
        }
    }
    if constexpr (G + 1 < NG) wp_group<W, K, D, G + 1>(acc, xt, mask);
}

template <int W, int K, int D>
__device__ __forceinline__ void wp_compute(float (&acc)[K], const float* xt,
                                           const gp::Conv1dFixedMask<float, W>& mask) {
    wp_group<W, K, D, 0>(acc, xt, mask);
}

extern __shared__ __align__(16) float wp_smem[];

// Rows of n inputs, n_out outputs, output o of row r = sum_j X_r(o + off + j) * m[j] (zero
// boundary). OUTSTAGE: outputs pass through the chunk's buffer for coalesced 16-byte stores.
template <int W, int K, int S, int WARPS, int MINB, bool OUTSTAGE>
__global__ void __launch_bounds__(WARPS * 32, MINB) conv_warp_pipe(
    const float* __restrict__ x, float* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off,
    u64 chunks_per_row, gp::Conv1dFixedMask<float, W> mask) {
    typedef WarpChunk<W, K> C;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float* ring = wp_smem + (u64)warp * S * C::PHYS;
    const u64 total = rows * chunks_per_row;
    const u64 gw = (u64)blockIdx.x * WARPS + warp, tw = (u64)gridDim.x * WARPS;
    struct Geo {
        u64 row;
        i64 o, pa;
        int d;
    };
    auto geo = [&](u64 c) {
        Geo g;
        g.row = c / chunks_per_row;
        const u64 j = c - g.row * chunks_per_row;
        const i64 e = gp::floor_mod((i64)(g.row * n_out), 4);
        g.o = (i64)(j * C::CH) - e;
        const i64 p = g.o + off;
        g.d = (int)gp::floor_mod((i64)(g.row * n) + p, 4);
        g.pa = p - g.d;
        return g;
    };
    auto issue = [&](u64 c, int s) {
        if (c < total) {
            const Geo g = geo(c);
            const float* xr = x + g.row * n;
            float* buf = ring + s * C::PHYS;
            if (g.pa >= 0 && g.pa + C::NSLOT <= (i64)n) {
                const float* src = xr + g.pa;
#pragma unroll
                for (int v = lane; v < C::NVEC; v += 32) gp::async_copy_16(buf + C::phys(4 * v), src + 4 * v);
            } else {
                for (int q = lane; q < C::NSLOT; q += 32) {
                    const i64 p = g.pa + q;
                    buf[C::phys(q)] = p >= 0 && p < (i64)n ? xr[p] : 0.f;
                }
            }
        }
        gp::async_copy_commit();
    };
#pragma unroll
    for (int s = 0; s < S - 1; ++s) issue(gw + (u64)s * tw, s);
    for (u64 i = 0, c = gw; c < total; ++i, c += tw) {
        issue(c + (u64)(S - 1) * tw, (int)((i + S - 1) % S));
        async_wait_group<S - 1>();
        __syncwarp();
        const Geo g = geo(c);
        float* buf = ring + (int)(i % S) * C::PHYS;
        const float* xt = buf + lane * (K + 4);
        float acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = 0.f;
        switch (g.d) {
        case 0: wp_compute<W, K, 0>(acc, xt, mask); break;
        case 1: wp_compute<W, K, 1>(acc, xt, mask); break;
        case 2: wp_compute<W, K, 2>(acc, xt, mask); break;
        default: wp_compute<W, K, 3>(acc, xt, mask); break;
        }
        float* yr = y + g.row * n_out;
        if (OUTSTAGE) {
            __syncwarp();  // every lane has read its window: the buffer takes the outputs
            float* ys = buf + lane * (K + 4);
#pragma unroll
            for (int k = 0; k < K; k += 4)
                *reinterpret_cast<float4*>(ys + k) = make_float4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]);
            __syncwarp();
#pragma unroll
            for (int m = lane; m < C::CH / 4; m += 32) {
                const i64 o = g.o + 4 * m;
                const float4 v = *reinterpret_cast<const float4*>(buf + C::phys(4 * m));
                if (o >= 0 && o + 4 <= (i64)n_out) {
                    *reinterpret_cast<float4*>(yr + o) = v;
                } else {
                    const float e4[4] = {v.x, v.y, v.z, v.w};
                    for (int e = 0; e < 4; ++e)
                        if (o + e >= 0 && o + e < (i64)n_out) yr[o + e] = e4[e];
                }
            }
        } else {
            const i64 o = g.o + lane * K;
            if (o >= 0 && o + K <= (i64)n_out) {
#pragma unroll
                for (int k = 0; k < K; k += 4)
                    *reinterpret_cast<float4*>(yr + o + k) = make_float4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]);
            } else {
#pragma unroll
                for (int k = 0; k < K; ++k)
                    if (o + k >= 0 && o + k < (i64)n_out) yr[o + k] = acc[k];
            }
        }
        __syncwarp();  // the buffer is free for the copies issued next iteration
    }
    gp::async_copy_wait_all();
}

template <int W>
__global__ void __launch_bounds__(128, 8) conv_shipped(const float* __restrict__ x, float* __restrict__ y,
                                                       u64 rows, u64 n, u64 n_out, i64 off, int bmode,
                                                       u64 tiles_per_row, gp::Conv1dFixedMask<float, W> mask) {
    gp::conv1d_fixed<float, W, 16, 128>(x, y, rows, n, n_out, off, bmode, tiles_per_row, mask);
}


// The shipped fixed-width loop with its output staging as a policy. MODE 0: scalar stores at the
// shift s (shipped: 4-way bank conflicts, stride K + 4 words); MODE 1: four 16-byte stores ignoring
// the shift (WRONG results: the bound of any staging fix); MODE 2: the shift done in registers
// (the s values a lane hands to its successor go by one shuffle each), then four 16-byte stores.
template <int K, int SH>
__device__ __forceinline__ void stage_shifted(float* ys, const float (&acc)[K], const float (&prev)[4]) {
    // slot q of the lane's group: q >= SH -> acc[q - SH]; q < SH -> predecessor's acc[K - SH + q]
    const int lane = threadIdx.x & 31;
    float* dst = ys + threadIdx.x * (K + 4);
    float o[K];
#pragma unroll
    for (int q = 0; q < K; ++q) o[q] = q >= SH ? acc[q - SH] : prev[SH - q];
    if (lane != 0 || SH == 0) {
        *reinterpret_cast<float4*>(dst) = make_float4(o[0], o[1], o[2], o[3]);
    } else {
#pragma unroll
        for (int q = SH; q < 4; ++q) dst[q] = o[q];
    }
#pragma unroll
    for (int q = 4; q < K; q += 4) *reinterpret_cast<float4*>(dst + q) = make_float4(o[q], o[q + 1], o[q + 2], o[q + 3]);
    if (SH > 0 && lane == 31) {
        // the warp's last SH outputs start the next lane group (the next warp's, or the tile's end)
#pragma unroll
        for (int q = 0; q < SH; ++q) dst[K + 4 + q] = acc[K - SH + q];
    }
}

template <int W, int K, int MODE, int BLOCK = 128, int MINB = 1024 / BLOCK, int PF = 0, int PFKIND = 1>
__global__ void __launch_bounds__(BLOCK, MINB) conv_fixed_v(const float* __restrict__ x, float* __restrict__ y,
                                                       u64 rows, u64 n, u64 n_out, i64 off, int bmode,
                                                       u64 tiles_per_row, gp::Conv1dFixedMask<float, W> mask) {
    typedef gp::Conv1dFixedShape<float, W, K, BLOCK> S;
    constexpr int V = S::V;
    __shared__ __align__(16) float xs[S::PHYS];
    const int tid = threadIdx.x;
    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        // MODE 3: the tile's row by a 32-bit division where the tile count fits (the 64-bit
        // one is a called routine of some hundred instructions, paid once per tile).
        const u64 row = MODE == 3 && (tiles >> 32) == 0 ? (u64)((u32)b / (u32)tiles_per_row)
                                                        : b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const float* xr = x + row * n;
        const i64 d = gp::floor_mod((i64)(row * n) + off, V);
        const i64 p_tile = off - d + (i64)(tile * S::TILE);
        const i64 o_tile = (i64)(tile * S::TILE) - d;
        if (PF > 0) {
            // the span of the tile PF tiles on (same row assumed: rows are long here)
            const i64 total = (i64)(rows * n);
            i64 at = (i64)(row * n) + p_tile + (i64)PF * S::TILE;
            if (at < 0) at = 0;
            if (at < total) {
                const i64 len = (total - at < (i64)S::SPAN + 8 ? total - at : (i64)S::SPAN + 8) * 4;
                const char* p = reinterpret_cast<const char*>(x + at);
                if (PFKIND == 3) {
                    if (tid == 0) {
                        const char* a16 = reinterpret_cast<const char*>((u64)p & ~(u64)15);
                        const u32 b16 = (u32)((len + (p - a16)) & ~(i64)15);
                        if (b16) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a16), "r"(b16) : "memory");
                    }
                } else {
                    for (i64 o = (i64)tid * 128; o < len; o += (i64)BLOCK * 128)
                        asm volatile("prefetch.global.L2 [%0];" ::"l"(p + o));
                }
            }
        }
        __syncthreads();
        gp::conv1d_fixed_load<float, W, K, BLOCK>(xs, xr, p_tile, (i64)n, bmode);
        __syncthreads();
        float acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = 0.f;
        gp::conv1d_fixed_group<float, W, K, BLOCK, 0>(acc, xs + S::phys(tid * K), mask);
        const i64 yt = (i64)(row * n_out) + o_tile;
        const int s = MODE == 1 ? 0 : (int)gp::floor_mod(yt, V);  // MODE 3 stages as MODE 0
        float prev[4];
        if (MODE == 2) {
            prev[0] = 0.f;
            prev[1] = __shfl_up_sync(0xffffffffu, acc[K - 1], 1);
            prev[2] = __shfl_up_sync(0xffffffffu, acc[K - 2], 1);
            prev[3] = __shfl_up_sync(0xffffffffu, acc[K - 3], 1);
        }
        __syncthreads();
        if (MODE == 0 || MODE == 3) {
            gp::conv1d_fixed_stage<float, K, V>(xs, acc, s);
        } else if (MODE == 1) {
            float* dst = xs + tid * (K + 4);
#pragma unroll
            for (int q = 0; q < K; q += 4) *reinterpret_cast<float4*>(dst + q) = make_float4(acc[q], acc[q + 1], acc[q + 2], acc[q + 3]);
        } else {
            switch (s) {
            case 0: stage_shifted<K, 0>(xs, acc, prev); break;
            case 1: stage_shifted<K, 1>(xs, acc, prev); break;
            case 2: stage_shifted<K, 2>(xs, acc, prev); break;
            default: stage_shifted<K, 3>(xs, acc, prev); break;
            }
        }
        __syncthreads();
        if (MODE == 1) {
            // as if aligned: the tile's outputs at yt rounded down (wrong by the shift)
            gp::conv1d_store_tile<float, S, BLOCK>(y, xs, yt - gp::floor_mod(yt, V), o_tile - gp::floor_mod(yt, V), n_out);
        } else {
            gp::conv1d_store_tile<float, S, BLOCK>(y, xs, yt, o_tile, n_out);
        }
    }
}


// Session 8 (-DBULK_ONLY builds only these): the wide tile fed by the Tensor Memory Accelerator.
// Persistent blocks keep NBUF input spans in shared memory; one thread asks for each span with a
// single cp.async.bulk (mbarrier completion), NBUF - 1 tiles ahead of the one being computed, so
// every block always has loads in flight at no cost in registers or issue slots. Spans are stored
// unpadded (the bulk copy writes contiguously): K = 20 and 28 keep the lanes' 16-byte shared loads
// on distinct banks, K = 24 has 2-way conflicts. Outputs are staged and stored as shipped.
__device__ __forceinline__ u32 smem_u32(const void* p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(u64* bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_expect_copy(u64* bar, void* dst, const void* src, u32 bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem_u32(dst)), "l"(src), "r"(bytes), "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive(u64* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(u64* bar, u32 parity) {
    u32 done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
    }
}

template <int W, int K, int G>
__device__ __forceinline__ void bulk_group(float (&acc)[K], const float* xt, const gp::Conv1dFixedMask<float, W>& mask) {
    constexpr int NIN = K + W - 1;
    constexpr int NG = (NIN + 3) / 4;
    const float4 v = *reinterpret_cast<const float4*>(xt + 4 * G);
    const float e4[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const int i = 4 * G + e;
        if (i < NIN) {
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const int j = i - k;
                if (j >= 0 && j < W) acc[k] = __fmaf_rn(e4[e], mask.m[j], acc[k]);
            }
        }
    }
    if constexpr (G + 1 < NG) bulk_group<W, K, G + 1>(acc, xt, mask);
}

template <int W, int K, int BLOCK, int MINB, int NBUF>
__global__ void __launch_bounds__(BLOCK, MINB) conv_bulk(const float* __restrict__ x, float* __restrict__ y,
                                                         u64 rows, u64 n, u64 n_out, i64 off, int bmode,
                                                         u64 tiles_per_row, gp::Conv1dFixedMask<float, W> mask) {
    typedef gp::Conv1dFixedShape<float, W, K, BLOCK> S;
    constexpr int V = S::V;
    constexpr int SPAN = S::SPAN;  // TILE + HALO, whole 16-byte vectors
    extern __shared__ __align__(128) float dyn[];
    float* xs = dyn;                        // NBUF spans
    float* ys = dyn + NBUF * SPAN;          // outputs, padded as shipped
    __shared__ __align__(8) u64 bars[NBUF];
    __shared__ int edge[NBUF];
    const int tid = threadIdx.x;
    const u64 tiles = rows * tiles_per_row;
    auto geometry = [&](u64 b, u64& row, i64& p_tile, i64& o_tile) {
        row = b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const i64 d = gp::floor_mod((i64)(row * n) + off, V);
        p_tile = off - d + (i64)(tile * S::TILE);
        o_tile = (i64)(tile * S::TILE) - d;
    };
    // Thread 0: the span of tile b into buffer q (a bulk copy, or marks it for the block to fill
    // through the boundary mode where it touches a row end).
    auto request = [&](u64 b, int q) {
        u64 row;
        i64 p, o;
        geometry(b, row, p, o);
        if (p >= 0 && p + SPAN <= (i64)n) {
            edge[q] = 0;
            mbar_expect_copy(&bars[q], xs + q * SPAN, x + row * n + p, SPAN * 4);
        } else {
            edge[q] = 1;
            mbar_arrive(&bars[q]);
        }
    };
    if (tid == 0) {
        for (int q = 0; q < NBUF; ++q) mbar_init(&bars[q]);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (tid == 0)
        for (int q = 0; q < NBUF; ++q) {
            const u64 b = blockIdx.x + (u64)q * gridDim.x;
            if (b < tiles) request(b, q);
        }
    u32 it = 0;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x, ++it) {
        const int q = it % NBUF;
        const u32 parity = (it / NBUF) & 1;
        mbar_wait(&bars[q], parity);
        u64 row;
        i64 p_tile, o_tile;
        geometry(b, row, p_tile, o_tile);
        float* xb = xs + q * SPAN;
        if (edge[q]) {  // block-uniform
            const float* xr = x + row * n;
            for (int i = tid; i < SPAN; i += BLOCK) xb[i] = gp::boundary_load(xr, p_tile + i, (i64)n, bmode);
            __syncthreads();
        }
        float acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = 0.f;
        bulk_group<W, K, 0>(acc, xb + tid * K, mask);
        __syncthreads();  // xb read by all; the previous tile's stores have read ys
        if (tid == 0) {
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            const u64 nb = b + (u64)NBUF * gridDim.x;
            if (nb < tiles) request(nb, q);
        }
        const i64 yt = (i64)(row * n_out) + o_tile;
        const int s = (int)gp::floor_mod(yt, V);
        gp::conv1d_fixed_stage<float, K, V>(ys, acc, s);
        __syncthreads();
        gp::conv1d_store_tile<float, S, BLOCK>(y, ys, yt, o_tile, n_out);
    }
}

#ifdef __CUDACC_RTC__
// NVRTC syntax check (one-off/nvrtc-check.py): registers of the main variants.
template __global__ void conv_warp_pipe<31, 16, 4, 4, 4, false>(const float*, float*, u64, u64, u64, i64, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_warp_pipe<31, 32, 3, 4, 4, false>(const float*, float*, u64, u64, u64, i64, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_warp_pipe<7, 16, 4, 4, 4, true>(const float*, float*, u64, u64, u64, i64, u64, gp::Conv1dFixedMask<float, 7>);
template __global__ void conv_fixed_v<31, 16, 2>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_fixed_v<31, 32, 2>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_fixed_v<31, 32, 0, 64, 16>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_fixed_v<31, 24, 0>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_fixed_v<31, 16, 0, 128, 12>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_fixed_v<31, 32, 0, 128, 6>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_fixed_v<31, 24, 3, 128, 10>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_shipped<31>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_fixed_v<31, 24, 0, 128, 10, 1320, 1>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_fixed_v<31, 24, 0, 128, 10, 1320, 3>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_bulk<31, 20, 128, 1, 2>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_bulk<31, 24, 128, 1, 2>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_bulk<31, 28, 128, 1, 3>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_bulk<31, 28, 256, 1, 2>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
#else

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

template <class F> static double median_us(int reps, F f) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> v;
    f();
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        v.push_back(ms * 1000.f);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static std::vector<std::string> g_vs;
static bool want(const std::string& name) {
    if (g_vs.empty()) return true;
    for (auto& v : g_vs)
        if (v == name || v == "all") return true;
    return false;
}
static int sms() {
    int d, s;
    CK(cudaGetDevice(&d));
    CK(cudaDeviceGetAttribute(&s, cudaDevAttrMultiProcessorCount, d));
    return s;
}

struct Data {
    const float* x;
    float* y;
    u64 rows, n, n_out;  // rows of n inputs, n_out outputs ('same': n_out = n)
    const std::vector<float>* hx;
    const std::vector<float>* hm;
    int reps;
    double copy_us;
};

// Checks the first and last 5000 outputs of every row and 200000 random ones against f64.
template <int W> static u64 check(const Data& d, i64 off) {
    std::vector<float> got(d.rows * d.n_out);
    CK(cudaMemcpy(got.data(), d.y, got.size() * 4, cudaMemcpyDeviceToHost));
    u64 bad = 0;
    auto test = [&](u64 r, u64 o) {
        double s = 0;
        for (int j = 0; j < W; ++j) {
            const i64 p = (i64)o + off + j;
            if (p >= 0 && p < (i64)d.n) s += (double)(*d.hx)[r * d.n + p] * (*d.hm)[j];
        }
        if (std::fabs(s - got[r * d.n_out + o]) > 1e-3) ++bad;
    };
    for (u64 r = 0; r < d.rows; ++r) {
        for (u64 o = 0; o < 5000 && o < d.n_out; ++o) test(r, o);
        for (u64 o = d.n_out > 5000 ? d.n_out - 5000 : 0; o < d.n_out; ++o) test(r, o);
    }
    for (u64 k = 0; k < 200000; ++k) {
        const u64 f = ((u64)rand() * 2654435761ull + k * 97) % (d.rows * d.n_out);
        test(f / d.n_out, f % d.n_out);
    }
    return bad;
}

template <int W> static gp::Conv1dFixedMask<float, W> mask_of(const Data& d) {
    gp::Conv1dFixedMask<float, W> m;
    for (int j = 0; j < W; ++j) m.m[j] = (*d.hm)[j];
    return m;
}

static void report(const Data& d, int w, const char* name, double us, u64 bad, const char* extra) {
    printf("conv f32 %llux%llu w=%3d %-22s %9.2f us  %.3fx copy  %s  %s\n", (unsigned long long)d.rows,
           (unsigned long long)d.n, w, name, us, d.copy_us / us, bad ? "WRONG" : "ok", extra);
    CK(cudaMemset(d.y, 0xff, d.rows * d.n_out * 4));  // NaNs: the next variant must write all
    fflush(stdout);
}

template <int W> static void run_shipped(const Data& d) {
    const i64 off = -(i64)((W - 1) / 2);
    const u64 tiles_per_row = (d.n_out + 3 + 2047) / 2048;
    const auto m = mask_of<W>(d);
    const u64 grid = std::min<u64>(d.rows * tiles_per_row, 2147483647ull);
    auto run = [&] { conv_shipped<W><<<(unsigned)grid, 128>>>(d.x, d.y, d.rows, d.n, d.n_out, off, 0, tiles_per_row, m); };
    const double us = median_us(d.reps, run);
    CK(cudaGetLastError());
    report(d, W, "shipped", us, check<W>(d, off), "");
}


template <int W, int K, int MODE, int BLOCK = 128, int MINB = 1024 / BLOCK, int PF = 0, int PFKIND = 1>
static void run_fixed_v(const Data& d, const char* tag) {
    const i64 off = -(i64)((W - 1) / 2);
    const u64 tile = BLOCK * K;
    const u64 tiles_per_row = (d.n_out + 3 + tile - 1) / tile;
    const auto m = mask_of<W>(d);
    const u64 grid = std::min<u64>(d.rows * tiles_per_row, 2147483647ull);
    auto k = conv_fixed_v<W, K, MODE, BLOCK, MINB, PF, PFKIND>;
    auto run = [&] { k<<<(unsigned)grid, BLOCK>>>(d.x, d.y, d.rows, d.n, d.n_out, off, 0, tiles_per_row, m); };
    const double us = median_us(d.reps, run);
    CK(cudaGetLastError());
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, 0));
    char extra[96];
    snprintf(extra, sizeof extra, "[K%d x %d mode %d, %d regs, %d blocks/SM]%s", K, BLOCK, MODE, fa.numRegs, per_sm,
             MODE == 1 ? " (shift ignored: WRONG expected)" : "");
    report(d, W, tag, us, check<W>(d, off), extra);
}


template <int W, int K, int BLOCK, int MINB, int NBUF>
static void run_bulk(const Data& d, const char* tag, int per_sm_cap = 0) {
    typedef gp::Conv1dFixedShape<float, W, K, BLOCK> S;
    const i64 off = -(i64)((W - 1) / 2);
    const u64 tile = S::TILE;
    const u64 tiles_per_row = (d.n_out + 3 + tile - 1) / tile;
    const auto m = mask_of<W>(d);
    auto k = conv_bulk<W, K, BLOCK, MINB, NBUF>;
    const int smem = (NBUF * S::SPAN + S::PHYS) * 4;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, smem));
    if (per_sm_cap > 0 && per_sm_cap < per_sm) per_sm = per_sm_cap;
    const u64 grid = std::min<u64>(d.rows * tiles_per_row, (u64)per_sm * sms());
    auto run = [&] { k<<<(unsigned)grid, BLOCK, smem>>>(d.x, d.y, d.rows, d.n, d.n_out, off, 0, tiles_per_row, m); };
    const double us = median_us(d.reps, run);
    CK(cudaGetLastError());
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    char extra[128];
    snprintf(extra, sizeof extra, "[K%d x %d, %d bufs, %d regs, %d blocks/SM, %d B smem]", K, BLOCK, NBUF, fa.numRegs,
             per_sm, smem);
    report(d, W, tag, us, check<W>(d, off), extra);
}

// per_sm: blocks per SM asked for (0: as many as fit).
template <int W, int K, int S, int WARPS, int MINB, bool OUTSTAGE>
static void run_pipe(const Data& d, const char* tag, int per_sm_ask) {
    typedef WarpChunk<W, K> C;
    auto k = conv_warp_pipe<W, K, S, WARPS, MINB, OUTSTAGE>;
    const i64 off = -(i64)((W - 1) / 2);
    const u64 cpr = (d.n_out + 3 + C::CH - 1) / C::CH;
    const int smem = WARPS * S * C::PHYS * 4;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, WARPS * 32, smem));
    if (per_sm == 0) {
        printf("conv w=%d %s: does not fit\n", W, tag);
        return;
    }
    if (per_sm_ask > 0 && per_sm_ask < per_sm) per_sm = per_sm_ask;
    const u64 need = (d.rows * cpr + WARPS - 1) / WARPS;
    const u64 grid = std::min<u64>(need, (u64)per_sm * sms());
    const auto m = mask_of<W>(d);
    auto run = [&] { k<<<(unsigned)grid, WARPS * 32, smem>>>(d.x, d.y, d.rows, d.n, d.n_out, off, cpr, m); };
    const double us = median_us(d.reps, run);
    CK(cudaGetLastError());
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    char extra[128];
    snprintf(extra, sizeof extra, "[K%d S%d %dx%d warps/SM, %d regs, %d B smem/blk]", K, S, per_sm, WARPS,
             fa.numRegs, smem);
    report(d, W, tag, us, check<W>(d, off), extra);
}

#define PIPE(NAME, W, K, S, WARPS, MINB, OS, ASK) \
    if (want(NAME)) run_pipe<W, K, S, WARPS, MINB, OS>(d, NAME, ASK);

template <int W> static void width(const Data& d) {
#ifdef BULK_ONLY
    run_fixed_v<W, 24, 0, 128, 10>(d, "K24 m10 (shipped wide)");
    run_bulk<W, 20, 128, 1, 2>(d, "bulk K20 2 bufs");
    run_bulk<W, 24, 128, 1, 2>(d, "bulk K24 2 bufs");
    run_bulk<W, 28, 128, 1, 2>(d, "bulk K28 2 bufs");
    run_bulk<W, 20, 128, 1, 3>(d, "bulk K20 3 bufs");
    run_bulk<W, 28, 128, 1, 3>(d, "bulk K28 3 bufs");
    run_fixed_v<W, 24, 0, 128, 10>(d, "K24 m10 (shipped wide)");
    run_bulk<W, 20, 256, 1, 2>(d, "bulk K20 x256 2 bufs");
    run_bulk<W, 28, 256, 1, 2>(d, "bulk K28 x256 2 bufs");
    run_bulk<W, 20, 128, 1, 4>(d, "bulk K20 4 bufs");
    return;
#endif
#ifdef PF_SWEEP  // session 5 call B: the distance of the bulk prefetch
    run_fixed_v<W, 24, 0, 128, 10>(d, "K24 m10 (shipped wide)");
    run_fixed_v<W, 24, 0, 128, 10, 132, 3>(d, "K24 m10 pf132 bulk");
    run_fixed_v<W, 24, 0, 128, 10, 264, 3>(d, "K24 m10 pf264 bulk");
    run_fixed_v<W, 24, 0, 128, 10, 396, 3>(d, "K24 m10 pf396 bulk");
    run_fixed_v<W, 24, 0, 128, 10>(d, "K24 m10 (shipped wide)");
    run_fixed_v<W, 24, 0, 128, 10, 528, 3>(d, "K24 m10 pf528 bulk");
    run_fixed_v<W, 24, 0, 128, 10, 660, 3>(d, "K24 m10 pf660 bulk");
    run_fixed_v<W, 24, 0, 128, 10, 792, 3>(d, "K24 m10 pf792 bulk");
    run_fixed_v<W, 24, 0, 128, 10>(d, "K24 m10 (shipped wide)");
    run_fixed_v<W, 16, 0, 128, 12, 792, 3>(d, "K16 m12 pf792 bulk");
    run_fixed_v<W, 16, 0, 128, 8, 528, 3>(d, "K16 m8 pf528 bulk");
    run_fixed_v<W, 32, 0, 128, 6, 396, 3>(d, "K32 m6 pf396 bulk");
    run_fixed_v<W, 24, 0, 128, 10, 528, 3>(d, "K24 m10 pf528 bulk");
    return;
#endif
#ifdef PF_ONLY
    run_fixed_v<W, 24, 0, 128, 10>(d, "K24 m10 (shipped wide)");
    run_fixed_v<W, 24, 0, 128, 10, 660, 1>(d, "K24 m10 pf660 lines");
    run_fixed_v<W, 24, 0, 128, 10, 1320, 1>(d, "K24 m10 pf1320 lines");
    run_fixed_v<W, 24, 0, 128, 10, 2640, 1>(d, "K24 m10 pf2640 lines");
    run_fixed_v<W, 24, 0, 128, 10>(d, "K24 m10 (shipped wide)");
    run_fixed_v<W, 24, 0, 128, 10, 660, 3>(d, "K24 m10 pf660 bulk");
    run_fixed_v<W, 24, 0, 128, 10, 1320, 3>(d, "K24 m10 pf1320 bulk");
    run_fixed_v<W, 24, 0, 128, 10, 2640, 3>(d, "K24 m10 pf2640 bulk");
    run_fixed_v<W, 16, 0, 128, 8, 1056, 3>(d, "K16 m8 pf1056 bulk");
    run_fixed_v<W, 16, 0>(d, "K16 m8 (shipped 16)");
    run_fixed_v<W, 24, 0, 128, 10>(d, "K24 m10 (shipped wide)");
    return;
#endif
    if (want("shipped")) run_shipped<W>(d);
    if (want("v0")) run_fixed_v<W, 16, 0>(d, "stage scalar (shipped)");
    if (want("v1")) run_fixed_v<W, 16, 1>(d, "stage vec no shift");
    if (want("v2")) run_fixed_v<W, 16, 2>(d, "stage vec shfl shift");
    if (want("v0k32")) run_fixed_v<W, 32, 0>(d, "K32 stage scalar");
    if (want("v2k32")) run_fixed_v<W, 32, 2>(d, "K32 stage vec shfl");
    if (want("v2k8")) run_fixed_v<W, 8, 2>(d, "K8 stage vec shfl");
    if (want("v0k32b64")) run_fixed_v<W, 32, 0, 64, 16>(d, "K32 x 64");
    if (want("v0k32b256")) run_fixed_v<W, 32, 0, 256, 4>(d, "K32 x 256");
    if (want("v0k24")) run_fixed_v<W, 24, 0>(d, "K24 x 128");
    if (want("v0k16m12")) run_fixed_v<W, 16, 0, 128, 12>(d, "K16 x 128, 12 blocks");
    if (want("v0k16b64")) run_fixed_v<W, 16, 0, 64, 16>(d, "K16 x 64");
    if (want("v0k20")) run_fixed_v<W, 20, 0>(d, "K20 x 128");
    if (want("v0k28")) run_fixed_v<W, 28, 0>(d, "K28 x 128");
    if (want("v0k24m10")) run_fixed_v<W, 24, 0, 128, 10>(d, "K24 x 128, 10 blocks");
    if (want("v0k20m10")) run_fixed_v<W, 20, 0, 128, 10>(d, "K20 x 128, 10 blocks");
    if (want("v0k24b256")) run_fixed_v<W, 24, 0, 256, 4>(d, "K24 x 256");
    if (want("v3")) run_fixed_v<W, 16, 3>(d, "K16, 32-bit div");
    if (want("v3k24m10")) run_fixed_v<W, 24, 3, 128, 10>(d, "K24 x 128, 10 blk, 32-bit div");
    if (want("v0k32m6")) run_fixed_v<W, 32, 0, 128, 6>(d, "K32 x 128, 6 blocks");
    PIPE("k16s2", W, 16, 2, 4, 1, false, 0)
    PIPE("k16s3", W, 16, 3, 4, 1, false, 0)
    PIPE("k16s4", W, 16, 4, 4, 1, false, 0)
    PIPE("k16s4os", W, 16, 4, 4, 1, true, 0)
    PIPE("k16s6", W, 16, 6, 4, 1, false, 0)
    PIPE("k16s3b2", W, 16, 3, 4, 1, false, 2)
    PIPE("k16s4b3", W, 16, 4, 4, 1, false, 3)
    PIPE("k16s2b4", W, 16, 2, 4, 1, false, 4)
    PIPE("k32s2", W, 32, 2, 4, 1, false, 0)
    PIPE("k32s3", W, 32, 3, 4, 1, false, 0)
    PIPE("k32s3os", W, 32, 3, 4, 1, true, 0)
    PIPE("k8s4", W, 8, 4, 4, 1, false, 0)
    PIPE("k8s6", W, 8, 6, 4, 1, false, 0)
}

int main(int argc, char** argv) {
    const int lg = argc > 1 ? atoi(argv[1]) : 28;
    const int reps = argc > 2 ? atoi(argv[2]) : 20;
    if (argc > 3) {
        std::string s = argv[3];
        size_t p = 0;
        while (p <= s.size()) {
            size_t q = s.find(',', p);
            if (q == std::string::npos) q = s.size();
            if (q > p) g_vs.push_back(s.substr(p, q - p));
            p = q + 1;
        }
    }
    const std::string widths = argc > 4 ? argv[4] : "3,7,15,23,31";
    const u64 rows = argc > 5 ? strtoull(argv[5], 0, 10) : 1;
    const u64 total = 1ull << lg, n = total / rows - (rows > 1 ? 3 : 0);  // odd rows: misaligned
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs, %zu KiB smem/SM\n", prop.name, prop.multiProcessorCount,
           prop.sharedMemPerMultiprocessor / 1024);
    void *a, *b;
    CK(cudaMalloc(&a, total * 4));
    CK(cudaMalloc(&b, total * 4));
    CK(cudaMemset(a, 0, total * 4));
    auto copy = [&] { CK(cudaMemcpyAsync(b, a, total * 4, cudaMemcpyDeviceToDevice)); };
    const double copy_us = median_us(reps, copy);
    printf("copy 2^%d x 4 bytes: %.2f us (%.1f GB/s read+write)\n", lg, copy_us, 2.0 * total * 4 / copy_us / 1e3);
    CK(cudaFree(a));
    CK(cudaFree(b));
    std::vector<float> hx(rows * n), hm(127);
    for (u64 i = 0; i < hx.size(); ++i) hx[i] = (float)((int)(i * 2654435761u >> 20) % 17 - 8) / 8.f;
    for (int j = 0; j < 127; ++j) hm[j] = (float)(j % 7 - 3) / 4.f;
    float *x, *y;
    CK(cudaMalloc(&x, hx.size() * 4));
    CK(cudaMalloc(&y, hx.size() * 4));
    CK(cudaMemcpy(x, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice));
    Data d{x, y, rows, n, n, &hx, &hm, reps, copy_us};
    auto has = [&](int w) { return ("," + widths + ",").find("," + std::to_string(w) + ",") != std::string::npos; };
    if (has(3)) width<3>(d);
    if (has(7)) width<7>(d);
    if (has(11)) width<11>(d);
    if (has(15)) width<15>(d);
    if (has(19)) width<19>(d);
    if (has(23)) width<23>(d);
    if (has(27)) width<27>(d);
    if (has(31)) width<31>(d);
    CK(cudaFree(x));
    CK(cudaFree(y));
    {
        void *a2, *b2;
        CK(cudaMalloc(&a2, total * 4));
        CK(cudaMalloc(&b2, total * 4));
        auto copy2 = [&] { CK(cudaMemcpyAsync(b2, a2, total * 4, cudaMemcpyDeviceToDevice)); };
        printf("copy again: %.2f us\n", median_us(reps, copy2));
    }
    return 0;
}
#endif
