// Standalone harness (issue 24, session 4, H200): what the look-back scan's per-call status
// zeroing costs, and whether publishing the tile aggregate before the local scan helps.
//   shipped: the shipped staged tile (scan_sm80.cu), status zeroed by an init kernel before
//            each launch (as gpu-scan: scan_lookback_init, then the scan)
//   epoch:   the same tile; status words tagged with the launch's epoch instead of 1, the tile
//            index taken from the counter minus the launches' running base: no init launch
//   early:   each warp first reduces its segment; the aggregate is published, then warp 0 looks
//            back while the other warps scan their segments (init kernel as shipped)
//   early+epoch: both
//   epoch+sleepN: the epoch variant backing off N ns after each poll that finds a slot invalid
//   rowsR+epoch: the epoch variant with R staged rows per thread instead of 8 (larger tiles)
//   persist(+epoch) (session 4 call C, dropped: 0.67-0.70 at 2^28): one resident block per SM slot looping over tiles; the next tile index is
//            taken before the look-back, so neither the block launch nor the atomic's latency
//            sits between a tile's stores and the next tile's loads
//   epoch+pf<D><kind><when> (session 5): the epoch variant prefetching into L2 the tile D tiles
//            ahead of its own (the tile a block about D/132 waves later takes), so DRAM works
//            through the look-back's wait and later tiles load from L2. kind l: one
//            prefetch.global.L2 per 128-byte line; e: the same with ::evict_last; b: one
//            cp.async.bulk.prefetch.L2 (sm_90) for the whole tile. when s: right after the
//            tile index; w: by the warps that wait while warp 0 looks back
// One GPU, one process, the same-run copy at each size. Built on the device with nvcc sm_90.
//
// usage: scan-epoch-harness <reps> <log2 sizes, comma-separated>
#include <gpu_prims/scan_lookback.cuh>
#include <gpu_prims/scan_tile_staged.cuh>

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#endif

#define CK(x)                                                                                \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

using gp::u32;
using gp::u64;

extern __shared__ __align__(16) unsigned char smem[];

// Packed status (4-byte values) tagged with the launch's epoch (≥ 1): a slot is published in
// this launch when its high half equals the epoch; older launches' tags read as invalid.
// SLEEP > 0: a poll that finds the slot invalid backs off that many ns (__nanosleep) before
// the warp looks again, as CUB's look-back does, to spare the L2 slices that hold the words.
template <class T, int SLEEP = 0> struct EpochStatus {
    static constexpr bool NEEDS_FENCE = false;
    u64* aggregates;
    u64* inclusives;
    u32 epoch;
    __device__ EpochStatus(void* aggs, void* incs, u32 e)
        : aggregates(static_cast<u64*>(aggs)), inclusives(static_cast<u64*>(incs)), epoch(e) {}
    __device__ __forceinline__ u64 pack(T v) const {
        return ((u64)epoch << 32) | (u64)gp::scan_bit_cast<u32>(v);
    }
    static __device__ __forceinline__ T unpack(u64 w) { return gp::scan_bit_cast<T>((u32)w); }
    __device__ __forceinline__ void publish_aggregate(u64 t, T v) const {
        *reinterpret_cast<volatile u64*>(aggregates + t) = pack(v);
    }
    __device__ __forceinline__ void publish_inclusive(u64 t, T v) const {
        *reinterpret_cast<volatile u64*>(inclusives + t) = pack(v);
    }
    __device__ __forceinline__ int poll(u64 t, T& v) const {
        u64 inc = *reinterpret_cast<volatile u64*>(inclusives + t);
        u64 agg = *reinterpret_cast<volatile u64*>(aggregates + t);
        if ((u32)(inc >> 32) == epoch) {
            v = unpack(inc);
            return gp::SCAN_TILE_INCLUSIVE;
        }
        if ((u32)(agg >> 32) == epoch) {
            v = unpack(agg);
            return gp::SCAN_TILE_AGGREGATE;
        }
        if (SLEEP > 0) __nanosleep(SLEEP);
        return gp::SCAN_TILE_INVALID;
    }
    __device__ __forceinline__ void read_value(u64, int, T&) const {}
    __device__ __forceinline__ T aggregate(u64 t) const {
        return unpack(*reinterpret_cast<volatile u64*>(aggregates + t));
    }
};

// L2 prefetch of the input of tile `tile + PF` (see the header): KIND 1 line by line, 2 line by
// line with evict_last, 3 one bulk prefetch; `from_thread`..blockDim.x take part.
template <int PF, int KIND, class T>
__device__ __forceinline__ void prefetch_ahead(const T* in, u64 tile, u64 tile_items, u64 n,
                                               unsigned from_thread) {
    if (PF == 0) return;
    const u64 first = (tile + PF) * tile_items;
    if (first >= n || threadIdx.x < from_thread) return;
    const u64 bytes = (n - first < tile_items ? n - first : tile_items) * sizeof(T);
    const char* p = reinterpret_cast<const char*>(in + first);
    if (KIND == 3) {
        if (threadIdx.x == from_thread) {
            const u64 b16 = bytes & ~(u64)15;
            if (b16) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"((u32)b16) : "memory");
        }
        return;
    }
    const unsigned helpers = blockDim.x - from_thread;
    for (u64 off = (u64)(threadIdx.x - from_thread) * 128; off < bytes; off += (u64)helpers * 128) {
        if (KIND == 2) asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p + off));
        else asm volatile("prefetch.global.L2 [%0];" ::"l"(p + off));
    }
}

// The staged tile's values folded without scanning (register rows, then the staged rows).
template <class Op, class Tile> __device__ __forceinline__ typename Op::value_type
staged_reduce(Tile& t, Op op) {
    typedef typename Op::value_type T;
    T acc = t.s[0][0];
#pragma unroll
    for (int r = 0; r < Tile::REG_ROWS; ++r)
#pragma unroll
        for (int e = 0; e < Tile::VEC; ++e)
            if (r || e) acc = op(acc, t.s[r][e]);
    gp::async_copy_wait_all();
    const unsigned lane = gp::lane_id();
#pragma unroll 4
    for (int k = 0; k < Tile::SMEM_ROWS; ++k) {
        gp::Vec<T> x = t.rows[k * 32 + lane];
#pragma unroll
        for (int e = 0; e < Tile::VEC; ++e) acc = op(acc, x.v[e]);
    }
    return gp::warp_reduce(acc, op);
}

// ScanStagedTile (scan_tile_staged.cuh) with the staged rows as a parameter: larger tiles for
// the H200's faster memory (the shipped tile has 6 register rows and 8 staged rows).
template <class Op, int SROWS, int RROWS = 6> struct BigStagedTile {
    typedef typename Op::value_type T;
    static constexpr int VEC = gp::VecWidth<T>::value, REG_ROWS = RROWS, SMEM_ROWS = SROWS;
    static constexpr int ITEMS = (REG_ROWS + SMEM_ROWS) * VEC;
    static constexpr int SHARED_BYTES_PER_THREAD = SMEM_ROWS * 16;
    T s[REG_ROWS][VEC];
    gp::Vec<T>* rows;
    __device__ explicit BigStagedTile(gp::Vec<T>* warp_rows) : rows(warp_rows) {}
    static __device__ __forceinline__ bool aligned(const T* in, const T* out) {
        return ((((u64)in) | ((u64)out)) % alignof(gp::Vec<T>)) == 0;
    }
    __device__ __forceinline__ void load(const T* in, u64 seg, u64 n, bool vector_ok) {
        const unsigned lane = gp::lane_id();
        const u64 first = seg + (u64)REG_ROWS * 32 * VEC;
        if (vector_ok) {
#pragma unroll
            for (int k = 0; k < SMEM_ROWS; ++k)
                gp::async_copy_16(rows + k * 32 + lane, in + first + (u64)(k * 32 + lane) * VEC);
            gp::async_copy_commit();
        } else {
            for (int k = 0; k < SMEM_ROWS; ++k) {
                gp::Vec<T> x;
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    const u64 i = first + (u64)(k * 32 + lane) * VEC + e;
                    x.v[e] = i < n ? in[i] : Op::identity();
                }
                rows[k * 32 + lane] = x;
            }
        }
        gp::scan_tile_load<Op>(in, seg, n, vector_ok, s);
    }
    __device__ __forceinline__ T scan(bool exclusive, Op op) {
        const unsigned lane = gp::lane_id();
        T carry = gp::scan_tile_warp(s, exclusive, op);
        gp::async_copy_wait_all();
#pragma unroll 1
        for (int k = 0; k < SMEM_ROWS; ++k) {
            gp::Vec<T> x = rows[k * 32 + lane];
#pragma unroll
            for (int e = 1; e < VEC; ++e) x.v[e] = op(x.v[e - 1], x.v[e]);
            gp::scan_tile_row(x.v, carry, true, exclusive, op);
            rows[k * 32 + lane] = x;
        }
        return carry;
    }
    __device__ __forceinline__ void store(T* out, u64 seg, u64 n, bool vector_ok, T prefix,
                                          bool has_prefix, bool exclusive, Op op) {
        gp::scan_tile_finish(s, prefix, has_prefix, exclusive, op);
        gp::scan_tile_store<Op>(out, seg, n, vector_ok, s);
        const unsigned lane = gp::lane_id();
        const u64 first = seg + (u64)REG_ROWS * 32 * VEC;
#pragma unroll 2
        for (int k = 0; k < SMEM_ROWS; ++k) {
            gp::Vec<T> x = rows[k * 32 + lane];
            if (has_prefix) {
#pragma unroll
                for (int e = 0; e < VEC; ++e) x.v[e] = op(prefix, x.v[e]);
            }
            const u64 at = first + (u64)(k * 32 + lane) * VEC;
            if (vector_ok) {
                gp::store_vec_streaming(out + at, x);
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (at + e < n) out[at + e] = x.v[e];
            }
        }
    }
};

template <class Op, bool EPOCH, bool EARLY, class Tile, int SLEEP, int PF, int PFKIND, int PFWHEN>
__device__ __forceinline__ void scan_variant_body(const typename Op::value_type* in,
                                                  typename Op::value_type* out, u64 n,
                                                  u32* counter, void* aggs, void* incs,
                                                  u32 epoch, u32 base) {
    typedef typename Op::value_type T;
    Tile t(reinterpret_cast<gp::Vec<T>*>(smem) + (u64)gp::warp_id() * Tile::SMEM_ROWS * 32);
    __shared__ u32 tile_slot;
    __shared__ T warp_totals[32];
    __shared__ T tile_prefix;
    Op op;
    if (threadIdx.x == 0) tile_slot = atomicAdd(counter, 1u) - (EPOCH ? base : 0u);
    __syncthreads();
    const unsigned lane = gp::lane_id(), warp = gp::warp_id(), warps = blockDim.x >> 5;
    const u64 tile = tile_slot;
    const u64 tile_items = (u64)blockDim.x * Tile::ITEMS;
    const u64 seg = tile * tile_items + (u64)warp * (32 * Tile::ITEMS);
    const bool vector_ok = (tile + 1) * tile_items <= n && Tile::aligned(in, out);
    t.load(in, seg, n, vector_ok);
    if (PFWHEN == 0) prefetch_ahead<PF, PFKIND>(in, tile, tile_items, n, 0);
    // Without EPOCH the words are zeroed before each launch and the launch passes epoch 1 (the
    // library's ScanTileStatus, removed in session 14, read flag 1 the same way).
    const EpochStatus<T, SLEEP> status(aggs, incs, epoch);
    if (!EARLY) {
        const T warp_total = t.scan(false, op);
        if (lane == 0) warp_totals[warp] = warp_total;
        __syncthreads();
    } else {
        const T warp_total = staged_reduce(t, op);
        if (lane == 0) warp_totals[warp] = warp_total;
        __syncthreads();
        if (warp != 0) t.scan(false, op);  // overlaps warp 0's look-back below
    }
    if (warp == 0) {
        T aggregate = warp_totals[0];
        for (unsigned w = 1; w < warps; ++w) aggregate = op(aggregate, warp_totals[w]);
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
        if (EARLY) t.scan(false, op);
    } else if (PFWHEN == 1) {
        prefetch_ahead<PF, PFKIND>(in, tile, tile_items, n, 32);
    }
    T before = Op::identity();
    for (unsigned w = 0; w < warp; ++w) before = w == 0 ? warp_totals[0] : op(before, warp_totals[w]);
    __syncthreads();
    bool has_prefix = warp > 0;
    if (tile > 0) {
        before = warp > 0 ? op(tile_prefix, before) : tile_prefix;
        has_prefix = true;
    }
    t.store(out, seg, n, vector_ok, before, has_prefix, false, op);
}

template <class Op, bool EPOCH, bool EARLY, class Tile = gp::ScanStagedTile<Op>, int SLEEP = 0,
          int PF = 0, int PFKIND = 1, int PFWHEN = 0>
__global__ void __launch_bounds__(1024) scan_variant(const typename Op::value_type* in,
                                                     typename Op::value_type* out, u64 n,
                                                     u32* counter, void* aggs, void* incs,
                                                     u32 epoch, u32 base) {
    scan_variant_body<Op, EPOCH, EARLY, Tile, SLEEP, PF, PFKIND, PFWHEN>(in, out, n, counter, aggs,
                                                                         incs, epoch, base);
}

// Session 19: the same tile in blocks of THREADS with at least MINB blocks per SM (the same
// 64-register budget per thread), so that one block's loads overlap another's look-back wait.
template <class Op, class Tile, int THREADS, int MINB, int PF>
__global__ void __launch_bounds__(THREADS, MINB) scan_multi(const typename Op::value_type* in,
                                                            typename Op::value_type* out, u64 n,
                                                            u32* counter, void* aggs, void* incs,
                                                            u32 epoch, u32 base) {
    scan_variant_body<Op, true, false, Tile, 0, PF, 3, 0>(in, out, n, counter, aggs, incs, epoch,
                                                          base);
}

template <class Op, bool EPOCH>
__global__ void __launch_bounds__(1024) scan_persist(const typename Op::value_type* in,
                                                     typename Op::value_type* out, u64 n,
                                                     u32* counter, void* aggs, void* incs,
                                                     u32 epoch, u32 base) {
    typedef typename Op::value_type T;
    typedef gp::ScanStagedTile<Op> Tile;
    Tile t(reinterpret_cast<gp::Vec<T>*>(smem) + (u64)gp::warp_id() * Tile::SMEM_ROWS * 32);
    __shared__ u32 next_slot;
    __shared__ T warp_totals[32];
    __shared__ T tile_prefix;
    Op op;
    const unsigned lane = gp::lane_id(), warp = gp::warp_id(), warps = blockDim.x >> 5;
    const u64 tile_items = (u64)blockDim.x * Tile::ITEMS;
    const u64 tiles = (n + tile_items - 1) / tile_items;
    const EpochStatus<T> status(aggs, incs, epoch);
    if (threadIdx.x == 0) next_slot = atomicAdd(counter, 1u) - (EPOCH ? base : 0u);
    __syncthreads();
    while (true) {
        const u64 tile = next_slot;
        __syncthreads();  // every thread has the index before warp 0 takes the next one
        if (tile >= tiles) break;
        const u64 seg = tile * tile_items + (u64)warp * (32 * Tile::ITEMS);
        const bool vector_ok = (tile + 1) * tile_items <= n && Tile::aligned(in, out);
        t.load(in, seg, n, vector_ok);
        const T warp_total = t.scan(false, op);
        if (lane == 0) warp_totals[warp] = warp_total;
        __syncthreads();
        if (warp == 0) {
            if (lane == 0) next_slot = atomicAdd(counter, 1u) - (EPOCH ? base : 0u);
            T aggregate = warp_totals[0];
            for (unsigned w = 1; w < warps; ++w) aggregate = op(aggregate, warp_totals[w]);
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
        t.store(out, seg, n, vector_ok, before, has_prefix, false, op);
    }
}

__global__ void init_words(u32* w, u64 count) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (u64)gridDim.x * blockDim.x)
        w[i] = 0u;
}

#ifdef __CUDACC_RTC__
// NVRTC syntax check (one-off/nvrtc-check.py).
typedef gp::ScanStagedTile<gp::Sum<float>> T8f;
template __global__ void scan_variant<gp::Sum<float>, true, false, T8f, 0, 48, 1, 0>(const float*, float*, u64, u32*, void*, void*, u32, u32);
template __global__ void scan_variant<gp::Sum<float>, true, false, T8f, 0, 48, 2, 1>(const float*, float*, u64, u32*, void*, void*, u32, u32);
template __global__ void scan_variant<gp::Sum<float>, true, false, T8f, 0, 48, 3, 0>(const float*, float*, u64, u32*, void*, void*, u32, u32);
template __global__ void scan_variant<gp::Sum<float>, true, false, T8f, 0, 48, 3, 1>(const float*, float*, u64, u32*, void*, void*, u32, u32);
template __global__ void scan_multi<gp::Sum<float>, BigStagedTile<gp::Sum<float>, 13>, 512, 2, 48>(const float*, float*, u64, u32*, void*, void*, u32, u32);
template __global__ void scan_multi<gp::Sum<int>, BigStagedTile<gp::Sum<int>, 12>, 256, 4, 0>(const int*, int*, u64, u32*, void*, void*, u32, u32);
template __global__ void scan_multi<gp::Sum<float>, BigStagedTile<gp::Sum<float>, 6, 2>, 1024, 2, 64>(const float*, float*, u64, u32*, void*, void*, u32, u32);
template __global__ void scan_multi<gp::Sum<float>, BigStagedTile<gp::Sum<float>, 13, 8>, 512, 2, 48>(const float*, float*, u64, u32*, void*, void*, u32, u32);
#else
struct Timer {
    cudaEvent_t a, b;
    Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); }
};

template <class F> static double median_us(int reps, F f) {
    Timer t;
    std::vector<float> v;
    f();
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

template <class T> static void suite(u64 n, int reps, double copy_us) {
    typedef gp::Sum<T> Op;
    typedef gp::ScanStagedTile<Op> Tile;
    const char* tn = T(0.5) != T(0) ? "f32" : "i32";
    std::vector<T> h(n), want(n), got(n);
    srand(7);
    long long acc = 0;
    for (u64 i = 0; i < n; ++i) {
        h[i] = (T)((rand() % 5) - 2);
        acc += (long long)h[i];
        want[i] = (T)acc;  // exact for f32 too: |acc| stays far below 2^24 with this data
    }
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    const int block_default = n >= (1ull << 25) ? 1024 : 256;
    // Status for the most tiles any variant makes (the smallest tile: 256 threads x 56).
    const u64 tiles = (n + (u64)256 * Tile::ITEMS - 1) / ((u64)256 * Tile::ITEMS);
    // One scratch as gpu-scan's: counter (256 bytes), aggregates, inclusives.
    const u64 words = 64 + 4 * tiles;
    u32* scratch;
    CK(cudaMalloc(&scratch, words * 4));
    u32* counter = scratch;
    void* aggs = scratch + 64;
    void* incs = scratch + 64 + 2 * tiles;
    auto run_variant = [&](const char* name, auto kernel, bool epoch_mode, bool persistent = false,
                           int smem_rows = Tile::SMEM_ROWS, int block_override = 0,
                           int reg_rows = Tile::REG_ROWS) {
        const int block = block_override ? block_override : block_default;
        const int sm = block * smem_rows * 16;
        const int items = (reg_rows + smem_rows) * Tile::VEC;
        const u64 tiles = (n + (u64)block * items - 1) / ((u64)block * items);
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, sm));
        int per_sm = 1, dev = 0, sms = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, sm));
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        const u64 grid = persistent ? std::min<u64>(tiles, (u64)per_sm * sms) : tiles;
        // Persistent blocks each take one index past the last tile before they stop.
        const u64 taken = persistent ? tiles + grid : tiles;
        CK(cudaMemset(scratch, 0, words * 4));
        u32 epoch = 0, base = 0;
        auto run = [&] {
            if (epoch_mode) {
                ++epoch;
            } else {
                init_words<<<(unsigned)std::min<u64>((words + 1023) / 1024, 1024), 256>>>(scratch, words);
                epoch = 1;
                base = 0;
            }
            kernel<<<(unsigned)grid, block, sm>>>(in, out, n, counter, aggs, incs, epoch, base);
            if (epoch_mode) base += (u32)taken;
        };
        CK(cudaMemset(out, 0xff, n * sizeof(T)));
        const double us = median_us(reps, run);
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
        u64 bad = 0;
        for (u64 i = 0; i < n; ++i) bad += got[i] != want[i];
        printf("scan %s 2^%-2.0f %-15s block %4d x %2d (%d/SM): %9.2f us  %.3fx copy  %s\n", tn,
               std::log2((double)n), name, block, items, per_sm, us, copy_us / us, bad ? "WRONG" : "ok");
        fflush(stdout);
    };
    typedef gp::ScanStagedTile<Op> T8;
#define PFV(NAME, D, KIND, WHEN) run_variant(NAME, scan_variant<Op, true, false, T8, 0, D, KIND, WHEN>, true);
    run_variant("epoch", scan_variant<Op, true, false>, true);
#ifdef PF_SWEEP  // session 5 call B: the distance of the bulk prefetch
    PFV("epoch+pf8bs", 8, 3, 0)
    PFV("epoch+pf16bs", 16, 3, 0)
    PFV("epoch+pf24bs", 24, 3, 0)
    PFV("epoch+pf32bs", 32, 3, 0)
    run_variant("epoch", scan_variant<Op, true, false>, true);
    PFV("epoch+pf48bs", 48, 3, 0)
    PFV("epoch+pf64bs", 64, 3, 0)
    PFV("epoch+pf96bs", 96, 3, 0)
    PFV("epoch+pf32bw", 32, 3, 1)
    run_variant("rows10+epoch", scan_variant<Op, true, false, BigStagedTile<Op, 10>>, true, false, 10);
    run_variant("rows10+pf24bs", scan_variant<Op, true, false, BigStagedTile<Op, 10>, 0, 24, 3, 0>, true, false, 10);
    run_variant("rows10+pf32bs", scan_variant<Op, true, false, BigStagedTile<Op, 10>, 0, 32, 3, 0>, true, false, 10);
    run_variant("rows10+pf48bs", scan_variant<Op, true, false, BigStagedTile<Op, 10>, 0, 48, 3, 0>, true, false, 10);
    run_variant("epoch", scan_variant<Op, true, false>, true);
    PFV("epoch+pf32bs", 32, 3, 0)
    PFV("epoch+pf48bs", 48, 3, 0)
#elif defined(MULTI_SWEEP)  // session 19: two or four blocks per SM, larger staged tiles
#define MULTI(NAME, TH, MB, SR, PFD) \
    run_variant(NAME, scan_multi<Op, BigStagedTile<Op, SR>, TH, MB, PFD>, true, false, SR, TH);
#define MULTIR(NAME, TH, MB, SR, RR, PFD) \
    run_variant(NAME, scan_multi<Op, BigStagedTile<Op, SR, RR>, TH, MB, PFD>, true, false, SR, TH, RR);
    run_variant("epoch", scan_variant<Op, true, false>, true);
    PFV("epoch+pf32bs", 32, 3, 0)
    MULTI("m512x2r8", 512, 2, 8, 0)
    MULTI("m512x2r12", 512, 2, 12, 0)
    MULTI("m512x2r13", 512, 2, 13, 0)
    MULTI("m512x2r8+pf64", 512, 2, 8, 64)
    MULTI("m512x2r12+pf48", 512, 2, 12, 48)
    MULTI("m512x2r13+pf48", 512, 2, 13, 48)
    MULTI("m512x2r13+pf32", 512, 2, 13, 32)
    MULTI("m512x2r13+pf64", 512, 2, 13, 64)
    MULTI("m256x4r12+pf96", 256, 4, 12, 96)
    MULTI("m256x4r12", 256, 4, 12, 0)
    MULTI("m1024x1r10+pf32", 1024, 1, 10, 32)
    MULTIR("m1024x2r6rr2", 1024, 2, 6, 2, 0)
    MULTIR("m1024x2r6rr2+pf64", 1024, 2, 6, 2, 64)
    MULTIR("m512x2r13rr8+pf48", 512, 2, 13, 8, 48)
    run_variant("epoch", scan_variant<Op, true, false>, true);
    PFV("epoch+pf32bs", 32, 3, 0)
#elif defined(BASE_ONLY)  // session 8: the shipped H200 tile (epoch, 32 tiles of prefetch) beside the wave scan
    run_variant("epoch", scan_variant<Op, true, false>, true);
    PFV("epoch+pf32bs", 32, 3, 0)
#else  // session 5 call A
    PFV("epoch+pf16ls", 16, 1, 0)
    PFV("epoch+pf48ls", 48, 1, 0)
    PFV("epoch+pf132ls", 132, 1, 0)
    PFV("epoch+pf48es", 48, 2, 0)
    PFV("epoch+pf48bs", 48, 3, 0)
    PFV("epoch+pf132bs", 132, 3, 0)
    run_variant("epoch", scan_variant<Op, true, false>, true);
    PFV("epoch+pf48lw", 48, 1, 1)
    PFV("epoch+pf132lw", 132, 1, 1)
    PFV("epoch+pf48bw", 48, 3, 1)
    PFV("epoch+pf132bw", 132, 3, 1)
    PFV("epoch+pf264bs", 264, 3, 0)
    run_variant("rows10+epoch", scan_variant<Op, true, false, BigStagedTile<Op, 10>>, true, false, 10);
    run_variant("rows10+pf48bs", scan_variant<Op, true, false, BigStagedTile<Op, 10>, 0, 48, 3, 0>, true, false, 10);
    run_variant("epoch", scan_variant<Op, true, false>, true);
#endif
    CK(cudaFree(scratch));
    CK(cudaFree(in));
    CK(cudaFree(out));
}

int main(int argc, char** argv) {
    const int reps = argc > 1 ? atoi(argv[1]) : 30;
    std::vector<int> lgs;
    {
        std::string s = argc > 2 ? argv[2] : "20,22,24,26,28";
        size_t p = 0;
        while (p < s.size()) {
            size_t q = s.find(',', p);
            if (q == std::string::npos) q = s.size();
            lgs.push_back(atoi(s.substr(p, q - p).c_str()));
            p = q + 1;
        }
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    for (int lg : lgs) {
        const u64 n = 1ull << lg;
        void *a, *b;
        CK(cudaMalloc(&a, n * 4));
        CK(cudaMalloc(&b, n * 4));
        CK(cudaMemset(a, 0, n * 4));
        auto copy = [&] { CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice)); };
        const double copy_us = median_us(reps, copy);
        printf("copy 2^%d x 4 bytes: %.2f us\n", lg, copy_us);
        CK(cudaFree(a));
        CK(cudaFree(b));
        suite<int>(n, reps, copy_us);
        suite<float>(n, reps, copy_us);
    }
    return 0;
}
#endif
