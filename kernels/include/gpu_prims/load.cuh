// Index ranges and loads: 64-bit grid-stride indexing (lengths beyond 2^31 elements) and
// 16-byte vector loads, the widest single load a thread can issue.
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

// Index of this thread in the whole grid, and number of threads in the grid, in 64 bits.
__device__ __forceinline__ u64 global_thread_index() {
    return (u64)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ u64 grid_thread_count() { return (u64)gridDim.x * blockDim.x; }

// How many T one 16-byte load carries (1 for types of 16 bytes or more).
template <class T> struct VecWidth {
    static constexpr int value = sizeof(T) >= 16 ? 1 : 16 / (int)sizeof(T);
};

// VecWidth<T> consecutive values of T, aligned so the compiler issues one 16-byte load.
template <class T, int N = VecWidth<T>::value> struct alignas(sizeof(T) * N) Vec {
    T v[N];
};

// Loads Vec<T> from `p`, which must be aligned to sizeof(Vec<T>). Read-only path (ld.global.nc).
template <class T> __device__ __forceinline__ Vec<T> load_vec(const T* __restrict__ p) {
    return *reinterpret_cast<const Vec<T>*>(p);
}

// Loads with the "evict first" hint: for data read exactly once, so it does not push
// reusable lines out of L2.
template <class T> __device__ __forceinline__ Vec<T> load_vec_streaming(const T* __restrict__ p) {
    Vec<T> r;
    if (sizeof(Vec<T>) == 16) {
        int4 raw = __ldcs(reinterpret_cast<const int4*>(p));
        r = *reinterpret_cast<Vec<T>*>(&raw);
    } else {
        r = load_vec(p);
    }
    return r;
}

// Number of leading elements before `p` reaches `align`-byte alignment (p must be aligned to
// sizeof(T)), capped at n.
template <class T> __device__ __forceinline__ u64 elements_to_alignment(const T* p, u64 n, unsigned align) {
    u64 misalign = ((u64)p) & (align - 1);
    u64 head = misalign == 0 ? 0 : (align - misalign) / sizeof(T);
    return head < n ? head : n;
}

}  // namespace gp
