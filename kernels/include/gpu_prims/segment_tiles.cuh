// Segments read as flat tiles: a segmented reduction or scan reads its values as the flat
// single-pass scan reads an array (tiles of blockDim.x · ITEMS consecutive values in registers,
// 16-byte loads, tile index from an atomic counter), whatever the segment lengths. Each tile
// marks the segment starts that fall inside it (from the offsets, in a shared bitmask), scans its
// values segment-wise in registers, and takes the part of a segment begun in earlier tiles from a
// decoupled look-back (lookback.cuh) over plain values: a tile holding a segment start publishes
// its inclusive value (everything from its last start) at once, so look-backs stop there; a
// tile without one publishes its aggregate and looks back like a flat scan's tile. Segments of
// one value and of billions read at the same speed; float results depend only on the tile size.
//
// Where a tile's offsets are (gpu_core::segment_tile_bounds): bounds[t] is the first j with
// offsets[j] > t·T (bounds[0] = 1, bounds[tiles] = count + 1). Tile t owns the offsets j in
// [bounds[t], bounds[t + 1]), those in (t·T, (t + 1)·T] (tile 0 also offsets equal to 0): it
// marks their starts, position 0 being a start when offsets[bounds[t] - 1] == t·T, and a
// reduction writes segment j - 1 for each of them (its last value lies in the tile, or it is
// empty).
//
// The segmented operator: (f, a) ∘ (g, b) = (f | g, g ? b : a ∘ b), f saying "holds a start".
// It is associative for any associative ∘, so the usual warp, block and look-back steps carry
// it; the start flags travel beside the values as bits.
#pragma once
#include <gpu_prims/lookback.cuh>
#include <gpu_prims/reduce_arg.cuh>
#include <gpu_prims/scan_tile.cuh>

namespace gp {

// Kernel argument (gpu_core::SegmentTiles).
struct SegmentTiles {
    const u64* offsets;
    const u64* bounds;
    u64 count;
    u64 n;
};

// Largest tile (values): 1024 threads of 32 values. The start bitmask is sized for it.
constexpr unsigned SEGMENT_TILE_MAX = 32768;

// Values per thread as the flat register tile holds them (ScanTileShape of the accumulator),
// read in vectors of the input type (the accumulator may be wider: widening sums, argmin pairs).
template <class V, class In> struct SegmentTileShape {
    static constexpr int ITEMS = ScanTileShape<V>::ITEMS;
    static constexpr int VEC = VecWidth<In>::value < ITEMS ? VecWidth<In>::value : ITEMS;
    static constexpr int ROWS = ITEMS / VEC;
    static_assert(ROWS * VEC == ITEMS && ITEMS <= 32, "whole vectors, one start bit per value");
};

// Position (within the warp's 32·ITEMS values) of bit b of a thread's start mask.
template <int VEC> __device__ __forceinline__ u32 segment_bit_position(u32 b, u32 lane) {
    return (b / VEC) * 32 * VEC + lane * VEC + b % VEC;
}

// One row of the warp's values after the in-vector segmented scan: `h` the vector's start bits.
// Lane l's vector gets everything before it in the warp's values, from the last start, applied
// before its own first start: `carry` (the rows before, when has_carry) and the earlier lanes of
// the row. In exclusive mode every value moves one place right within its segment and a start
// becomes the identity. `carry` then covers the row.
template <class Op, int VEC>
__device__ __forceinline__ void segment_tile_row(typename Op::value_type (&x)[VEC], u32 h,
                                                 typename Op::value_type& carry, bool has_carry,
                                                 bool exclusive, Op op) {
    typedef typename Op::value_type T;
    const unsigned lane = lane_id();
    // Segmented inclusive scan of (vector holds a start, vector total) across the row.
    bool f = h != 0;
    T v = x[VEC - 1];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T ov = shfl_up(v, d);
        const bool of = __shfl_up_sync(FULL_MASK, (int)f, d) != 0;
        if ((int)lane >= d) {
            if (!f) v = op(ov, v);
            f = f || of;
        }
    }
    const T before = shfl_up(v, 1);
    const bool before_f = __shfl_up_sync(FULL_MASK, (int)f, 1) != 0;
    const T row_total = shfl_idx(v, 31);
    const bool row_f = __shfl_sync(FULL_MASK, (int)f, 31) != 0;
    // p: the warp's values before this vector, from the last start (has: there are some).
    const bool has = has_carry || lane > 0;
    T p;
    if (lane == 0) p = carry;
    else p = (!has_carry || before_f) ? before : op(carry, before);
    carry = (!has_carry || row_f) ? row_total : op(carry, row_total);
    if (exclusive) {
#pragma unroll
        for (int e = VEC - 1; e > 0; --e) {
            if ((h >> e) & 1u) x[e] = Op::identity();
            else if (has && (h & ((1u << e) - 1u)) == 0) x[e] = op(p, x[e - 1]);
            else x[e] = x[e - 1];
        }
        x[0] = ((h & 1u) || !has) ? Op::identity() : p;
    } else if (has) {
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            if ((h & ((2u << e) - 1u)) == 0) x[e] = op(p, x[e]);
    }
}

// The common part of every segment-tiles kernel: tile `tile` of the values at `in` (converted
// to the accumulator by Cv with their global index) scanned segment-wise into x, inclusive or
// exclusive, including the parts of segments begun in earlier tiles (look-back). Thread layout
// as ScanRegisterTile: warp w holds values [w·32·ITEMS, (w+1)·32·ITEMS) of the tile, row k of
// it the 32·VEC values from k·32·VEC, lane l the VEC values from l·VEC of each row.
template <class Op, class In, class Cv>
__device__ __forceinline__ void segment_tile_scan(
    const In* __restrict__ in, const SegmentTiles& st, u64 tile, bool exclusive, u32* flags,
    void* aggs, void* incs,
    typename Op::value_type (&x)[SegmentTileShape<typename Op::value_type, In>::ROWS]
                                [SegmentTileShape<typename Op::value_type, In>::VEC]) {
    typedef typename Op::value_type V;
    typedef SegmentTileShape<V, In> S;
    constexpr int ROWS = S::ROWS, VEC = S::VEC, ITEMS = S::ITEMS;
    __shared__ u32 starts[SEGMENT_TILE_MAX / 32];
    __shared__ V warp_totals[32];
    __shared__ u32 warp_starts;  // bit w: warp w holds a segment start
    __shared__ V tile_prefix;
    Op op;
    const unsigned lane = lane_id(), warp = warp_id(), warps = blockDim.x >> 5;
    const u64 T = (u64)blockDim.x * ITEMS;
    const u64 t0 = tile * T;
    const u64 seg = t0 + (u64)warp * 32 * ITEMS;  // this warp's first value

    // Values first, so that they are in flight while the starts are marked.
    typedef Vec<In, VEC> VIn;
    const bool vector_ok = t0 + T <= st.n && ((u64)in % sizeof(VIn)) == 0;
    In raw[ROWS][VEC];
    if (vector_ok) {
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            const In* p = in + seg + (u64)(k * 32 + lane) * VEC;
            VIn v;
            if (sizeof(VIn) == 16) {
                const int4 w = __ldcs(reinterpret_cast<const int4*>(p));
                v = *reinterpret_cast<const VIn*>(&w);
            } else {
                v = *reinterpret_cast<const VIn*>(p);
            }
#pragma unroll
            for (int e = 0; e < VEC; ++e) raw[k][e] = v.v[e];
        }
    } else {
#pragma unroll
        for (int k = 0; k < ROWS; ++k)
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const u64 i = seg + (u64)(k * 32 + lane) * VEC + e;
                if (i < st.n) raw[k][e] = in[i];
            }
    }

    // The starts inside the tile, as bits.
    for (u32 w = threadIdx.x; w < T / 32; w += blockDim.x) starts[w] = 0;
    if (threadIdx.x == 0) warp_starts = 0;
    __syncthreads();
    const u64 jb = __ldg(st.bounds + tile), je = __ldg(st.bounds + tile + 1);
    if (threadIdx.x == 0 && __ldg(st.offsets + jb - 1) == t0) atomicOr(&starts[0], 1u);
    for (u64 j = jb + threadIdx.x; j < je; j += blockDim.x) {
        const u64 p = __ldg(st.offsets + j) - t0;  // > 0
        if (p < T && t0 + p < st.n) atomicOr(&starts[p >> 5], 1u << (p & 31));
    }
    __syncthreads();
    u32 h = 0;  // bit k·VEC + e: value e of row k starts a segment
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        const u32 b = warp * 32 * ITEMS + (k * 32 + lane) * VEC;
        h |= ((starts[b >> 5] >> (b & 31)) & ((1u << VEC) - 1u)) << (k * VEC);
    }
    const bool position0_starts = (starts[0] & 1u) != 0;

#pragma unroll
    for (int k = 0; k < ROWS; ++k)
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            const u64 i = seg + (u64)(k * 32 + lane) * VEC + e;
            x[k][e] = (vector_ok || i < st.n) ? Cv::apply(raw[k][e], i) : Op::identity();
        }

    // Segment-wise scan of the warp's values: in each vector, across each row, row to row.
#pragma unroll
    for (int k = 0; k < ROWS; ++k)
#pragma unroll
        for (int e = 1; e < VEC; ++e)
            if (!((h >> (k * VEC + e)) & 1u)) x[k][e] = op(x[k][e - 1], x[k][e]);
    V carry = Op::identity();
#pragma unroll
    for (int k = 0; k < ROWS; ++k)
        segment_tile_row(x[k], (h >> (k * VEC)) & ((1u << VEC) - 1u), carry, k > 0, exclusive, op);
    // The warp's first start (position within the warp's values; ~0 when none): earlier warps
    // and tiles reach the values before it.
    u32 first = h ? segment_bit_position<VEC>(__ffs(h) - 1, lane) : ~0u;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) first = min(first, __shfl_xor_sync(FULL_MASK, first, d));
    if (lane == 0) {
        warp_totals[warp] = carry;
        if (first != ~0u) atomicOr(&warp_starts, 1u << warp);
    }
    __syncthreads();

    if (warp == 0) {
        // The tile's aggregate: the warps' totals under the segmented operator, left to right.
        const u32 ws = warp_starts;
        V aggregate = warp_totals[0];
        for (unsigned w = 1; w < warps; ++w)
            aggregate = ((ws >> w) & 1u) ? warp_totals[w] : op(aggregate, warp_totals[w]);
        const ScanTileStatus<V> status(flags, aggs, incs);
        if (ws != 0) {
            // From its last start on, the tile's inclusive value needs no predecessor.
            if (lane == 0) status.publish_inclusive(tile, aggregate);
        } else if (lane == 0) {
            status.publish_aggregate(tile, aggregate);
        }
        if (!position0_starts) {  // never tile 0: its position 0 is offsets[0]
            const V prefix = scan_lookback_deterministic(status, tile, op, 0);
            if (lane == 0) {
                if (ws == 0) status.publish_inclusive(tile, op(prefix, aggregate));
                tile_prefix = prefix;
            }
        }
    }
    __syncthreads();
    // What reaches this warp's values before its first start: the tile's prefix, then the
    // earlier warps' totals, restarting at each warp holding a start.
    const u32 ws = warp_starts;
    V before = Op::identity();
    bool has_before = false;
    if (!position0_starts) {
        before = tile_prefix;
        has_before = true;
    }
    for (unsigned w = 0; w < warp; ++w) {
        const V wt = warp_totals[w];
        before = (has_before && !((ws >> w) & 1u)) ? op(before, wt) : wt;
        has_before = true;
    }
    if (has_before) {
#pragma unroll
        for (int k = 0; k < ROWS; ++k)
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const u32 r = (u32)(k * 32 * VEC) + lane * VEC + (u32)e;
                if (r < first) x[k][e] = (exclusive && r == 0) ? before : op(before, x[k][e]);
            }
    }
}

// Tile index in start order (decoupled look-back: a tile only waits on tiles already running).
__device__ __forceinline__ u64 segment_tile_index(u32* counter) {
    __shared__ u32 slot;
    if (threadIdx.x == 0) slot = atomicAdd(counter, 1u);
    __syncthreads();
    return slot;
}

// Segmented scan of every segment of `in` into `out` (may equal `in`: a tile reads all of its
// values before its first store). Status as lookback.cuh's, one slot per tile, zeroed with the
// counter before the launch; grid = tiles.
template <class Op>
__device__ __forceinline__ void segment_tiles_scan(const typename Op::value_type* in,
                                                   SegmentTiles st,
                                                   typename Op::value_type* out, u32 exclusive,
                                                   u32* counter, u32* flags, void* aggs,
                                                   void* incs) {
    typedef typename Op::value_type T;
    typedef SegmentTileShape<T, T> S;
    const u64 tile = segment_tile_index(counter);
    T x[S::ROWS][S::VEC];
    segment_tile_scan<Op, T, ReduceConvert<T, T>>(in, st, tile, exclusive != 0, flags, aggs, incs,
                                                  x);
    const u64 T_ = (u64)blockDim.x * S::ITEMS;
    const u64 seg = tile * T_ + (u64)warp_id() * 32 * S::ITEMS;
    const bool vector_ok = (tile + 1) * T_ <= st.n && ((u64)out % sizeof(Vec<T>)) == 0;
    scan_tile_store<Op>(out, seg, st.n, vector_ok, x);
}

// A reduced segment as stored: argmin/argmax indices count from the segment's start.
template <class V> __device__ __forceinline__ V segment_local(const V& v, u64) { return v; }
template <class T> __device__ __forceinline__ ArgVal<T> segment_local(const ArgVal<T>& v, u64 start) {
    ArgVal<T> r = v;
    r.index -= start;
    return r;
}

// Segmented reduction into out[segment] (Store: the value, or the argmin/argmax index; an empty
// segment stores the identity). The tile's inclusive values go through dynamic shared memory
// (blockDim.x · ITEMS accumulators), from which each segment ending in the tile takes its last.
template <class Op, class In, class Store>
__device__ __forceinline__ void segment_tiles_reduce(const In* __restrict__ in, SegmentTiles st,
                                                     typename Store::out_type* out, u32* counter,
                                                     u32* flags, void* aggs, void* incs,
                                                     typename Op::value_type* values) {
    typedef typename Op::value_type V;
    typedef SegmentTileShape<V, In> S;
    const u64 tile = segment_tile_index(counter);
    V x[S::ROWS][S::VEC];
    segment_tile_scan<Op, In, ReduceConvert<In, V>>(in, st, tile, false, flags, aggs, incs, x);
    const u32 base = warp_id() * 32 * S::ITEMS + lane_id() * S::VEC;
#pragma unroll
    for (int k = 0; k < S::ROWS; ++k)
#pragma unroll
        for (int e = 0; e < S::VEC; ++e) values[base + k * 32 * S::VEC + e] = x[k][e];
    __syncthreads();
    const u64 t0 = tile * (u64)blockDim.x * S::ITEMS;
    const u64 jb = __ldg(st.bounds + tile), je = __ldg(st.bounds + tile + 1);
    for (u64 j = jb + threadIdx.x; j < je; j += blockDim.x) {
        const u64 end = __ldg(st.offsets + j), start = __ldg(st.offsets + j - 1);
        Store::apply(out, j - 1,
                     start == end ? Op::identity() : segment_local(values[end - 1 - t0], start));
    }
}

}  // namespace gp
