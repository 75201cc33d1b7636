// Thirty-third session: the short columns reduction with vector stores (registers, spills).
#include <gpu_prims/lanes.cuh>
#include <gpu_prims/lanes_columns.cuh>
#define S(name, OpT, In, V)                                                                       \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, gp::COLUMNS_SHORT_MIN_BLOCKS) \
        reduce_columns_short_##name(const In* __restrict__ in, gp::ColumnLanes c, V* out) {       \
        gp::lanes_reduce_columns_short<OpT<V>, In, gp::StoreValue<V>>(in, c, out);               \
    }
S(sum_f16_to_f32, gp::Sum, gp::f16, gp::f32)
S(max_f16_to_f32, gp::Max, gp::f16, gp::f32)
S(sum_f32, gp::Sum, gp::f32, gp::f32)
S(sum_i32, gp::Sum, gp::i32, gp::i32)
S(max_f64, gp::Max, gp::f64, gp::f64)
S(sum_u64, gp::Sum, gp::u64, gp::u64)
