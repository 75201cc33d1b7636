// Block-wide work-efficient scan (Blelloch 1990): an up-sweep builds partial reductions in a
// balanced binary tree over the shared array in place, the root is replaced by the identity,
// and a down-sweep pushes prefixes back down, leaving the exclusive scan. 2·blockDim.x values
// per block (two per thread), O(n) combines. The report's "work-efficient" scan, and its
// bank-conflict-avoiding variant: with PAD, element i lives at i + i/32, so the power-of-two
// strides of the tree no longer map many threads onto one of the 32 shared-memory banks.
#pragma once
#include <gpu_prims/ops.cuh>

namespace gp {

// Shared-memory slot of logical element i: i, or i + i/32 with padding.
template <bool PAD> __device__ __forceinline__ unsigned blelloch_slot(unsigned i) {
    return PAD ? i + (i >> 5) : i;
}

// Slots needed for `count` logical elements (count a multiple of 32 when padded).
template <bool PAD> __host__ __device__ constexpr unsigned blelloch_slots(unsigned count) {
    return PAD ? count + (count >> 5) : count;
}

// Exclusive scan, in place, of the 2·blockDim.x values in `s` (element i in
// s[blelloch_slot<PAD>(i)]), in element order: correct for non-commutative operators (every
// combine keeps the earlier segment on the left).
//   Returns, in every thread, the combination of all 2·blockDim.x values (the block total).
// blockDim.x must be a power of two. Every thread of the block must call it; the values must be
// in `s` (and visible: the function starts with a barrier) before the call. On return the
// scanned values are visible to every thread.
template <class Op, bool PAD> __device__ __forceinline__ typename Op::value_type
block_scan_blelloch(typename Op::value_type* s, Op op) {
    typedef typename Op::value_type T;
    const unsigned tid = threadIdx.x;
    const unsigned count = 2 * blockDim.x;
    unsigned offset = 1;
    // Up-sweep: after the level with stride `offset`, slot (k+1)·2·offset − 1 holds the
    // combination of the 2·offset elements ending there.
    for (unsigned active = blockDim.x; active > 0; active >>= 1) {
        __syncthreads();
        if (tid < active) {
            unsigned left = offset * (2 * tid + 1) - 1;
            unsigned right = offset * (2 * tid + 2) - 1;
            s[blelloch_slot<PAD>(right)] =
                op(s[blelloch_slot<PAD>(left)], s[blelloch_slot<PAD>(right)]);
        }
        offset <<= 1;
    }
    __syncthreads();
    const T total = s[blelloch_slot<PAD>(count - 1)];
    __syncthreads();  // everyone has read the root before it is cleared
    if (tid == 0) s[blelloch_slot<PAD>(count - 1)] = Op::identity();
    // Down-sweep: a node's prefix p goes to its left child; the right child gets p ∘ (left
    // subtree's total), the left child's old value.
    for (unsigned active = 1; active < count; active <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (tid < active) {
            unsigned left = offset * (2 * tid + 1) - 1;
            unsigned right = offset * (2 * tid + 2) - 1;
            T left_total = s[blelloch_slot<PAD>(left)];
            T prefix = s[blelloch_slot<PAD>(right)];
            s[blelloch_slot<PAD>(left)] = prefix;
            s[blelloch_slot<PAD>(right)] = op(prefix, left_total);
        }
    }
    __syncthreads();
    return total;
}

}  // namespace gp
