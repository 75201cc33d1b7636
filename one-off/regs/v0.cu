// Thirty-first session: registers of the staged columns scan with both lane widths inline (k_max, k_sum, k_maxi) against
// one width alone (k_*4, k_max2). `python3 one-off/nvrtc-check.py one-off/regs/v0.cu compute_90` prints them.
#include <gpu_prims/l2_prefetch.cuh>
#include <gpu_prims/lanes_columns_staged.cuh>
extern __shared__ __align__(16) unsigned char scan_staged_smem[];
#define K(opname, OpT, tname, T, LWSEL)                                                   \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                       \
        k_##opname##_##tname(const T* in, gp::ColumnLanes in_lanes, T* out, gp::ColumnLanes out_lanes, \
            gp::u32* state, void* values, gp::u32 exclusive, gp::u64 begin, gp::u64 end,  \
            gp::u64 prefetch_spans) {                                                    \
        LWSEL<OpT<T>, gp::COLUMN_LONG_ROWS>(in, in_lanes, out, out_lanes, state, values, exclusive, begin, end, \
            gp::L2Prefetch{prefetch_spans}, gp::ColumnStage<gp::COLUMN_STAGED_ROWS>{scan_staged_smem}); \
    }
template <class Op, int R, class P, class S>
__device__ __forceinline__ void lw4(const typename Op::value_type* in, gp::ColumnLanes ci, typename Op::value_type* out,
    gp::ColumnLanes co, gp::u32* state, void* values, gp::u32 exclusive, gp::u64 begin, gp::u64 end, P p, S s) {
    gp::lanes_scan_columns_lw<Op, 4, R>(in, ci, out, co, state, values, exclusive, begin, end, p, s);
}
template <class Op, int R, class P, class S>
__device__ __forceinline__ void lw2(const typename Op::value_type* in, gp::ColumnLanes ci, typename Op::value_type* out,
    gp::ColumnLanes co, gp::u32* state, void* values, gp::u32 exclusive, gp::u64 begin, gp::u64 end, P p, S s) {
    gp::lanes_scan_columns_lw<Op, 2, R>(in, ci, out, co, state, values, exclusive, begin, end, p, s);
}
#define BOTH gp::lanes_scan_columns
K(max, gp::Max, f32, gp::f32, BOTH)
K(max4, gp::Max, f32, gp::f32, lw4)
K(max2, gp::Max, f32, gp::f32, lw2)
K(sum, gp::Sum, f32, gp::f32, BOTH)
K(sum4, gp::Sum, f32, gp::f32, lw4)
K(maxi, gp::Max, i32, gp::i32, BOTH)
K(maxi4, gp::Max, i32, gp::i32, lw4)
