// Masks on warpgroup tensor cores (compute capability 9.0 exactly: architecture-specific
// compute_90a; loaded only there): conv1d_wgmma_<T> for f16 and bf16, what Strategy::Warpgroup
// (and Strategy::Auto for wide 16-bit masks on the H100 and H200) runs.
//
// Same result as every conv1d kernel, y[r * n_out + o] = sum_{j < w} X_r(o + off + j) * M[j]
// in f32, rounded to T once. As in conv1d_sm80.cu the sum is a matrix product, here one
// warpgroup (128 threads) product of 64 x 64 outputs per chunk of 16 values of t: cut a tile's
// 4096 outputs into 64 segments of 64 and
//
//     D[m][s] = sum_t A[m][t] * B[t][s],   A[m][t] = M[t + m - 63],   B[t][s] = X(p + 64 s + t)
//
// (t < w + 63, M zero outside the mask), so that D[m][s] is output 64 s + 63 - m of the tile:
// A is the mask's Toeplitz matrix with its rows reversed (a Hankel matrix: each row starts one
// element further on), B a Hankel matrix of the staged signal. wgmma.m64n64k16 reads both from
// shared memory through descriptors (gpu_prims/wgmma.cuh):
//  - B, in the 128-byte swizzle: the span is staged in order, 64 values (128 bytes) a row, its
//    16-byte granule g at chunk (g % 8) ^ (g / 8 % 8) of row g / 8. Row s holds B[t][s] for
//    t < 64, and B[t][s] = B[t - 64][s + 1]: chunk c of t (16 values, 32 bytes) is the layout
//    starting 32 c bytes on (row c / 4, 32 (c % 4) bytes in); SBO = 1024 bytes (8 segments on).
//    Eight neighbouring threads fill one row, so the span's copies are contiguous on both sides.
//    (The no-swizzle layout before it scattered them over 8 regions: 32 L2 sectors and 32 shared
//    wavefronts a warp's copy instead of 16 and 4, Nsight Compute, docs/conv1d.md.)
//  - A, no swizzle: 128-byte rows g of the mask, holding at byte 16 r + 2 k the value M[8 g + r + k - 63]
//    (laid out by the host once per mask, crates/gpu-conv1d/src/tensor.rs, copied into shared
//    memory once per block): the core matrix of rows m0..m0+7 and t0..t0+7 is row (m0 + t0) / 8.
//    Chunk c starts at row 2c; LBO = SBO = 128 bytes.
// A block reads its span once (cp.async, 16 bytes per copy, as the mma.sync kernel), issues the
// chunk's products back to back, waits for them, and stages the rounded outputs through shared
// memory (where the span was) for 16-byte stores. The structural zeros of A multiply inputs outside an output's
// window, and 0 * inf is NaN: a tile holding an infinity or NaN is computed directly (f32 FMAs, j
// upwards), as in conv1d_sm80.cu. (Measured against that kernel: docs/conv1d.md, "Warpgroup
// products"; two staging buffers in a grid of resident blocks and tiles of 32 or 128 segments
// were slower.)
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/conv1d_boundary.cuh>
#include <gpu_prims/conv1d_fixed.cuh>
#include <gpu_prims/conv1d_tensor.cuh>
#include <gpu_prims/wgmma.cuh>

using gp::f32;
using gp::i64;
using gp::u32;
using gp::u64;

// Segments of 64 outputs per tile; a tile is 4096 outputs (crates/gpu-conv1d/src/tensor.rs:
// WARPGROUP_TILE).
constexpr int WG_SEGMENTS = 64;
constexpr int WG_TILE = 64 * WG_SEGMENTS;
constexpr int WG_BLOCK = 128;

// A block's shared memory for `kt` chunks of t: the mask's rows, then (from the next 1024-byte
// boundary, which the swizzle needs) the span, which the output staging (WarpgroupOutputs)
// reuses once the products have read it (the larger of the two). Mirrored by tensor.rs
// (warpgroup_shared_bytes: 1024 bytes of slack for the alignment).
struct WarpgroupLayout {
    int span;      // staged inputs: TILE + 16 kt, rounded up to 64 (whole rows)
    u32 a_bytes;   // 128 (2 kt + 7): A's rows
    __device__ __forceinline__ explicit WarpgroupLayout(int kt) {
        span = (WG_TILE + 16 * kt + 63) / 64 * 64;
        a_bytes = 128u * (2u * kt + 7u);
    }
    // Shared address of the span: the first 1024-byte boundary past A's rows.
    __device__ __forceinline__ u32 b_base(u32 base) const { return (base + a_bytes + 1023u) & ~1023u; }
    // Element offset of staged input q within the span: row q / 64, its 16-byte chunk swizzled.
    static __device__ __forceinline__ u32 b_element(u32 q) {
        const u32 row = q >> 6;
        return 64u * row + 8u * (((q >> 3) & 7u) ^ (row & 7u)) + (q & 7u);
    }
};

// The outputs as gp::conv1d_store_tile reads them: slot q at q + 8 (q / 64), which spreads the
// four segments a warp's store instruction touches over distinct banks.
struct WarpgroupOutputs {
    static constexpr int TILE = WG_TILE;
    static constexpr int V = 8;
    static __device__ __forceinline__ int phys(int q) { return q + 8 * (q >> 6); }
    // Interior tiles: vector j * BLOCK + tid starts slot q = 8 tid + 8 BLOCK j, and 8 BLOCK is a
    // multiple of 64, so phys(q) = phys(8 tid) + 8 BLOCK j + 8 (8 BLOCK j / 64) = phys(8 tid) +
    // 9 BLOCK j.
    static constexpr bool WALK = true;
    struct Walk {
        static_assert(8 * WG_BLOCK % 64 == 0, "whole 64-slot groups a step");
        int tid, first;
        __device__ __forceinline__ Walk() : tid(gp::conv1d_store_tid()), first(phys(8 * tid)) {}
        __device__ __forceinline__ int offset(int j) const { return 9 * WG_BLOCK * j; }
    };
};

extern __shared__ __align__(128) unsigned char conv1d_wgmma_smem[];

template <class T>
__device__ __forceinline__ void conv_wgmma(const T* __restrict__ x, const f32* __restrict__ mask,
                                           const uint4* __restrict__ arows, T* __restrict__ y,
                                           u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode,
                                           u64 tiles_per_row, int kt) {
    typedef gp::TensorPolicy<T> P;
    static_assert(P::EPG == 8, "16-bit types");
    const WarpgroupLayout L(kt);
    const u32 base = gp::shared_address(conv1d_wgmma_smem);
    const u32 a_base = base, b_base = L.b_base(base);
    T* xs = reinterpret_cast<T*>(conv1d_wgmma_smem + (b_base - base));
    T* ys = xs;  // the outputs, staged where the span was (after the products and a barrier)
    // A's rows, once per block (published by the first tile's fence and barrier).
    for (u32 g = threadIdx.x; g < L.a_bytes / 16; g += WG_BLOCK)
        gp::async_copy_16_shared(a_base + 16u * g, arows + g);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const u64 row = rows == 1 ? 0 : b / tiles_per_row;  // one row: no 64-bit division
        const u64 tile = b - row * tiles_per_row;
        const T* xr = x + row * n;
        const i64 d = gp::floor_mod((i64)(row * n) + off, P::EPG);
        const i64 o_tile = (i64)(tile * WG_TILE) - d;  // output of slot 0 (may be negative)
        const i64 p_tile = o_tile + off;               // its first input, 16-byte aligned
        __syncthreads();  // the previous tile's products and stores are done with xs and ys
        bool bad = false;
        if (p_tile >= 0 && p_tile + L.span <= (i64)n) {
            const u32 granules = (u32)L.span / 8;
            const uint4* src = reinterpret_cast<const uint4*>(xr + p_tile);
            for (u32 g = threadIdx.x; g < granules; g += WG_BLOCK)
                gp::async_copy_16_shared(b_base + 128u * (g >> 3) + 16u * ((g & 7u) ^ ((g >> 3) & 7u)),
                                         src + g);
            gp::async_copy_wait_all();
            // Each thread checks the granules it copied (its own copies are the ones it waited for).
            u32 acc = P::CHECK_START;
            for (u32 g = threadIdx.x; g < granules; g += WG_BLOCK)
                P::collect(*reinterpret_cast<const uint4*>(xs + L.b_element(8 * g)), acc);
            bad = P::any_direct(acc);
        } else {
            gp::async_copy_wait_all();
            for (int q = threadIdx.x; q < L.span; q += WG_BLOCK) {
                const T v = gp::boundary_load(xr, p_tile + q, (i64)n, bmode);
                bad |= P::needs_direct(v);
                xs[L.b_element(q)] = v;
            }
        }
        gp::fence_proxy_async_shared();  // this thread's staging, visible to wgmma's reads
        const bool any_bad = __syncthreads_or(bad);
        const i64 yt = (i64)(row * n_out) + o_tile;
        if (!any_bad) {
            f32 acc[WG_SEGMENTS / 2];
            gp::wgmma_fence();
            // Chunk c: A's rows from 2c (the descriptor's address field, bytes / 16, on by 16),
            // B from 32 c bytes into the span.
            u64 da = gp::wgmma_descriptor(a_base, 128, 128);
            gp::Wgmma<T, WG_SEGMENTS>::start(acc, da, gp::wgmma_descriptor_sw128(b_base));
#pragma unroll 1
            for (int c = 1; c < kt; ++c) {
                da += 16;
                gp::Wgmma<T, WG_SEGMENTS>::accumulate(acc, da, gp::wgmma_descriptor_sw128(b_base + 32u * (u32)c));
            }
            gp::wgmma_commit();
            gp::wgmma_wait_all();
            gp::wgmma_fence_operands(acc);
            // Every warp's products have read the span (their groups completed): the outputs go
            // there. (A separate staging area: the same speed with 9 KiB more per block.)
            __syncthreads();
            // D[m][s] (m = 16 warp + g (+ 8), s = 8 j + 2 q (+ 1)) is slot 64 s + 63 - m, put at
            // ys[phys(slot + sh)]: sh, the misalignment of slot 0 in y, puts every 16-byte
            // granule of y on one of ys.
            const int sh = (int)gp::floor_mod(yt, P::EPG);
            const int m0 = 16 * warp + (lane >> 2);
#pragma unroll
            for (int j = 0; j < WG_SEGMENTS / 8; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int m = m0 + 8 * (e >> 1);
                    const int s = 8 * j + 2 * (lane & 3) + (e & 1);
                    ys[WarpgroupOutputs::phys(sh + 64 * s + 63 - m)] =
                        gp::narrow<T>(gp::wgmma_result(acc[4 * j + e]));
                }
            __syncthreads();
            gp::conv1d_store_tile<T, WarpgroupOutputs, WG_BLOCK>(y, ys, yt, o_tile, n_out);
        } else {
            // The cold path: every output of the tile directly, j upwards with f32 FMAs.
            T* yr = y + row * n_out;
            for (int k = threadIdx.x; k < WG_TILE; k += WG_BLOCK) {
                const i64 o = o_tile + k;
                if (o < 0 || o >= (i64)n_out) continue;
                f32 a = 0.0f;
                for (u64 j = 0; j < w; ++j)
                    a = __fmaf_rn(gp::widen(xs[L.b_element((u32)(k + (int)j))]), mask[j], a);
                yr[o] = gp::narrow<T>(a);
            }
        }
    }
}

// conv1d_wgmma_<T>(x, mask (f32, for the cold path), arows ((2 kt + 7) * 64 values of T), y,
// rows, n, n_out, off, w, boundary, tiles_per_row, kt), kt = ceil((w + 63) / 16): 128 threads
// (one warpgroup), dynamic shared memory as WarpgroupLayout: a_bytes + 1024 + max(2 span,
// 2 (TILE + 8 + 8 (TILE / 64 + 1))) (64 registers: 8 blocks per SM).
#define CONV1D_WGMMA_ENTRY(tname, T)                                                              \
    extern "C" __global__ void __launch_bounds__(WG_BLOCK, 8) conv1d_wgmma_##tname(              \
        const T* __restrict__ x, const f32* __restrict__ mask, const uint4* __restrict__ arows,   \
        T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w, int boundary,             \
        u64 tiles_per_row, int kt) {                                                              \
        conv_wgmma<T>(x, mask, arows, y, rows, n, n_out, off, w, boundary, tiles_per_row, kt);    \
    }

CONV1D_WGMMA_ENTRY(f16, gp::f16)
CONV1D_WGMMA_ENTRY(bf16, gp::bf16)
