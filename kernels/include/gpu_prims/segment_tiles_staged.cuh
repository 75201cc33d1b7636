// Segment tiles in the flat scan's staged shape (sm_80 and later): a thread holds REG_ROWS
// vectors of its warp's values in registers and SMEM_ROWS more in shared memory, fetched with
// cp.async while the register rows load (scan_tile_staged.cuh), so a tile is 56 values of 4
// bytes per thread instead of 32 and more bytes are in flight per SM. The segmented scan is the
// register tile's (segment_tiles.cuh), row after row with the carry; the staged rows pass
// through registers one at a time. Same interface as SegmentRegisterTile, for
// segment_tiles_scan_with.
#pragma once
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/scan_tile_staged.cuh>
#include <gpu_prims/segment_tiles.cuh>

namespace gp {

template <class Op> struct SegmentStagedTile {
    typedef typename Op::value_type T;
    typedef T in_type;
    typedef T out_type;
    typedef ScanStagedShape<T> Shape;
    static constexpr int VEC = Shape::VEC, REG_ROWS = Shape::REG_ROWS, SMEM_ROWS = Shape::SMEM_ROWS;
    static constexpr int ROWS = REG_ROWS + SMEM_ROWS, ITEMS = Shape::ITEMS;
    // The start bitmask of the largest block (1024 threads).
    static constexpr unsigned WORDS = 1024 * ITEMS / 32;
    typedef typename SegmentBits<ROWS * VEC>::type Bits;

    T x[REG_ROWS][VEC];
    Vec<T>* rows;  // this warp's SMEM_ROWS × 32 vectors of shared memory

    __device__ explicit SegmentStagedTile(Vec<T>* warp_rows) : rows(warp_rows) {}

    // The warp's first value and the first of its staged rows.
    __device__ __forceinline__ u64 warp_start(u64 tile) const {
        return tile * blockDim.x * ITEMS + (u64)warp_id() * 32 * ITEMS;
    }

    // The tile's values (the identity past n): the staged rows' copies started first, so that
    // they fly while the register rows load and the starts are marked.
    __device__ __forceinline__ void load(const T* __restrict__ in, u64 n, u64 tile) {
        const unsigned lane = lane_id();
        const u64 T_ = (u64)blockDim.x * ITEMS, t0 = tile * T_;
        const u64 staged = warp_start(tile) + (u64)REG_ROWS * 32 * VEC;
        const bool vector_ok = t0 + T_ <= n && ((u64)in % sizeof(Vec<T>)) == 0;
        if (vector_ok) {
#pragma unroll
            for (int k = 0; k < SMEM_ROWS; ++k)
                async_copy_16(rows + k * 32 + lane, in + staged + (u64)(k * 32 + lane) * VEC);
            async_copy_commit();
        } else {
            for (int k = 0; k < SMEM_ROWS; ++k) {
                Vec<T> v;
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    const u64 i = staged + (u64)(k * 32 + lane) * VEC + e;
                    v.v[e] = i < n ? in[i] : Op::identity();
                }
                rows[k * 32 + lane] = v;
            }
        }
        segment_tile_load<T, REG_ROWS, VEC, ITEMS>(in, n, tile, x);
        if (!vector_ok) {
            const u64 seg = warp_start(tile);
#pragma unroll
            for (int k = 0; k < REG_ROWS; ++k)
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (seg + (u64)(k * 32 + lane) * VEC + e >= n) x[k][e] = Op::identity();
        }
    }

    // As SegmentRegisterTile::scan: the register rows, then each staged row with the carry.
    __device__ __forceinline__ T scan(Bits h, bool exclusive, Op op) {
        const unsigned lane = lane_id();
        constexpr u32 ROW_MASK = (1u << VEC) - 1u;
#pragma unroll
        for (int k = 0; k < REG_ROWS; ++k)
#pragma unroll
            for (int e = 1; e < VEC; ++e)
                if (!((h >> (k * VEC + e)) & 1u)) x[k][e] = op(x[k][e - 1], x[k][e]);
        T carry = Op::identity();
#pragma unroll
        for (int k = 0; k < REG_ROWS; ++k)
            segment_tile_row(x[k], (u32)(h >> (k * VEC)) & ROW_MASK, carry, k > 0, exclusive, op);
        async_copy_wait_all();  // this lane's own copies: no barrier needed
#pragma unroll 1
        for (int k = 0; k < SMEM_ROWS; ++k) {
            Vec<T> v = rows[k * 32 + lane];
            const u32 hk = (u32)(h >> ((REG_ROWS + k) * VEC)) & ROW_MASK;
#pragma unroll
            for (int e = 1; e < VEC; ++e)
                if (!((hk >> e) & 1u)) v.v[e] = op(v.v[e - 1], v.v[e]);
            segment_tile_row(v.v, hk, carry, true, exclusive, op);
            rows[k * 32 + lane] = v;
        }
        return carry;
    }

    // x = before ∘ x at the warp's positions before `first` (exclusive: the warp's first
    // position becomes `before`); staged rows at or past `first` are not touched.
    __device__ __forceinline__ void apply(T before, u32 first, bool exclusive, Op op) {
        segment_tile_apply(x, before, first, exclusive, op);
        const unsigned lane = lane_id();
#pragma unroll 1
        for (int k = 0; k < SMEM_ROWS; ++k) {
            const u32 row0 = (u32)((REG_ROWS + k) * 32 * VEC);
            if (row0 >= first) break;  // warp-uniform
            Vec<T> v = rows[k * 32 + lane];
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                if (row0 + lane * VEC + (u32)e < first) v.v[e] = op(before, v.v[e]);
            rows[k * 32 + lane] = v;
        }
    }

    // The tile's values to `out` (16-byte streaming stores where the tile is whole and `out`
    // aligned).
    __device__ __forceinline__ void store(T* out, u64 n, u64 tile) {
        const unsigned lane = lane_id();
        const u64 T_ = (u64)blockDim.x * ITEMS;
        const u64 seg = warp_start(tile);
        const bool vector_ok = (tile + 1) * T_ <= n && ((u64)out % sizeof(Vec<T>)) == 0;
        scan_tile_store<Op>(out, seg, n, vector_ok, x);
        const u64 staged = seg + (u64)REG_ROWS * 32 * VEC;
#pragma unroll 2
        for (int k = 0; k < SMEM_ROWS; ++k) {
            const Vec<T> v = rows[k * 32 + lane];
            const u64 at = staged + (u64)(k * 32 + lane) * VEC;
            if (vector_ok) {
                store_vec_streaming(out + at, v);
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (at + e < n) out[at + e] = v.v[e];
            }
        }
    }
};

}  // namespace gp
