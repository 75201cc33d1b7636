// 1-D convolution kernels of gpu-conv1d: the chapter's four strategies (basic, constant-memory
// mask, tiling strategy 1 with the halo in shared memory, tiling strategy 2 with the halo read
// through the caches) and the register-tiled default ("auto").
//
// Every kernel computes, for each row r < rows and output o < n_out,
//
//     y[r * n_out + o] = sum_{j < w} X_r(o + off + j) * M[j]
//
// where X_r(p) is element p of row r (n elements, rows stored one after the other) extended past
// its ends by the boundary mode (gpu_prims/conv1d_boundary.cuh). The sums run in the accumulator
// type A of the element type T (T itself for f32 and f64, f32 for f16 and bf16, as PyTorch
// computes its half-precision convolutions): the mask is given in A, inputs are widened as they
// are read, and each output is rounded to T once. This is the chapter's
// P[i] = sum_j N[i - w/2 + j] * M[j] with off = -(w/2); the host picks off from the output mode
// (full: -(w - 1), same: -(w / 2), valid: 0) and flips the mask for a true convolution, so this
// one formula serves correlate and convolve in every mode. Sums run over j in increasing order
// with fused multiply-adds. Lengths and indices are 64-bit. The host never launches with
// rows * n_out == 0, so n >= 1 and w >= 1 hold inside.
#include <gpu_prims/conv1d_boundary.cuh>
#include <gpu_prims/conv1d_fixed.cuh>
#include <gpu_prims/load.cuh>

using gp::f32;
using gp::f64;
using gp::i64;
using gp::u64;

__device__ __forceinline__ f32 fma_rn(f32 a, f32 b, f32 c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ f64 fma_rn(f64 a, f64 b, f64 c) { return __fma_rn(a, b, c); }

using gp::narrow;
using gp::widen;

// ---------------------------------------------------------------------------------------------
// The constant-memory mask (cudaMemcpyToSymbol's target, written by the host through
// cuModuleGetGlobal + an async copy). One 64 KiB buffer, the most `__constant__` data a module
// may declare, viewed as 16384 f32 (the mask of f32, f16 and bf16 signals) or 8192 f64. Kernels only read it; the host serialises the
// launches that use it (one mask at a time per context).
// ---------------------------------------------------------------------------------------------
union Conv1dConstantMask {
    f32 f32s[16384];
    f64 f64s[8192];
};
extern "C" {
__constant__ Conv1dConstantMask conv1d_mask;
}

template <class T> __device__ __forceinline__ T constant_mask(u64 j);
template <> __device__ __forceinline__ f32 constant_mask<f32>(u64 j) { return conv1d_mask.f32s[j]; }
template <> __device__ __forceinline__ f64 constant_mask<f64>(u64 j) { return conv1d_mask.f64s[j]; }

template <class A, bool CONSTANT>
__device__ __forceinline__ A mask_at(const A* __restrict__ mask, u64 j) {
    return CONSTANT ? constant_mask<A>(j) : mask[j];
}

// =============================================================================================
// TEACHING: the chapter's four strategies (basic, constant mask, tiled halo, tiled cached),
//           selectable by name. Strategy::Auto uses the basic kernel only for rows too short to
//           fill one register tile.
// =============================================================================================

// ---------------------------------------------------------------------------------------------
// Strategies 0 and 1 (basic, constant): one thread per output, every input read from global
// memory (the L1/L2 caches catch the w-fold reuse), mask from global or constant memory.
// Grid-stride over the flattened rows * n_out outputs.
// ---------------------------------------------------------------------------------------------
template <class T, bool CONSTANT>
__device__ __forceinline__ void conv_direct(const T* __restrict__ x,
                                            const typename gp::Accumulator<T>::type* __restrict__ mask,
                                            T* __restrict__ y, u64 rows, u64 n, u64 n_out,
                                            i64 off, u64 w, int bmode) {
    typedef typename gp::Accumulator<T>::type A;
    const u64 total = rows * n_out;
    for (u64 g = gp::global_thread_index(); g < total; g += gp::grid_thread_count()) {
        const u64 row = g / n_out;
        const u64 o = g - row * n_out;
        const T* xr = x + row * n;
        const i64 start = (i64)o + off;
        A acc = A(0);
        for (u64 j = 0; j < w; ++j) {
            const i64 p = start + (i64)j;
            // The chapter's ghost test; ghosts go through the boundary mode.
            const T v = (p >= 0 && p < (i64)n) ? xr[p] : gp::boundary_load(xr, p, (i64)n, bmode);
            acc = fma_rn(widen(v), mask_at<A, CONSTANT>(mask, j), acc);
        }
        y[g] = narrow<T>(acc);
    }
}

// Dynamic shared memory of the tiled strategies (one declaration for both element types).
extern __shared__ __align__(16) unsigned char conv1d_dynamic_smem[];

// ---------------------------------------------------------------------------------------------
// Strategy 2 (tiling 1): a block of `tile` threads computes `tile` consecutive outputs of one
// row; the tile's inputs plus the left and right halo (tile + w - 1 elements, boundary applied
// at load time) are staged in shared memory first, then every product reads shared memory and
// the constant mask. Blocks grid-stride over rows * tiles_per_row tiles.
// ---------------------------------------------------------------------------------------------
template <class T>
__device__ __forceinline__ void conv_tiled_halo(const T* __restrict__ x, T* __restrict__ y,
                                                u64 rows, u64 n, u64 n_out, i64 off, u64 w,
                                                int bmode, u64 tiles_per_row) {
    typedef typename gp::Accumulator<T>::type A;
    T* ns = reinterpret_cast<T*>(conv1d_dynamic_smem);
    const u64 tile = blockDim.x;
    const u64 span = tile + w - 1;
    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const u64 row = b / tiles_per_row;
        const u64 o0 = (b - row * tiles_per_row) * tile;
        const T* xr = x + row * n;
        const i64 p0 = (i64)o0 + off;  // input position of ns[0]
        // Left halo, the tile's own elements and the right halo in one cooperative sweep (the
        // halo may be wider than the block).
        for (u64 q = threadIdx.x; q < span; q += tile)
            ns[q] = gp::boundary_load(xr, p0 + (i64)q, (i64)n, bmode);
        __syncthreads();
        const u64 o = o0 + threadIdx.x;
        if (o < n_out) {
            A acc = A(0);
            for (u64 j = 0; j < w; ++j) acc = fma_rn(widen(ns[threadIdx.x + j]), constant_mask<A>(j), acc);
            y[row * n_out + o] = narrow<T>(acc);
        }
        __syncthreads();  // every read of ns is done before the next tile overwrites it
    }
}

// ---------------------------------------------------------------------------------------------
// Strategy 3 (tiling 2): only the tile's own `tile` input elements (those under the mask centre,
// positions o + off + w/2) are staged in shared memory; halo elements, which neighbouring blocks
// also read, come from global memory through L1/L2.
// ---------------------------------------------------------------------------------------------
template <class T>
__device__ __forceinline__ void conv_tiled_cached(const T* __restrict__ x, T* __restrict__ y,
                                                  u64 rows, u64 n, u64 n_out, i64 off, u64 w,
                                                  int bmode, u64 tiles_per_row) {
    typedef typename gp::Accumulator<T>::type A;
    T* ns = reinterpret_cast<T*>(conv1d_dynamic_smem);
    const u64 tile = blockDim.x;
    const u64 tiles = rows * tiles_per_row;
    const i64 centre = (i64)(w / 2);
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const u64 row = b / tiles_per_row;
        const u64 o0 = (b - row * tiles_per_row) * tile;
        const T* xr = x + row * n;
        const i64 c0 = (i64)o0 + off + centre;  // input position of ns[0]
        ns[threadIdx.x] = gp::boundary_load(xr, c0 + (i64)threadIdx.x, (i64)n, bmode);
        __syncthreads();
        const u64 o = o0 + threadIdx.x;
        if (o < n_out) {
            const i64 start = (i64)o + off;
            A acc = A(0);
            for (u64 j = 0; j < w; ++j) {
                const i64 p = start + (i64)j;
                const i64 s = p - c0;
                const T v = (s >= 0 && s < (i64)tile) ? ns[s] : gp::boundary_load(xr, p, (i64)n, bmode);
                acc = fma_rn(widen(v), constant_mask<A>(j), acc);
            }
            y[row * n_out + o] = narrow<T>(acc);
        }
        __syncthreads();
    }
}

// =============================================================================================
// PRODUCTION: the default (Strategy::Auto): register tiling, any width here, common widths fixed
//             at compile time below.
// =============================================================================================

// ---------------------------------------------------------------------------------------------
// The default ("auto"): register tiling.
//
// A block of BLOCK threads computes a tile of TILE = BLOCK * K consecutive outputs of one row,
// K per thread (one 64-byte group: 16 f32 or 8 f64). The tile's inputs plus halo are staged in
// shared memory with 16-byte vector loads (the tile start is aligned down to a 16-byte boundary
// of x, so interior tiles never need scalar loads), and the mask is staged next to them. Each
// thread then slides a window of 2K inputs held in registers along the mask, K mask values at a
// time: per K mask elements it issues K/V 128-bit loads of new inputs, K/V 128-bit broadcast
// loads of mask values and K * K fused multiply-adds whose operands are all registers, so the
// inner loop is FMA-bound rather than load-bound. Groups of K inputs are padded by 16 bytes in
// shared memory so the per-thread 128-bit loads (64-byte stride) are free of bank conflicts.
// Results go back through shared memory (re-aligned to y) and out as 16-byte vector stores.
//
// Masks longer than SEG elements are processed in segments of SEG: for each segment the block
// stages that part of the mask and the TILE + SEG inputs it touches, so shared memory stays
// bounded whatever w is. Accumulators stay in registers across segments.
//
// 16-bit signals (A = f32): inputs stay 16-bit in shared memory (a 16-byte load brings 8) and
// are widened into the register window; the mask, accumulators and window are f32, so K, SEG
// and the register budget are those of f32.
// ---------------------------------------------------------------------------------------------
template <class T> struct AutoShape {
    typedef typename gp::Accumulator<T>::type A;      // what products are summed in
    static constexpr int V = 16 / (int)sizeof(T);     // elements per 16-byte vector
    static constexpr int VA = 16 / (int)sizeof(A);    // mask values per 16-byte vector
    static constexpr int K = 64 / (int)sizeof(A);     // outputs per thread (and chunk of mask)
    static constexpr int BLOCK = 256;                 // threads per block
    static constexpr int TILE = BLOCK * K;            // outputs per tile
    static constexpr int SEG = 4096 / (int)sizeof(A); // mask elements per segment
    static constexpr int SPAN = TILE + SEG;           // inputs staged per segment, at most
    static constexpr int PHYS = SPAN + SPAN / K * V;  // with 16 bytes of padding per K elements
    static constexpr int MAIN = TILE / V / BLOCK;     // tile vectors each thread loads
    static_assert(K % V == 0 && K % VA == 0 && SEG % K == 0 && TILE % (V * BLOCK) == 0,
                  "auto shape");
    // Shared-memory position of logical element q (q / K groups of K, each padded by V).
    static __device__ __forceinline__ int phys(int q) { return q + (q / K) * V; }
};

// The accumulator type of AutoShape<T>, and K of them (the register window and accumulators).
template <class T> using AutoAcc = typename AutoShape<T>::A;
template <class T> using AutoRegs = AutoAcc<T>[AutoShape<T>::K];

// Loads the K-element group starting at logical position q (a multiple of K) of xs, widened.
template <class T>
__device__ __forceinline__ void load_group(AutoRegs<T>& r, const T* xs, int q) {
    typedef AutoShape<T> S;
    const T* p = xs + S::phys(q);
#pragma unroll
    for (int i = 0; i < S::K / S::V; ++i) {
        const gp::Vec<T> v = *reinterpret_cast<const gp::Vec<T>*>(p + i * S::V);
#pragma unroll
        for (int e = 0; e < S::V; ++e) r[i * S::V + e] = widen(v.v[e]);
    }
}

// acc[k] += sum_{u < K} win[k + u] * m[u], win = a ++ b (2K consecutive inputs).
template <class T>
__device__ __forceinline__ void chunk(AutoRegs<T>& acc, const AutoRegs<T>& a,
                                      const AutoRegs<T>& b, const AutoAcc<T>* m) {
    typedef AutoShape<T> S;
    typedef typename S::A A;
#pragma unroll
    for (int g = 0; g < S::K / S::VA; ++g) {
        const gp::Vec<A> mv = *reinterpret_cast<const gp::Vec<A>*>(m + g * S::VA);  // broadcast
#pragma unroll
        for (int e = 0; e < S::VA; ++e) {
            const int u = g * S::VA + e;
#pragma unroll
            for (int k = 0; k < S::K; ++k)
                acc[k] = fma_rn(k + u < S::K ? a[k + u] : b[k + u - S::K], mv.v[e], acc[k]);
        }
    }
}

// As chunk, for the first `rem` (< K) mask elements only: the last, partial chunk of a segment.
template <class T>
__device__ __forceinline__ void chunk_tail(AutoRegs<T>& acc, const AutoRegs<T>& a,
                                           const AutoRegs<T>& b, const AutoAcc<T>* m, int rem) {
    typedef AutoShape<T> S;
    typedef typename S::A A;
#pragma unroll
    for (int g = 0; g < S::K / S::VA; ++g) {
        if (g * S::VA >= rem) return;  // rem is block-uniform
        const gp::Vec<A> mv = *reinterpret_cast<const gp::Vec<A>*>(m + g * S::VA);
#pragma unroll
        for (int e = 0; e < S::VA; ++e) {
            const int u = g * S::VA + e;
            if (u >= rem) return;
#pragma unroll
            for (int k = 0; k < S::K; ++k)
                acc[k] = fma_rn(k + u < S::K ? a[k + u] : b[k + u - S::K], mv.v[e], acc[k]);
        }
    }
}

// Stages mask elements [0, seg) of `mask` into ms, zero-padded to a whole number of chunks.
template <class T>
__device__ __forceinline__ void load_mask(AutoAcc<T>* ms, const AutoAcc<T>* __restrict__ mask,
                                          int seg) {
    typedef AutoShape<T> S;
    const int padded = (seg + S::K - 1) / S::K * S::K;
    for (int j = threadIdx.x; j < padded; j += S::BLOCK) ms[j] = j < seg ? mask[j] : AutoAcc<T>(0);
}

// Stages inputs at row positions [p, p + span) into xs. p is aligned so that x_row + p is on a
// 16-byte boundary whenever the whole range lies inside the row (the vector path).
template <class T>
__device__ __forceinline__ void load_inputs(T* xs, const T* __restrict__ xr, i64 p, int span,
                                            i64 n, int bmode) {
    typedef AutoShape<T> S;
    const int tid = threadIdx.x;
    if (p >= 0 && p + span <= n) {
        const T* src = xr + p;
        gp::Vec<T> v[S::MAIN];
#pragma unroll
        for (int i = 0; i < S::MAIN; ++i) v[i] = gp::load_vec(src + (i * S::BLOCK + tid) * S::V);
#pragma unroll
        for (int i = 0; i < S::MAIN; ++i)
            *reinterpret_cast<gp::Vec<T>*>(xs + S::phys((i * S::BLOCK + tid) * S::V)) = v[i];
        for (int q = S::TILE + tid * S::V; q < span; q += S::BLOCK * S::V)
            *reinterpret_cast<gp::Vec<T>*>(xs + S::phys(q)) = gp::load_vec(src + q);
    } else {
#pragma unroll 4
        for (int q = tid; q < span; q += S::BLOCK) xs[S::phys(q)] = gp::boundary_load(xr, p + q, n, bmode);
    }
}

// One segment of the mask (seg elements, staged in ms) against the staged inputs: thread's
// window starts at logical position `base` of xs.
template <class T>
__device__ __forceinline__ void compute_segment(AutoRegs<T>& acc, const T* xs,
                                                const AutoAcc<T>* ms, int base, int seg) {
    typedef AutoShape<T> S;
    constexpr int K = S::K;
    const int nfull = seg / K;
    const int rem = seg - nfull * K;
    AutoAcc<T> a[K], b[K];
    load_group(a, xs, base);
    int c = 0;
    // Two chunks per trip so the window halves swap roles instead of being copied.
#pragma unroll 1
    for (; c + 2 <= nfull; c += 2) {
        load_group(b, xs, base + (c + 1) * K);
        chunk<T>(acc, a, b, ms + c * K);
        load_group(a, xs, base + (c + 2) * K);
        chunk<T>(acc, b, a, ms + (c + 1) * K);
    }
    if (c < nfull) {
        load_group(b, xs, base + (c + 1) * K);
        chunk<T>(acc, a, b, ms + c * K);
#pragma unroll
        for (int k = 0; k < K; ++k) a[k] = b[k];
        ++c;
    }
    if (rem > 0) {
        load_group(b, xs, base + (c + 1) * K);
        chunk_tail<T>(acc, a, b, ms + c * K, rem);
    }
}

template <class T>
__device__ __forceinline__ void conv_auto(const T* __restrict__ x,
                                          const AutoAcc<T>* __restrict__ mask,
                                          T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off,
                                          u64 w, int bmode, u64 tiles_per_row) {
    typedef AutoShape<T> S;
    typedef typename S::A A;
    constexpr int V = S::V, K = S::K, TILE = S::TILE, SEG = S::SEG;
    __shared__ __align__(16) T xs[S::PHYS];
    __shared__ __align__(16) A ms[SEG];
    const int tid = threadIdx.x;
    const bool one_segment = w <= (u64)SEG;
    if (one_segment) load_mask<T>(ms, mask, (int)w);  // read only after the first barrier below

    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const u64 row = b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const T* xr = x + row * n;
        // Tile 0's first input is off - d, d in [0, V) chosen so that it sits on a 16-byte
        // boundary of x; slot q of tile t then computes output t * TILE - d + q.
        const i64 d = gp::floor_mod((i64)(row * n) + off, V);
        const i64 p_tile = off - d + (i64)(tile * TILE);
        const i64 o_tile = (i64)(tile * TILE) - d;

        A acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = A(0);
        for (u64 j0 = 0; j0 < w; j0 += SEG) {
            const int seg = (int)(w - j0 < (u64)SEG ? w - j0 : (u64)SEG);
            const int span = TILE + (seg + K - 1) / K * K;
            __syncthreads();  // xs and ms are free: earlier readers are done
            if (!one_segment) load_mask<T>(ms, mask + j0, seg);
            load_inputs(xs, xr, p_tile + (i64)j0, span, (i64)n, bmode);
            __syncthreads();
            compute_segment<T>(acc, xs, ms, tid * K, seg);
        }

        // Outputs back through shared memory: slot q holds flat output ybase + q, ybase a
        // multiple of V, so whole slots-vectors store as aligned 16-byte vectors.
        const i64 yt = (i64)(row * n_out) + o_tile;  // flat index of the tile's slot-0 output
        const int s = (int)gp::floor_mod(yt, V);
        const i64 ybase = yt - s;
        __syncthreads();  // every window read of xs is done
#pragma unroll
        for (int k = 0; k < K; ++k) xs[S::phys(tid * K + s + k)] = narrow<T>(acc[k]);
        __syncthreads();
        // Slots holding this row's outputs [0, n_out) of this tile.
        const i64 qlo = s + (o_tile < 0 ? -o_tile : 0);
        const i64 qend = (i64)s + (i64)n_out - o_tile;
        const i64 qhi = qend < (i64)(s + TILE) ? qend : (i64)(s + TILE);
        for (int m = tid; m <= TILE / V; m += S::BLOCK) {
            const int q = m * V;
            if (q >= qlo && q + V <= qhi) {
                const gp::Vec<T> v = *reinterpret_cast<const gp::Vec<T>*>(xs + S::phys(q));
                *reinterpret_cast<gp::Vec<T>*>(y + (ybase + q)) = v;
            } else {
#pragma unroll
                for (int e = 0; e < V; ++e)
                    if (q + e >= qlo && q + e < qhi) y[ybase + q + e] = xs[S::phys(q + e)];
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Entry points: conv1d_<strategy>_<type>; T the element type, A its accumulator (the mask's
// type).
// ---------------------------------------------------------------------------------------------
#define CONV1D_ENTRIES(tname, T, A)                                                                  \
    extern "C" __global__ void __launch_bounds__(1024)                                            \
        conv1d_basic_##tname(const T* __restrict__ x, const A* __restrict__ mask,                 \
                             T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w,       \
                             int boundary) {                                                      \
        conv_direct<T, false>(x, mask, y, rows, n, n_out, off, w, boundary);                      \
    }                                                                                             \
    extern "C" __global__ void __launch_bounds__(1024)                                            \
        conv1d_constant_##tname(const T* __restrict__ x, T* __restrict__ y, u64 rows, u64 n,      \
                                u64 n_out, i64 off, u64 w, int boundary) {                        \
        conv_direct<T, true>(x, nullptr, y, rows, n, n_out, off, w, boundary);                    \
    }                                                                                             \
    extern "C" __global__ void __launch_bounds__(1024)                                            \
        conv1d_tiled_halo_##tname(const T* __restrict__ x, T* __restrict__ y, u64 rows, u64 n,    \
                                  u64 n_out, i64 off, u64 w, int boundary, u64 tiles_per_row) {   \
        conv_tiled_halo<T>(x, y, rows, n, n_out, off, w, boundary, tiles_per_row);                \
    }                                                                                             \
    extern "C" __global__ void __launch_bounds__(1024)                                            \
        conv1d_tiled_cached_##tname(const T* __restrict__ x, T* __restrict__ y, u64 rows, u64 n,  \
                                    u64 n_out, i64 off, u64 w, int boundary,                      \
                                    u64 tiles_per_row) {                                          \
        conv_tiled_cached<T>(x, y, rows, n, n_out, off, w, boundary, tiles_per_row);              \
    }                                                                                             \
    extern "C" __global__ void __launch_bounds__(256, 3)                                          \
        conv1d_auto_##tname(const T* __restrict__ x, const A* __restrict__ mask,                  \
                            T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w,        \
                            int boundary, u64 tiles_per_row) {                                    \
        conv_auto<T>(x, mask, y, rows, n, n_out, off, w, boundary, tiles_per_row);                \
    }

CONV1D_ENTRIES(f32, f32, f32)
CONV1D_ENTRIES(f64, f64, f64)
CONV1D_ENTRIES(f16, gp::f16, f32)
CONV1D_ENTRIES(bf16, gp::bf16, f32)

// ---------------------------------------------------------------------------------------------
// The default for common mask widths: register tiling with the width fixed at compile time
// (gpu_prims/conv1d_fixed.cuh), conv1d_auto_w<W>_<type> for every width of
// GP_CONV1D_FIXED_WIDTHS. A block of 128 threads, 16 (f32, f16, bf16) / 8 (f64) outputs per
// thread. On compute capability 8.0+ the bf16 ones are loaded from conv1d_sm80.cu instead
// (rounding to bf16 is one instruction there).
// ---------------------------------------------------------------------------------------------
#define CONV1D_FIXED(W)                                                                           \
    GP_CONV1D_FIXED_ENTRY(W, f32, f32, f32, 16)                                                   \
    GP_CONV1D_FIXED_ENTRY(W, f64, f64, f64, 8)                                                    \
    GP_CONV1D_FIXED_ENTRY(W, f16, gp::f16, f32, 16)                                               \
    GP_CONV1D_FIXED_ENTRY(W, bf16, gp::bf16, f32, 16)

GP_CONV1D_FIXED_WIDTHS(CONV1D_FIXED)

// Wide tiles (24 f32 outputs per thread) for long rows on GPUs of fast memory per SM: f32 only,
// widths 5-32 (gpu_prims/conv1d_fixed.cuh, Path::RegisterTiledFixedWide).
#define CONV1D_FIXED_WIDE(W) GP_CONV1D_FIXED_WIDE_ENTRY(W, f32, f32, f32, 24)

GP_CONV1D_FIXED_WIDE_WIDTHS(CONV1D_FIXED_WIDE)

// Wide tiles for 16-bit signals (32 outputs per thread), widths 1-32; on compute capability 8.0+
// the bf16 ones load from conv1d_sm80.cu, as the bf16 fixed-width kernels do.
#define CONV1D_FIXED_WIDE_HALF(W)                                                                 \
    GP_CONV1D_FIXED_WIDE_HALF_ENTRY(W, f16, gp::f16, f32, 32)                                     \
    GP_CONV1D_FIXED_WIDE_HALF_ENTRY(W, bf16, gp::bf16, f32, 32)

GP_CONV1D_FIXED_WIDE_HALF_WIDTHS(CONV1D_FIXED_WIDE_HALF)

// ---------------------------------------------------------------------------------------------
// The FFT path for long masks (gpu_prims/conv1d_fft.cuh): overlap-save on block FFTs of N
// points, conv1d_fft<N>_<type> for N = 512 ... 16384 (f64: ... 8192, whose 16-byte points fill
// shared memory at 8192), two tiles a transform; and conv1d_fft_eo<SPAN>_<type>, one tile's
// even and odd points in a transform of SPAN / 2 points, for SPAN = 16384 and 32768 (f64:
// 16384; at 8192 the pairs were as fast or faster on an H200, docs/conv1d.md), and
// conv1d_fft_eo16384_pairs_f32, the 16384-point f32 spans with pair loads and stores, for masks
// to w = 6143. Mirrored by FFT_SIZES, fft_even_odd, fft_tile and even_odd_kernel_name in
// crates/gpu-conv1d/src/fft.rs.
// ---------------------------------------------------------------------------------------------
#include <gpu_prims/conv1d_fft.cuh>

#define CONV1D_FFT(LOG_N, N)                                                                      \
    GP_CONV1D_FFT_ENTRY(LOG_N, N, f32, f32, f32)                                                  \
    GP_CONV1D_FFT_ENTRY(LOG_N, N, f16, gp::f16, f32)                                              \
    GP_CONV1D_FFT_ENTRY(LOG_N, N, bf16, gp::bf16, f32)
#define CONV1D_FFT_F64(LOG_N, N) GP_CONV1D_FFT_ENTRY(LOG_N, N, f64, f64, f64)

CONV1D_FFT(9, 512)
CONV1D_FFT(10, 1024)
CONV1D_FFT(11, 2048)
CONV1D_FFT(12, 4096)
CONV1D_FFT(13, 8192)
CONV1D_FFT(14, 16384)
CONV1D_FFT_F64(9, 512)
CONV1D_FFT_F64(10, 1024)
CONV1D_FFT_F64(11, 2048)
CONV1D_FFT_F64(12, 4096)
CONV1D_FFT_F64(13, 8192)

#define CONV1D_FFT_EVEN_ODD(LOG_N, SPAN)                                                          \
    GP_CONV1D_FFT_EVEN_ODD_ENTRY(LOG_N, SPAN, f32, f32, f32)                                      \
    GP_CONV1D_FFT_EVEN_ODD_ENTRY(LOG_N, SPAN, f16, gp::f16, f32)                                  \
    GP_CONV1D_FFT_EVEN_ODD_ENTRY(LOG_N, SPAN, bf16, gp::bf16, f32)

CONV1D_FFT_EVEN_ODD(13, 16384)
CONV1D_FFT_EVEN_ODD(14, 32768)
GP_CONV1D_FFT_EVEN_ODD_ENTRY(13, 16384, f64, f64, f64)
GP_CONV1D_FFT_EVEN_ODD_PAIRS_ENTRY(13, 16384, f32, f32, f32)
// Masks past one span, in parts: the largest spans of f32 and f64.
GP_CONV1D_FFT_EVEN_ODD_PARTS_ENTRY(14, 32768, f32, f32, f32)
GP_CONV1D_FFT_EVEN_ODD_PARTS_ENTRY(13, 16384, f64, f64, f64)

// ---------------------------------------------------------------------------------------------
// The cuFFT path for masks too long for one block's transform (gpu_prims/conv1d_cufft.cuh): the
// gather, product and scatter passes around batched cuFFT transforms (f32 transforms for f32,
// f16 and bf16; f64 for f64).
// ---------------------------------------------------------------------------------------------
#include <gpu_prims/conv1d_cufft.cuh>

GP_CONV1D_CUFFT_ENTRIES(f32, f32, f32)
GP_CONV1D_CUFFT_ENTRIES(f64, f64, f64)
GP_CONV1D_CUFFT_ENTRIES(f16, gp::f16, f32)
GP_CONV1D_CUFFT_ENTRIES(bf16, gp::bf16, f32)
GP_CONV1D_CUFFT_MULTIPLY(f32, f32)
GP_CONV1D_CUFFT_MULTIPLY(f64, f64)
