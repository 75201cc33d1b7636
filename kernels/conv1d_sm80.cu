// Long masks on tensor cores (compute capability 8.0+; loaded only there): conv1d_tensor_<T> for
// T = f16, bf16, what Strategy::TensorCore (and Strategy::Auto for long 16-bit masks) runs.
//
// Same result as every conv1d kernel, y[r * n_out + o] = sum_{j < w} X_r(o + off + j) * M[j]
// with f32 accumulation and one rounding to T, but the sum is a matrix product. Cut the outputs
// of a tile into segments of 8: output 8s + i (i < 8) is
//
//     y[8s + i] = sum_t A[s][t] * B[t][i],   A[s][t] = X(p + 8s + t),   B[t][i] = M[t - i]
//
// (p the input position of the tile's output 0, M[j] = 0 outside 0 <= j < w, t < w + 7): A is a
// Hankel matrix of the staged signal, B the Toeplitz matrix of the mask, shared by every segment
// and every tile. mma.sync m16n8k16 multiplies 16 segments by 16 values of t at a time; B's
// fragments, one pair of registers per lane per 16 values of t, are laid out by the host once per
// mask (`bfrag`, kt * 32 lanes * 2 registers) and read through L1; A's come from the staged signal
// with ldmatrix, whose eight 16-byte rows per matrix are eight consecutive segments: contiguous,
// so free of bank conflicts.
//
// The structural zeros of B multiply inputs outside an output's window; 0 * inf is NaN, so a
// tile whose staged inputs hold an infinity or NaN is computed directly instead (f32 FMAs, j
// upwards, from the staged inputs), giving the IEEE result of the direct kernels there.
//
// Layout: a block of 4 warps computes a tile of TILE = 2048 outputs (each warp 4 x 16 segments of
// 8), grid-striding over rows * tiles_per_row tiles. Tile t of a row covers outputs
// [t * TILE - d, (t + 1) * TILE - d) with d in [0, 8) chosen so that its first input sits on a
// 16-byte boundary of x: the tile and its kt * 16 - 8 extra inputs are staged with 16-byte loads
// (element by element through the boundary mode at row ends).
#include <gpu_prims/conv1d_boundary.cuh>
#include <gpu_prims/load.cuh>
#include <gpu_prims/mma.cuh>

using gp::f32;
using gp::i64;
using gp::u32;
using gp::u64;

struct TensorShape {
    static constexpr int WARPS = 4;
    static constexpr int BLOCK = 32 * WARPS;
    static constexpr int MT = 4;                  // 16-segment tiles per warp
    static constexpr int SEGS = 16 * MT * WARPS;  // segments of 8 outputs per block
    static constexpr int TILE = 8 * SEGS;         // outputs per block (2048)
    static constexpr int V = 8;                   // 16-bit values per 16-byte vector
};

extern __shared__ __align__(16) unsigned char conv1d_tensor_smem[];

// Stages inputs [p, p + span) of the row into xs; returns whether this thread saw a value that
// is infinite or NaN.
template <class T>
__device__ __forceinline__ bool tensor_stage(T* xs, const T* __restrict__ xr, i64 p, int span,
                                             i64 n, int bmode) {
    typedef TensorShape S;
    bool bad = false;
    if (p >= 0 && p + span <= n) {
        // x_row + p is 16-byte aligned (the tile shift d), span a multiple of V.
        for (int q = threadIdx.x * S::V; q < span; q += S::BLOCK * S::V) {
            const gp::Vec<T> v = gp::load_vec(xr + p + q);
#pragma unroll
            for (int e = 0; e < S::V; ++e) bad |= gp::non_finite(v.v[e]);
            *reinterpret_cast<gp::Vec<T>*>(xs + q) = v;
        }
    } else {
        for (int q = threadIdx.x; q < span; q += S::BLOCK) {
            const T v = gp::boundary_load(xr, p + q, n, bmode);
            bad |= gp::non_finite(v);
            xs[q] = v;
        }
    }
    return bad;
}

template <class T>
__device__ __forceinline__ void conv_tensor(const T* __restrict__ x, const f32* __restrict__ mask,
                                            const uint2* __restrict__ bfrag, T* __restrict__ y,
                                            u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode,
                                            u64 tiles_per_row, int kt) {
    typedef TensorShape S;
    T* xs = reinterpret_cast<T*>(conv1d_tensor_smem);
    const int span = S::TILE + 16 * kt;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // This lane's ldmatrix row: segment (lane % 16) of the warp's first 16, t offset 0 or 8.
    const u32 a_lane = gp::shared_address(xs) +
                       2u * (u32)((warp * S::MT * 16 + (lane & 15)) * 8 + (lane >> 4) * 8);
    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const u64 row = b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const T* xr = x + row * n;
        const i64 d = gp::floor_mod((i64)(row * n) + off, S::V);
        const i64 o_tile = (i64)(tile * S::TILE) - d;  // output of slot 0 (may be negative)
        const i64 p_tile = o_tile + off;                // its first input, 16-byte aligned
        __syncthreads();  // xs is free: the previous tile is done with it
        const bool bad = tensor_stage(xs, xr, p_tile, span, (i64)n, bmode);
        const bool any_bad = __syncthreads_or(bad);
        T* yr = y + row * n_out;
        if (!any_bad) {
            f32 acc[S::MT][4];
#pragma unroll
            for (int mt = 0; mt < S::MT; ++mt)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[mt][e] = 0.0f;
#pragma unroll 2
            for (int c = 0; c < kt; ++c) {
                const uint2 bb = __ldg(bfrag + c * 32 + lane);
#pragma unroll
                for (int mt = 0; mt < S::MT; ++mt) {
                    u32 a[4];
                    gp::ldmatrix_x4(a, a_lane + 2u * (u32)(mt * 16 * 8 + c * 16));
                    gp::Mma16816<T>::run(acc[mt], a, bb.x, bb.y);
                }
            }
            // Lane holds outputs 8s + 2q, 8s + 2q + 1 for segments s = g and g + 8 of each
            // 16-segment tile: one 32-bit store per pair where the pair is 4-byte aligned in y.
            const bool pairs = ((u64)(row * n_out) + (u64)o_tile) % 2 == 0;  // tile-uniform
#pragma unroll
            for (int mt = 0; mt < S::MT; ++mt) {
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int s = warp * S::MT * 16 + mt * 16 + h * 8 + (lane >> 2);
                    const i64 o = o_tile + 8 * s + 2 * (lane & 3);
                    const T lo = gp::narrow<T>(acc[mt][2 * h]);
                    const T hi = gp::narrow<T>(acc[mt][2 * h + 1]);
                    if (pairs && o >= 0 && o + 1 < (i64)n_out) {
                        const u32 bits = (u32)lo.bits | ((u32)hi.bits << 16);
                        *reinterpret_cast<u32*>(yr + o) = bits;
                    } else {
                        if (o >= 0 && o < (i64)n_out) yr[o] = lo;
                        if (o + 1 >= 0 && o + 1 < (i64)n_out) yr[o + 1] = hi;
                    }
                }
            }
        } else {
            // The cold path: every output of the tile directly, j upwards with f32 FMAs.
            for (int k = threadIdx.x; k < S::TILE; k += S::BLOCK) {
                const i64 o = o_tile + k;
                if (o < 0 || o >= (i64)n_out) continue;
                f32 a = 0.0f;
                for (u64 j = 0; j < w; ++j) a = __fmaf_rn(gp::widen(xs[k + j]), mask[j], a);
                yr[o] = gp::narrow<T>(a);
            }
        }
    }
}

// conv1d_tensor_<T>(x, mask (f32, for the cold path), bfrag (kt * 32 uint2), y, rows, n, n_out,
// off, w, boundary, tiles_per_row, kt): 128 threads, (TILE + 16 kt) * 2 bytes of dynamic
// shared memory.
#define CONV1D_TENSOR_ENTRY(tname, T)                                                             \
    extern "C" __global__ void __launch_bounds__(128) conv1d_tensor_##tname(                     \
        const T* __restrict__ x, const f32* __restrict__ mask, const uint2* __restrict__ bfrag,   \
        T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w, int boundary,             \
        u64 tiles_per_row, int kt) {                                                              \
        conv_tensor<T>(x, mask, bfrag, y, rows, n, n_out, off, w, boundary, tiles_per_row, kt);   \
    }

CONV1D_TENSOR_ENTRY(f16, gp::f16)
CONV1D_TENSOR_ENTRY(bf16, gp::bf16)
