// The intra-tile half of the single-pass scan: a tile of blockDim.x · ITEMS values held in
// registers, loaded and stored with 16-byte vector accesses, scanned with warp shuffles.
//
// Layout ("warp-striped vectors"): warp w owns 32·ITEMS consecutive values of the tile; within
// it, row k (0 ≤ k < ROWS) is the 32·VEC values [k·32·VEC, (k+1)·32·VEC), and lane l holds the
// VEC consecutive values at l·VEC of each row. Each vector load/store of a row is therefore one
// fully coalesced 512-byte warp access, and the scan needs no shared-memory transpose: a serial
// scan inside each vector, a warp scan of the vector totals per row, a serial carry from row to
// row (folded into the values at once, so no per-row prefixes stay live in registers while the
// tile waits for its look-back), and a serial fold over the (≤ 32) warp totals. Every grouping
// is fixed by the layout, so the result does not depend on timing.
#pragma once
#include <gpu_prims/load.cuh>
#include <gpu_prims/warp.cuh>

namespace gp {

// Items per thread: 128 bytes of values for 4-byte types (32), 64 bytes for the others (8 for
// 8-byte, 4 for 16-byte, 2 for 32-byte); VEC of them per 16-byte vector, ROWS vectors. Large
// tiles amortise each tile's fixed latencies (tile counter, look-back): measured on an H100,
// 32 i32 per thread in 1024-thread blocks beat 16 per thread in 256-thread blocks by 12%
// (docs/perf-notes.md). The Rust launch plan mirrors this (gpu_scan::plan::lookback_items).
template <class T> struct ScanTileShape {
    static constexpr int VEC = VecWidth<T>::value;
    static constexpr int BYTES = sizeof(T) == 4 ? 128 : 64;
    static constexpr int ITEMS = (int)sizeof(T) >= BYTES ? 1 : BYTES / (int)sizeof(T);
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

// One row of a warp segment, after the in-vector scan of its values: lane l's VEC values
// (vector l of the row) get everything before them in the segment applied on the left: `carry`
// (the rows before, when `has_carry`) and the earlier lanes' vectors of the row; in exclusive
// mode the row also shifts by one value (the segment's first value becomes the identity).
// `carry` then includes the row. All 32 lanes must call it.
template <class Op, int VEC>
__device__ __forceinline__ void scan_tile_row(typename Op::value_type (&x)[VEC],
                                              typename Op::value_type& carry, bool has_carry,
                                              bool exclusive, Op op) {
    typedef typename Op::value_type T;
    const unsigned lane = lane_id();
    const T inclusive = warp_inclusive_scan(x[VEC - 1], op);
    const T before_lane = shfl_up(inclusive, 1);  // lanes > 0: earlier lanes of the row
    const T row_total = shfl_idx(inclusive, 31);
    // p: everything in the segment before this lane's vector.
    const bool has = has_carry || lane > 0;
    T p;
    if (!has_carry) p = before_lane;
    else p = lane > 0 ? op(carry, before_lane) : carry;
    carry = has_carry ? op(carry, row_total) : row_total;
    if (exclusive) {
#pragma unroll
        for (int e = VEC - 1; e > 0; --e) x[e] = has ? op(p, x[e - 1]) : x[e - 1];
        x[0] = has ? p : Op::identity();
    } else if (has) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) x[e] = op(p, x[e]);
    }
}

// Scans the warp's segment in registers: on return s[k][e] holds, for its position in the
// segment, the combination of everything in the segment up to and including it (inclusive), or
// up to and excluding it (exclusive; the identity for the segment's first value); the return
// value is the whole segment's total (same in every lane). The combination before each vector
// (the row carry and the earlier lanes of the row) is applied on the left of the in-vector scan,
// p ∘ (x0 ∘ … ∘ xe), never to the identity (lane 0 of row 0 keeps its values as they are).
// All 32 lanes must call it.
template <class Op, int ROWS, int VEC>
__device__ __forceinline__ typename Op::value_type
scan_tile_warp(typename Op::value_type (&s)[ROWS][VEC], bool exclusive, Op op) {
    typedef typename Op::value_type T;
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
#pragma unroll
        for (int e = 1; e < VEC; ++e) s[k][e] = op(s[k][e - 1], s[k][e]);
    }
    T carry = Op::identity();
#pragma unroll
    for (int k = 0; k < ROWS; ++k) scan_tile_row(s[k], carry, k > 0, exclusive, op);
    return carry;
}

// Final values of this thread: prefix ∘ (the segment-local value of scan_tile_warp), when there
// is a prefix; in exclusive mode the segment's first value is the prefix itself.
template <class Op, int ROWS, int VEC>
__device__ __forceinline__ void scan_tile_finish(typename Op::value_type (&s)[ROWS][VEC],
                                                 typename Op::value_type prefix, bool has_prefix,
                                                 bool exclusive, Op op) {
    if (!has_prefix) return;
    const bool first = exclusive && lane_id() == 0;
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) s[k][e] = (first && k == 0 && e == 0) ? prefix : op(prefix, s[k][e]);
    }
}

// The register tile as one object, for the device-level look-back scan (scan_lookback.cuh);
// scan_tile_staged.cuh has the larger sm_80 variant with the same interface.
template <class Op> struct ScanRegisterTile {
    typedef typename Op::value_type T;
    typedef T in_type;
    typedef T out_type;
    typedef ScanTileShape<T> Shape;
    static constexpr int ITEMS = Shape::ITEMS;
    T s[Shape::ROWS][Shape::VEC];

    static __device__ __forceinline__ bool aligned(const T* in, const T* out) {
        return ((((u64)in) | ((u64)out)) % alignof(Vec<T>)) == 0;
    }

    __device__ __forceinline__ void load(const T* in, u64 seg, u64 n, bool vector_ok) {
        scan_tile_load<Op>(in, seg, n, vector_ok, s);
    }
    __device__ __forceinline__ T scan(bool exclusive, Op op) { return scan_tile_warp(s, exclusive, op); }
    __device__ __forceinline__ void store(T* out, u64 seg, u64 n, bool vector_ok, T prefix,
                                          bool has_prefix, bool exclusive, Op op) {
        scan_tile_finish(s, prefix, has_prefix, exclusive, op);
        scan_tile_store<Op>(out, seg, n, vector_ok, s);
    }
};

// One vector of VEC f32 results written as `Out` at out[at..at + VEC): 16-byte vectors of `Out`
// when `vector_ok`, otherwise one value at a time, only below n. Rounded once (FromF32).
template <class Out, int VEC>
__device__ __forceinline__ void store_converted(Out* out, u64 at, u64 n, bool vector_ok,
                                                const f32 (&x)[VEC]) {
    constexpr int PER_STORE = VecWidth<Out>::value;
    static_assert(VEC % PER_STORE == 0, "whole output vectors");
    if (vector_ok) {
#pragma unroll
        for (int c = 0; c < VEC; c += PER_STORE) {
            Vec<Out> v;
#pragma unroll
            for (int e = 0; e < PER_STORE; ++e) v.v[e] = FromF32<Out>::apply(x[c + e]);
            store_vec_streaming(out + at + c, v);
        }
    } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            if (at + e < n) out[at + e] = FromF32<Out>::apply(x[e]);
    }
}

// The register tile over values stored as `In`, computed as Op::value_type and written as `Out`
// (16-bit floats scanned in f32, written as themselves or as f32): the same layout with VEC
// the 16-byte vector width of `In` and ROWS vectors per thread (4: 32 values, like the f32
// tile). Loads convert exactly; stores round once (FromF32), in 16-byte vectors of `Out` when
// aligned.
template <class Op, class In, class Out, int ROWS_ = 4> struct ScanConvertTile {
    typedef typename Op::value_type T;
    typedef In in_type;
    typedef Out out_type;
    static constexpr int VEC = VecWidth<In>::value;
    static constexpr int ROWS = ROWS_;
    static constexpr int ITEMS = ROWS * VEC;
    T s[ROWS][VEC];

    static __device__ __forceinline__ bool aligned(const In* in, const Out* out) {
        return ((((u64)in) | ((u64)out)) % 16) == 0;
    }
    __device__ __forceinline__ void load(const In* in, u64 seg, u64 n, bool vector_ok) {
        const unsigned lane = lane_id();
#pragma unroll
        for (int k = 0; k < ROWS; ++k) {
            const u64 at = seg + (u64)(k * 32 + lane) * VEC;
            if (vector_ok) {
                const Vec<In> v = load_vec_streaming(in + at);
#pragma unroll
                for (int e = 0; e < VEC; ++e) s[k][e] = to_f32(v.v[e]);
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e) s[k][e] = at + e < n ? to_f32(in[at + e]) : Op::identity();
            }
        }
    }
    __device__ __forceinline__ T scan(bool exclusive, Op op) { return scan_tile_warp(s, exclusive, op); }
    __device__ __forceinline__ void store(Out* out, u64 seg, u64 n, bool vector_ok, T prefix,
                                          bool has_prefix, bool exclusive, Op op) {
        scan_tile_finish(s, prefix, has_prefix, exclusive, op);
        const unsigned lane = lane_id();
#pragma unroll
        for (int k = 0; k < ROWS; ++k)
            store_converted(out, seg + (u64)(k * 32 + lane) * VEC, n, vector_ok, s[k]);
    }
};

}  // namespace gp
