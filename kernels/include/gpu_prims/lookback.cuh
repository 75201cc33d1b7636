// Decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016): the inter-tile half of a single-pass scan. Each tile publishes its
// aggregate as soon as it has it, then finds its exclusive prefix by looking at its
// predecessors' published state, 32 at a time (one warp lane per predecessor), and publishes its
// inclusive prefix. A tile never waits for more than the predecessors' aggregates, so prefixes
// do not propagate through a serial chain of tiles.
//
// Preconditions (the caller's):
//  * Tile indices are handed out in order by an atomic counter (never blockIdx.x): a tile only
//    waits on tiles with smaller indices, which belong to blocks that are already running, so the
//    scan cannot deadlock whatever the hardware's block scheduling order.
//  * The status words hold nothing of this launch before it starts (zeroed, or tagged with an
//    older epoch: lookback_epoch.cuh, which holds the status itself); one status array per
//    launch in flight.
//  * Tile 0 publishes only its inclusive prefix; every other tile publishes its aggregate before
//    looking back, then its inclusive prefix.
//
// Memory ordering, the two classic bugs:
//  * A missing fence between writing a value and publishing its flag would let a reader see the
//    flag and a stale value. Values of 4, 8 and 16 bytes sidestep it: each 4-byte piece travels
//    beside its tag in one 64-bit word written and read by single (volatile) accesses. Larger
//    values use a separate flag word: value, __threadfence(), flag on the writer side; flag,
//    __threadfence(), value on the reader side (the fence-based release/acquire pattern of the
//    PTX memory model).
//  * A spin loop on a plain load can be hoisted by the compiler into one read and an infinite
//    loop; every status read here is volatile (ld.volatile = ld.relaxed.sys, never cached in L1).
#pragma once
#include <gpu_prims/sync.cuh>
#include <gpu_prims/warp.cuh>

namespace gp {

enum : int { SCAN_TILE_INVALID = 0, SCAN_TILE_AGGREGATE = 1, SCAN_TILE_INCLUSIVE = 2 };

template <class To, class From> __device__ __forceinline__ To scan_bit_cast(const From& f) {
    static_assert(sizeof(To) == sizeof(From), "bit casts keep the size");
    union {
        From from;
        To to;
    } u;
    u.from = f;
    return u.to;
}

// The warp waits until each lane's tile `t` (t < first: before the first tile of the scan,
// read as an inclusive identity) is at least an aggregate; returns the lane's status, with its
// value in `v`. All 32 lanes must call it. `first` > 0 when one status array serves many
// independent scans (the lanes of an axis), each owning a run of tiles from `first`.
template <class Op, class Status>
__device__ __forceinline__ int scan_wait_window(const Status& st, i64 t,
                                                typename Op::value_type& v, i64 first = 0) {
    int status = SCAN_TILE_INVALID;
    if (t < first) {
        status = SCAN_TILE_INCLUSIVE;
        v = Op::identity();
    }
    while (__any_sync(FULL_MASK, status == SCAN_TILE_INVALID)) {
        if (status == SCAN_TILE_INVALID) status = st.poll((u64)t, v);
    }
    if (Status::NEEDS_FENCE) {
        __threadfence();  // flag reads above, value reads below
        if (t >= first) st.read_value((u64)t, status, v);
    }
    return status;
}

// Exclusive prefix of tile `tile` (> 0), in every lane: the fastest form. Each window of 32
// predecessors is reduced as a tree (warp_reduce), so which predecessor happened to have its
// inclusive prefix published decides the grouping: exact for integers, min/max, bitwise
// operators, but float sums and products may differ in the last bits from run to run.
template <class Op, class Status>
__device__ __forceinline__ typename Op::value_type scan_lookback(const Status& st, u64 tile, Op op,
                                                                 i64 first = 0) {
    typedef typename Op::value_type T;
    const int lane = (int)lane_id();
    T running = Op::identity();
    bool have = false;
    i64 end = (i64)tile;  // the window is tiles [end - 32, end)
    while (true) {
        T v;
        int status = scan_wait_window<Op>(st, end - 32 + lane, v, first);
        unsigned inclusive = __ballot_sync(FULL_MASK, status == SCAN_TILE_INCLUSIVE);
        int hi = inclusive ? 31 - __clz(inclusive) : -1;  // nearest inclusive predecessor
        T x = lane >= hi ? v : Op::identity();
        T window = shfl_idx(warp_reduce(x, op), 0);
        running = have ? op(window, running) : window;  // earlier windows go on the left
        have = true;
        if (inclusive) break;
        end -= 32;
    }
    return running;
}

// Exclusive prefix of tile `tile` (> 0), in every lane, with a fixed combination order: always
// ((agg0 ∘ agg1) ∘ agg2) ∘ ... ∘ agg(tile-1), a strict left fold over tile aggregates, whatever
// predecessor had its inclusive prefix published (tile j's inclusive prefix is itself that left
// fold up to j). Float results are therefore identical from run to run. The fold of up to 31
// predecessors runs serially in registers (shuffles and combines, no memory); when no
// predecessor in the nearest window is inclusive yet, the warp looks further back and then
// re-reads the aggregates of the skipped windows (published values never change).
template <class Op, class Status>
__device__ __forceinline__ typename Op::value_type
scan_lookback_deterministic(const Status& st, u64 tile, Op op, i64 first = 0) {
    typedef typename Op::value_type T;
    const int lane = (int)lane_id();
    i64 end = (i64)tile;
    T v;
    int status = scan_wait_window<Op>(st, end - 32 + lane, v, first);
    unsigned inclusive = __ballot_sync(FULL_MASK, status == SCAN_TILE_INCLUSIVE);
    while (!inclusive) {
        // No inclusive prefix among these 32 (all aggregates): look one window further back.
        // The first tile only ever publishes an inclusive prefix, so this stops there at the
        // latest (and skipped windows lie wholly at or after `first`).
        end -= 32;
        status = scan_wait_window<Op>(st, end - 32 + lane, v, first);
        inclusive = __ballot_sync(FULL_MASK, status == SCAN_TILE_INCLUSIVE);
    }
    const int hi = 31 - __clz(inclusive);  // warp-uniform
    // Left fold: the inclusive prefix of tile end-32+hi, then the aggregates after it (only
    // those: usually the nearest predecessor is inclusive and the fold is empty).
    T acc = shfl_idx(v, hi);
    for (int k = hi + 1; k < 32; ++k) acc = op(acc, shfl_idx(v, k));
    // Then every skipped window, oldest first (all their lanes were aggregates; end + 32 > first).
    for (i64 e = end + 32; e <= (i64)tile; e += 32) {
        T y = st.aggregate((u64)(e - 32 + lane));
#pragma unroll
        for (int k = 0; k < 32; ++k) acc = op(acc, shfl_idx(y, k));
    }
    return acc;
}

}  // namespace gp
