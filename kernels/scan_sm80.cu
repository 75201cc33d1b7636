// The look-back scan with staged tiles (gpu-scan), for GPUs of compute capability 8.0 and later:
// compiled for compute_80 into its own module, which the Rust side loads only on such GPUs
// (scan.cu, compiled for compute_70, serves every GPU).
//
// Naming: scan_lookback_staged_<op>_<type> and, where grouping can change a float result,
// scan_lookback_staged_det_<op>_<type>; same arguments as scan_lookback_<op>_<type>, plus
// blockDim.x · ScanStagedShape<T>::SHARED_BYTES_PER_THREAD bytes of dynamic shared memory.
// Every operator of GP_FOR_EACH_OP_TYPE (values of 4 and 8 bytes: 16-byte vectors); the
// matrix and affine monoids keep the register tile.
#include <gpu_prims/scan_lookback.cuh>
#include <gpu_prims/scan_tile_staged.cuh>

extern __shared__ __align__(16) unsigned char scan_staged_smem[];

template <class Op, bool DETERMINISTIC>
__device__ __forceinline__ void staged_tiles(const typename Op::value_type* in,
                                             typename Op::value_type* out, gp::u64 n,
                                             gp::u32 exclusive, gp::u32* counter, gp::u32* flags,
                                             void* aggs, void* incs) {
    typedef gp::ScanStagedTile<Op> Tile;
    gp::Vec<typename Op::value_type>* rows =
        reinterpret_cast<gp::Vec<typename Op::value_type>*>(scan_staged_smem) +
        (gp::u64)gp::warp_id() * Tile::SMEM_ROWS * 32;
    Tile tile(rows);
    gp::lookback_scan<Op, DETERMINISTIC>(in, out, n, exclusive, counter, flags, aggs, incs, tile);
}

#define SCAN_STAGED_ENTRY(opname, OpT, tname, T)                                               \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        scan_lookback_staged_##opname##_##tname(const OpT<T>::value_type* in,                  \
                                                OpT<T>::value_type* out, gp::u64 n,            \
                                                gp::u32 exclusive, gp::u32* counter,           \
                                                gp::u32* flags, void* aggs, void* incs) {      \
        staged_tiles<OpT<T>, false>(in, out, n, exclusive, counter, flags, aggs, incs);        \
    }
GP_FOR_EACH_OP_TYPE(SCAN_STAGED_ENTRY)

#define SCAN_STAGED_DETERMINISTIC_ENTRY(opname, OpT, tname, T)                                 \
    extern "C" __global__ void __launch_bounds__(1024)                                         \
        scan_lookback_staged_det_##opname##_##tname(const OpT<T>::value_type* in,              \
                                                    OpT<T>::value_type* out, gp::u64 n,        \
                                                    gp::u32 exclusive, gp::u32* counter,       \
                                                    gp::u32* flags, void* aggs, void* incs) {  \
        staged_tiles<OpT<T>, true>(in, out, n, exclusive, counter, flags, aggs, incs);         \
    }
SCAN_STAGED_DETERMINISTIC_ENTRY(sum, gp::Sum, f32, gp::f32)
SCAN_STAGED_DETERMINISTIC_ENTRY(sum, gp::Sum, f64, gp::f64)
SCAN_STAGED_DETERMINISTIC_ENTRY(prod, gp::Prod, f32, gp::f32)
SCAN_STAGED_DETERMINISTIC_ENTRY(prod, gp::Prod, f64, gp::f64)
