// The intra-tile half of the single-pass scan: a tile of blockDim.x · ITEMS values held in
// registers, loaded and stored with 16-byte vector accesses, scanned with warp shuffles.
//
// Layout ("warp-striped vectors"): warp w owns 32·ITEMS consecutive values of the tile; within
// it, row k (0 ≤ k < ROWS) is the 32·VEC values [k·32·VEC, (k+1)·32·VEC), and lane l holds the
// VEC consecutive values at l·VEC of each row. Each vector load/store of a row is therefore one
// fully coalesced 512-byte warp access, and the scan needs no shared-memory transpose: a serial
// scan inside each vector, a warp scan of the vector totals per row, a serial carry from row to
// row, and a serial fold over the (≤ 32) warp totals. Every grouping is fixed by the layout, so
// the result does not depend on timing.
#pragma once
#include <gpu_prims/load.cuh>
#include <gpu_prims/warp.cuh>

namespace gp {

// Items per thread: 64 bytes of values (16 for 4-byte types, 8 for 8-byte, 4 for 16-byte, 2 for
// 32-byte); VEC of them per 16-byte vector, ROWS vectors. The Rust launch plan mirrors this.
template <class T> struct ScanTileShape {
    static constexpr int VEC = VecWidth<T>::value;
    static constexpr int ITEMS = sizeof(T) >= 64 ? 1 : 64 / (int)sizeof(T);
    static constexpr int ROWS = ITEMS / VEC;
    static_assert(ROWS * VEC == ITEMS, "whole vectors per thread");
};

template <class T> __device__ __forceinline__ void store_vec_streaming(T* p, const Vec<T>& v) {
    if (sizeof(Vec<T>) == 16) {
        __stcs(reinterpret_cast<int4*>(p), *reinterpret_cast<const int4*>(&v));
    } else {
        *reinterpret_cast<Vec<T>*>(p) = v;
    }
}

// Loads this thread's values of the warp segment starting at `seg` (global index of the
// segment's first value). Full segments with aligned pointers use vector loads; otherwise values
// at or past n read as the identity.
template <class Op, int ROWS, int VEC>
__device__ __forceinline__ void scan_tile_load(const typename Op::value_type* in, u64 seg, u64 n,
                                               bool vector_ok,
                                               typename Op::value_type (&s)[ROWS][VEC]) {
    typedef typename Op::value_type T;
    const unsigned lane = lane_id();
    if (vector_ok) {
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            Vec<T> v = load_vec_streaming(in + seg + (u64)(k * 32 + lane) * VEC);
#pragma unroll
            for (int e = 0; e < VEC; ++e) s[k][e] = v.v[e];
        }
    } else {
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                u64 i = seg + (u64)(k * 32 + lane) * VEC + e;
                s[k][e] = i < n ? in[i] : Op::identity();
            }
        }
    }
}

template <class Op, int ROWS, int VEC>
__device__ __forceinline__ void scan_tile_store(typename Op::value_type* out, u64 seg, u64 n,
                                                bool vector_ok,
                                                const typename Op::value_type (&r)[ROWS][VEC]) {
    typedef typename Op::value_type T;
    const unsigned lane = lane_id();
    if (vector_ok) {
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            Vec<T> v;
#pragma unroll
            for (int e = 0; e < VEC; ++e) v.v[e] = r[k][e];
            store_vec_streaming(out + seg + (u64)(k * 32 + lane) * VEC, v);
        }
    } else {
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                u64 i = seg + (u64)(k * 32 + lane) * VEC + e;
                if (i < n) out[i] = r[k][e];
            }
        }
    }
}

// Scans the warp's segment in registers: on return s[k][e] holds the inclusive scan of its
// vector (within the vector only), row_prefix[k] the combination of everything in the segment
// before this lane's vector of row k (the identity for lane 0 of row 0), and the return value is
// the whole segment's total (same in every lane). All 32 lanes must call it.
template <class Op, int ROWS, int VEC>
__device__ __forceinline__ typename Op::value_type
scan_tile_warp(typename Op::value_type (&s)[ROWS][VEC], typename Op::value_type (&row_prefix)[ROWS],
               Op op) {
    typedef typename Op::value_type T;
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
#pragma unroll
        for (int e = 1; e < VEC; ++e) s[k][e] = op(s[k][e - 1], s[k][e]);
    }
    T carry = Op::identity();
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        T inclusive = warp_inclusive_scan(s[k][VEC - 1], op);
        T exclusive = shfl_up(inclusive, 1);
        if (lane_id() == 0) exclusive = Op::identity();
        T row_total = shfl_idx(inclusive, 31);
        if (k == 0) {
            row_prefix[0] = exclusive;
            carry = row_total;
        } else {
            row_prefix[k] = op(carry, exclusive);
            carry = op(carry, row_total);
        }
    }
    return carry;
}

// Final values of this thread: prefix ∘ row_prefix[k] ∘ (inclusive or exclusive in-vector scan).
template <class Op, int ROWS, int VEC>
__device__ __forceinline__ void scan_tile_finish(typename Op::value_type (&s)[ROWS][VEC],
                                                 const typename Op::value_type (&row_prefix)[ROWS],
                                                 typename Op::value_type prefix, bool has_prefix,
                                                 bool exclusive, Op op) {
    typedef typename Op::value_type T;
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        const T p = has_prefix ? op(prefix, row_prefix[k]) : row_prefix[k];
        if (exclusive) {
#pragma unroll
            for (int e = VEC - 1; e > 0; --e) s[k][e] = op(p, s[k][e - 1]);
            s[k][0] = p;
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) s[k][e] = op(p, s[k][e]);
        }
    }
}

}  // namespace gp
