// The warp-specialised single-pass scan (compute capability 9.0 and later): persistent blocks,
// one per SM, whose warps split the work of a tile by role so that loads stay in flight through
// every look-back wait and every tile's aggregate is published as soon as its data lands.
//   producer (warp 0, lane 0): takes the next tile index from the counter when one of NBUF
//            buffers is free and loads the whole tile with one cp.async.bulk (the few values
//            past its last 16 bytes by plain loads)
//   reducers (AGG warps): as a tile lands, its segments' totals and the tile's aggregate,
//            published at once (they wait on nothing but the data)
//   look-back (one warp): the tile's exclusive prefix from its predecessors' status
//            (lookback.cuh), published as its inclusive prefix
//   consumers (CONS warps): each scans its segment of the tile out of shared memory, from the
//            tile's prefix and the earlier segments' totals, and stores it; then frees the buffer
// A tile index is taken only when its load goes out at once, so every taken tile publishes its
// aggregate without waiting on anything, every look-back ends, and the scan cannot deadlock
// whatever the residency of the blocks. Each block's producer takes one index past the end
// (which ends the block), so a launch of G blocks advances the counter by tiles + G.
//
// The blocks' roles pass each buffer along mbarriers, one set a buffer: full (the producer's
// arrival and the copy's bytes) → reduced (the reducers' segment totals and aggregate) →
// prefixed (the look-back warp's prefix) → empty (every consumer) → the producer's next load.
// Status as the flat look-back's (lookback_epoch.cuh: epoch-tagged, tile index = counter −
// base). Measured against the staged look-back in one-off/ws-scan-harness.cu (docs/scan.md).
// Preconditions (the host's): `in` and `out` 16-byte aligned (the bulk copies, the vector
// stores), dynamic shared memory WsScanShape<T>::SMEM, WsScanShape<T>::THREADS threads.
#pragma once
#include <gpu_prims/load.cuh>
#include <gpu_prims/lookback.cuh>
#include <gpu_prims/lookback_epoch.cuh>
#include <gpu_prims/mbarrier.cuh>
#include <gpu_prims/scan_tile.cuh>
#include <gpu_prims/warp.cuh>

namespace gp {

// The tile policy: 32 KiB tiles, six buffers (192 KiB in flight an SM), eight consumer warps
// and two reducer warps (the harness's fastest shape on the H100).
template <class T> struct WsScanShape {
    static constexpr int TILE_BYTES = 32768;
    static constexpr int TILE = TILE_BYTES / (int)sizeof(T);
    static constexpr int NBUF = 6;
    static constexpr int CONS = 8;
    static constexpr int AGG = 2;
    static constexpr int THREADS = 32 * (2 + AGG + CONS);
    static constexpr int VEC = VecWidth<T>::value;
    static constexpr int SEG = TILE / CONS;        // values a consumer's segment
    static constexpr int ROWS = SEG / (32 * VEC);  // rows of 32 lanes x VEC values
    static_assert(ROWS * 32 * VEC == SEG, "segments of whole rows");
    static_assert(CONS % AGG == 0, "reducers share the segments evenly");
    static constexpr u32 END = 0xffffffffu;
    struct Shared {
        u64 full[NBUF], reduced[NBUF], prefixed[NBUF], empty[NBUF];
        u32 tile[NBUF];   // the buffer's tile index, END past the last
        u32 count[NBUF];  // its values (TILE but in the last tile)
        T seg_total[NBUF][CONS];
        T tile_agg[NBUF];
        T tile_prefix[NBUF];
    };
    static constexpr int DATA_OFFSET = ((int)sizeof(Shared) + 127) / 128 * 128;
    static constexpr int SMEM = DATA_OFFSET + NBUF * TILE_BYTES;
    // The host gives every block 1 KiB + the buffers (gpu_scan::plan::WARP_SPECIALIZED_SHARED_BYTES).
    static_assert(DATA_OFFSET <= 1024 && TILE_BYTES == 32768 && NBUF == 6 && THREADS == 384,
                  "mirrored by gpu_scan::plan");
};

// DETERMINISTIC: the fixed-order look-back (lookback.cuh's scan_lookback_deterministic), so float
// sums and products group every value the same way on every run. `first_tile`: the status
// index of the launch's tile 0 (a host pipeline's chunk continues the status of the chunks
// before it; `in`, `out` and `n` are the chunk's).
template <class Op, bool DETERMINISTIC>
__device__ __forceinline__ void warp_specialized_scan(const typename Op::value_type* in,
                                                      typename Op::value_type* out, u64 n,
                                                      u32 exclusive, u32* counter, u32* flags,
                                                      void* aggs, void* incs, u32 epoch, u32 base,
                                                      u64 first_tile, unsigned char* smem) {
    typedef typename Op::value_type T;
    typedef WsScanShape<T> S;
    typedef Vec<T> V;
    constexpr int NBUF = S::NBUF, CONS = S::CONS, AGG = S::AGG, VEC = S::VEC;
    constexpr u32 END = S::END;
    Op op;
    typename S::Shared& sh = *reinterpret_cast<typename S::Shared*>(smem);
    T* data = reinterpret_cast<T*>(smem + S::DATA_OFFSET);
    const ScanEpochStatus<T> status(flags, aggs, incs, epoch);
    const unsigned lane = lane_id(), warp = warp_id();
    const u64 tiles = (n + S::TILE - 1) / S::TILE;
    if (threadIdx.x == 0) {
        for (int b = 0; b < NBUF; ++b) {
            mbarrier_init(&sh.full[b], 1);
            mbarrier_init(&sh.reduced[b], 1);
            mbarrier_init(&sh.prefixed[b], 1);
            mbarrier_init(&sh.empty[b], CONS);
        }
        mbarrier_init_fence();
    }
    __syncthreads();

    if (warp == 0) {
        if (lane != 0) return;
        for (u32 r = 0;; ++r) {
            const int b = r % NBUF;
            mbarrier_wait(&sh.empty[b], ((r / NBUF) & 1) ^ 1);
            const u64 t = (u64)(atomicAdd(counter, 1u) - base);
            if (t >= tiles) {
                sh.tile[b] = END;
                mbarrier_arrive(&sh.full[b]);
                return;
            }
            const u64 first = t * S::TILE;
            const u32 m = (u32)min((u64)S::TILE, n - first);
            const u32 bulk = m * (u32)sizeof(T) / 16 * 16;  // bytes by the bulk copy
            T* buf = data + (u64)b * S::TILE;
            for (u32 i = bulk / (u32)sizeof(T); i < m; ++i) buf[i] = in[first + i];
            sh.tile[b] = (u32)t;
            sh.count[b] = m;
            if (bulk > 0)
                mbarrier_arrive_bulk_copy(&sh.full[b], buf, in + first, bulk);
            else
                mbarrier_arrive(&sh.full[b]);
        }
    } else if (warp == 1) {
        // Look-back: the block's tiles in order.
        for (u32 r = 0;; ++r) {
            const int b = r % NBUF;
            mbarrier_wait(&sh.reduced[b], (r / NBUF) & 1);
            // The producer's tile index, ordered through full → reduced (a word the reducers
            // wrote in the end round would race with this read in every earlier round).
            const u32 t = sh.tile[b];
            if (t == END) {
                if (lane == 0) mbarrier_arrive(&sh.prefixed[b]);
                return;
            }
            const T agg = sh.tile_agg[b];
            const u64 g = first_tile + t;  // the tile's status index
            if (g == 0) {
                if (lane == 0) status.publish_inclusive(0, agg);
            } else {
                const T prefix = DETERMINISTIC ? scan_lookback_deterministic(status, g, op)
                                               : scan_lookback(status, g, op);
                if (lane == 0) {
                    status.publish_inclusive(g, op(prefix, agg));
                    sh.tile_prefix[b] = prefix;
                }
            }
            __syncwarp();
            if (lane == 0) mbarrier_arrive(&sh.prefixed[b]);
        }
    } else if (warp < 2 + AGG) {
        // Reducers: reducer a takes segments a, a + AGG, ...; values past the tile's count are
        // left out (the last tile's buffer holds an earlier tile's values there). Each lane's
        // fold starts from its first value, not the identity (0 + -0 is +0: a segment of
        // negative zeros keeps its sign, as the CPU's fold does).
        const int a = warp - 2;
        for (u32 r = 0;; ++r) {
            const int b = r % NBUF;
            mbarrier_wait(&sh.full[b], (r / NBUF) & 1);
            const u32 t = sh.tile[b];
            if (t != END) {
                const u32 m = sh.count[b];
                const V* v = reinterpret_cast<const V*>(data + (u64)b * S::TILE);
#pragma unroll 1
                for (int c = a; c < CONS; c += AGG) {
                    T acc = Op::identity();
                    bool has = false;
#pragma unroll 4
                    for (int k = 0; k < S::ROWS; ++k) {
                        const u32 at = (u32)((c * S::ROWS + k) * 32 + (int)lane);
                        const V x = v[at];
#pragma unroll
                        for (int e = 0; e < VEC; ++e)
                            if (at * VEC + e < m) {
                                acc = has ? op(acc, x.v[e]) : x.v[e];
                                has = true;
                            }
                    }
                    // Lanes without a value (past the count) hold the identity and come after
                    // every lane with one, so they only touch a total no stored output reads.
                    acc = warp_reduce(acc, op);
                    if (lane == 0) sh.seg_total[b][c] = acc;
                }
            }
            // The reducers meet (named barrier 1), then one publishes the tile's aggregate.
            asm volatile("bar.sync 1, %0;" ::"n"(32 * AGG) : "memory");
            if (a == 0 && lane == 0) {
                if (t != END) {
                    T agg = sh.seg_total[b][0];
#pragma unroll
                    for (int c = 1; c < CONS; ++c) agg = op(agg, sh.seg_total[b][c]);
                    sh.tile_agg[b] = agg;
                    if (first_tile + t > 0) status.publish_aggregate(first_tile + t, agg);
                }
                mbarrier_arrive(&sh.reduced[b]);
            }
            if (t == END) return;
        }
    } else {
        // Consumers: segment c of each tile, from the tile's prefix and the earlier segments.
        const int c = warp - 2 - AGG;
        for (u32 r = 0;; ++r) {
            const int b = r % NBUF;
            mbarrier_wait(&sh.prefixed[b], (r / NBUF) & 1);
            const u32 t = sh.tile[b];
            if (t == END) return;
            const u32 m = sh.count[b];
            bool has = first_tile + t > 0;  // a prefix from earlier tiles (the look-back's)
            T carry = has ? sh.tile_prefix[b] : Op::identity();
            for (int k = 0; k < c; ++k) {
                carry = has ? op(carry, sh.seg_total[b][k]) : sh.seg_total[b][k];
                has = true;
            }
            const V* v = reinterpret_cast<const V*>(data + (u64)b * S::TILE);
            T* dst = out + (u64)t * S::TILE;
#pragma unroll 2
            for (int k = 0; k < S::ROWS; ++k) {
                const u32 at = (u32)((c * S::ROWS + k) * 32 + (int)lane);
                V x = v[at];
                // Inclusive within the lane, then across the warp; `before`: everything ahead
                // of this lane's first value.
#pragma unroll
                for (int e = 1; e < VEC; ++e) x.v[e] = op(x.v[e - 1], x.v[e]);
                const T incl = warp_inclusive_scan(x.v[VEC - 1], op);
                const T prev = shfl_up(incl, 1);
                T before = carry;
                bool has_before = has;
                if (lane > 0) {
                    before = has ? op(carry, prev) : prev;
                    has_before = true;
                }
                V y;
                if (exclusive) {
                    y.v[0] = has_before ? before : Op::identity();
#pragma unroll
                    for (int e = 1; e < VEC; ++e) y.v[e] = has_before ? op(before, x.v[e - 1]) : x.v[e - 1];
                } else {
#pragma unroll
                    for (int e = 0; e < VEC; ++e) y.v[e] = has_before ? op(before, x.v[e]) : x.v[e];
                }
                if (at * VEC + VEC <= m) {
                    store_vec_streaming(dst + (u64)at * VEC, y);
                } else {
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        if (at * VEC + e < m) dst[(u64)at * VEC + e] = y.v[e];
                }
                const T row = shfl_idx(incl, 31);
                carry = has ? op(carry, row) : row;
                has = true;
            }
            __syncwarp();
            if (lane == 0) mbarrier_arrive(&sh.empty[b]);
        }
    }
}

}  // namespace gp
