// Thirty-first session: the same kernels with each lane width a __noinline__ function of its own (what
// lanes_columns.cuh now does for all but the sums). `python3 one-off/nvrtc-check.py one-off/regs/v1.cu compute_90`.
#include <gpu_prims/l2_prefetch.cuh>
#include <gpu_prims/lanes_columns_staged.cuh>
extern __shared__ __align__(16) unsigned char scan_staged_smem[];
template <class Op, int LW, int R, class P, class S>
__device__ __noinline__ void lwn(const typename Op::value_type* in, gp::ColumnLanes ci, typename Op::value_type* out,
    gp::ColumnLanes co, gp::u32* state, void* values, gp::u32 exclusive, gp::u64 begin, gp::u64 end, P p, S s) {
    gp::lanes_scan_columns_lw<Op, LW, R>(in, ci, out, co, state, values, exclusive, begin, end, p, s);
}
#define K(opname, OpT, tname, T)                                                   \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                       \
        k_##opname##_##tname(const T* in, gp::ColumnLanes in_lanes, T* out, gp::ColumnLanes out_lanes, \
            gp::u32* state, void* values, gp::u32 exclusive, gp::u64 begin, gp::u64 end,  \
            gp::u64 prefetch_spans) {                                                    \
        if (in_lanes.rv == 2) lwn<OpT<T>, 2, gp::COLUMN_LONG_ROWS>(in, in_lanes, out, out_lanes, state, values, exclusive, begin, end, \
            gp::L2Prefetch{prefetch_spans}, gp::ColumnStage<gp::COLUMN_STAGED_ROWS>{scan_staged_smem}); \
        else lwn<OpT<T>, 4, gp::COLUMN_LONG_ROWS>(in, in_lanes, out, out_lanes, state, values, exclusive, begin, end, \
            gp::L2Prefetch{prefetch_spans}, gp::ColumnStage<gp::COLUMN_STAGED_ROWS>{scan_staged_smem}); \
    }
K(max, gp::Max, f32, gp::f32)
K(min, gp::Min, f32, gp::f32)
K(sum, gp::Sum, f32, gp::f32)
K(maxi, gp::Max, i32, gp::i32)
K(prod, gp::Prod, u32, gp::u32)
