// Warp-level pieces built on register shuffles. Every lane of the warp must call them
// (full mask): Volta's independent thread scheduling gives no implicit warp synchrony, so the
// *_sync intrinsics name the participating lanes explicitly. Callers pad partial warps with
// the operator's identity.
#pragma once
#include <gpu_prims/ops.cuh>

namespace gp {

constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ unsigned warp_id() { return threadIdx.x >> 5; }

// Shuffles of any trivially-copyable value, word by word (matrices, affine maps, pairs).
template <class T> __device__ __forceinline__ T shfl_down(T v, unsigned delta) {
    static_assert(sizeof(T) % 4 == 0, "shuffled types must be a whole number of 32-bit words");
    int* w = reinterpret_cast<int*>(&v);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) w[i] = __shfl_down_sync(FULL_MASK, w[i], delta);
    return v;
}
template <class T> __device__ __forceinline__ T shfl_up(T v, unsigned delta) {
    static_assert(sizeof(T) % 4 == 0, "shuffled types must be a whole number of 32-bit words");
    int* w = reinterpret_cast<int*>(&v);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) w[i] = __shfl_up_sync(FULL_MASK, w[i], delta);
    return v;
}
template <class T> __device__ __forceinline__ T shfl_idx(T v, int src) {
    static_assert(sizeof(T) % 4 == 0, "shuffled types must be a whole number of 32-bit words");
    int* w = reinterpret_cast<int*>(&v);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) w[i] = __shfl_sync(FULL_MASK, w[i], src);
    return v;
}

// Reduction of the 32 lanes' values; the result is valid in lane 0. Deltas grow 1, 2, 4, ...
// so lane 0 always combines adjacent, ordered segments: correct for non-commutative operators.
template <class Op> __device__ __forceinline__ typename Op::value_type
warp_reduce(typename Op::value_type v, Op op) {
#pragma unroll
    for (unsigned delta = 1; delta < 32; delta <<= 1) {
        typename Op::value_type other = shfl_down(v, delta);
        if ((lane_id() & (2 * delta - 1)) == 0) v = op(v, other);
    }
    return v;
}

// Inclusive scan across the warp (Kogge-Stone over shuffles): lane i gets v0 ∘ ... ∘ vi.
template <class Op> __device__ __forceinline__ typename Op::value_type
warp_inclusive_scan(typename Op::value_type v, Op op) {
#pragma unroll
    for (unsigned delta = 1; delta < 32; delta <<= 1) {
        typename Op::value_type other = shfl_up(v, delta);
        if (lane_id() >= delta) v = op(other, v);
    }
    return v;
}

}  // namespace gp
