// Long column spans longer than a thread's registers hold (compute_80+): the stage policy of
// lanes_scan_columns (lanes_columns.cuh) that gives each thread ROWS more vector rows of its
// span in dynamic shared memory, right after its R rows in registers. The rows come in by
// cp.async, issued before the register loads, so they are in flight without holding registers;
// the thread scans them in place after its register rows and writes them after those. Doubling
// a long span this way (32 + 32 rows, 128 KiB a block of 256 threads) halves the look-back chain
// that sets the pace of few tiles of many spans (docs/shapes.md, twenty-eighth session).
#pragma once
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/lanes_columns.cuh>

namespace gp {

// Vector rows a thread of a staged long-span scan holds in shared memory (scan_columns_staged_*).
constexpr int COLUMN_STAGED_ROWS = 32;

// ROWS vector rows a thread in shared memory: row r of thread t at vector r * blockDim.x + t of
// `smem` (ROWS * blockDim.x vectors of 16 bytes). A thread touches only its own vectors, so its
// own cp.async wait is all the ordering its reads need.
template <int SR> struct ColumnStage {
    static constexpr int ROWS = SR;
    unsigned char* smem;

    template <class Vw> __device__ __forceinline__ Vw* row(int r) const {
        return reinterpret_cast<Vw*>(smem) + (u32)r * blockDim.x + threadIdx.x;
    }

    // Starts copying rows [v, v + ROWS) of the lane group at `src` (vector rows `stride`
    // elements apart); rows past `vrows` (or every row, `!valid`) hold the identity.
    template <class Op, class T>
    __device__ __forceinline__ void load(const T* src, i64 stride, u64 v, u64 vrows,
                                         bool valid) const {
        constexpr int W = VecWidth<T>::value;
        typedef Vec<T, W> Vw;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            if (valid && v + r < vrows) {
                async_copy_16(row<Vw>(r), src + (i64)(v + r) * stride);
            } else {
                Vw id;
#pragma unroll
                for (int i = 0; i < W; ++i) id.v[i] = Op::identity();
                *row<Vw>(r) = id;
            }
        }
        async_copy_commit();
    }

    // Waits for the copies, then continues each lane's inclusive scan `run` (the register
    // rows' totals) over the staged rows in place.
    template <class Op, int LW>
    __device__ __forceinline__ void scan(typename Op::value_type (&run)[LW], Op op) const {
        typedef typename Op::value_type T;
        constexpr int W = VecWidth<T>::value;
        typedef Vec<T, W> Vw;
        async_copy_wait_all();
#pragma unroll 8
        for (int r = 0; r < ROWS; ++r) {
            Vw x = *row<Vw>(r);
#pragma unroll
            for (int i = 0; i < W; ++i) {
                run[i % LW] = op(run[i % LW], x.v[i]);
                x.v[i] = run[i % LW];
            }
            *row<Vw>(r) = x;
        }
    }

    // Writes the staged rows [v, v + ROWS) below `vrows` to the lane group at `dst`: inclusive,
    // or (exclusive) shifted one row of each lane, the first staged row's shift coming from
    // `last`, the last register row; `before` applied on the left.
    template <class Op, int LW, class T>
    __device__ __forceinline__ void store(T* dst, i64 stride, u64 v, u64 vrows,
                                          const Vec<T, VecWidth<T>::value>& last,
                                          const T (&before)[LW], bool exclusive, Op op) const {
        constexpr int W = VecWidth<T>::value;
        typedef Vec<T, W> Vw;
        Vw prev = last;
#pragma unroll 8
        for (int r = 0; r < ROWS; ++r) {
            if (v + r >= vrows) break;
            const Vw x = *row<Vw>(r);
            Vw y;
#pragma unroll
            for (int i = 0; i < W; ++i) {
                const T a = !exclusive ? x.v[i] : i >= LW ? x.v[i - LW] : prev.v[i + W - LW];
                y.v[i] = op(before[i % LW], a);
            }
            *reinterpret_cast<Vw*>(dst + (i64)(v + r) * stride) = y;
            prev = x;
        }
    }
};

}  // namespace gp
