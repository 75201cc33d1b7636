// Thirty-first session: the columns reduction (5 blocks an SM) with both lane widths inline
// (k_*) against each width a __noinline__ function (a_*). python3 one-off/nvrtc-check.py one-off/regs/r0.cu compute_70
#include <gpu_prims/lanes.cuh>
#include <gpu_prims/lanes_columns.cuh>
template <class Op, class In, class Store, int LW>
__device__ __noinline__ void apart(const In* in, gp::ColumnLanes c, typename Store::out_type* out,
                                   typename Op::value_type* partials, unsigned* counters) {
    gp::lanes_reduce_columns_lw<Op, In, Store, LW>(in, c, out, partials, counters);
}
#define K(name, OpT, T)                                                                          \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, 5) k_##name(                   \
        const T* __restrict__ in, gp::ColumnLanes c, T* out, T* partials, unsigned* counters) {  \
        gp::lanes_reduce_columns<OpT<T>, T, gp::StoreValue<T>>(in, c, out, partials, counters);  \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, 5) a_##name(                   \
        const T* __restrict__ in, gp::ColumnLanes c, T* out, T* partials, unsigned* counters) {  \
        if (c.rv == 2) apart<OpT<T>, T, gp::StoreValue<T>, 2>(in, c, out, partials, counters);   \
        else apart<OpT<T>, T, gp::StoreValue<T>, 4>(in, c, out, partials, counters);             \
    }
K(sum_i32, gp::Sum, gp::i32)
K(sum_f32, gp::Sum, gp::f32)
K(max_i32, gp::Max, gp::i32)
K(xor_u32, gp::BitXor, gp::u32)
// LW 4 alone, inline (w4_*).
#define W4(name, OpT, T)                                                                         \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, 5) w4_##name(                  \
        const T* __restrict__ in, gp::ColumnLanes c, T* out, T* partials, unsigned* counters) {  \
        gp::lanes_reduce_columns_lw<OpT<T>, T, gp::StoreValue<T>, 4>(in, c, out, partials, counters); \
    }
W4(sum_i32, gp::Sum, gp::i32)
W4(sum_f32, gp::Sum, gp::f32)
// LW 2 alone, inline (w2_*).
#define W2(name, OpT, T)                                                                         \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, 5) w2_##name(                  \
        const T* __restrict__ in, gp::ColumnLanes c, T* out, T* partials, unsigned* counters) {  \
        gp::lanes_reduce_columns_lw<OpT<T>, T, gp::StoreValue<T>, 2>(in, c, out, partials, counters); \
    }
W2(sum_i32, gp::Sum, gp::i32)
W2(sum_f32, gp::Sum, gp::f32)
W2(max_i32, gp::Max, gp::i32)
W2(xor_u32, gp::BitXor, gp::u32)
W4(max_i32, gp::Max, gp::i32)
W4(xor_u32, gp::BitXor, gp::u32)
W4(max_f32, gp::Max, gp::f32)
K(max_f32, gp::Max, gp::f32)
// f16 summed in f32: eight lanes a vector alone (w8_*), and through the dispatch (kh_*).
extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, 5) w8_sum_f16(
    const gp::f16* __restrict__ in, gp::ColumnLanes c, gp::f32* out, gp::f32* partials, unsigned* counters) {
    gp::lanes_reduce_columns_lw<gp::Sum<gp::f32>, gp::f16, gp::StoreValue<gp::f32>, 8>(in, c, out, partials, counters);
}
extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, 5) kh_sum_f16(
    const gp::f16* __restrict__ in, gp::ColumnLanes c, gp::f32* out, gp::f32* partials, unsigned* counters) {
    gp::lanes_reduce_columns<gp::Sum<gp::f32>, gp::f16, gp::StoreValue<gp::f32>>(in, c, out, partials, counters);
}
// Thirty-second session: the thread-per-lane-group columns reduction of 16-bit values in f32.
#define SH(name, OpT, H)                                                                         \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, gp::COLUMNS_SHORT_MIN_BLOCKS)   \
        sh_##name(const H* __restrict__ in, gp::ColumnLanes c, gp::f32* out) {                   \
        gp::lanes_reduce_columns_short<OpT<gp::f32>, H, gp::StoreValue<gp::f32>>(in, c, out);    \
    }
SH(sum_f16, gp::Sum, gp::f16)
SH(max_f16, gp::Max, gp::f16)
SH(sum_bf16, gp::Sum, gp::bf16)
SH(max_bf16, gp::Max, gp::bf16)
SH(prod_f16, gp::Prod, gp::f16)
extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, gp::COLUMNS_SHORT_MIN_BLOCKS)
    sh_sum_f32(const gp::f32* __restrict__ in, gp::ColumnLanes c, gp::f32* out) {
    gp::lanes_reduce_columns_short<gp::Sum<gp::f32>, gp::f32, gp::StoreValue<gp::f32>>(in, c, out);
}
