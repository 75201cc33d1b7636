// The look-back scan with staged tiles (gpu-scan), for GPUs of compute capability 8.0 and later:
// compiled for compute_80 into its own module, which the Rust side loads only on such GPUs
// (scan.cu, compiled for compute_70, serves every GPU).
//
// Naming: scan_lookback_staged_<op>_<type> and, where grouping can change a float result,
// scan_lookback_staged_det_<op>_<type>; same arguments as scan_lookback_<op>_<type> (status
// tagged with the launch's epoch, as there), plus blockDim.x ·
// ScanStagedShape<T>::SHARED_BYTES_PER_THREAD bytes of dynamic shared memory.
// Every operator of GP_FOR_EACH_OP_TYPE (values of 4 and 8 bytes: 16-byte vectors); the
// matrix and affine monoids keep the register tile.
//
// scan_lookback_staged_[det_]<op>_<h>_to_<out>: the 16-bit float scans (f16, bf16; sum, min,
// max) in larger tiles: results as the element type in thread-run tiles (56 values per thread,
// blockDim.x · 112 bytes of dynamic shared memory), results in f32 in staged tiles (80 values
// per thread, blockDim.x · 192 bytes).
//
// scan_rows_staged_<op>_<type>[x<K>]: scan.cu's look-back rows (long contiguous rows, each its
// own single-pass scan) in staged tiles, and interleaved lanes (K = 2, 4 lanes side by side, a
// row of them every K elements: the columns of a dense array of K columns) scanned as rows of
// K-wide vectors (gpu_prims/lane_vector.cuh); the same arguments as scan_rows_* plus the same
// dynamic shared memory. Sum, prod, min, max only (the others take register rows or the
// general paths); vectors of up to 16 bytes: x2 for every type, x4 for the 4-byte ones.
//
// scan_segment_tiles_staged_<op>_<type>: scan.cu's segment tiles in staged tiles
// (gpu_prims/segment_tiles_staged.cuh); the same arguments as scan_segment_tiles_* plus the
// same dynamic shared memory. Sum, prod, min, max.
#include <gpu_prims/lane_vector.cuh>
#include <gpu_prims/lanes.cuh>
#include <gpu_prims/scan_lookback.cuh>
#include <gpu_prims/scan_tile_runs.cuh>
#include <gpu_prims/scan_tile_staged.cuh>
#include <gpu_prims/segment_tiles_staged.cuh>

extern __shared__ __align__(16) unsigned char scan_staged_smem[];

// This warp's SMEM_ROWS × 32 vectors of the block's dynamic shared memory.
template <class Op> __device__ __forceinline__ gp::ScanStagedTile<Op> staged_tile() {
    typedef gp::ScanStagedTile<Op> Tile;
    return Tile(reinterpret_cast<gp::Vec<typename Op::value_type>*>(scan_staged_smem) +
                (gp::u64)gp::warp_id() * Tile::SMEM_ROWS * 32);
}

template <class Op, bool DETERMINISTIC>
__device__ __forceinline__ void staged_tiles(const typename Op::value_type* in,
                                             typename Op::value_type* out, gp::u64 n,
                                             gp::u32 exclusive, gp::u32* counter, gp::u32* flags,
                                             void* aggs, void* incs, gp::u32 epoch, gp::u32 base) {
    gp::ScanStagedTile<Op> tile = staged_tile<Op>();
    gp::lookback_scan<Op, DETERMINISTIC>(in, out, n, exclusive, counter, flags, aggs, incs, epoch,
                                         base, tile);
}

#define SCAN_STAGED_ENTRY(opname, OpT, tname, T)                                               \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        scan_lookback_staged_##opname##_##tname(const OpT<T>::value_type* in,                  \
                                                OpT<T>::value_type* out, gp::u64 n,            \
                                                gp::u32 exclusive, gp::u32* counter,           \
                                                gp::u32* flags, void* aggs, void* incs,        \
                                                gp::u32 epoch, gp::u32 base) {                 \
        staged_tiles<OpT<T>, false>(in, out, n, exclusive, counter, flags, aggs, incs, epoch,   \
                                    base);                                                     \
    }
GP_FOR_EACH_OP_TYPE(SCAN_STAGED_ENTRY)

#define SCAN_STAGED_DETERMINISTIC_ENTRY(opname, OpT, tname, T)                                 \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        scan_lookback_staged_det_##opname##_##tname(const OpT<T>::value_type* in,              \
                                                    OpT<T>::value_type* out, gp::u64 n,        \
                                                    gp::u32 exclusive, gp::u32* counter,       \
                                                    gp::u32* flags, void* aggs, void* incs,    \
                                                    gp::u32 epoch, gp::u32 base) {             \
        staged_tiles<OpT<T>, true>(in, out, n, exclusive, counter, flags, aggs, incs, epoch,    \
                                   base);                                                      \
    }
SCAN_STAGED_DETERMINISTIC_ENTRY(sum, gp::Sum, f32, gp::f32)
SCAN_STAGED_DETERMINISTIC_ENTRY(sum, gp::Sum, f64, gp::f64)
SCAN_STAGED_DETERMINISTIC_ENTRY(prod, gp::Prod, f32, gp::f32)
SCAN_STAGED_DETERMINISTIC_ENTRY(prod, gp::Prod, f64, gp::f64)

// 16-bit floats in staged tiles: scan.cu's scan_lookback_[det_]<op>_<h>_to_<out> with larger
// tiles, the same arguments plus dynamic shared memory. 16-bit results: thread-run tiles
// (ScanRunTile, 56 values per thread, blockDim.x · 112 bytes, two blocks of 1024 per SM); f32
// results: warp-striped staged tiles (ScanStagedConvertTile, 80 values per thread, blockDim.x ·
// 192 bytes), whose stores stay coalesced at 4 bytes per value. bf16 rounds with cvt.rn.bf16.f32
// here (one instruction on sm_80+).
// The staged flat scan continued from `seed` (scan_lookback_seeded's arguments; fixed-order;
// sums only, as there).
#define SCAN_STAGED_SEEDED_ENTRY(opname, OpT, tname, T)                                        \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        scan_lookback_staged_seeded_##opname##_##tname(                                        \
            const OpT<T>::value_type* in, OpT<T>::value_type* out, gp::u64 n,                  \
            gp::u32 exclusive, gp::u32* counter, gp::u32* flags, void* aggs, void* incs,       \
            gp::u32 epoch, gp::u32 base, const OpT<T>::value_type seed) {                      \
        gp::ScanStagedTile<OpT<T>> tile = staged_tile<OpT<T>>();                               \
        gp::lookback_scan<OpT<T>, true, gp::ScanStagedTile<OpT<T>>, true>(                     \
            in, out, n, exclusive, counter, flags, aggs, incs, epoch, base, tile, &seed);      \
    }
GP_FOR_EACH_TYPE(SCAN_STAGED_SEEDED_ENTRY, sum, gp::Sum)

template <class Op, class In, class Out> struct HalfStagedTile {
    typedef gp::ScanRunTile<Op, In, Out> type;
};
template <class Op, class In> struct HalfStagedTile<Op, In, gp::f32> {
    typedef gp::ScanStagedConvertTile<Op, In, gp::f32> type;
};
template <class Op, bool DETERMINISTIC, class In, class Out>
__device__ __forceinline__ void staged_half_tiles(const In* in, Out* out, gp::u64 n,
                                                  gp::u32 exclusive, gp::u32* counter,
                                                  gp::u32* flags, void* aggs, void* incs,
                                                  gp::u32 epoch, gp::u32 base) {
    typedef typename HalfStagedTile<Op, In, Out>::type Tile;
    Tile tile(scan_staged_smem + (gp::u64)gp::warp_id() * 32 * Tile::Shape::SHARED_BYTES_PER_THREAD);
    gp::lookback_scan<Op, DETERMINISTIC>(in, out, n, exclusive, counter, flags, aggs, incs, epoch,
                                         base, tile);
}
#define SCAN_STAGED_HALF_ENTRY(name, Op, DET, In, Out, MIN_BLOCKS)                             \
    extern "C" __global__ void __launch_bounds__(1024, MIN_BLOCKS)                             \
        name(const In* in, Out* out, gp::u64 n, gp::u32 exclusive, gp::u32* counter,           \
             gp::u32* flags, void* aggs, void* incs, gp::u32 epoch, gp::u32 base) {            \
        staged_half_tiles<Op, DET, In, Out>(in, out, n, exclusive, counter, flags, aggs, incs,  \
                                            epoch, base);                                      \
    }
// MB: blocks of 1024 threads per SM (2 for the thread-run tiles: at most 32 registers).
#define SCAN_STAGED_HALF_OUT(tname, H, oname, Out, MB)                                         \
    SCAN_STAGED_HALF_ENTRY(scan_lookback_staged_sum_##tname##_to_##oname, gp::Sum<gp::f32>,    \
                           false, H, Out, MB)                                                  \
    SCAN_STAGED_HALF_ENTRY(scan_lookback_staged_det_sum_##tname##_to_##oname,                  \
                           gp::Sum<gp::f32>, true, H, Out, MB)                                 \
    SCAN_STAGED_HALF_ENTRY(scan_lookback_staged_min_##tname##_to_##oname, gp::Min<gp::f32>,    \
                           false, H, Out, MB)                                                  \
    SCAN_STAGED_HALF_ENTRY(scan_lookback_staged_max_##tname##_to_##oname, gp::Max<gp::f32>,    \
                           false, H, Out, MB)
#define SCAN_STAGED_HALF(tname, H)                                                             \
    SCAN_STAGED_HALF_OUT(tname, H, tname, H, 2) SCAN_STAGED_HALF_OUT(tname, H, f32, gp::f32, 1)
SCAN_STAGED_HALF(f16, gp::f16)
SCAN_STAGED_HALF(bf16, gp::bf16)

template <class Op>
__device__ __forceinline__ void staged_rows(const typename Op::value_type* in,
                                            gp::AxisLanes in_lanes, typename Op::value_type* out,
                                            gp::AxisLanes out_lanes, gp::u64 tiles_per_lane,
                                            gp::u32 exclusive, gp::u32* counter, gp::u32* flags,
                                            void* aggs, void* incs, gp::u32 epoch, gp::u32 base) {
    gp::ScanStagedTile<Op> tile = staged_tile<Op>();
    gp::lookback_scan_lanes<Op, true>(in, in_lanes, out, out_lanes, tiles_per_lane, exclusive,
                                      counter, flags, aggs, incs, epoch, base, tile);
}

#define SCAN_ROWS_STAGED_NAMED(name, Op)                                                       \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        name(const Op::value_type* in, gp::AxisLanes in_lanes, Op::value_type* out,            \
             gp::AxisLanes out_lanes, gp::u64 tiles_per_lane, gp::u32 exclusive,               \
             gp::u32* counter, gp::u32* flags, void* aggs, void* incs, gp::u32 epoch,          \
             gp::u32 base) {                                                                   \
        staged_rows<Op>(in, in_lanes, out, out_lanes, tiles_per_lane, exclusive, counter,      \
                        flags, aggs, incs, epoch, base);                                       \
    }
#define SCAN_ROWS_STAGED(opname, OpT, tname, T)                                                \
    SCAN_ROWS_STAGED_NAMED(scan_rows_staged_##opname##_##tname, OpT<T>)                        \
    SCAN_ROWS_STAGED_NAMED(scan_rows_staged_##opname##_##tname##x2, gp::Lanewise<OpT<T> COMMA 2>)
#define COMMA ,
GP_FOR_EACH_ARITH_OP_TYPE(SCAN_ROWS_STAGED)
#define SCAN_ROWS_STAGED_X4(opname, OpT, tname, T)                                             \
    SCAN_ROWS_STAGED_NAMED(scan_rows_staged_##opname##_##tname##x4, gp::Lanewise<OpT<T> COMMA 4>)
GP_FOR_EACH_ARITH_OP_TYPE_4(SCAN_ROWS_STAGED_X4)

template <class Op>
__device__ __forceinline__ void staged_segment_tiles(const typename Op::value_type* in,
                                                     gp::SegmentTiles st,
                                                     typename Op::value_type* out,
                                                     gp::u32 exclusive, gp::u32* counter,
                                                     gp::u32* flags, void* aggs, void* incs) {
    typedef gp::SegmentStagedTile<Op> Tile;
    Tile tile(reinterpret_cast<gp::Vec<typename Op::value_type>*>(scan_staged_smem) +
              (gp::u64)gp::warp_id() * Tile::SMEM_ROWS * 32);
    gp::segment_tiles_scan_with<Op>(in, st, out, exclusive, counter, flags, aggs, incs, tile);
}

#define SCAN_SEGMENT_TILES_STAGED(opname, OpT, tname, T)                                       \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        scan_segment_tiles_staged_##opname##_##tname(                                          \
            const OpT<T>::value_type* in, gp::SegmentTiles st, OpT<T>::value_type* out,        \
            gp::u32 exclusive, gp::u32* counter, gp::u32* flags, void* aggs, void* incs) {     \
        staged_segment_tiles<OpT<T>>(in, st, out, exclusive, counter, flags, aggs, incs);      \
    }
GP_FOR_EACH_ARITH_OP_TYPE(SCAN_SEGMENT_TILES_STAGED)
