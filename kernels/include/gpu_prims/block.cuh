// Block-level pieces built from the warp pieces. blockDim.x must be a multiple of 32 (at most
// 1024), and every thread of the block must call them. `smem` is scratch of 32 values in
// shared memory; __syncthreads() before reusing it.
#pragma once
#include <gpu_prims/warp.cuh>

namespace gp {

// Reduction over the block in thread order; the result is valid in thread 0.
template <class Op> __device__ __forceinline__ typename Op::value_type
block_reduce(typename Op::value_type v, Op op, typename Op::value_type* smem) {
    typedef typename Op::value_type T;
    const unsigned warps = blockDim.x >> 5;
    T w = warp_reduce(v, op);
    if (lane_id() == 0) smem[warp_id()] = w;
    __syncthreads();
    T r = Op::identity();
    if (warp_id() == 0) {
        T x = lane_id() < warps ? smem[lane_id()] : Op::identity();
        r = warp_reduce(x, op);
    }
    return r;
}

// Inclusive scan over the block in thread order: thread i gets v0 ∘ ... ∘ vi, and
// *aggregate (if not null) gets the whole block's total, in every thread.
template <class Op> __device__ __forceinline__ typename Op::value_type
block_inclusive_scan(typename Op::value_type v, Op op, typename Op::value_type* smem,
                     typename Op::value_type* aggregate) {
    typedef typename Op::value_type T;
    const unsigned warps = blockDim.x >> 5;
    T x = warp_inclusive_scan(v, op);
    if (lane_id() == 31) smem[warp_id()] = x;
    __syncthreads();
    if (warp_id() == 0) {
        T w = lane_id() < warps ? smem[lane_id()] : Op::identity();
        w = warp_inclusive_scan(w, op);
        if (lane_id() < warps) smem[lane_id()] = w;
    }
    __syncthreads();
    if (warp_id() > 0) x = op(smem[warp_id() - 1], x);
    if (aggregate) *aggregate = smem[warps - 1];
    return x;
}

}  // namespace gp
