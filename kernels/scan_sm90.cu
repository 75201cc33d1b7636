// The staged look-back scan with an L2 prefetch ahead of each tile (gpu-scan), for GPUs of
// compute capability 9.0 and later: compiled for compute_90 into its own module, which the Rust
// side loads only where a device's tuning asks for the prefetch (scan.prefetch_from: GPUs of
// fast memory per SM, long inputs).
//
// scan_lookback_staged_pf_[det_]<op>_<type>: scan_sm80.cu's scan_lookback_staged_[det_]<op>_<type>
// (the same tiles, sums and results) plus a last argument, u64 prefetch_tiles (at least 1); and
// scan_lookback_staged_pf_[det_]<op>_<h>_to_<out> the same for the 16-bit floats' staged tiles
// (f16, bf16; sum, min, max; results in the element type or f32):
// each tile's first thread prefetches into L2 the input of the tile that far on, the one a block
// a few waves later will take (gpu_prims/l2_prefetch.cuh). While a block waits in the look-back
// its SM has nothing in flight; the prefetch keeps DRAM busy through those waits and shortens
// later tiles' loads (docs/tuning.md, "L2 prefetch").
//
// Two shaped scans the same way, each with a last argument, how far ahead (at least 1):
// scan_segment_tiles_staged_pf_<op>_<type> (scan_sm80.cu's staged segment tiles, plus u64
// prefetch_tiles: that tile's values and offsets) and scan_columns_long_pf_<op>_<type>
// (scan.cu's long-span columns scan, plus u64 prefetch_spans: the span handed out that many
// spans later). Sum, prod, min and max, as their twins. The look-back rows gained nothing from
// it (docs/tuning.md, "L2 prefetch").
//
// scan_ws_[det_]<op>_<type>: the warp-specialised flat scan (below; gpu_prims/
// scan_warp_specialized.cuh), for long inputs on GPUs whose tuning asks for it.
//
// scan_columns_staged_<op>_<type>: the long-span columns scan with spans twice as long, each
// thread's COLUMN_LONG_ROWS register rows followed by COLUMN_STAGED_ROWS rows in dynamic shared
// memory (COLUMN_STAGED_ROWS * 16 bytes a thread; gpu_prims/lanes_columns_staged.cuh); the same
// arguments as scan_columns_long_pf_*, prefetch_spans 0 for none. Sum, prod, min and max; the
// plan takes the prod of 8-byte values (which spills at 255 registers) for one tile only
// (docs/shapes.md, thirtieth and thirty-first sessions).
#include <gpu_prims/l2_prefetch.cuh>
#include <gpu_prims/lanes_columns_staged.cuh>
#include <gpu_prims/scan_lookback.cuh>
#include <gpu_prims/scan_tile_runs.cuh>
#include <gpu_prims/scan_tile_staged.cuh>
#include <gpu_prims/scan_warp_specialized.cuh>
#include <gpu_prims/segment_tiles_staged.cuh>

extern __shared__ __align__(16) unsigned char scan_staged_smem[];

template <class Op, bool DETERMINISTIC>
__device__ __forceinline__ void staged_prefetching_tiles(
    const typename Op::value_type* in, typename Op::value_type* out, gp::u64 n,
    gp::u32 exclusive, gp::u32* counter, gp::u32* flags, void* aggs, void* incs, gp::u32 epoch,
    gp::u32 base, gp::u64 prefetch_tiles) {
    typedef gp::ScanStagedTile<Op> Tile;
    Tile tile(reinterpret_cast<gp::Vec<typename Op::value_type>*>(scan_staged_smem) +
              (gp::u64)gp::warp_id() * Tile::SMEM_ROWS * 32);
    gp::lookback_scan<Op, DETERMINISTIC, Tile, false, gp::L2Prefetch>(
        in, out, n, exclusive, counter, flags, aggs, incs, epoch, base, tile, nullptr,
        gp::L2Prefetch{prefetch_tiles});
}

#define SCAN_STAGED_PF_NAMED(name, OpT, T, DET)                                                \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        name(const OpT<T>::value_type* in, OpT<T>::value_type* out, gp::u64 n,                 \
             gp::u32 exclusive, gp::u32* counter, gp::u32* flags, void* aggs, void* incs,      \
             gp::u32 epoch, gp::u32 base, gp::u64 prefetch_tiles) {                            \
        staged_prefetching_tiles<OpT<T>, DET>(in, out, n, exclusive, counter, flags, aggs,     \
                                              incs, epoch, base, prefetch_tiles);              \
    }
#define SCAN_STAGED_PF_ENTRY(opname, OpT, tname, T)                                            \
    SCAN_STAGED_PF_NAMED(scan_lookback_staged_pf_##opname##_##tname, OpT, T, false)
GP_FOR_EACH_OP_TYPE(SCAN_STAGED_PF_ENTRY)

SCAN_STAGED_PF_NAMED(scan_lookback_staged_pf_det_sum_f32, gp::Sum, gp::f32, true)
SCAN_STAGED_PF_NAMED(scan_lookback_staged_pf_det_sum_f64, gp::Sum, gp::f64, true)
SCAN_STAGED_PF_NAMED(scan_lookback_staged_pf_det_prod_f32, gp::Prod, gp::f32, true)
SCAN_STAGED_PF_NAMED(scan_lookback_staged_pf_det_prod_f64, gp::Prod, gp::f64, true)

// 16-bit floats: scan_sm80.cu's staged tiles for them, the thread-run tiles for 16-bit results
// (two blocks of 1024 per SM) and the warp-striped convert tiles for f32 results.
template <class Op, bool DETERMINISTIC, class Tile>
__device__ __forceinline__ void half_prefetching_tiles(const typename Tile::in_type* in,
                                                       typename Tile::out_type* out, gp::u64 n,
                                                       gp::u32 exclusive, gp::u32* counter,
                                                       gp::u32* flags, void* aggs, void* incs,
                                                       gp::u32 epoch, gp::u32 base,
                                                       gp::u64 prefetch_tiles) {
    Tile tile(scan_staged_smem + (gp::u64)gp::warp_id() * 32 * Tile::Shape::SHARED_BYTES_PER_THREAD);
    gp::lookback_scan<Op, DETERMINISTIC, Tile, false, gp::L2Prefetch>(
        in, out, n, exclusive, counter, flags, aggs, incs, epoch, base, tile, nullptr,
        gp::L2Prefetch{prefetch_tiles});
}
#define SCAN_STAGED_PF_HALF_ENTRY(name, Op, DET, H, Out, TILE, MIN_BLOCKS)                     \
    extern "C" __global__ void __launch_bounds__(1024, MIN_BLOCKS)                             \
        name(const H* in, Out* out, gp::u64 n, gp::u32 exclusive, gp::u32* counter,            \
             gp::u32* flags, void* aggs, void* incs, gp::u32 epoch, gp::u32 base,              \
             gp::u64 prefetch_tiles) {                                                         \
        half_prefetching_tiles<Op, DET, TILE<Op, H, Out>>(in, out, n, exclusive, counter,      \
                                                          flags, aggs, incs, epoch, base,      \
                                                          prefetch_tiles);                     \
    }
// TILE and MB (blocks of 1024 threads per SM) as scan_sm80.cu's for the same output.
#define SCAN_STAGED_PF_HALF_OUT(tname, H, oname, Out, TILE, MB)                                \
    SCAN_STAGED_PF_HALF_ENTRY(scan_lookback_staged_pf_sum_##tname##_to_##oname,                \
                              gp::Sum<gp::f32>, false, H, Out, TILE, MB)                       \
    SCAN_STAGED_PF_HALF_ENTRY(scan_lookback_staged_pf_det_sum_##tname##_to_##oname,            \
                              gp::Sum<gp::f32>, true, H, Out, TILE, MB)                        \
    SCAN_STAGED_PF_HALF_ENTRY(scan_lookback_staged_pf_min_##tname##_to_##oname,                \
                              gp::Min<gp::f32>, false, H, Out, TILE, MB)                       \
    SCAN_STAGED_PF_HALF_ENTRY(scan_lookback_staged_pf_max_##tname##_to_##oname,                \
                              gp::Max<gp::f32>, false, H, Out, TILE, MB)
#define SCAN_STAGED_PF_HALF(tname, H)                                                          \
    SCAN_STAGED_PF_HALF_OUT(tname, H, tname, H, gp::ScanRunTile, 2)                            \
    SCAN_STAGED_PF_HALF_OUT(tname, H, f32, gp::f32, gp::ScanStagedConvertTile, 1)
SCAN_STAGED_PF_HALF(f16, gp::f16)
SCAN_STAGED_PF_HALF(bf16, gp::bf16)

// ---- The warp-specialised flat scan ----------------------------------------------------------
// scan_ws_[det_]<op>_<type>(in, out, n, exclusive, counter, flags, aggs, incs, epoch, base,
// first_tile): the look-back kernels' arguments and status, plus the status index of the
// launch's first tile (0 but for a host pipeline's later chunks); persistent blocks of
// WsScanShape<T>::THREADS threads (one per SM: WsScanShape<T>::SMEM bytes of dynamic shared
// memory), `in` and `out` 16-byte aligned (gpu_prims/scan_warp_specialized.cuh). Sum, prod, min
// and max of the 4- and 8-byte types with the plain look-back; `det_`: f32 and f64 sums and
// products with the fixed-order one (docs/scan.md, "Float determinism").
#define SCAN_WS_KERNEL(name, OpT, T, DET)                                                      \
    extern "C" __global__ void __launch_bounds__(gp::WsScanShape<T>::THREADS, 1)               \
        name(const T* in, T* out, gp::u64 n, gp::u32 exclusive, gp::u32* counter,              \
             gp::u32* flags, void* aggs, void* incs, gp::u32 epoch, gp::u32 base,              \
             gp::u64 first_tile) {                                                             \
        gp::warp_specialized_scan<OpT<T>, DET>(in, out, n, exclusive, counter, flags, aggs,    \
                                               incs, epoch, base, first_tile,                  \
                                               scan_staged_smem);                              \
    }
#define SCAN_WS_ENTRY(opname, OpT, tname, T) SCAN_WS_KERNEL(scan_ws_##opname##_##tname, OpT, T, false)
GP_FOR_EACH_ARITH_OP_TYPE(SCAN_WS_ENTRY)
SCAN_WS_KERNEL(scan_ws_det_sum_f32, gp::Sum, gp::f32, true)
SCAN_WS_KERNEL(scan_ws_det_prod_f32, gp::Prod, gp::f32, true)
SCAN_WS_KERNEL(scan_ws_det_sum_f64, gp::Sum, gp::f64, true)
SCAN_WS_KERNEL(scan_ws_det_prod_f64, gp::Prod, gp::f64, true)

// ---- Shaped scans ----------------------------------------------------------------------------

#define SCAN_SEGMENT_TILES_STAGED_PF(opname, OpT, tname, T)                                    \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        scan_segment_tiles_staged_pf_##opname##_##tname(                                       \
            const T* in, gp::SegmentTiles st, T* out, gp::u32 exclusive, gp::u32* counter,     \
            gp::u32* flags, void* aggs, void* incs, gp::u64 prefetch_tiles) {                  \
        typedef gp::SegmentStagedTile<OpT<T>> Tile;                                            \
        Tile tile(reinterpret_cast<gp::Vec<T>*>(scan_staged_smem) +                            \
                  (gp::u64)gp::warp_id() * Tile::SMEM_ROWS * 32);                              \
        gp::segment_tiles_scan_with<OpT<T>>(in, st, out, exclusive, counter, flags, aggs,      \
                                            incs, tile, gp::L2Prefetch{prefetch_tiles});       \
    }
GP_FOR_EACH_ARITH_OP_TYPE(SCAN_SEGMENT_TILES_STAGED_PF)

#define SCAN_COLUMNS_LONG_PF(opname, OpT, tname, T)                                            \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                              \
        scan_columns_long_pf_##opname##_##tname(                                               \
            const T* in, gp::ColumnLanes in_lanes, T* out, gp::ColumnLanes out_lanes,          \
            gp::u32* state, void* values, gp::u32 exclusive, gp::u64 begin, gp::u64 end,       \
            gp::u64 prefetch_spans) {                                                          \
        gp::lanes_scan_columns<OpT<T>, gp::COLUMN_LONG_ROWS, gp::L2Prefetch>(                  \
            in, in_lanes, out, out_lanes, state, values, exclusive, begin, end,                \
            gp::L2Prefetch{prefetch_spans});                                                   \
    }
GP_FOR_EACH_ARITH_OP_TYPE(SCAN_COLUMNS_LONG_PF)

#define SCAN_COLUMNS_STAGED(opname, OpT, tname, T)                                             \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                              \
        scan_columns_staged_##opname##_##tname(                                                \
            const T* in, gp::ColumnLanes in_lanes, T* out, gp::ColumnLanes out_lanes,          \
            gp::u32* state, void* values, gp::u32 exclusive, gp::u64 begin, gp::u64 end,       \
            gp::u64 prefetch_spans) {                                                          \
        gp::lanes_scan_columns<OpT<T>, gp::COLUMN_LONG_ROWS>(                                  \
            in, in_lanes, out, out_lanes, state, values, exclusive, begin, end,                \
            gp::L2Prefetch{prefetch_spans},                                                    \
            gp::ColumnStage<gp::COLUMN_STAGED_ROWS>{scan_staged_smem});                        \
    }
GP_FOR_EACH_ARITH_OP_TYPE(SCAN_COLUMNS_STAGED)
