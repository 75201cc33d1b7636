#include <gpu_prims/ops.cuh>
#include <gpu_prims/segments_short.cuh>
namespace gp { namespace reduce {
extern __shared__ __align__(16) unsigned char dynamic_smem_bytes[];
template <class V> __device__ __forceinline__ V* dynamic_smem() { return reinterpret_cast<V*>(dynamic_smem_bytes); }
}}
#define K(name, OpT, In, StoreT, MINB) \
    extern "C" __global__ void __launch_bounds__(gp::SHORT_SEGMENTS_BLOCK, gp::short_segments_min_blocks<OpT::value_type>()) \
        reduce_segments_short_##name(const In* __restrict__ in, gp::SegmentLanes lanes, gp::u64 n, StoreT::out_type* out) { \
        gp::short_segments_reduce<OpT, In, StoreT>(in, lanes, n, out, gp::reduce::dynamic_smem<In>()); }
K(sum_f32, gp::Sum<gp::f32>, gp::f32, gp::StoreValue<gp::f32>, 4)
K(sum_f64, gp::Sum<gp::f64>, gp::f64, gp::StoreValue<gp::f64>, 4)
K(argmin_f32, gp::ArgMin<gp::f32>, gp::f32, gp::StoreIndex<gp::f32>, 4)
K(sum_f16, gp::Sum<gp::f32>, gp::f16, gp::StoreValue<gp::f32>, 4)
K(mat2_u64, gp::Mat2Product<gp::u64>, gp::Mat2<gp::u64>, gp::StoreValue<gp::Mat2<gp::u64>>, 4)
K(mat2_u32, gp::Mat2Product<gp::u32>, gp::Mat2<gp::u32>, gp::StoreValue<gp::Mat2<gp::u32>>, 4)
K(argmin_f64, gp::ArgMin<gp::f64>, gp::f64, gp::StoreIndex<gp::f64>, 4)
K(sum_i32_to_i64, gp::Sum<gp::i64>, gp::i32, gp::StoreValue<gp::i64>, 4)
K(sum_u64, gp::Sum<gp::u64>, gp::u64, gp::StoreValue<gp::u64>, 4)
K(affine_f32, gp::AffineCompose<gp::f32>, gp::Affine<gp::f32>, gp::StoreValue<gp::Affine<gp::f32>>, 4)
K(max_i32, gp::Max<gp::i32>, gp::i32, gp::StoreValue<gp::i32>, 4)
K(argmax_f16, gp::ArgMax<gp::f32>, gp::f16, gp::StoreIndex<gp::f32>, 4)
