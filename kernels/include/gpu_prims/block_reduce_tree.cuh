// Block reductions through shared memory, the two classic teaching forms:
//
//  * block_reduce_tree: every thread contributes one value; the halving tree combines element
//    i with element i + size. That pairs values out of sequence order, so it is for
//    commutative operators only.
//  * block_reduce_pairwise: one block reduces a contiguous range of any length while keeping
//    sequence order (non-commutative operators). Shared memory holds 2 * blockDim.x values:
//    the lower half is the running, already-paired prefix, the upper half the next
//    blockDim.x elements; each round pairs neighbours (2t, 2t+1) back into the lower half.
//    A final tree with growing strides pairs neighbouring segments only.
//
// Both need blockDim.x to be a power of two, must be called by every thread of the block
// (they contain __syncthreads), and return the result in every thread. Call __syncthreads()
// before writing `s` again.
#pragma once
#include <gpu_prims/ops.cuh>

namespace gp {

// Halving tree over one value per thread; `s` holds blockDim.x values.
template <class Op> __device__ __forceinline__ typename Op::value_type
block_reduce_tree(typename Op::value_type v, Op op, typename Op::value_type* s) {
    const unsigned t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    // In the step of `size`, thread t < size writes s[t] and reads s[t] and s[t + size]; no
    // other thread reads s[t] in that step (t - size < 0), so a barrier per step suffices.
    for (unsigned size = blockDim.x >> 1; size > 0; size >>= 1) {
        if (t < size) s[t] = op(s[t], s[t + size]);
        __syncthreads();
    }
    return s[0];
}

// Order-preserving reduction of load(begin), ..., load(end - 1) by one block, where
// load(i) returns element i as Op::value_type. `s` holds 2 * blockDim.x values.
template <class Op, class Load> __device__ __forceinline__ typename Op::value_type
block_reduce_pairwise(Load load, u64 begin, u64 end, Op op, typename Op::value_type* s) {
    typedef typename Op::value_type V;
    const unsigned t = threadIdx.x;
    const unsigned B = blockDim.x;
    const u64 len = end > begin ? end - begin : 0;
    s[t] = t < len ? load(begin + t) : Op::identity();
    __syncthreads();
    // Uniform loop: `offset` and `len` are the same in every thread.
    for (u64 offset = B; offset < len; offset += B) {
        s[B + t] = offset + t < len ? load(begin + offset + t) : Op::identity();
        __syncthreads();
        // s[0 .. 2B) is in sequence order; pairing neighbours keeps it so in s[0 .. B).
        V pair = op(s[2 * t], s[2 * t + 1]);
        __syncthreads();  // every read of this round before any write
        s[t] = pair;
        // The next round's barrier (or the one below) orders these writes before reads.
    }
    __syncthreads();
    // Growing strides: s[i] absorbs its right neighbour segment s[i + stride], where i is a
    // multiple of 2 * stride, so only adjacent, ordered segments are ever combined.
    for (unsigned stride = 1; stride < B; stride <<= 1) {
        const unsigned i = 2 * stride * t;
        if (i + stride < B) s[i] = op(s[i], s[i + stride]);
        __syncthreads();
    }
    return s[0];
}

}  // namespace gp
