// Register-tiled 1-D correlation for a mask width W known at compile time: what
// Strategy::Auto runs for the widths of GP_CONV1D_FIXED_WIDTHS below (the Rust side lists
// them in gpu_conv1d's plan.rs, AUTO_FIXED_WIDTHS).
//
// Computes, like every conv1d kernel, y[r * n_out + o] = sum_{j < W} X_r(o + off + j) * M[j],
// j upwards with fused multiply-adds in the accumulator type A (T itself, f32 for f16 and bf16:
// inputs are widened as they leave shared memory, the mask is A already, and each output is
// rounded to T once), bit-identical to the runtime-width kernel; X_r row r extended by the
// boundary mode.
//
// Shape: a block of BLOCK threads computes a tile of TILE = BLOCK * K consecutive outputs of one
// row, K per thread. The tile's inputs plus W - 1 halo elements are staged in shared memory with
// 16-byte vector loads (the tile start is aligned down to a 16-byte boundary of x; tiles touching
// a row end gather element by element through the boundary mode). Each thread then walks its
// K + W - 1 inputs once, 16 bytes (one shared load) at a time, and feeds each input to the up to
// K accumulators it touches ("input-stationary"): acc[k] += x[i] * M[i - k]. With W and K fixed,
// the whole loop unrolls (instantiated group by group through templates, so no compiler
// unrolling threshold applies), and every M[j] is a compile-time offset into the kernel
// parameter `mask` (passed by value, so no constant-buffer copy and no serialisation between
// streams): ptxas loads it into uniform registers, and the loop is K * W FFMAs with one register
// read each (the input sits in the operand reuse cache), plus (K + W - 1) / V shared loads and
// about W / 2 uniform loads. Groups of K inputs are padded by 16 bytes in shared memory so the
// per-thread 16-byte loads (K * size stride) hit disjoint banks. Results go back through shared
// memory, re-aligned to y, and out as coalesced 16-byte vector stores.
//
// Blocks grid-stride over the rows * tiles_per_row tiles (the host launches one block per tile
// up to the grid limit: persistent blocks measured slower, see docs/perf-notes-conv1d.md).
#pragma once
#include <gpu_prims/conv1d_boundary.cuh>
#include <gpu_prims/load.cuh>

namespace gp {

__device__ __forceinline__ f32 conv1d_fma(f32 a, f32 b, f32 c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ f64 conv1d_fma(f64 a, f64 b, f64 c) { return __fma_rn(a, b, c); }

// The mask in the accumulator type A, passed to the kernel by value (W * sizeof(A) bytes of
// kernel parameters; the parameter space holds 4 KiB, and the largest instantiated mask is 127
// f64 = 1016 bytes).
template <class A, int W> struct Conv1dFixedMask {
    A m[W];
};

// threadIdx.x for a conv1d_store_tile walk, read through a volatile move where the walk starts:
// as plain threadIdx.x the compiler hoists the walk's thread constants out of the tile loop,
// where they stay live across the window's FMAs and spill the 48-register wide tiles.
__device__ __forceinline__ int conv1d_store_tid() {
    int tid;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
    return tid;
}

template <class T, int W, int K, int BLOCK> struct Conv1dFixedShape {
    typedef typename Accumulator<T>::type A;                     // what products are summed in
    static constexpr int V = 16 / (int)sizeof(T);                // elements per 16-byte vector
    static constexpr int TILE = BLOCK * K;                       // outputs per tile
    static constexpr int HALO = (W - 1 + V - 1) / V * V;         // extra inputs, whole vectors
    static constexpr int SPAN = TILE + HALO;                     // inputs staged per tile
    static constexpr int SLOTS = SPAN > TILE + V ? SPAN : TILE + V;  // inputs, or outputs + shift
    static constexpr int PHYS = SLOTS + (SLOTS + K - 1) / K * V;  // with V of padding per K
    static constexpr int MAIN = TILE / V / BLOCK;                // tile vectors per thread
    static constexpr int HV = HALO / V;                          // halo vectors (one per thread)
    static constexpr int NIN = K + W - 1;                        // inputs one thread reads
    static constexpr int NG = (NIN + V - 1) / V;                 // ... in 16-byte groups
    static_assert(K % V == 0 && TILE % (V * BLOCK) == 0, "conv1d fixed shape");
    static_assert(HV <= BLOCK, "conv1d fixed: halo wider than one vector per thread");
    // Shared-memory position of logical slot q (q / K groups of K, each padded by V).
    static __device__ __forceinline__ int phys(int q) { return q + (q / K) * V; }

    // The walk for the wide and the 16-bit tiles; the 16-output f32 and the f64 tiles keep the
    // general loop (on an H100 the walk cost the 16-output f32 tile 1.2 % at w = 31, 2^28: its
    // registers fell from 64 to 56; docs/tuning.md).
    static constexpr bool WALK = sizeof(T) == 2 || K > 16;
    // conv1d_store_tile's walk over vectors m = j * BLOCK + tid: phys(m * V) = (m + m / G) * V
    // with G = K / V vectors a group, and m / G = g0 + (j * BLOCK) / G + (r0 >= G - (j * BLOCK) %
    // G) for g0 = tid / G, r0 = tid % G: a constant once j is unrolled, but for one compare.
    struct Walk {
        static constexpr int G = K / V;
        int tid, r0, first;  // first: phys(tid * V)
        __device__ __forceinline__ Walk() {
            tid = conv1d_store_tid();
            const int g0 = tid / G;
            r0 = tid - g0 * G;
            first = (tid + g0) * V;
        }
        // phys((j * BLOCK + tid) * V) - first
        __device__ __forceinline__ int offset(int j) const {
            const int jq = (j * BLOCK) / G, jr = (j * BLOCK) % G;  // j * BLOCK = jq * G + jr
            return (j * BLOCK + jq) * V + (r0 >= G - jr ? V : 0);
        }
    };
};

// Stages inputs at row positions [p, p + SPAN) into xs. x_row + p is on a 16-byte boundary
// whenever the whole range lies inside the row (the vector path).
template <class T, int W, int K, int BLOCK>
__device__ __forceinline__ void conv1d_fixed_load(T* xs, const T* __restrict__ xr, i64 p, i64 n,
                                                  int bmode) {
    typedef Conv1dFixedShape<T, W, K, BLOCK> S;
    const int tid = threadIdx.x;
    if (p >= 0 && p + S::SPAN <= n) {
        const T* src = xr + p;
        Vec<T> v[S::MAIN];
#pragma unroll
        for (int i = 0; i < S::MAIN; ++i) v[i] = load_vec(src + (i * BLOCK + tid) * S::V);
        Vec<T> h;
        if (S::HV > 0 && tid < S::HV) h = load_vec(src + S::TILE + tid * S::V);
#pragma unroll
        for (int i = 0; i < S::MAIN; ++i)
            *reinterpret_cast<Vec<T>*>(xs + S::phys((i * BLOCK + tid) * S::V)) = v[i];
        if (S::HV > 0 && tid < S::HV)
            *reinterpret_cast<Vec<T>*>(xs + S::phys(S::TILE + tid * S::V)) = h;
    } else {
        // Tiles touching a row end: element by element through the boundary mode (cold, but
        // unrolled by 4 like the measured C2 harness code; see docs/perf-notes-conv1d.md).
#pragma unroll 4
        for (int q = tid; q < S::SPAN; q += BLOCK) xs[S::phys(q)] = boundary_load(xr, p + q, n, bmode);
    }
}

// Input group G (V inputs, one 16-byte shared load) into the accumulators, then group G + 1.
// xt: the thread's first input (slot tid * K, 16-byte aligned).
template <class T, int W, int K, int BLOCK, int G>
__device__ __forceinline__ void conv1d_fixed_group(
    typename Accumulator<T>::type (&acc)[K], const T* xt,
    const Conv1dFixedMask<typename Accumulator<T>::type, W>& mask) {
    typedef Conv1dFixedShape<T, W, K, BLOCK> S;
    // Slot tid * K + G * V; tid * K starts a padded group, so the offset is a constant.
    const Vec<T> v = *reinterpret_cast<const Vec<T>*>(xt + G * S::V + (G * S::V / K) * S::V);
#pragma unroll
    for (int e = 0; e < S::V; ++e) {
        const int i = G * S::V + e;  // input index within the thread's window
        if (i < S::NIN) {
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const int j = i - k;  // mask element under input i for output k
                if (j >= 0 && j < W) acc[k] = conv1d_fma(widen(v.v[e]), mask.m[j], acc[k]);
            }
        }
    }
    if constexpr (G + 1 < S::NG) conv1d_fixed_group<T, W, K, BLOCK, G + 1>(acc, xt, mask);
}

// acc -> slots tid * K + SH + k of ys, rounded to T, SH (< V <= K) the output alignment shift:
// slot tid*K+SH+k lies in tid's padded group or the next one.
template <class T, int K, int V, int SH>
__device__ __forceinline__ void conv1d_fixed_stage_shift(T* ys,
                                                         const typename Accumulator<T>::type (&acc)[K]) {
    T* dst = ys + threadIdx.x * (K + V);
#pragma unroll
    for (int k = 0; k < K; ++k) dst[SH + k + (SH + k >= K ? V : 0)] = narrow<T>(acc[k]);
}
// The shift s (< V) as a compile-time constant: one branch per possible value.
template <class T, int K, int V, int SH = 0>
__device__ __forceinline__ void conv1d_fixed_stage(T* ys, const typename Accumulator<T>::type (&acc)[K],
                                                   int s) {
    if constexpr (SH + 1 < V) {
        if (s != SH) {
            conv1d_fixed_stage<T, K, V, SH + 1>(ys, acc, s);
            return;
        }
    }
    conv1d_fixed_stage_shift<T, K, V, SH>(ys, acc);
}

// A tile whose slots [s, s + TILE) all hold this row's outputs (every tile but a row's first
// and last): thread tid stores vectors m = j * BLOCK + tid, at Layout::Walk's offsets, which are
// constants once j is unrolled (the general loop below forms a division, a 64-bit address and
// two bounds a vector: a sixth of the w = 31 fixed tile's instructions, docs/tuning.md). Only
// vectors 0 and TILE / V can be partial (when s > 0); thread 0 stores them element by element.
template <class T, class Layout, int BLOCK>
__device__ __forceinline__ void conv1d_store_interior(T* __restrict__ y, const T* ys, i64 yt) {
    constexpr int V = Layout::V, TILE = Layout::TILE, MAIN = TILE / V / BLOCK;
    const int s = (int)floor_mod(yt, V);
    T* yb = y + (yt - s);
    const typename Layout::Walk walk;
    const T* src = ys + walk.first;
    T* dst = yb + walk.tid * V;
#pragma unroll
    for (int j = 0; j < MAIN; ++j) {
        if (j == 0 && walk.tid == 0 && s != 0) {
#pragma unroll
            for (int e = 0; e < V; ++e)
                if (e >= s) yb[e] = ys[Layout::phys(e)];  // slots [s, V)
        } else {
            *reinterpret_cast<Vec<T>*>(dst + j * BLOCK * V) =
                *reinterpret_cast<const Vec<T>*>(src + walk.offset(j));
        }
    }
    if (walk.tid == 0 && s != 0) {
#pragma unroll
        for (int e = 0; e < V; ++e)
            if (e < s) yb[TILE + e] = ys[Layout::phys(TILE + e)];  // slots [TILE, TILE + s)
    }
}

// Slot q of ys (at Layout::phys(q)) holds flat output yt - s + q (s = yt mod V), so whole slot
// vectors leave as aligned 16-byte stores; only slots holding this row's outputs [0, n_out) are
// written. Layout gives the tile (TILE outputs, V per 16 bytes), where slot q sits in shared
// memory and, where WALK, a Walk (the interior tiles' positions of vectors j * BLOCK + tid);
// shared by the fixed-width and the tensor-core kernels.
template <class T, class Layout, int BLOCK>
__device__ __forceinline__ void conv1d_store_tile(T* __restrict__ y, const T* ys, i64 yt,
                                                  i64 o_tile, u64 n_out) {
    constexpr int V = Layout::V, TILE = Layout::TILE;
    if constexpr (Layout::WALK) {
        static_assert(TILE % (V * BLOCK) == 0, "conv1d tiles: whole vectors per thread");
        if (o_tile >= 0 && o_tile + TILE <= (i64)n_out) {
            conv1d_store_interior<T, Layout, BLOCK>(y, ys, yt);
            return;
        }
    }
    const int s = (int)floor_mod(yt, V);
    T* yb = y + (yt - s);
    // Slots [qlo, qhi), clamped to the tile's slot range so 32 bits suffice.
    const i64 lo64 = s + (o_tile < 0 ? -o_tile : 0);
    const i64 hi64 = (i64)s + (i64)n_out - o_tile;
    const int qlo = (int)(lo64 < (i64)(TILE + V) ? lo64 : (i64)(TILE + V));
    const int qhi = (int)(hi64 < (i64)(s + TILE) ? hi64 : (i64)(s + TILE));
    for (int m = threadIdx.x; m <= TILE / V; m += BLOCK) {
        const int q = m * V;
        if (q >= qlo && q + V <= qhi) {
            const Vec<T> v = *reinterpret_cast<const Vec<T>*>(ys + Layout::phys(q));
            *reinterpret_cast<Vec<T>*>(yb + q) = v;
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e)
                if (q + e >= qlo && q + e < qhi) yb[q + e] = ys[Layout::phys(q + e)];
        }
    }
}

template <class T, int W, int K, int BLOCK>
__device__ __forceinline__ void conv1d_fixed(const T* __restrict__ x, T* __restrict__ y, u64 rows,
                                             u64 n, u64 n_out, i64 off, int bmode,
                                             u64 tiles_per_row,
                                             const Conv1dFixedMask<typename Accumulator<T>::type, W>& mask) {
    typedef Conv1dFixedShape<T, W, K, BLOCK> S;
    typedef typename S::A A;
    constexpr int V = S::V;
    __shared__ __align__(16) T xs[S::PHYS];
    const int tid = threadIdx.x;
    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        // Tile geometry: tile 0 of a row starts at input off - d, d in [0, V) chosen so that it
        // sits on a 16-byte boundary of x; slot q of the tile computes output o_tile + q.
        // (Written inline, in this order, as in the measured C2 harness code.)
        const u64 row = b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const T* xr = x + row * n;
        const i64 d = floor_mod((i64)(row * n) + off, V);
        const i64 p_tile = off - d + (i64)(tile * S::TILE);  // input position of slot 0
        const i64 o_tile = (i64)(tile * S::TILE) - d;        // output position of slot 0
        __syncthreads();  // xs is free: the previous tile's stores have read it
        conv1d_fixed_load<T, W, K, BLOCK>(xs, xr, p_tile, (i64)n, bmode);
        __syncthreads();
        A acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = A(0);
        conv1d_fixed_group<T, W, K, BLOCK, 0>(acc, xs + S::phys(tid * K), mask);
        const i64 yt = (i64)(row * n_out) + o_tile;  // flat index of slot 0's output
        const int s = (int)floor_mod(yt, V);
        __syncthreads();  // every window read of xs is done
        conv1d_fixed_stage<T, K, V>(xs, acc, s);
        __syncthreads();
        conv1d_store_tile<T, S, BLOCK>(y, xs, yt, o_tile, n_out);
    }
}

}  // namespace gp

// The widths with a fixed-width kernel: M(W) for each (mirrored by AUTO_FIXED_WIDTHS in
// crates/gpu-conv1d/src/plan.rs).
#define GP_CONV1D_FIXED_WIDTHS(M)                                                                 \
    M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16)        \
    M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)     \
    M(32) M(63) M(127)

// An entry point NAME for width W: element T, accumulator (and mask) A, K outputs per thread,
// 128 threads, at least MINB blocks per SM; the mask is the last kernel parameter, by value.
#define GP_CONV1D_FIXED_KERNEL(NAME, MINB, W, T, A, K)                                            \
    extern "C" __global__ void __launch_bounds__(128, MINB) NAME(                                 \
        const T* __restrict__ x, T* __restrict__ y, gp::u64 rows, gp::u64 n, gp::u64 n_out,       \
        gp::i64 off, int boundary, gp::u64 tiles_per_row, gp::Conv1dFixedMask<A, W> mask) {       \
        gp::conv1d_fixed<T, W, K, 128>(x, y, rows, n, n_out, off, boundary, tiles_per_row, mask); \
    }

// conv1d_auto_w<W>_<tname>: eight blocks per SM.
#define GP_CONV1D_FIXED_ENTRY(W, tname, T, A, K)                                                  \
    GP_CONV1D_FIXED_KERNEL(conv1d_auto_w##W##_##tname, 8, W, T, A, K)

// conv1d_auto_wide_w<W>_<tname>, the same kernel with wider tiles: K outputs per thread (24 for
// f32: 3072 per block of 128), ten blocks per SM (48 registers). The per-thread overhead (tile
// geometry, staging, stores) then spreads over more outputs; on GPUs of fast memory per SM the
// plan takes it for long rows (conv1d.wide_tile_from). Same fold order, so the same bits.
#define GP_CONV1D_FIXED_WIDE_ENTRY(W, tname, T, A, K)                                             \
    GP_CONV1D_FIXED_KERNEL(conv1d_auto_wide_w##W##_##tname, 10, W, T, A, K)

// The widths with a wide-tile kernel (f32): M(W) for each (mirrored by WIDE_TILE_WIDTHS in
// crates/gpu-conv1d/src/plan.rs). Below 5 the wider tile gains nothing (docs/tuning.md).
#define GP_CONV1D_FIXED_WIDE_WIDTHS(M)                                                            \
    M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) M(20)    \
    M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31) M(32)

// conv1d_auto_wide_w<W>_<tname> for the 16-bit types: K outputs per thread (32: 4096 per block of
// 128), eight blocks per SM (64 registers). Sixteen-bit inputs halve the bytes per output, so the
// per-tile work weighs twice as much as for f32 and the wider tile pays from the narrowest mask
// (docs/tuning.md, "16-bit conv1d tiles"); the plan takes it for long rows
// (conv1d.half_wide_tile_from). Same fold order, so the same bits.
#define GP_CONV1D_FIXED_WIDE_HALF_ENTRY(W, tname, T, A, K)                                        \
    GP_CONV1D_FIXED_KERNEL(conv1d_auto_wide_w##W##_##tname, 8, W, T, A, K)

// The widths with a 16-bit wide-tile kernel: M(W) for each (mirrored by WIDE_TILE_WIDTHS_16 in
// crates/gpu-conv1d/src/plan.rs).
#define GP_CONV1D_FIXED_WIDE_HALF_WIDTHS(M)                                                       \
    M(1) M(2) M(3) M(4) GP_CONV1D_FIXED_WIDE_WIDTHS(M)
