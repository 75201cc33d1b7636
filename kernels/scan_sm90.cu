// The staged look-back scan with an L2 prefetch ahead of each tile (gpu-scan), for GPUs of
// compute capability 9.0 and later: compiled for compute_90 into its own module, which the Rust
// side loads only where a device's tuning asks for the prefetch (scan.prefetch_from: GPUs of
// fast memory per SM, long inputs).
//
// scan_lookback_staged_pf_[det_]<op>_<type>: scan_sm80.cu's scan_lookback_staged_[det_]<op>_<type>
// (the same tiles, sums and results) plus a last argument, u64 prefetch_tiles (at least 1); and
// scan_lookback_staged_pf_[det_]<op>_<h>_to_<h> the same for the 16-bit thread-run tiles (f16,
// bf16 results; sum, min, max):
// each tile's first thread prefetches into L2 the input of the tile that far on, the one a block
// a few waves later will take (gpu_prims/l2_prefetch.cuh). While a block waits in the look-back
// its SM has nothing in flight; the prefetch keeps DRAM busy through those waits and shortens
// later tiles' loads (docs/tuning.md, "L2 prefetch").
#include <gpu_prims/l2_prefetch.cuh>
#include <gpu_prims/scan_lookback.cuh>
#include <gpu_prims/scan_tile_runs.cuh>
#include <gpu_prims/scan_tile_staged.cuh>

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

// 16-bit floats with 16-bit results: scan_sm80.cu's thread-run tiles (two blocks of 1024 per SM).
template <class Op, bool DETERMINISTIC, class H>
__device__ __forceinline__ void half_prefetching_tiles(const H* in, H* out, gp::u64 n,
                                                       gp::u32 exclusive, gp::u32* counter,
                                                       gp::u32* flags, void* aggs, void* incs,
                                                       gp::u32 epoch, gp::u32 base,
                                                       gp::u64 prefetch_tiles) {
    typedef gp::ScanRunTile<Op, H, H> Tile;
    Tile tile(scan_staged_smem + (gp::u64)gp::warp_id() * 32 * Tile::Shape::SHARED_BYTES_PER_THREAD);
    gp::lookback_scan<Op, DETERMINISTIC, Tile, false, gp::L2Prefetch>(
        in, out, n, exclusive, counter, flags, aggs, incs, epoch, base, tile, nullptr,
        gp::L2Prefetch{prefetch_tiles});
}
#define SCAN_STAGED_PF_HALF_ENTRY(name, Op, DET, H)                                            \
    extern "C" __global__ void __launch_bounds__(1024, 2)                                      \
        name(const H* in, H* out, gp::u64 n, gp::u32 exclusive, gp::u32* counter,              \
             gp::u32* flags, void* aggs, void* incs, gp::u32 epoch, gp::u32 base,              \
             gp::u64 prefetch_tiles) {                                                         \
        half_prefetching_tiles<Op, DET, H>(in, out, n, exclusive, counter, flags, aggs, incs,  \
                                           epoch, base, prefetch_tiles);                       \
    }
#define SCAN_STAGED_PF_HALF(tname, H)                                                          \
    SCAN_STAGED_PF_HALF_ENTRY(scan_lookback_staged_pf_sum_##tname##_to_##tname,                \
                              gp::Sum<gp::f32>, false, H)                                      \
    SCAN_STAGED_PF_HALF_ENTRY(scan_lookback_staged_pf_det_sum_##tname##_to_##tname,            \
                              gp::Sum<gp::f32>, true, H)                                       \
    SCAN_STAGED_PF_HALF_ENTRY(scan_lookback_staged_pf_min_##tname##_to_##tname,                \
                              gp::Min<gp::f32>, false, H)                                      \
    SCAN_STAGED_PF_HALF_ENTRY(scan_lookback_staged_pf_max_##tname##_to_##tname,                \
                              gp::Max<gp::f32>, false, H)
SCAN_STAGED_PF_HALF(f16, gp::f16)
SCAN_STAGED_PF_HALF(bf16, gp::bf16)
