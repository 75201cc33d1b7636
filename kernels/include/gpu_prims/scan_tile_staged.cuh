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

// The staged tile for 16-bit floats scanned in f32 and written as f32 (ScanConvertTile's staged
// form; 16-bit results take the thread-run tiles of scan_tile_runs.cuh): REG_ROWS
// vectors of 8 values in registers (converted to f32 as they load) and SMEM_ROWS more staged in
// shared memory. The raw 16-byte vectors land by cp.async; the scan converts each staged
// vector and writes its 8 f32 results back (32 bytes: two planes of 16, `lo` and `hi`, so that
// a warp's 16-byte accesses stay free of bank conflicts), so each value is converted once on
// the way in, as in the register tile. Tiles of 80 values per thread instead of 32 amortise each
// tile's fixed latencies over 2.5 times the values.
template <class In> struct ScanStagedConvertShape {
    static constexpr int VEC = VecWidth<In>::value;
    static_assert(VEC == 8, "16-bit values, 8 per 16-byte vector");
    static constexpr int REG_ROWS = 4;
    static constexpr int SMEM_ROWS = 6;
    static constexpr int ITEMS = (REG_ROWS + SMEM_ROWS) * VEC;
    // Dynamic shared memory per thread of the block (the Rust plan mirrors it).
    static constexpr int SHARED_BYTES_PER_THREAD = SMEM_ROWS * 32;
};

template <class Op, class In, class Out> struct ScanStagedConvertTile {
    typedef typename Op::value_type T;
    static_assert(sizeof(T) == 4, "scanned in f32");
    typedef In in_type;
    typedef Out out_type;
    typedef ScanStagedConvertShape<In> Shape;
    static constexpr int VEC = Shape::VEC, REG_ROWS = Shape::REG_ROWS, SMEM_ROWS = Shape::SMEM_ROWS;
    static constexpr int ITEMS = Shape::ITEMS;

    ScanConvertTile<Op, In, Out, REG_ROWS> regs;
    Vec<T>* lo;  // this warp's SMEM_ROWS × 32 vectors: values 0-3 of each staged vector
    Vec<T>* hi;  // and values 4-7 (the raw 16-bit vector waits in `lo` until scanned)

    // `warp_shared`: this warp's 32 · Shape::SHARED_BYTES_PER_THREAD bytes (16-byte aligned),
    // the two planes of SMEM_ROWS · 32 vectors each.
    __device__ explicit ScanStagedConvertTile(unsigned char* warp_shared)
        : lo(reinterpret_cast<Vec<T>*>(warp_shared)), hi(lo + SMEM_ROWS * 32) {}

    static __device__ __forceinline__ bool aligned(const In* in, const Out* out) {
        return ScanConvertTile<Op, In, Out, REG_ROWS>::aligned(in, out);
    }

    __device__ __forceinline__ void load(const In* in, u64 seg, u64 n, bool vector_ok) {
        const unsigned lane = lane_id();
        const u64 first = seg + (u64)REG_ROWS * 32 * VEC;  // the staged rows follow
        if (vector_ok) {
#pragma unroll
            for (int k = 0; k < SMEM_ROWS; ++k)
                async_copy_16(lo + k * 32 + lane, in + first + (u64)(k * 32 + lane) * VEC);
            async_copy_commit();
        } else {
            // Past n: the identity as an `In` (exact: 0 or an infinity).
            const In pad = from_f32<In>(Op::identity());
            for (int k = 0; k < SMEM_ROWS; ++k) {
                Vec<In> x;
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    const u64 i = first + (u64)(k * 32 + lane) * VEC + e;
                    x.v[e] = i < n ? in[i] : pad;
                }
                *reinterpret_cast<Vec<In>*>(lo + k * 32 + lane) = x;
            }
        }
        regs.load(in, seg, n, vector_ok);
    }

    // As ScanStagedTile::scan: the register rows, then each staged row with the carry of
    // everything before it on the left.
    __device__ __forceinline__ T scan(bool exclusive, Op op) {
        const unsigned lane = lane_id();
        T carry = regs.scan(exclusive, op);
        async_copy_wait_all();
#pragma unroll 1
        for (int k = 0; k < SMEM_ROWS; ++k) {
            const Vec<In> raw = *reinterpret_cast<const Vec<In>*>(lo + k * 32 + lane);
            T x[VEC];
#pragma unroll
            for (int e = 0; e < VEC; ++e) x[e] = to_f32(raw.v[e]);
#pragma unroll
            for (int e = 1; e < VEC; ++e) x[e] = op(x[e - 1], x[e]);
            scan_tile_row(x, carry, true, exclusive, op);
            Vec<T> a, b;
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                a.v[e] = x[e];
                b.v[e] = x[4 + e];
            }
            lo[k * 32 + lane] = a;
            hi[k * 32 + lane] = b;
        }
        return carry;
    }

    __device__ __forceinline__ void store(Out* out, u64 seg, u64 n, bool vector_ok, T prefix,
                                          bool has_prefix, bool exclusive, Op op) {
        regs.store(out, seg, n, vector_ok, prefix, has_prefix, exclusive, op);
        const unsigned lane = lane_id();
        const u64 first = seg + (u64)REG_ROWS * 32 * VEC;
#pragma unroll 2
        for (int k = 0; k < SMEM_ROWS; ++k) {
            const Vec<T> a = lo[k * 32 + lane], b = hi[k * 32 + lane];
            T x[VEC];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                x[e] = has_prefix ? op(prefix, a.v[e]) : a.v[e];
                x[4 + e] = has_prefix ? op(prefix, b.v[e]) : b.v[e];
            }
            store_converted(out, first + (u64)(k * 32 + lane) * VEC, n, vector_ok, x);
        }
    }
};

}  // namespace gp
