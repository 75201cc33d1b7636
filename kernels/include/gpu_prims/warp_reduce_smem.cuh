// Warp reductions through shared memory, and block reductions built from them.
//
// The classic forms relied on the 32 lanes of a warp running in lockstep ("warp-synchronous"
// code with a volatile array and no barriers). Since Volta, lanes of a warp are scheduled
// independently, so nothing here assumes lockstep: every step ends with __syncwarp(), which
// both waits for the lanes and orders their shared-memory accesses, and a step never reads a
// slot another lane writes in the same step (the padded form reads into a register, syncs,
// then writes).
//
// Every lane of the warp must call these (full mask). `s` points to this warp's slots, already
// written by the lanes (the functions start with __syncwarp()); the result is returned in
// every lane.
//
//  * commutative: halving offsets 16, 8, 4, 2, 1; lane i < off combines s[i] and s[i + off]
//    (pairs values out of sequence order). 32 slots.
//  * ordered: growing offsets 1, 2, 4, 8, 16; lane i, a multiple of 2 * off, absorbs its
//    right neighbour segment s[i + off]: sequence order is kept. 32 slots.
//  * padded: the ordered form without the lane test: every lane combines s[i] and s[i + off];
//    slots 32 .. 47 hold the identity so the extra lanes read something harmless. 48 slots.
#pragma once
#include <gpu_prims/warp.cuh>

namespace gp {

enum WarpSmemKind { WARP_SMEM_COMMUTATIVE = 0, WARP_SMEM_ORDERED = 1, WARP_SMEM_PADDED = 2 };

// Shared-memory slots one warp needs for the given kind.
template <int Kind> struct WarpSmemSlots {
    static constexpr unsigned value = Kind == WARP_SMEM_PADDED ? 48u : 32u;
};

template <class Op> __device__ __forceinline__ typename Op::value_type
warp_reduce_smem_commutative(typename Op::value_type* s, Op op) {
    const unsigned lane = lane_id();
    __syncwarp();
    // Lane i < off writes s[i]; the only other reader of s[i] would be lane i - off < 0.
    for (unsigned off = 16; off > 0; off >>= 1) {
        if (lane < off) s[lane] = op(s[lane], s[lane + off]);
        __syncwarp();
    }
    return s[0];
}

template <class Op> __device__ __forceinline__ typename Op::value_type
warp_reduce_smem_ordered(typename Op::value_type* s, Op op) {
    const unsigned lane = lane_id();
    __syncwarp();
    // Writers are multiples of 2 * off; they read s[i + off], an odd multiple of off, which
    // no lane writes in this step.
    for (unsigned off = 1; off < 32; off <<= 1) {
        if ((lane & (2 * off - 1)) == 0) s[lane] = op(s[lane], s[lane + off]);
        __syncwarp();
    }
    return s[0];
}

template <class Op> __device__ __forceinline__ typename Op::value_type
warp_reduce_smem_padded(typename Op::value_type* s, Op op) {
    typedef typename Op::value_type V;
    const unsigned lane = lane_id();
    __syncwarp();
    for (unsigned off = 1; off < 32; off <<= 1) {
        // Lane i - off reads s[i] in the same step as lane i rewrites it: read everything
        // first, then write.
        V x = op(s[lane], s[lane + off]);
        __syncwarp();
        s[lane] = x;
        __syncwarp();
    }
    return s[0];
}

template <int Kind, class Op> __device__ __forceinline__ typename Op::value_type
warp_reduce_smem(typename Op::value_type* s, Op op) {
    if constexpr (Kind == WARP_SMEM_COMMUTATIVE) {
        return warp_reduce_smem_commutative(s, op);
    } else if constexpr (Kind == WARP_SMEM_ORDERED) {
        return warp_reduce_smem_ordered(s, op);
    } else {
        return warp_reduce_smem_padded(s, op);
    }
}

// Shared-memory slots (values) block_reduce_warp_smem<Kind> needs for `threads` threads.
template <int Kind>
__host__ __device__ constexpr unsigned block_reduce_warp_smem_slots(unsigned threads) {
    return (threads / 32u + 1u) * WarpSmemSlots<Kind>::value;
}

// Block reduction built from warp reductions: each warp reduces its 32 values in its own
// slots, then warp 0 reduces the per-warp results (in warp order). blockDim.x must be a
// multiple of 32; `s` holds block_reduce_warp_smem_slots<Kind>(blockDim.x) values. The
// result is valid in warp 0 (in particular thread 0). __syncthreads() before reusing `s`.
// With the ordered and padded kinds, thread order is kept: correct for non-commutative
// operators.
template <int Kind, class Op> __device__ __forceinline__ typename Op::value_type
block_reduce_warp_smem(typename Op::value_type v, Op op, typename Op::value_type* s) {
    typedef typename Op::value_type V;
    constexpr unsigned SLOTS = WarpSmemSlots<Kind>::value;
    const unsigned lane = lane_id();
    const unsigned warps = blockDim.x >> 5;
    V* mine = s + warp_id() * SLOTS;
    mine[lane] = v;
    if (SLOTS > 32u && lane < SLOTS - 32u) mine[32 + lane] = Op::identity();
    V r = warp_reduce_smem<Kind>(mine, op);
    __syncthreads();  // every warp's result (its slot 0) visible to warp 0
    if (warp_id() == 0) {
        V* top = s + warps * SLOTS;  // a separate region: no slot is both read and written
        top[lane] = lane < warps ? s[lane * SLOTS] : Op::identity();
        if (SLOTS > 32u && lane < SLOTS - 32u) top[32 + lane] = Op::identity();
        r = warp_reduce_smem<Kind>(top, op);
    }
    return r;
}

}  // namespace gp
