// Standalone harness (issue 24, H200): the shipped staged look-back scan and fixed-width conv1d
// against software-pipelined variants (persistent blocks that start the next tile's cp.async
// loads before they scan or convolve the current one). One GPU, one process, the same-run copy.
// Built on the device with nvcc -arch=sm_90: one-off/h200-p*.sh. Not shipped.
//
// usage: pipeline-harness <log2 n> <reps> <what: scan|conv|all> [variants,...]
#include <gpu_prims/scan_lookback.cuh>
#include <gpu_prims/scan_tile_staged.cuh>

extern __shared__ __align__(16) unsigned char scan_staged_smem[];
// As kernels/scan_sm80.cu: this warp's SMEM_ROWS x 32 vectors of the dynamic shared memory.
template <class Op> __device__ __forceinline__ gp::ScanStagedTile<Op> staged_tile() {
    typedef gp::ScanStagedTile<Op> Tile;
    return Tile(reinterpret_cast<gp::Vec<typename Op::value_type>*>(scan_staged_smem) +
                (gp::u64)gp::warp_id() * Tile::SMEM_ROWS * 32);
}
// The shipped entry (scan_sm80.cu's scan_lookback_staged_sum_<t>).
template <class Op>
__global__ void __launch_bounds__(1024) scan_shipped(const typename Op::value_type* in,
    typename Op::value_type* out, gp::u64 n, gp::u32 exclusive, gp::u32* counter, gp::u32* flags,
    void* aggs, void* incs) {
    gp::ScanStagedTile<Op> tile = staged_tile<Op>();
    gp::lookback_scan<Op, false>(in, out, n, exclusive, counter, flags, aggs, incs, 1u, 0u, tile);
}

// The tile's loads start before its index is known: MODE 1 guesses tile blockIdx.x, takes its
// index from the counter meanwhile, and reloads when the guess was wrong (counted in
// `misses`); MODE 2 takes blockIdx.x as the index (diagnostic only: no ordering guarantee).
template <class Op, int MODE>
__global__ void __launch_bounds__(1024) scan_spec(const typename Op::value_type* in,
    typename Op::value_type* out, gp::u64 n, gp::u32 exclusive, gp::u32* counter, gp::u32* flags,
    void* aggs, void* incs, gp::u32* misses) {
    typedef typename Op::value_type T;
    typedef gp::ScanStagedTile<Op> Tile;
    Tile t = staged_tile<Op>();
    __shared__ gp::u32 tile_slot;
    __shared__ T warp_totals[32];
    __shared__ T tile_prefix;
    Op op;
    const unsigned lane = gp::lane_id(), warp = gp::warp_id(), warps = blockDim.x >> 5;
    const gp::u64 tile_items = (gp::u64)blockDim.x * Tile::ITEMS;
    auto seg_of = [&](gp::u64 tl) { return tl * tile_items + (gp::u64)warp * (32 * Tile::ITEMS); };
    auto vok = [&](gp::u64 tl) { return (tl + 1) * tile_items <= n && Tile::aligned(in, out); };
    const gp::u64 guess = blockIdx.x;
    if (MODE == 1) t.load(in, seg_of(guess), n, vok(guess));
    if (threadIdx.x == 0) tile_slot = MODE == 2 ? blockIdx.x : atomicAdd(counter, 1u);
    __syncthreads();
    const gp::u64 tile = tile_slot;
    if (MODE != 1 || tile != guess) {
        if (MODE == 1) {
            gp::async_copy_wait_all();
            if (threadIdx.x == 0) atomicAdd(misses, 1u);
        }
        t.load(in, seg_of(tile), n, vok(tile));
    }
    const gp::u64 seg = seg_of(tile);
    const bool vector_ok = vok(tile);
    const T warp_total = t.scan(exclusive != 0, op);
    if (lane == 0) warp_totals[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
        T aggregate = warp_totals[0];
        for (unsigned w = 1; w < warps; ++w) aggregate = op(aggregate, warp_totals[w]);
        const gp::ScanTileStatus<T> status(flags, aggs, incs);
        if (tile == 0) {
            if (lane == 0) status.publish_inclusive(tile, aggregate);
        } else {
            if (lane == 0) status.publish_aggregate(tile, aggregate);
            const T prefix = gp::scan_lookback(status, tile, op, 0);
            if (lane == 0) {
                status.publish_inclusive(tile, op(prefix, aggregate));
                tile_prefix = prefix;
            }
        }
    }
    T before = Op::identity();
    for (unsigned w = 0; w < warp; ++w) before = w == 0 ? warp_totals[0] : op(before, warp_totals[w]);
    __syncthreads();
    bool has_prefix = warp > 0;
    if (tile > 0) {
        before = warp > 0 ? op(tile_prefix, before) : tile_prefix;
        has_prefix = true;
    }
    t.store(out, seg, n, vector_ok, before, has_prefix, exclusive != 0, op);
}
#include <gpu_prims/conv1d_fixed.cuh>

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#endif

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

using gp::u32;
using gp::u64;
using gp::i64;

// ---------------------------------------------------------------------------------------------
// Pipelined look-back scan: the whole tile staged in shared memory (ROWS rows of 32 16-byte
// vectors per warp), STAGES tile buffers; a block takes STAGES-1 tiles ahead from the counter
// and starts their copies before it scans the current one.
extern __shared__ __align__(16) unsigned char pipe_smem[];

template <class Op, int ROWS>
__device__ __forceinline__ void pipe_issue(gp::Vec<typename Op::value_type>* rows,
                                           const typename Op::value_type* in, u64 seg, u64 n,
                                           bool vector_ok) {
    typedef typename Op::value_type T;
    constexpr int VEC = gp::VecWidth<T>::value;
    const unsigned lane = gp::lane_id();
    if (vector_ok) {
#pragma unroll
        for (int k = 0; k < ROWS; ++k)
            gp::async_copy_16(rows + k * 32 + lane, in + seg + (u64)(k * 32 + lane) * VEC);
    } else {
        for (int k = 0; k < ROWS; ++k) {
            gp::Vec<T> x;
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const u64 i = seg + (u64)(k * 32 + lane) * VEC + e;
                x.v[e] = i < n ? in[i] : Op::identity();
            }
            rows[k * 32 + lane] = x;
        }
    }
}

template <int N> __device__ __forceinline__ void async_wait_group() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

template <class Op, int ROWS, int STAGES>
__global__ void __launch_bounds__(1024) scan_pipelined(const typename Op::value_type* in,
                                                       typename Op::value_type* out, u64 n,
                                                       u32* counter, void* aggs, void* incs) {
    typedef typename Op::value_type T;
    constexpr int VEC = gp::VecWidth<T>::value;
    constexpr int ITEMS = ROWS * VEC;
    __shared__ u32 ring[STAGES];
    __shared__ T warp_totals[32];
    __shared__ T tile_prefix;
    Op op;
    const unsigned lane = gp::lane_id(), warp = gp::warp_id(), warps = blockDim.x >> 5;
    const u64 tile_items = (u64)blockDim.x * ITEMS;
    const u64 tiles = (n + tile_items - 1) / tile_items;
    const bool aligned = ((((u64)in) | ((u64)out)) % 16) == 0;
    gp::Vec<T>* base = reinterpret_cast<gp::Vec<T>*>(pipe_smem);
    auto buf = [&](int s) { return base + ((u64)s * blockDim.x + (u64)warp * 32) * ROWS; };
    auto seg_of = [&](u64 t) { return t * tile_items + (u64)warp * (32 * ITEMS); };
    auto full = [&](u64 t) { return (t + 1) * tile_items <= n; };

    if (threadIdx.x == 0)
        for (int s = 0; s < STAGES - 1; ++s) ring[s] = atomicAdd(counter, 1u);
    __syncthreads();
    for (int s = 0; s < STAGES - 1; ++s) {
        const u64 t = ring[s];
        if (t < tiles) pipe_issue<Op, ROWS>(buf(s), in, seg_of(t), n, full(t) && aligned);
        gp::async_copy_commit();
    }
    for (u32 i = 0;; ++i) {
        const int cs = (int)(i % STAGES), ns = (int)((i + STAGES - 1) % STAGES);
        const u64 cur = ring[cs];
        if (threadIdx.x == 0) ring[ns] = atomicAdd(counter, 1u);
        __syncthreads();  // A: ring[ns] visible
        if (cur >= tiles) break;
        const u64 nxt = ring[ns];
        if (nxt < tiles) pipe_issue<Op, ROWS>(buf(ns), in, seg_of(nxt), n, full(nxt) && aligned);
        gp::async_copy_commit();
        async_wait_group<STAGES - 1>();
        gp::Vec<T>* rows = buf(cs);
        T carry = Op::identity();
#pragma unroll 1
        for (int k = 0; k < ROWS; ++k) {
            gp::Vec<T> x = rows[k * 32 + lane];
#pragma unroll
            for (int e = 1; e < VEC; ++e) x.v[e] = op(x.v[e - 1], x.v[e]);
            gp::scan_tile_row(x.v, carry, k > 0, false, op);
            rows[k * 32 + lane] = x;
        }
        if (lane == 0) warp_totals[warp] = carry;
        __syncthreads();  // B
        if (warp == 0) {
            T aggregate = warp_totals[0];
            for (unsigned w = 1; w < warps; ++w) aggregate = op(aggregate, warp_totals[w]);
            const gp::ScanTileStatus<T> status(nullptr, aggs, incs);
            if (cur == 0) {
                if (lane == 0) status.publish_inclusive(cur, aggregate);
            } else {
                if (lane == 0) status.publish_aggregate(cur, aggregate);
                const T prefix = gp::scan_lookback(status, cur, op, 0);
                if (lane == 0) {
                    status.publish_inclusive(cur, op(prefix, aggregate));
                    tile_prefix = prefix;
                }
            }
        }
        T before = Op::identity();
        for (unsigned w = 0; w < warp; ++w) before = w == 0 ? warp_totals[0] : op(before, warp_totals[w]);
        __syncthreads();  // C
        bool has_prefix = warp > 0;
        if (cur > 0) {
            before = warp > 0 ? op(tile_prefix, before) : tile_prefix;
            has_prefix = true;
        }
        const u64 seg = seg_of(cur);
        const bool vector_ok = full(cur) && aligned;
#pragma unroll 2
        for (int k = 0; k < ROWS; ++k) {
            gp::Vec<T> x = rows[k * 32 + lane];
            if (has_prefix) {
#pragma unroll
                for (int e = 0; e < VEC; ++e) x.v[e] = op(before, x.v[e]);
            }
            const u64 at = seg + (u64)(k * 32 + lane) * VEC;
            if (vector_ok) {
                gp::store_vec_streaming(out + at, x);
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (at + e < n) out[at + e] = x.v[e];
            }
        }
    }
}

// Diagnostics (wrong results on purpose): MODE 0 the staged tile's loads and stores alone (a
// tile copy of the same shape); MODE 1 the tile scanned locally, no look-back.
template <class Op, int MODE>
__global__ void __launch_bounds__(1024) scan_diag(const typename Op::value_type* in,
                                                  typename Op::value_type* out, u64 n, u32,
                                                  u32*, u32*, void*, void*) {
    typedef typename Op::value_type T;
    gp::ScanStagedTile<Op> t = staged_tile<Op>();
    __shared__ T warp_totals[32];
    Op op;
    const unsigned lane = gp::lane_id(), warp = gp::warp_id();
    const u64 tile_items = (u64)blockDim.x * gp::ScanStagedTile<Op>::ITEMS;
    const u64 seg = blockIdx.x * tile_items + (u64)warp * (32 * gp::ScanStagedTile<Op>::ITEMS);
    const bool vector_ok = ((u64)blockIdx.x + 1) * tile_items <= n;
    t.load(in, seg, n, vector_ok);
    if (MODE == 0) {
        gp::async_copy_wait_all();
        t.store(out, seg, n, vector_ok, T(0), false, false, op);
        return;
    }
    const T total = t.scan(false, op);
    if (lane == 0) warp_totals[warp] = total;
    __syncthreads();
    T before = Op::identity();
    for (unsigned w = 0; w < warp; ++w) before = op(before, warp_totals[w]);
    t.store(out, seg, n, vector_ok, before, warp > 0, false, op);
}

// The look-back in a warp of its own (the block's last): it waits on the predecessors while the
// other warps load and scan the tile, so its latency hides behind the loads. The aggregate is
// published by warp 0 as soon as the data warps have their totals (a named barrier among them),
// never after a look-back, so no chain of look-backs forms.
template <class Op, bool DETERMINISTIC, class Tile>
__device__ __forceinline__ void lookback_scan_split(const typename Op::value_type* in,
                                                    typename Op::value_type* out, u64 n,
                                                    u32 exclusive, u32* counter, u32* flags,
                                                    void* aggs, void* incs, Tile& t) {
    typedef typename Op::value_type T;
    __shared__ u32 tile_slot;
    __shared__ T warp_totals[32];
    __shared__ T tile_prefix, tile_aggregate;
    Op op;
    const unsigned lane = gp::lane_id(), warp = gp::warp_id();
    const unsigned data_warps = (blockDim.x >> 5) - 1;
    if (threadIdx.x == 0) tile_slot = atomicAdd(counter, 1u);
    __syncthreads();
    const u64 tile = tile_slot;
    const gp::ScanTileStatus<T> status(flags, aggs, incs);
    if (warp == data_warps) {
        T prefix = Op::identity();
        if (tile > 0)
            prefix = DETERMINISTIC ? gp::scan_lookback_deterministic(status, tile, op, 0)
                                   : gp::scan_lookback(status, tile, op, 0);
        if (lane == 0) tile_prefix = prefix;
        __syncthreads();  // C: the aggregate is in
        if (lane == 0 && tile > 0) status.publish_inclusive(tile, op(prefix, tile_aggregate));
        return;
    }
    const u64 tile_items = (u64)data_warps * 32 * Tile::ITEMS;
    const u64 seg = tile * tile_items + (u64)warp * (32 * Tile::ITEMS);
    const bool full = (tile + 1) * tile_items <= n;
    const bool vector_ok = full && Tile::aligned(in, out);
    t.load(in, seg, n, vector_ok);
    const T warp_total = t.scan(exclusive != 0, op);
    if (lane == 0) warp_totals[warp] = warp_total;
    asm volatile("bar.sync 1, %0;" ::"r"(data_warps * 32) : "memory");
    if (warp == 0) {
        T aggregate = warp_totals[0];
        for (unsigned w = 1; w < data_warps; ++w) aggregate = op(aggregate, warp_totals[w]);
        if (lane == 0) {
            if (tile == 0) status.publish_inclusive(tile, aggregate);
            else status.publish_aggregate(tile, aggregate);
            tile_aggregate = aggregate;
        }
    }
    T before = Op::identity();
    for (unsigned w = 0; w < warp; ++w) before = w == 0 ? warp_totals[0] : op(before, warp_totals[w]);
    __syncthreads();  // C: the prefix is in
    bool has_prefix = warp > 0;
    if (tile > 0) {
        before = warp > 0 ? op(tile_prefix, before) : tile_prefix;
        has_prefix = true;
    }
    t.store(out, seg, n, vector_ok, before, has_prefix, exclusive != 0, op);
}

template <class Op, bool DETERMINISTIC>
__global__ void __launch_bounds__(1024) scan_split(const typename Op::value_type* in,
                                                   typename Op::value_type* out, u64 n,
                                                   u32 exclusive, u32* counter, u32* flags,
                                                   void* aggs, void* incs) {
    gp::ScanStagedTile<Op> t = staged_tile<Op>();
    lookback_scan_split<Op, DETERMINISTIC>(in, out, n, exclusive, counter, flags, aggs, incs, t);
}

// ---------------------------------------------------------------------------------------------
// Pipelined fixed-width conv1d: persistent blocks, two tile buffers; the next tile's span is
// copied with cp.async while the current one is convolved.
template <class T, int W, int K, int BLOCK>
__device__ __forceinline__ void conv_issue(T* xs, const T* __restrict__ xr, i64 p, i64 n, int bmode) {
    typedef gp::Conv1dFixedShape<T, W, K, BLOCK> S;
    const int tid = threadIdx.x;
    if (p >= 0 && p + S::SPAN <= n) {
        const T* src = xr + p;
#pragma unroll
        for (int i = 0; i < S::MAIN; ++i)
            gp::async_copy_16(xs + S::phys((i * BLOCK + tid) * S::V), src + (i * BLOCK + tid) * S::V);
        if (S::HV > 0 && tid < S::HV)
            gp::async_copy_16(xs + S::phys(S::TILE + tid * S::V), src + S::TILE + tid * S::V);
    } else {
#pragma unroll 4
        for (int q = tid; q < S::SPAN; q += BLOCK) xs[S::phys(q)] = gp::boundary_load(xr, p + q, n, bmode);
    }
}

template <class T, int W, int K, int BLOCK, int STAGES, int CHUNK = 0>
__global__ void __launch_bounds__(BLOCK, 1024 / BLOCK) conv_pipelined(
    const T* __restrict__ x, T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, int bmode,
    u64 tiles_per_row, gp::Conv1dFixedMask<float, W> mask) {
    typedef gp::Conv1dFixedShape<T, W, K, BLOCK> S;
    typedef typename S::A A;
    constexpr int V = S::V;
    __shared__ __align__(16) T xs_all[STAGES][S::PHYS];
    const int tid = threadIdx.x;
    const u64 tiles = rows * tiles_per_row;
    auto geometry = [&](u64 b, const T*& xr, i64& p_tile, i64& o_tile, u64& row) {
        row = b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        xr = x + row * n;
        const i64 d = gp::floor_mod((i64)(row * n) + off, V);
        p_tile = off - d + (i64)(tile * S::TILE);
        o_tile = (i64)(tile * S::TILE) - d;
    };
    // CHUNK > 0: tiles [blockIdx.x * CHUNK, + CHUNK), one after the other; else grid-stride.
    const u64 step = CHUNK > 0 ? 1 : gridDim.x;
    u64 b = CHUNK > 0 ? (u64)blockIdx.x * CHUNK : blockIdx.x;
    const u64 stop = CHUNK > 0 ? (b + CHUNK < tiles ? b + CHUNK : tiles) : tiles;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        const u64 t = b + (u64)s * step;
        if (t < stop) {
            const T* xr; i64 p, o; u64 row;
            geometry(t, xr, p, o, row);
            conv_issue<T, W, K, BLOCK>(xs_all[s], xr, p, (i64)n, bmode);
        }
        gp::async_copy_commit();
    }
    for (u32 i = 0; b < stop; ++i, b += step) {
        const int cs = (int)(i % STAGES), ns = (int)((i + STAGES - 1) % STAGES);
        const u64 t = b + (u64)(STAGES - 1) * step;
        __syncthreads();  // buffer ns (the previous tile's) is free: its stores have read it
        if (t < stop) {
            const T* xr; i64 p, o; u64 row;
            geometry(t, xr, p, o, row);
            conv_issue<T, W, K, BLOCK>(xs_all[ns], xr, p, (i64)n, bmode);
        }
        gp::async_copy_commit();
        async_wait_group<STAGES - 1>();
        __syncthreads();
        const T* xr; i64 p_tile, o_tile; u64 row;
        geometry(b, xr, p_tile, o_tile, row);
        T* xs = xs_all[cs];
        A acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = A(0);
        gp::conv1d_fixed_group<T, W, K, BLOCK, 0>(acc, xs + S::phys(tid * K), mask);
        const i64 yt = (i64)(row * n_out) + o_tile;
        const int s = (int)gp::floor_mod(yt, V);
        __syncthreads();
        gp::conv1d_fixed_stage<T, K, V>(xs, acc, s);
        __syncthreads();
        gp::conv1d_store_tile<T, S, BLOCK>(y, xs, yt, o_tile, n_out);
    }
}

template <class T, int W, int K, int BLOCK>
__global__ void __launch_bounds__(BLOCK, 1024 / BLOCK) conv_shipped(
    const T* __restrict__ x, T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, int bmode,
    u64 tiles_per_row, gp::Conv1dFixedMask<float, W> mask) {
    gp::conv1d_fixed<T, W, K, BLOCK>(x, y, rows, n, n_out, off, bmode, tiles_per_row, mask);
}

#ifdef __CUDACC_RTC__
// NVRTC syntax check (one-off/nvrtc-check.py): instantiate what main launches.
template __global__ void scan_pipelined<gp::Sum<int>, 12, 2>(const int*, int*, u64, u32*, void*, void*);
template __global__ void scan_pipelined<gp::Sum<float>, 4, 3>(const float*, float*, u64, u32*, void*, void*);
template __global__ void conv_pipelined<float, 31, 16, 128, 2>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void scan_spec<gp::Sum<int>, 1>(const int*, int*, u64, u32, u32*, u32*, void*, void*, u32*);
template __global__ void scan_shipped<gp::Sum<int>>(const int*, int*, u64, u32, u32*, u32*, void*, void*);
template __global__ void scan_split<gp::Sum<int>, false>(const int*, int*, u64, u32, u32*, u32*, void*, void*);
template __global__ void scan_split<gp::Sum<float>, true>(const float*, float*, u64, u32, u32*, u32*, void*, void*);
template __global__ void scan_diag<gp::Sum<int>, 0>(const int*, int*, u64, u32, u32*, u32*, void*, void*);
template __global__ void scan_diag<gp::Sum<int>, 1>(const int*, int*, u64, u32, u32*, u32*, void*, void*);
template __global__ void conv_pipelined<float, 31, 16, 128, 2, 4>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 31>);
template __global__ void conv_pipelined<float, 63, 16, 128, 3>(const float*, float*, u64, u64, u64, i64, int, u64, gp::Conv1dFixedMask<float, 63>);
#else
// ---------------------------------------------------------------------------------------------
struct Timer {
    cudaEvent_t a, b;
    Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); }
};

template <class F> static double median_us(int reps, F f) {
    Timer t;
    std::vector<float> v;
    f();
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(t.a));
        f();
        CK(cudaEventRecord(t.b));
        CK(cudaEventSynchronize(t.b));
        float ms;
        CK(cudaEventElapsedTime(&ms, t.a, t.b));
        v.push_back(ms * 1000.f);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static bool want(const std::vector<std::string>& vs, const std::string& name) {
    if (vs.empty()) return true;
    for (auto& v : vs)
        if (v == name) return true;
    return false;
}

static int sms() {
    int d, s;
    CK(cudaGetDevice(&d));
    CK(cudaDeviceGetAttribute(&s, cudaDevAttrMultiProcessorCount, d));
    return s;
}

template <class T> struct Scratch {
    u32* counter;
    void* aggs;
    void* incs;
    u64 cap;
    explicit Scratch(u64 tiles) : cap(tiles) {
        CK(cudaMalloc(&counter, 256));
        CK(cudaMalloc(&aggs, tiles * 8 + 256));
        CK(cudaMalloc(&incs, tiles * 8 + 256));
    }
    void zero(u64 tiles) {
        CK(cudaMemsetAsync(counter, 0, 4));
        CK(cudaMemsetAsync(aggs, 0, tiles * 8));
        CK(cudaMemsetAsync(incs, 0, tiles * 8));
    }
};

template <class T> static void scan_suite(u64 n, int reps, const std::vector<std::string>& vs,
                                          double copy_us) {
    const char* tn = sizeof(T) == 4 && T(0.5) != T(0) ? "f32" : "i32";
    std::vector<T> h(n);
    srand(7);
    for (u64 i = 0; i < n; ++i) h[i] = (T)((rand() % 5) - 2);
    std::vector<T> want_h(n);
    {
        double acc = 0;
        long long iacc = 0;
        for (u64 i = 0; i < n; ++i) {
            if (T(0.5) != T(0)) {
                acc += (double)h[i];
                want_h[i] = (T)acc;
            } else {
                iacc += (long long)h[i];
                want_h[i] = (T)iacc;
            }
        }
    }
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    Scratch<T> sc(n / 256 + 16);
    std::vector<T> got(n);
    auto check = [&](const char* name, double us, int block, int per_thread) {
        CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
        u64 bad = 0, first = 0;
        for (u64 i = 0; i < n; ++i)
            if (got[i] != want_h[i]) {
                if (!bad) first = i;
                ++bad;
            }
        printf("scan %s n=2^%.0f %-22s block %4d x %2d: %9.2f us  %.3fx copy  %s", tn,
               std::log2((double)n), name, block, per_thread, us, copy_us / us,
               bad ? "WRONG" : "ok");
        if (bad) printf(" (%llu bad, first %llu)", (unsigned long long)bad, (unsigned long long)first);
        printf("\n");
        fflush(stdout);
    };
    // The shipped staged tile: 1024 (or 256) threads x 56.
    typedef gp::Sum<T> Op;
    auto shipped = [&](const char* name, void (*k)(const T*, T*, u64, u32, u32*, u32*, void*, void*), int block, int lookback_warps = 0) {
        const int items = gp::ScanStagedTile<Op>::ITEMS;
        const u64 data = (u64)(block - 32 * lookback_warps) * items;
        const u64 tiles = (n + data - 1) / data;
        const int smem = block * gp::ScanStagedShape<T>::SHARED_BYTES_PER_THREAD;
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        auto run = [&] {
            sc.zero(tiles);
            k<<<(unsigned)tiles, block, smem>>>(in, out, n, 0, sc.counter, nullptr, sc.aggs, sc.incs);
        };
        (void)0;
        double us = median_us(reps, run);
        CK(cudaGetLastError());
        check(name, us, block, items);
    };
    void (*ks)(const T*, T*, u64, u32, u32*, u32*, void*, void*) = scan_shipped<Op>;
    u32* misses;
    CK(cudaMalloc(&misses, 4));
    auto spec = [&](const char* name, void (*k)(const T*, T*, u64, u32, u32*, u32*, void*, void*, u32*), int block) {
        const int items = gp::ScanStagedTile<Op>::ITEMS;
        const u64 tiles = (n + (u64)block * items - 1) / ((u64)block * items);
        const int smem = block * gp::ScanStagedShape<T>::SHARED_BYTES_PER_THREAD;
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        auto run = [&] {
            sc.zero(tiles);
            CK(cudaMemsetAsync(misses, 0, 4));
            k<<<(unsigned)tiles, block, smem>>>(in, out, n, 0, sc.counter, nullptr, sc.aggs, sc.incs, misses);
        };
        double us = median_us(reps, run);
        CK(cudaGetLastError());
        u32 m = 0;
        CK(cudaMemcpy(&m, misses, 4, cudaMemcpyDeviceToHost));
        char full[64];
        snprintf(full, sizeof full, "%s(%u/%llu missed)", name, m, (unsigned long long)tiles);
        check(full, us, block, items);
    };
    for (int b : {1024, 768, 512}) {
        char nm[32];
        snprintf(nm, sizeof nm, "spec%d", b);
        if (want(vs, nm)) spec(nm, scan_spec<Op, 1>, b);
        snprintf(nm, sizeof nm, "bid%d", b);
        if (want(vs, nm)) spec(nm, scan_spec<Op, 2>, b);
    }
    for (int b : {1024, 960, 896, 832, 768, 704, 640, 576, 512, 384, 256}) {
        char nm[32];
        snprintf(nm, sizeof nm, "shipped%d", b);
        if (want(vs, nm) || want(vs, "shippedall")) shipped(nm, ks, b);
    }
    for (int b : {1024, 768, 512, 256}) {
        char nm[32];
        snprintf(nm, sizeof nm, "split%d", b);
        if (want(vs, nm) || want(vs, "splitall")) shipped(nm, scan_split<Op, false>, b, 1);
        snprintf(nm, sizeof nm, "splitdet%d", b);
        if (want(vs, nm)) shipped(nm, scan_split<Op, true>, b, 1);
    }
    if (want(vs, "diagcopy")) shipped("diag tile copy", scan_diag<Op, 0>, 1024);
    if (want(vs, "diaglocal")) shipped("diag no look-back", scan_diag<Op, 1>, 1024);

    auto piped = [&](const char* name, void (*k)(const T*, T*, u64, u32*, void*, void*), int block,
                     int rows, int stages) {
        const int items = rows * gp::VecWidth<T>::value;
        const u64 tiles = (n + (u64)block * items - 1) / ((u64)block * items);
        const int smem = block * rows * 16 * stages;
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, block, smem));
        if (per_sm == 0) {
            printf("scan %s %s: does not fit\n", tn, name);
            return;
        }
        const u64 grid = std::min<u64>(tiles, (u64)per_sm * sms());
        auto run = [&] {
            sc.zero(tiles);
            k<<<(unsigned)grid, block, smem>>>(in, out, n, sc.counter, sc.aggs, sc.incs);
        };
        double us = median_us(reps, run);
        CK(cudaGetLastError());
        char full[64];
        snprintf(full, sizeof full, "%s(%dx%d/SM)", name, per_sm, block);
        (void)0;
        check(full, us, block, items);
    };
#define PIPE(NAME, B, R, S)                                                                  \
    if (want(vs, NAME)) piped(NAME, scan_pipelined<Op, R, S>, B, R, S);
    PIPE("p1024r6s2", 1024, 6, 2)
    PIPE("p1024r4s3", 1024, 4, 3)
    PIPE("p512r12s2", 512, 12, 2)
    PIPE("p512r13s2", 512, 13, 2)
    PIPE("p512r8s3", 512, 8, 3)
    PIPE("p768r9s2", 768, 9, 2)
    PIPE("p512r6s2", 512, 6, 2)
    PIPE("p256r12s2", 256, 12, 2)
    PIPE("p256r8s3", 256, 8, 3)
    PIPE("p1024r3s2", 1024, 3, 2)
    CK(cudaFree(in));
    CK(cudaFree(out));
}

template <int W, int K, int BLOCK, class KernelF>
static void conv_one(const char* name, KernelF k, int stages, bool persistent, int chunk, const float* x,
                     float* y, u64 n, const std::vector<float>& hx, const std::vector<float>& hm,
                     int reps, double copy_us) {
    typedef gp::Conv1dFixedShape<float, W, K, BLOCK> S;
    const u64 n_out = n;
    const i64 off = -(i64)((W - 1) / 2);
    const u64 tiles_per_row = (n_out + S::V - 1 + S::TILE - 1) / S::TILE;
    gp::Conv1dFixedMask<float, W> mask;
    for (int j = 0; j < W; ++j) mask.m[j] = hm[j];
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, 0));
    u64 grid = tiles_per_row;
    if (persistent) grid = std::min<u64>(grid, (u64)per_sm * sms());
    if (chunk > 0) grid = (tiles_per_row + chunk - 1) / chunk;
    grid = std::min<u64>(grid, 2147483647ull);
    auto run = [&] { k<<<(unsigned)grid, BLOCK>>>(x, y, 1, n, n_out, off, 0, tiles_per_row, mask); };
    double us = median_us(reps, run);
    CK(cudaGetLastError());
    std::vector<float> got(n_out);
    CK(cudaMemcpy(got.data(), y, n_out * 4, cudaMemcpyDeviceToHost));
    u64 bad = 0;
    auto at = [&](u64 o) {
        double s = 0;
        for (int j = 0; j < W; ++j) {
            i64 p = (i64)o + off + j;
            if (p >= 0 && p < (i64)n) s += (double)hx[p] * hm[j];
        }
        return s;
    };
    auto test = [&](u64 o) { if (std::fabs(at(o) - got[o]) > 1e-3) ++bad; };
    for (u64 o = 0; o < 5000 && o < n_out; ++o) test(o);
    for (u64 o = n_out > 5000 ? n_out - 5000 : 0; o < n_out; ++o) test(o);
    for (u64 r = 0; r < 200000; ++r) test(((u64)rand() * 2654435761ull + r * 97) % n_out);
    printf("conv f32 n=2^%.0f w=%3d %-14s %d stages %4llu blocks (%d/SM): %9.2f us  %.3fx copy  %s\n",
           std::log2((double)n), W, name, stages, (unsigned long long)grid, per_sm, us, copy_us / us,
           bad ? "WRONG" : "ok");
    fflush(stdout);
}

template <int W> static void conv_width(const float* x, float* y, u64 n, const std::vector<float>& hx,
                                        const std::vector<float>& hm, int reps, double copy_us,
                                        const std::vector<std::string>& vs) {
    if (want(vs, "cshipped")) conv_one<W, 16, 128>("shipped", conv_shipped<float, W, 16, 128>, 1, false, 0, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cpipe2")) conv_one<W, 16, 128>("pipe", conv_pipelined<float, W, 16, 128, 2>, 2, true, 0, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cpipe3")) conv_one<W, 16, 128>("pipe", conv_pipelined<float, W, 16, 128, 3>, 3, true, 0, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cpipe2b256")) conv_one<W, 16, 256>("pipe256", conv_pipelined<float, W, 16, 256, 2>, 2, true, 0, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cpipe2k8")) conv_one<W, 8, 128>("pipe k8", conv_pipelined<float, W, 8, 128, 2>, 2, true, 0, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cpa1")) conv_one<W, 16, 128>("cp.async 1", conv_pipelined<float, W, 16, 128, 1, 1>, 1, false, 1, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cseq2")) conv_one<W, 16, 128>("cp.async seq2", conv_pipelined<float, W, 16, 128, 1, 2>, 1, false, 2, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cgs2")) conv_one<W, 16, 128>("shipped gs2", conv_shipped<float, W, 16, 128>, 1, false, 2, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cpair")) conv_one<W, 16, 128>("pair", conv_pipelined<float, W, 16, 128, 2, 2>, 2, false, 2, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cquad")) conv_one<W, 16, 128>("quad", conv_pipelined<float, W, 16, 128, 2, 4>, 2, false, 4, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "coct")) conv_one<W, 16, 128>("oct", conv_pipelined<float, W, 16, 128, 2, 8>, 2, false, 8, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cquad3")) conv_one<W, 16, 128>("quad", conv_pipelined<float, W, 16, 128, 3, 4>, 3, false, 4, x, y, n, hx, hm, reps, copy_us);
    if (want(vs, "cshippedk8b256")) conv_one<W, 8, 256>("shipped k8 256", conv_shipped<float, W, 8, 256>, 1, false, 0, x, y, n, hx, hm, reps, copy_us);
}

int main(int argc, char** argv) {
    const int lg = argc > 1 ? atoi(argv[1]) : 28;
    const int reps = argc > 2 ? atoi(argv[2]) : 20;
    const std::string what = argc > 3 ? argv[3] : "all";
    std::vector<std::string> vs;
    if (argc > 4) {
        std::string s = argv[4];
        size_t p = 0;
        while (p <= s.size()) {
            size_t q = s.find(',', p);
            if (q == std::string::npos) q = s.size();
            if (q > p) vs.push_back(s.substr(p, q - p));
            p = q + 1;
        }
    }
    const u64 n = 1ull << lg;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    void *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMemset(a, 0, n * 4));
    auto copy = [&] { CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice)); };
    const double copy_us = median_us(reps, copy);
    printf("copy 2^%d x 4 bytes: %.2f us (%.1f GB/s read+write)\n", lg, copy_us, 2.0 * n * 4 / copy_us / 1e3);
    CK(cudaFree(a));
    CK(cudaFree(b));
    if (what == "scan" || what == "all") {
        scan_suite<int>(n, reps, vs, copy_us);
        scan_suite<float>(n, reps, vs, copy_us);
    }
    if (what == "conv" || what == "all") {
        std::vector<float> hx(n), hm(127);
        for (u64 i = 0; i < n; ++i) hx[i] = (float)((int)(i * 2654435761u >> 20) % 17 - 8) / 8.f;
        for (int j = 0; j < 127; ++j) hm[j] = (float)(j % 7 - 3) / 4.f;
        float *x, *y;
        CK(cudaMalloc(&x, n * 4));
        CK(cudaMalloc(&y, n * 4));
        CK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
        conv_width<3>(x, y, n, hx, hm, reps, copy_us, vs);
        conv_width<7>(x, y, n, hx, hm, reps, copy_us, vs);
        conv_width<11>(x, y, n, hx, hm, reps, copy_us, vs);
        conv_width<15>(x, y, n, hx, hm, reps, copy_us, vs);
        conv_width<19>(x, y, n, hx, hm, reps, copy_us, vs);
        conv_width<23>(x, y, n, hx, hm, reps, copy_us, vs);
        conv_width<31>(x, y, n, hx, hm, reps, copy_us, vs);
        CK(cudaFree(x));
        CK(cudaFree(y));
    }
    // Copy again at the end: the same-run bracket.
    {
        void *a2, *b2;
        CK(cudaMalloc(&a2, n * 4));
        CK(cudaMalloc(&b2, n * 4));
        auto copy2 = [&] { CK(cudaMemcpyAsync(b2, a2, n * 4, cudaMemcpyDeviceToDevice)); };
        printf("copy again: %.2f us\n", median_us(reps, copy2));
    }
    return 0;
}
#endif
