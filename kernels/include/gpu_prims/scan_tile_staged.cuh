// A larger look-back tile for sm_80 and later: each thread keeps REG_ROWS vectors of the tile in
// registers (as scan_tile.cuh) and SMEM_ROWS more in shared memory, fetched with cp.async while
// the register rows load. Larger tiles amortise each tile's fixed latencies (tile counter,
// look-back, barriers) without more registers: on an H100, 1024 threads × 56 i32 per tile
// (24 in registers, 32 staged) ran at 0.95× copy bandwidth against 0.85× for 32 in registers
// (docs/perf-notes.md).
//
// Layout: the warp segment (32·ITEMS values) is REG_ROWS + SMEM_ROWS rows of 32 vectors; the
// register rows come first, then the staged rows. Lane l owns vector l of every row, in
// registers or in its warp's shared rows, and only ever touches its own shared vectors, so the
// staged rows need no barrier: each lane waits for its own copies.
#pragma once
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/scan_tile.cuh>

namespace gp {

template <class T> struct ScanStagedShape {
    static constexpr int VEC = VecWidth<T>::value;
    static_assert(sizeof(Vec<T>) == 16, "staged rows are 16-byte vectors");
    static constexpr int REG_ROWS = 6;
    static constexpr int SMEM_ROWS = 8;
    static constexpr int ITEMS = (REG_ROWS + SMEM_ROWS) * VEC;
    // Dynamic shared memory per thread of the block (the Rust plan mirrors it).
    static constexpr int SHARED_BYTES_PER_THREAD = SMEM_ROWS * 16;
};

template <class Op> struct ScanStagedTile {
    typedef typename Op::value_type T;
    typedef T in_type;
    typedef T out_type;
    typedef ScanStagedShape<T> Shape;
    static constexpr int VEC = Shape::VEC, REG_ROWS = Shape::REG_ROWS, SMEM_ROWS = Shape::SMEM_ROWS;
    static constexpr int ITEMS = Shape::ITEMS;

    T s[REG_ROWS][VEC];
    Vec<T>* rows;  // this warp's SMEM_ROWS × 32 vectors of shared memory

    __device__ explicit ScanStagedTile(Vec<T>* warp_rows) : rows(warp_rows) {}

    static __device__ __forceinline__ bool aligned(const T* in, const T* out) {
        return ((((u64)in) | ((u64)out)) % alignof(Vec<T>)) == 0;
    }

    __device__ __forceinline__ void load(const T* in, u64 seg, u64 n, bool vector_ok) {
        const unsigned lane = lane_id();
        const u64 first = seg + (u64)REG_ROWS * 32 * VEC;  // the staged rows follow
        if (vector_ok) {
#pragma unroll
            for (int k = 0; k < SMEM_ROWS; ++k)
                async_copy_16(rows + k * 32 + lane, in + first + (u64)(k * 32 + lane) * VEC);
            async_copy_commit();
        } else {
            for (int k = 0; k < SMEM_ROWS; ++k) {
                Vec<T> x;
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    const u64 i = first + (u64)(k * 32 + lane) * VEC + e;
                    x.v[e] = i < n ? in[i] : Op::identity();
                }
                rows[k * 32 + lane] = x;
            }
        }
        scan_tile_load<Op>(in, seg, n, vector_ok, s);
    }

    // As scan_tile_warp over the whole segment: the register rows, then each staged row with
    // the carry of everything before it on the left (always non-empty: REG_ROWS ≥ 1).
    __device__ __forceinline__ T scan(bool exclusive, Op op) {
        const unsigned lane = lane_id();
        T carry = scan_tile_warp(s, exclusive, op);
        async_copy_wait_all();
#pragma unroll 1
        for (int k = 0; k < SMEM_ROWS; ++k) {
            Vec<T> x = rows[k * 32 + lane];
#pragma unroll
            for (int e = 1; e < VEC; ++e) x.v[e] = op(x.v[e - 1], x.v[e]);
            scan_tile_row(x.v, carry, true, exclusive, op);
            rows[k * 32 + lane] = x;
        }
        return carry;
    }

    __device__ __forceinline__ void store(T* out, u64 seg, u64 n, bool vector_ok, T prefix,
                                          bool has_prefix, bool exclusive, Op op) {
        scan_tile_finish(s, prefix, has_prefix, exclusive, op);
        scan_tile_store<Op>(out, seg, n, vector_ok, s);
        const unsigned lane = lane_id();
        const u64 first = seg + (u64)REG_ROWS * 32 * VEC;
#pragma unroll 2
        for (int k = 0; k < SMEM_ROWS; ++k) {
            Vec<T> x = rows[k * 32 + lane];
            if (has_prefix) {
#pragma unroll
                for (int e = 0; e < VEC; ++e) x.v[e] = op(prefix, x.v[e]);
            }
            const u64 at = first + (u64)(k * 32 + lane) * VEC;
            if (vector_ok) {
                store_vec_streaming(out + at, x);
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (at + e < n) out[at + e] = x.v[e];
            }
        }
    }
};

}  // namespace gp
