// Long masks on tensor cores (compute capability 8.0+; loaded only there): conv1d_tensor_<T>,
// what Strategy::TensorCore (and Strategy::Auto for long masks) runs. T = f16, bf16 (products of
// the 16-bit values, f32 sums) and f32 (error-compensated TF32: three TF32 products per pair).
// (At the end of the file: the bf16 fixed-width FMA kernels and the bf16 FFT kernels, built here
// for the sm_80 rounding instruction.)
//
// Same result as every conv1d kernel, y[r * n_out + o] = sum_{j < w} X_r(o + off + j) * M[j]
// in f32, rounded to T once, but the sum is a matrix product. Cut the outputs of a tile into
// segments of 16: output 16s + i (i < 16) is
//
//     y[16s + i] = sum_t A[i][t] * B[t][s],   A[i][t] = M[t - i],   B[t][s] = X(p + 16s + t)
//
// (p the input position of the tile's output 0, M[j] = 0 outside 0 <= j < w, t < w + 15): A is
// the Toeplitz matrix of the mask, the same for every segment and tile, B a Hankel matrix of the
// staged signal. mma.sync multiplies A's 16 rows by 8 segments, KC values of t at a time (KC =
// 16 for the 16-bit types, 8 for TF32). A's fragments, one to two 16-byte loads per lane per
// chunk of t, are laid out by the host once per mask (`afrag`, read through L1 and reused for a
// warp's 4 x 8 segments); B's come from the staged tile, through ldmatrix (16-bit) or 32-bit
// loads (f32). Consecutive segments start 32 (or 64) bytes apart, so the staged tile is stored
// with its 16-byte granules XOR-swizzled within each 128-byte line (tensor_swizzle below):
// every shared load of a fragment then touches 32 distinct banks.
//
// f32 (3xTF32): each value splits into TF32 hi + lo (split_tf32); a product is hi*hi + hi*lo +
// lo*hi (the small terms first), which leaves an error of about 2^-22 of each product, below
// f32's own rounding of the sum (measured against f64 in docs/conv1d.md).
//
// The structural zeros of A multiply inputs outside an output's window, and 0 * inf is NaN; an
// f32 near the top of the range would split into inf + -inf. A tile whose staged inputs hold an
// infinity or NaN (or, for f32, a magnitude of 2^127 or more) is therefore computed directly
// instead (f32 FMAs, j upwards, from the staged inputs): the IEEE result of the direct kernels.
//
// Layout: a block of 4 warps computes a tile of TILE = 2048 outputs (each warp 4 x 8 segments of
// 16), grid-striding over rows * tiles_per_row tiles. Tile t of a row covers outputs
// [t * TILE - d, (t + 1) * TILE - d) with d chosen so that its first input sits on a 16-byte
// boundary of x: the span is staged by cp.async, 16 bytes per copy (element by element through
// the boundary mode at row ends), so every copy of a thread is in flight at once without holding
// registers; each thread then checks the granules it copied. Results go back through shared
// memory, realigned to y, and leave as 16-byte stores. (Loads through registers, one 16-byte load
// in flight per thread, held the kernel at 0.75x a copy at w = 31: docs/conv1d.md, run 10.)
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/conv1d_boundary.cuh>
#include <gpu_prims/conv1d_tensor.cuh>
#include <gpu_prims/conv1d_fft.cuh>
#include <gpu_prims/conv1d_fixed.cuh>
#include <gpu_prims/load.cuh>
#include <gpu_prims/mma.cuh>

using gp::f32;
using gp::i64;
using gp::u32;
using gp::u64;

using gp::TensorPolicy;

struct TensorShape {
    static constexpr int WARPS = 4;
    static constexpr int BLOCK = 32 * WARPS;
    static constexpr int NT = 4;                  // 8-segment column tiles per warp
    static constexpr int SEGS = 8 * NT * WARPS;   // segments of 16 outputs per block
    static constexpr int TILE = 16 * SEGS;        // outputs per block (2048)
};

// The tile's outputs as gp::conv1d_store_tile reads them: slot q at xs[q], V per 16 bytes.
template <class T> struct TensorOutputs {
    static constexpr int TILE = TensorShape::TILE;
    static constexpr int V = TensorPolicy<T>::EPG;
    static __device__ __forceinline__ int phys(int q) { return q; }
    // No interior walk: the kernel's 48 registers hold the mask fragments across tiles, and
    // the walk's constants spilled 20 bytes (ptxas 12.0.76, sm_80 and sm_90).
    static constexpr bool WALK = false;
};

// Physical position of staged element q: its 16-byte granule G moves to G ^ (line & SWIZZLE),
// within the same 128-byte line.
template <class T> __device__ __forceinline__ u32 tensor_granule(u32 g) {
    return g ^ ((g >> 3) & (u32)TensorPolicy<T>::SWIZZLE);
}
template <class T> __device__ __forceinline__ int tensor_swizzle(int q) {
    typedef TensorPolicy<T> P;
    return (int)tensor_granule<T>((u32)q / P::EPG) * P::EPG + q % P::EPG;
}

extern __shared__ __align__(16) unsigned char conv1d_tensor_smem[];

// Stages inputs [p, p + span) of the row into xs (swizzled); returns whether this thread saw a
// value the tensor-core product cannot take. span is a whole number of 128-byte lines.
template <class T>
__device__ __forceinline__ bool tensor_stage(T* xs, const T* __restrict__ xr, i64 p, int span,
                                             i64 n, int bmode) {
    typedef TensorPolicy<T> P;
    constexpr int BLOCK = TensorShape::BLOCK;
    bool bad = false;
    if (p >= 0 && p + span <= n) {
        // x_row + p is 16-byte aligned (the tile shift d). A thread's own copies are visible to
        // it after its wait, so it checks them without a barrier.
        const u32 granules = (u32)span / P::EPG;
        const u32 base = gp::shared_address(xs);
        const uint4* src = reinterpret_cast<const uint4*>(xr + p);
        for (u32 g = threadIdx.x; g < granules; g += BLOCK)
            gp::async_copy_16_shared(base + 16u * tensor_granule<T>(g), src + g);
        gp::async_copy_wait_all();
        u32 acc = P::CHECK_START;
        for (u32 g = threadIdx.x; g < granules; g += BLOCK)
            P::collect(*reinterpret_cast<const uint4*>(xs + tensor_granule<T>(g) * P::EPG), acc);
        bad = P::any_direct(acc);
    } else {
        for (int q = threadIdx.x; q < span; q += BLOCK) {
            const T v = gp::boundary_load(xr, p + q, n, bmode);
            bad |= P::needs_direct(v);
            xs[tensor_swizzle<T>(q)] = v;
        }
    }
    return bad;
}

// Every chunk of t into the warp's accumulators: 16-bit types. Lane l gives ldmatrix.x4 row
// l % 8 of matrix l / 8: matrices (column tile 2np, t 0-7), (2np, t 8-15), (2np+1, 0-7),
// (2np+1, 8-15), each row one segment's 8 consecutive values of t (16 bytes). With G = 2 *
// segment + half the row's granule, chunk c reads granule G + 2c (B[16c + t][s] = B[t][s + c]),
// and column tiles 2np + 2 are 16 segments, G + 32, further: the swizzle bit (bit 3 of G) is
// unchanged there, so np = 1 is 512 bytes on and each chunk costs one shift, one LOP3 and one
// add of address arithmetic. (Recomputing tensor_swizzle per row and chunk took six times that,
// measured at w = 127: docs/conv1d.md, run 10.)
template <class T>
__device__ __forceinline__ void tensor_product(f32 (&acc)[TensorShape::NT][4], const T* xs,
                                               const uint4* __restrict__ afrag, int kt,
                                               int seg_w) {
    static_assert(TensorShape::NT == 4, "two ldmatrix.x4 per chunk cover the 4 column tiles");
    const int lane = threadIdx.x & 31;
    const u32 base = gp::shared_address(xs);
    const u32 g0 = 2u * (u32)(seg_w + (lane & 7) + ((lane >> 4) << 3)) + ((lane >> 3) & 1);
    u32 at = 16u * g0;  // byte offset of the row's granule, before the swizzle
    const uint4* af = afrag + lane;
#pragma unroll 2
    for (int c = 0; c < kt; ++c) {
        const uint4 av = __ldg(af);
        const u32 a[4] = {av.x, av.y, av.z, av.w};
        const u32 row = base + (at ^ ((at >> 3) & (16u * TensorPolicy<T>::SWIZZLE)));
        u32 b0[4], b1[4];
        gp::ldmatrix_x4(b0, row);
        gp::ldmatrix_x4(b1, row + 512u);
        gp::Mma16816<T>::run(acc[0], a, b0[0], b0[1]);
        gp::Mma16816<T>::run(acc[1], a, b0[2], b0[3]);
        gp::Mma16816<T>::run(acc[2], a, b1[0], b1[1]);
        gp::Mma16816<T>::run(acc[3], a, b1[2], b1[3]);
        af += 32;
        at += 32u;
    }
}

// One chunk of t into the accumulators: f32 through 3xTF32.
__device__ __forceinline__ void tensor_chunk_tf32(f32 (&acc)[TensorShape::NT][4], const f32* xs,
                                                  const uint4* __restrict__ afrag, int c,
                                                  int seg_w) {
    const int lane = threadIdx.x & 31;
    const uint4 hv = __ldg(afrag + (c * 32 + lane) * 2);
    const uint4 lv = __ldg(afrag + (c * 32 + lane) * 2 + 1);
    const u32 ahi[4] = {hv.x, hv.y, hv.z, hv.w};
    const u32 alo[4] = {lv.x, lv.y, lv.z, lv.w};
    const int g = lane >> 2, qd = lane & 3;
#pragma unroll
    for (int nt = 0; nt < TensorShape::NT; ++nt) {
        const int q = 16 * (seg_w + nt * 8 + g) + 8 * c + qd;  // B[qd][g], and B[qd + 4][g]
        u32 h0, l0, h1, l1;
        gp::split_tf32(xs[tensor_swizzle<f32>(q)], h0, l0);
        gp::split_tf32(xs[tensor_swizzle<f32>(q + 4)], h1, l1);
        gp::mma_1688_tf32(acc[nt], alo, h0, h1);
        gp::mma_1688_tf32(acc[nt], ahi, l0, l1);
        gp::mma_1688_tf32(acc[nt], ahi, h0, h1);
    }
}

template <>
__device__ __forceinline__ void tensor_product<f32>(f32 (&acc)[TensorShape::NT][4], const f32* xs,
                                                    const uint4* __restrict__ afrag, int kt,
                                                    int seg_w) {
#pragma unroll 2
    for (int c = 0; c < kt; ++c) tensor_chunk_tf32(acc, xs, afrag, c, seg_w);
}

template <class T>
__device__ __forceinline__ void conv_tensor(const T* __restrict__ x, const f32* __restrict__ mask,
                                            const uint4* __restrict__ afrag, T* __restrict__ y,
                                            u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode,
                                            u64 tiles_per_row, int kt) {
    typedef TensorShape S;
    typedef TensorPolicy<T> P;
    T* xs = reinterpret_cast<T*>(conv1d_tensor_smem);
    constexpr int LINE = 8 * P::EPG;  // elements per 128-byte line
    const int span = (S::TILE + P::KC * kt + LINE - 1) / LINE * LINE;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int seg_w = warp * 8 * S::NT;  // this warp's first segment
    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const u64 row = b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const T* xr = x + row * n;
        const i64 d = gp::floor_mod((i64)(row * n) + off, P::EPG);
        const i64 o_tile = (i64)(tile * S::TILE) - d;  // output of slot 0 (may be negative)
        const i64 p_tile = o_tile + off;                // its first input, 16-byte aligned
        __syncthreads();  // xs is free: the previous tile is done with it
        const bool bad = tensor_stage(xs, xr, p_tile, span, (i64)n, bmode);
        const bool any_bad = __syncthreads_or(bad);
        T* yr = y + row * n_out;
        if (!any_bad) {
            f32 acc[S::NT][4];
#pragma unroll
            for (int nt = 0; nt < S::NT; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[nt][e] = 0.0f;
            tensor_product<T>(acc, xs, afrag, kt, seg_w);
            // D[i][col]: output i = g (+8) of segment 2q (+1) of each column tile, slot
            // k = 16 * segment + i, into xs[k + sh] (now unswizzled): sh, the misalignment of
            // output slot 0 in y, puts every 16-byte granule of y on a 16-byte granule of xs.
            const i64 yt = (i64)(row * n_out) + o_tile;
            const int sh = (int)gp::floor_mod(yt, P::EPG);
            __syncthreads();  // every fragment read of xs is done
            const int g = lane >> 2, qd = lane & 3;
#pragma unroll
            for (int nt = 0; nt < S::NT; ++nt) {
                const int s0 = sh + 16 * (seg_w + nt * 8 + 2 * qd) + g;
                xs[s0] = gp::narrow<T>(acc[nt][0]);
                xs[s0 + 16] = gp::narrow<T>(acc[nt][1]);
                xs[s0 + 8] = gp::narrow<T>(acc[nt][2]);
                xs[s0 + 24] = gp::narrow<T>(acc[nt][3]);
            }
            __syncthreads();
            gp::conv1d_store_tile<T, TensorOutputs<T>, S::BLOCK>(y, xs, yt, o_tile, n_out);
        } else {
            // The cold path: every output of the tile directly, j upwards with f32 FMAs.
            for (int k = threadIdx.x; k < S::TILE; k += S::BLOCK) {
                const i64 o = o_tile + k;
                if (o < 0 || o >= (i64)n_out) continue;
                f32 a = 0.0f;
                for (u64 j = 0; j < w; ++j)
                    a = __fmaf_rn(gp::widen(xs[tensor_swizzle<T>(k + (int)j)]), mask[j], a);
                yr[o] = gp::narrow<T>(a);
            }
        }
    }
}

// conv1d_tensor_<T>(x, mask (f32, for the cold path), afrag (kt * 32 lanes * AREGS u32), y,
// rows, n, n_out, off, w, boundary, tiles_per_row, kt): 128 threads, span * sizeof(T) bytes of
// dynamic shared memory (span = TILE + KC * kt rounded up to 128 bytes). MINB blocks per SM:
// 10 for the 16-bit types (48 registers, no spills; unbounded, 64 registers allow 8 blocks and
// ran 6-7 % slower), 8 for f32 (64 registers: 48 would spill).
#define CONV1D_TENSOR_ENTRY(tname, T, MINB)                                                       \
    extern "C" __global__ void __launch_bounds__(128, MINB) conv1d_tensor_##tname(               \
        const T* __restrict__ x, const f32* __restrict__ mask, const uint4* __restrict__ afrag,   \
        T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w, int boundary,             \
        u64 tiles_per_row, int kt) {                                                              \
        conv_tensor<T>(x, mask, afrag, y, rows, n, n_out, off, w, boundary, tiles_per_row, kt);   \
    }

CONV1D_TENSOR_ENTRY(f16, gp::f16, 10)
CONV1D_TENSOR_ENTRY(bf16, gp::bf16, 10)
CONV1D_TENSOR_ENTRY(f32, f32, 8)

// The bf16 fixed-width FMA kernels of conv1d.cu again (same template): built for compute_80, they
// round to bf16 with cvt.rn.bf16.f32 (gp::from_f32) instead of seven integer operations. The
// host takes them from here on compute capability 8.0+.
#define CONV1D_FIXED_BF16(W) GP_CONV1D_FIXED_ENTRY(W, bf16, gp::bf16, f32, 16)
GP_CONV1D_FIXED_WIDTHS(CONV1D_FIXED_BF16)
#define CONV1D_FIXED_WIDE_BF16(W) GP_CONV1D_FIXED_WIDE_HALF_ENTRY(W, bf16, gp::bf16, f32, 32)
GP_CONV1D_FIXED_WIDE_HALF_WIDTHS(CONV1D_FIXED_WIDE_BF16)

// The bf16 FFT kernels of conv1d.cu again for the pairs up to 8192 points (same templates):
// rounding each output to bf16 by hand took some 870 more instructions than f16's conversion in
// the 4096-point pairs under ptxas 12.0.76; built here they ran 3-8 % faster on an H200 (w = 1023
// and 2047), level with f16. The even-and-odd spans ran 3-5 % slower from here, both before and
// after their span values were widened by a pack (which made their spills f16's), so they and
// the 16384-point pairs stay in conv1d.cu (docs/conv1d.md). The host takes these
// from here on compute capability 8.0+ (Path::prefers_sm80).
GP_CONV1D_FFT_ENTRY(9, 512, bf16, gp::bf16, f32)
GP_CONV1D_FFT_ENTRY(10, 1024, bf16, gp::bf16, f32)
GP_CONV1D_FFT_ENTRY(11, 2048, bf16, gp::bf16, f32)
GP_CONV1D_FFT_ENTRY(12, 4096, bf16, gp::bf16, f32)
GP_CONV1D_FFT_ENTRY(13, 8192, bf16, gp::bf16, f32)
