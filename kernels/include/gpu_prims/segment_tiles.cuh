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
#include <gpu_prims/prefetch.cuh>
#include <gpu_prims/lookback.cuh>
#include <gpu_prims/lookback_epoch.cuh>
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

// A thread's start bits (one per value it holds): 32 or 64 of them.
template <bool WIDE> struct SegmentBitsOf { typedef u32 type; };
template <> struct SegmentBitsOf<true> { typedef u64 type; };
template <int BITS> struct SegmentBits {
    static_assert(BITS <= 64, "one start bit per value of a thread");
    typedef typename SegmentBitsOf<(BITS > 32)>::type type;
};
__device__ __forceinline__ int lowest_bit(u32 h) { return __ffs(h) - 1; }
__device__ __forceinline__ int lowest_bit(u64 h) { return __ffsll((long long)h) - 1; }

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
    // Segmented inclusive scan of the vector totals across the row. `fm`: lanes whose vector
    // holds a start; lane l folds the lanes from the nearest one at or before it (Kogge-Stone:
    // a source d lanes back is taken only while it lies in the same segment, and then its
    // partial does too), one shuffle per step.
    const u32 fm = __ballot_sync(FULL_MASK, h != 0);
    const u32 upto = fm & (0xffffffffu >> (31 - lane));  // starts in lanes 0..l
    const int seg_lane = upto ? 31 - __clz(upto) : 0;
    T v = x[VEC - 1];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T ov = shfl_up(v, d);
        if ((int)lane - d >= seg_lane) v = op(ov, v);
    }
    const T before = shfl_up(v, 1);
    const bool before_f = lane > 0 && (fm & (0xffffffffu >> (32 - lane))) != 0;
    const T row_total = shfl_idx(v, 31);
    const bool row_f = fm != 0;
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

// x = before ∘ x at the warp's positions before its first start (exclusive: the warp's first
// position becomes `before` itself).
template <class Op, int ROWS, int VEC>
__device__ __forceinline__ void segment_tile_apply(typename Op::value_type (&x)[ROWS][VEC],
                                                   typename Op::value_type before, u32 first,
                                                   bool exclusive, Op op) {
    const unsigned lane = lane_id();
#pragma unroll
    for (int k = 0; k < ROWS; ++k)
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            const u32 r = (u32)(k * 32 * VEC) + lane * VEC + (u32)e;
            if (r < first) x[k][e] = (exclusive && r == 0) ? before : op(before, x[k][e]);
        }
}

// Block-shared state of one tile; WORDS bitmask words hold the largest tile of the kernel.
template <class V, unsigned WORDS = SEGMENT_TILE_MAX / 32> struct SegmentTileShared {
    u32 starts[WORDS];                  // bit p: tile position p starts a segment
    V warp_totals[32];                  // each warp's values from its last start
    u32 warp_starts;                    // bit w: warp w holds a start
    V prefix;                           // the tile's exclusive prefix (position 0 no start)
};

// Offsets a reduction keeps in shared memory for its writes (offsets[j] - t0, 16 bits, for the
// first SEGMENT_OFFSETS_KEPT offsets of the tile; the rest are read again from memory).
constexpr unsigned SEGMENT_OFFSETS_KEPT = 4096;

// Loads tile `tile`'s values in the register-tile layout (warp w: values [w·32·ITEMS,
// (w+1)·32·ITEMS) of the tile; row k of it the 32·VEC values from k·32·VEC, lane l the VEC
// values from l·VEC of each row), 16-byte loads where the tile is whole and aligned (returned);
// positions past n are left unset.
template <class In, int ROWS, int VEC, int ITEMS>
__device__ __forceinline__ bool segment_tile_load(const In* __restrict__ in, u64 n, u64 tile,
                                                  In (&raw)[ROWS][VEC]) {
    typedef Vec<In, VEC> VIn;
    const unsigned lane = lane_id();
    const u64 T = (u64)blockDim.x * ITEMS, t0 = tile * T;
    const u64 seg = t0 + (u64)warp_id() * 32 * ITEMS;
    const bool vector_ok = t0 + T <= n && ((u64)in % sizeof(VIn)) == 0;
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
                if (i < n) raw[k][e] = in[i];
            }
    }
    return vector_ok;
}

// Marks the segment starts inside tile `tile` (T values from t0 = tile·T) in `starts` (bit p:
// tile position p starts a segment; zeroed by segment_tile_index), and returns whether there
// are any. `mark_end` also marks position n when it lies in the tile (a reduction's fold then
// closes the last segment there). `kept` (reductions) receives offsets[j] - t0 for the first
// offsets of the tile. Each thread has SEGMENT_MARK_LOADS offsets in flight at once: one after
// another, their latencies added up to most of a short-segment tile's time. A tile without
// starts (inside a long segment) skips the marking and its barrier: every word of `starts`
// stays zero.
constexpr int SEGMENT_MARK_LOADS = 4;
__device__ __forceinline__ bool segment_tile_mark(const SegmentTiles& st, u64 tile, u64 T,
                                                  bool mark_end, u32* starts,
                                                  unsigned short* kept) {
    const u64 t0 = tile * T;
    const u64 jb = __ldg(st.bounds + tile), je = __ldg(st.bounds + tile + 1);
    const u64 last = mark_end ? st.n : st.n - 1;
    const u64 step = (u64)SEGMENT_MARK_LOADS * blockDim.x;
    u64 o[SEGMENT_MARK_LOADS];
    u64 j0 = jb + threadIdx.x;
#pragma unroll
    for (int q = 0; q < SEGMENT_MARK_LOADS; ++q) {
        const u64 j = j0 + (u64)q * blockDim.x;
        o[q] = j < je ? __ldg(st.offsets + j) : 0;
    }
    // The same for every thread of the block, so the barrier below is skipped by all or none.
    const bool starts_at_0 = __ldg(st.offsets + jb - 1) == t0;
    if (!starts_at_0 && jb == je) return false;
    if (threadIdx.x == 0 && starts_at_0) atomicOr(&starts[0], 1u);
    for (; j0 < je; j0 += step) {
#pragma unroll
        for (int q = 0; q < SEGMENT_MARK_LOADS; ++q) {
            const u64 j = j0 + (u64)q * blockDim.x;
            if (j >= je) break;
            const u64 p = o[q] - t0;  // in (0, T]
            if (kept != nullptr && j - jb < SEGMENT_OFFSETS_KEPT) kept[j - jb] = (unsigned short)p;
            if (p < T && t0 + p <= last) atomicOr(&starts[p >> 5], 1u << (p & 31));
        }
        // The next batch, if any, in flight together.
#pragma unroll
        for (int q = 0; q < SEGMENT_MARK_LOADS; ++q) {
            const u64 j = j0 + step + (u64)q * blockDim.x;
            o[q] = j < je ? __ldg(st.offsets + j) : 0;
        }
    }
    __syncthreads();
    return true;
}

// Tile index in start order (decoupled look-back: a tile only waits on tiles already running).
// The tile's start bitmask (`words` words) and warp-start bits are cleared under the same
// barrier.
template <class V, unsigned WORDS>
__device__ __forceinline__ u64 segment_tile_index(u32* counter, SegmentTileShared<V, WORDS>& sh,
                                                  u32 words) {
    __shared__ u32 slot;
    for (u32 w = threadIdx.x; w < words; w += blockDim.x) sh.starts[w] = 0;
    if (threadIdx.x == 0) {
        sh.warp_starts = 0;
        slot = atomicAdd(counter, 1u);
    }
    __syncthreads();
    return slot;
}

// This warp's start bits in the tile's bitmask: bit k·VEC + e for value e of row k.
template <int ROWS, int VEC, int ITEMS>
__device__ __forceinline__ typename SegmentBits<ROWS * VEC>::type segment_tile_bits(const u32* starts) {
    typedef typename SegmentBits<ROWS * VEC>::type Bits;
    const unsigned lane = lane_id(), warp = warp_id();
    Bits h = 0;
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        const u32 b = warp * 32 * ITEMS + (k * 32 + lane) * VEC;
        h |= (Bits)((starts[b >> 5] >> (b & 31)) & ((1u << VEC) - 1u)) << (k * VEC);
    }
    return h;
}

// The register tile of a segmented scan (the flat look-back scan's ScanRegisterTile layout:
// warp w holds values [w·32·ITEMS, (w+1)·32·ITEMS) of the tile, row k of it the 32·VEC values
// from k·32·VEC, lane l the VEC values from l·VEC of each row). segment_tiles_staged.cuh has
// the larger sm_80 tile with the same interface; segment_tiles_scan_with runs either. In and
// Out are the elements in memory: Op::value_type itself, or 16-bit floats read exactly into
// f32 (VEC then their 16-byte vector width) and written back rounded once.
template <class Op, class In = typename Op::value_type, class Out = typename Op::value_type>
struct SegmentRegisterTile {
    typedef typename Op::value_type T;
    typedef In in_type;
    typedef Out out_type;
    typedef SegmentTileShape<T, In> S;
    static constexpr int ROWS = S::ROWS, VEC = S::VEC, ITEMS = S::ITEMS;
    static constexpr unsigned WORDS = SEGMENT_TILE_MAX / 32;
    T x[ROWS][VEC];

    // The tile's values (the identity past n).
    __device__ __forceinline__ void load(const In* __restrict__ in, u64 n, u64 tile) {
        const u64 seg = tile * blockDim.x * ITEMS + (u64)warp_id() * 32 * ITEMS;
        if constexpr (sizeof(In) == sizeof(T)) {
            const bool vector_ok = segment_tile_load<T, ROWS, VEC, ITEMS>(in, n, tile, x);
            if (!vector_ok) {
#pragma unroll
                for (int k = 0; k < ROWS; ++k)
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        if (seg + (u64)(k * 32 + lane_id()) * VEC + e >= n) x[k][e] = Op::identity();
            }
        } else {
            In raw[ROWS][VEC];
            const bool vector_ok = segment_tile_load<In, ROWS, VEC, ITEMS>(in, n, tile, raw);
#pragma unroll
            for (int k = 0; k < ROWS; ++k)
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    x[k][e] = (vector_ok || seg + (u64)(k * 32 + lane_id()) * VEC + e < n)
                                  ? ReduceConvert<In, T>::apply(raw[k][e], 0)
                                  : Op::identity();
        }
    }
    typedef typename SegmentBits<ROWS * VEC>::type Bits;
    // Segment-wise inclusive or exclusive scan of the warp's values (h: start bits, bit
    // k·VEC + e for value e of row k); returns the warp's values from its last start.
    __device__ __forceinline__ T scan(Bits h, bool exclusive, Op op) {
#pragma unroll
        for (int k = 0; k < ROWS; ++k)
#pragma unroll
            for (int e = 1; e < VEC; ++e)
                if (!((h >> (k * VEC + e)) & 1u)) x[k][e] = op(x[k][e - 1], x[k][e]);
        T carry = Op::identity();
#pragma unroll
        for (int k = 0; k < ROWS; ++k)
            segment_tile_row(x[k], (u32)(h >> (k * VEC)) & ((1u << VEC) - 1u), carry, k > 0,
                             exclusive, op);
        return carry;
    }
    __device__ __forceinline__ void apply(T before, u32 first, bool exclusive, Op op) {
        segment_tile_apply(x, before, first, exclusive, op);
    }
    // The tile's values to `out` (16-byte stores where the tile is whole and `out` aligned).
    __device__ __forceinline__ void store(Out* out, u64 n, u64 tile) {
        const u64 T_ = (u64)blockDim.x * ITEMS;
        const u64 seg = tile * T_ + (u64)warp_id() * 32 * ITEMS;
        const bool whole = (tile + 1) * T_ <= n;
        // Same sizes: In = Out = T (the converting tiles are the 16-bit floats' only).
        if constexpr (sizeof(In) == sizeof(T) && sizeof(Out) == sizeof(T)) {
            const bool vector_ok = whole && ((u64)out % sizeof(Vec<T>)) == 0;
            scan_tile_store<Op>(out, seg, n, vector_ok, x);
        } else {
            const bool vector_ok = whole && ((u64)out % 16) == 0;
#pragma unroll
            for (int k = 0; k < ROWS; ++k)
                store_converted(out, seg + (u64)(k * 32 + lane_id()) * VEC, n, vector_ok, x[k]);
        }
    }
};

// The local half of a segmented scan: tile `tile` of `in` scanned segment-wise in `t`,
// inclusive or exclusive, within the tile only (earlier warps' totals applied, not the earlier
// tiles'). On return (after a barrier) sh.starts, sh.warp_totals and sh.warp_starts are set,
// and `first` is the warp's first start (position within its values, ~0 for none).
template <class Op, class Tile, class Prefetch = NoPrefetch>
__device__ __forceinline__ void segment_tile_local(
    const typename Tile::in_type* __restrict__ in, const SegmentTiles& st, u64 tile,
    bool exclusive, SegmentTileShared<typename Op::value_type, Tile::WORDS>& sh, u32& first,
    Tile& t, Prefetch prefetch = Prefetch()) {
    typedef typename Op::value_type V;
    constexpr int ROWS = Tile::ROWS, VEC = Tile::VEC, ITEMS = Tile::ITEMS;
    Op op;
    const unsigned lane = lane_id(), warp = warp_id();
    const u64 T = (u64)blockDim.x * ITEMS;

    // Values first, so that they are in flight while the starts are marked.
    t.load(in, st.n, tile);
    if constexpr (Prefetch::ENABLED) {
        if (threadIdx.x == 0) tile_prefetch(prefetch, in, tile, T, st.n);
    }
    typename Tile::Bits h = 0;
    if (segment_tile_mark(st, tile, T, false, sh.starts, nullptr))
        h = segment_tile_bits<ROWS, VEC, ITEMS>(sh.starts);
    const V carry = t.scan(h, exclusive, op);
    // The warp's first start: earlier warps and tiles reach the values before it.
    first = h ? segment_bit_position<VEC>(lowest_bit(h), lane) : ~0u;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) first = min(first, __shfl_xor_sync(FULL_MASK, first, d));
    if (lane == 0) {
        sh.warp_totals[warp] = carry;
        if (first != ~0u) atomicOr(&sh.warp_starts, 1u << warp);
    }
    __syncthreads();
    // What the earlier warps of the tile bring to this warp's values before its first start.
    const u32 ws = sh.warp_starts;
    V before = Op::identity();
    bool has_before = false;
    for (unsigned w = 0; w < warp; ++w) {
        const V wt = sh.warp_totals[w];
        before = (has_before && !((ws >> w) & 1u)) ? op(before, wt) : wt;
        has_before = true;
    }
    if (has_before) t.apply(before, first, exclusive, op);
}

// Warp 0 only, after segment_tile_local: publishes the tile's status and, when its position 0
// starts no segment, finds its exclusive prefix by look-back (returned in every lane of warp 0
// and in sh.prefix; `looked` says whether it did). A tile holding a start publishes its
// inclusive value (its values from its last start) at once, before looking back.
template <class Op, unsigned WORDS>
__device__ __forceinline__ typename Op::value_type
segment_tile_lookback(SegmentTileShared<typename Op::value_type, WORDS>& sh, u64 tile, u32* flags,
                      void* aggs, void* incs, bool& looked) {
    typedef typename Op::value_type V;
    Op op;
    const unsigned lane = lane_id(), warps = blockDim.x >> 5;
    const u32 ws = sh.warp_starts;
    V aggregate = sh.warp_totals[0];
    for (unsigned w = 1; w < warps; ++w)
        aggregate = ((ws >> w) & 1u) ? sh.warp_totals[w] : op(aggregate, sh.warp_totals[w]);
    // Zeroed before every launch: the epoch-tagged slots of run 1 (8- and 16-byte values split
    // into tagged words, no flags or fences).
    const ScanEpochStatus<V> status(flags, aggs, incs, 1u);
    if (ws != 0) {
        if (lane == 0) status.publish_inclusive(tile, aggregate);
    } else if (lane == 0) {
        status.publish_aggregate(tile, aggregate);
    }
    looked = (sh.starts[0] & 1u) == 0;  // never tile 0: its position 0 is offsets[0]
    V prefix = Op::identity();
    if (looked) {
        prefix = scan_lookback_deterministic(status, tile, op, 0);
        if (lane == 0) {
            if (ws == 0) status.publish_inclusive(tile, op(prefix, aggregate));
            sh.prefix = prefix;
        }
    }
    return prefix;
}


// Segmented scan of every segment of `in` into `out` (may equal `in`: a tile reads all of its
// values before its first store) in tiles of `t`'s shape (SegmentRegisterTile, or the staged
// tile of segment_tiles_staged.cuh). Status as lookback.cuh's, one slot per tile, zeroed with
// the counter before the launch; grid = tiles. Prefetch policy (prefetch.cuh): thread 0 asks
// for the values and the offsets of the tile `prefetch.tiles` on.
template <class Op, class Tile, class Prefetch = NoPrefetch>
__device__ __forceinline__ void segment_tiles_scan_with(const typename Tile::in_type* in,
                                                        SegmentTiles st,
                                                        typename Tile::out_type* out,
                                                        u32 exclusive, u32* counter, u32* flags,
                                                        void* aggs, void* incs, Tile& t,
                                                        Prefetch prefetch = Prefetch()) {
    typedef typename Op::value_type T;
    __shared__ SegmentTileShared<T, Tile::WORDS> sh;
    const u64 tile = segment_tile_index(counter, sh, blockDim.x * Tile::ITEMS / 32);
    u32 first;
    if constexpr (Prefetch::ENABLED) {
        const u64 T_ = (u64)blockDim.x * Tile::ITEMS, ahead = tile + prefetch.tiles;
        const bool prefetching =
            prefetch.tiles > 0 && threadIdx.x == 0 && ahead < (st.n + T_ - 1) / T_;
        // The offsets that tile marks (segment_tile_mark) are asked for after this tile's
        // own marking: the bounds' loads stay in flight meanwhile. Its values, once this
        // tile's loads are out (segment_tile_local).
        u64 jb = 0, je = 0;
        if (prefetching) {
            jb = __ldg(st.bounds + ahead);
            je = __ldg(st.bounds + ahead + 1);
        }
        segment_tile_local<Op>(in, st, tile, exclusive != 0, sh, first, t, prefetch);
        if (prefetching) prefetch.ahead(st.offsets, jb - 1, je);
    } else {
        segment_tile_local<Op>(in, st, tile, exclusive != 0, sh, first, t);
    }
    bool looked = false;
    if (warp_id() == 0) segment_tile_lookback<Op>(sh, tile, flags, aggs, incs, looked);
    __syncthreads();
    // The earlier tiles reach each warp's values before the tile's first start.
    if ((sh.starts[0] & 1u) == 0) {
        const u32 ws = sh.warp_starts;
        const unsigned warp = warp_id();
        // Open only if no earlier warp holds a start.
        if ((ws & ((1u << warp) - 1u)) == 0) {
            // Earlier warps' totals are already applied: the prefix goes on their left, which
            // for the first warp's first position (exclusive) is the prefix itself.
            t.apply(sh.prefix, first, warp == 0 && exclusive != 0, Op());
        }
    }
    t.store(out, st.n, tile);
}

template <class Op>
__device__ __forceinline__ void segment_tiles_scan(const typename Op::value_type* in,
                                                   SegmentTiles st,
                                                   typename Op::value_type* out, u32 exclusive,
                                                   u32* counter, u32* flags, void* aggs,
                                                   void* incs) {
    SegmentRegisterTile<Op> t;
    segment_tiles_scan_with<Op>(in, st, out, exclusive, counter, flags, aggs, incs, t);
}

// A reduced segment as stored: argmin/argmax indices count from the segment's start.
template <class V> __device__ __forceinline__ V segment_local(const V& v, u64) { return v; }
template <class T> __device__ __forceinline__ ArgVal<T> segment_local(const ArgVal<T>& v, u64 start) {
    ArgVal<T> r = v;
    r.index -= start;
    return r;
}

// Slot of tile position p in a reduction's staged values: one spare slot after every ITEMS
// values, so that a thread reading its ITEMS consecutive positions (and a warp storing rows of
// the register tile) hits distinct banks.
template <int ITEMS> __device__ __forceinline__ u32 segment_slot(u32 p) {
    return ITEMS > 1 ? p + p / ITEMS : p;
}

// Segmented reduction into out[segment] (Store: the value, or the argmin/argmax index; an empty
// segment stores the identity). The tile's values are staged in shared memory in tile order;
// each thread then folds its ITEMS consecutive positions serially (thread-contiguous, as CUB's
// reduce-by-key: one operator per value, no per-value scan across lanes) and writes, at the
// last position of every segment that ends in its range, the segment's fold from its start (or
// from the tile's start). Only the folds that cross thread boundaries take one segmented warp
// scan of the threads' tails and the warps' totals. Each segment ending in the tile then stores
// the value at its last position; the one segment begun in earlier tiles adds the look-back's
// prefix (warp 0 looks back and writes it while the other warps write the rest).
template <class Op, class In, class Store>
__device__ __forceinline__ void segment_tiles_reduce(const In* __restrict__ in, SegmentTiles st,
                                                     typename Store::out_type* out, u32* counter,
                                                     u32* flags, void* aggs, void* incs,
                                                     typename Op::value_type* values) {
    typedef typename Op::value_type V;
    typedef SegmentTileShape<V, In> S;
    constexpr int ROWS = S::ROWS, VEC = S::VEC, ITEMS = S::ITEMS;
    __shared__ SegmentTileShared<V> sh;
    __shared__ unsigned short kept[SEGMENT_OFFSETS_KEPT];
    Op op;
    const u64 tile = segment_tile_index(counter, sh, blockDim.x * ITEMS / 32);
    const unsigned lane = lane_id(), warp = warp_id();
    const u64 T = (u64)blockDim.x * ITEMS, t0 = tile * T;

    // The values in flight while the starts are marked, then staged in tile order.
    In raw[ROWS][VEC];
    const bool vector_ok = segment_tile_load<In, ROWS, VEC, ITEMS>(in, st.n, tile, raw);
    segment_tile_mark(st, tile, T, true, sh.starts, kept);
#pragma unroll
    for (int k = 0; k < ROWS; ++k)
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            const u32 p = warp * 32 * ITEMS + (k * 32 + lane) * VEC + e;
            const u64 i = t0 + p;
            values[segment_slot<ITEMS>(p)] =
                (vector_ok || i < st.n) ? ReduceConvert<In, V>::apply(raw[k][e], i) : Op::identity();
        }
    __syncthreads();

    // This thread's positions p0 .. p0 + ITEMS - 1, folded in order. `acc` restarts at each
    // start; the fold before the first start (`lead`) waits for what earlier threads carry in,
    // every later segment ending here is complete and stored at once.
    const u32 p0 = threadIdx.x * ITEMS;
    const u32 h = ITEMS == 32 ? sh.starts[p0 >> 5]
                              : (sh.starts[p0 >> 5] >> (p0 & 31)) & ((1u << (ITEMS & 31)) - 1u);
    V acc = values[segment_slot<ITEMS>(p0)];
    V lead = Op::identity();
#pragma unroll
    for (int i = 1; i < ITEMS; ++i) {
        const V v = values[segment_slot<ITEMS>(p0 + i)];
        if ((h >> i) & 1u) {
            if (h & ((1u << i) - 1u)) values[segment_slot<ITEMS>(p0 + i - 1)] = acc;
            else lead = acc;
            acc = v;
        } else {
            acc = op(acc, v);
        }
    }
    // Segmented scan of the threads' tails across the warp (Kogge-Stone from the nearest lane
    // holding a start), then the warps' totals in order.
    const u32 fm = __ballot_sync(FULL_MASK, h != 0);
    const u32 upto = fm & (0xffffffffu >> (31 - lane));
    const int seg_lane = upto ? 31 - __clz(upto) : 0;
    V v = acc;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const V ov = shfl_up(v, d);
        if ((int)lane - d >= seg_lane) v = op(ov, v);
    }
    const V before_lanes = shfl_up(v, 1);
    if (lane == 31) {
        sh.warp_totals[warp] = v;
        if (fm != 0) atomicOr(&sh.warp_starts, 1u << warp);
    }
    __syncthreads();
    const u32 ws = sh.warp_starts;
    V before_warps = Op::identity();
    for (unsigned w = 0; w < warp; ++w)
        before_warps = (w > 0 && !((ws >> w) & 1u)) ? op(before_warps, sh.warp_totals[w])
                                                     : sh.warp_totals[w];
    // What reaches this thread's first position from earlier positions of the tile.
    const bool closed_in_warp = (fm & ((1u << lane) - 1u)) != 0;
    bool has_carry = true;
    V carry;
    if (closed_in_warp) carry = before_lanes;
    else if (lane > 0) carry = warp > 0 ? op(before_warps, before_lanes) : before_lanes;
    else if (warp > 0) carry = before_warps;
    else has_carry = false;
    const int first = h ? __ffs(h) - 1 : ITEMS;
    if (first > 0 && first < ITEMS)
        values[segment_slot<ITEMS>(p0 + first - 1)] = has_carry ? op(carry, lead) : lead;
    values[segment_slot<ITEMS>(p0 + ITEMS - 1)] = (h != 0 || !has_carry) ? acc : op(carry, acc);
    __syncthreads();

    const u64 jb = __ldg(st.bounds + tile), je = __ldg(st.bounds + tile + 1);
    const u64 before_first = __ldg(st.offsets + jb - 1);
    // offsets[j] for j in [jb, je): kept, or read again.
    auto offset = [&](u64 j) -> u64 {
        return j - jb < SEGMENT_OFFSETS_KEPT ? t0 + kept[j - jb] : __ldg(st.offsets + j);
    };
    auto last_of = [&](u64 end) -> V { return values[segment_slot<ITEMS>((u32)(end - 1 - t0))]; };
    // Segment jb - 1 crosses in from earlier tiles when position 0 starts none.
    const bool crossing = before_first < t0;
    if (warp == 0) {
        bool looked = false;
        const V prefix = segment_tile_lookback<Op>(sh, tile, flags, aggs, incs, looked);
        if (crossing && jb < je && lane == 0) {
            const u64 end = offset(jb);
            Store::apply(out, jb - 1, segment_local(op(prefix, last_of(end)), before_first));
        }
    }
    for (u64 j = jb + threadIdx.x; j < je; j += blockDim.x) {
        if (crossing && j == jb) continue;
        const u64 end = offset(j), start = j == jb ? before_first : offset(j - 1);
        Store::apply(out, j - 1, start == end ? Op::identity() : segment_local(last_of(end), start));
    }
}

}  // namespace gp
