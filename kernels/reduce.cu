// gpu-reduce kernels: every reduction technique of the sources plus the bandwidth-bound
// default, as thin templates over the layered headers, instantiated per (operator, type).
//
// Entry points (see docs/reduce.md for which Algorithm launches which):
//   reduce_<family>_<kind>                 one-launch signature
//       (const In* in, u64 n, V* partials, V* out, unsigned* counter)
//     family: tree, pairwise, warp_smem, warp_smem_noncommutative, warp_smem_padded, warp_shuffle,
//             auto
//     With gridDim.x == 1 the block writes *out directly. Otherwise block b writes
//     partials[b]; then, if `counter` is not null, the last block to finish (gp::is_last_block;
//     *counter must be 0 before the launch and is 0 again after it) merges partials[0 ..
//     gridDim.x) into *out. With a null counter the caller launches a second pass.
//   reduce_unrolled_<kind>(const In* in, V* out, u64 n, unsigned uf)
//     one pass of the in-place unrolled reduction: t = n / uf threads; thread i folds
//     in[i + k t] (k < uf) into out[i], thread 0 also the orphans in[t uf .. n). `in` may
//     equal `out`. Needs 1 <= uf <= n.
//   reduce_axis_<kind>(const In* in, gp::AxisLanes lanes, gp::LaneTiling tiling, Out* out,
//                      V* partials, unsigned* counters)
//   reduce_segments_<kind>(..., gp::SegmentLanes lanes, ...)
//   reduce_axis_in_warp_<kind>, reduce_segments_in_warp_<kind>: as reduce_axis_<kind> and
//     reduce_segments_<kind>, for plans with every lane within one warp and one split (Wh == 1,
//     grid y 1)
//   reduce_segment_tiles_<kind>(const In* in, gp::SegmentTiles st, Out* out, u32* counter,
//                               u32* flags, void* aggs, void* incs)
//     segments read as flat tiles of 256 · ITEMS values (gpu_prims/segment_tiles.cuh), one
//     block per tile, look-back status as the scan's; dynamic shared memory 256 · ITEMS · |V|
//   reduce_segments_short_<kind>(const In* in, gp::SegmentLanes lanes, u64 n,
//                                const u64* ranges, u64 blocks, Out* out)
//     short segments, a thread each (gpu_prims/segments_short.cuh): 256 threads, K · 256
//     segments per block (grid-stride), dynamic shared memory of one chunk; K and the chunk
//     from ShortSegmentsPolicyFor<V> (2048 and 48 KiB for 4-byte V, 1024 and 32 KiB otherwise)
//   reduce_segment_pairs_<kind>(..., gp::SegmentPairLanes lanes, ...): as reduce_segments_<kind>,
//     over chosen segments given as [start, end) pairs (the long ones the short-segments kernel
//     leaves out), results in pair order
//   reduce_scatter_w<W>(const u32* src, const u64* list, u64 count, u32* dst)
//     dst[list[i]] = src[i] for values of W 4-byte words (W = 1, 2, 4, 8)
//   reduce_packed_<kind>(const In* in, u64 count, u32 log2n, Out* out)
//     lanes that are the rows of one packed array, n = 2^log2n <= 32 vectors (not the monoids)
//   reduce_columns_<kind>(const In* in, gp::ColumnLanes c, Out* out, V* partials,
//                         unsigned* counters)
//     lanes side by side, read as 16-byte vectors of neighbouring lanes
//     (gpu_prims/lanes_columns.cuh; grid (tiles, splits); not the monoids)
//   reduce_rebase_arg_pairs(u64* pairs, u64 count, u64 chunk)
//   reduce_merge_lanes_<argkind>(const In* in, u64 lanes, u64 count, const u64* local, u64 base,
//                                ArgVal* best, u32 first)
//     argmin/argmax of chunked host data (gpu_prims/arg_merge.cuh): chunk partials made
//     global before their second pass; one chunk's slices merged into the lanes' best pairs
//   reduce_columns_short_<kind>(const In* in, gp::ColumnLanes c, V* out)
//     plain values, and 16-bit floats in f32 (<op>_<h>_to_f32): 256 lane groups across, one
//     thread per lane group (two per thread for lanes of up to 4 vector rows), 8 rows per
//     step; grid-stride over the tiles
//     shaped data: every lane of an axis of an N-D array, or every segment, reduced into
//     out[lane] (gpu_prims/lanes.cuh: lanes_reduce). Out is V, except argmin/argmax: the index
//     along the lane, a u64. Grid (tiles, splits); 256 threads.
//   <kind>: <op>_<type> (sum_f32, and_u64, ...), argmin_<type> / argmax_<type> (the input is
//   values; the accumulator an ArgVal pair), <op>_<in>_to_<acc> (widening: sum_i32_to_i64),
//   mat2_<type> / affine_<type> (non-commutative), argmin_<type>_partials (pairs in, pairs
//   out: second passes of argmin/argmax).
#include <gpu_prims/arg_merge.cuh>
#include <gpu_prims/block.cuh>
#include <gpu_prims/block_reduce_tree.cuh>
#include <gpu_prims/lanes.cuh>
#include <gpu_prims/lanes_columns.cuh>
#include <gpu_prims/load.cuh>
#include <gpu_prims/reduce_arg.cuh>
#include <gpu_prims/segment_tiles.cuh>
#include <gpu_prims/segments_short.cuh>
#include <gpu_prims/sync.cuh>
#include <gpu_prims/warp_reduce_smem.cuh>

namespace gp {
namespace reduce {

// Dynamic shared memory as raw bytes, typed by each template (one declaration for all types).
extern __shared__ __align__(16) unsigned char dynamic_smem_bytes[];
template <class V> __device__ __forceinline__ V* dynamic_smem() {
    return reinterpret_cast<V*>(dynamic_smem_bytes);
}

// Read-only loads through the non-coherent path where the hardware has one for the type.
template <class T> __device__ __forceinline__ T load_ro(const T* p) { return *p; }
template <> __device__ __forceinline__ i32 load_ro<i32>(const i32* p) { return __ldg(p); }
template <> __device__ __forceinline__ u32 load_ro<u32>(const u32* p) { return __ldg(p); }
template <> __device__ __forceinline__ i64 load_ro<i64>(const i64* p) { return __ldg(p); }
template <> __device__ __forceinline__ u64 load_ro<u64>(const u64* p) { return __ldg(p); }
template <> __device__ __forceinline__ f32 load_ro<f32>(const f32* p) { return __ldg(p); }
template <> __device__ __forceinline__ f64 load_ro<f64>(const f64* p) { return __ldg(p); }

// Element i of the kernel's input, converted to the accumulator type.
template <class In, class V> struct InputLoad {
    const In* p;
    __device__ __forceinline__ V operator()(u64 i) const {
        return ReduceConvert<In, V>::apply(load_ro(p + i), i);
    }
};

// Partial i, written by another block of this launch: a strong load (never the read-only
// path; see gpu_prims/sync.cuh).
template <class V> struct PartialLoad {
    const V* p;
    __device__ __forceinline__ V operator()(u64 i) const { return load_coherent(p + i); }
};

// Round 0 reads the input, round 1 (the last block's merge) the partials. One code path for
// both rounds keeps a single copy of the block reduction in each kernel (PTX size).
template <class In, class V> struct RoundLoad {
    const In* in;
    const V* partials;
    bool merge;  // uniform
    __device__ __forceinline__ V operator()(u64 i) const {
        return merge ? load_coherent(partials + i)
                     : ReduceConvert<In, V>::apply(load_ro(in + i), i);
    }
};

// The contiguous chunk of [0, n) that block b of the grid owns (order-preserving kernels).
__device__ __forceinline__ void block_chunk(u64 n, u64* begin, u64* end) {
    const u64 per = (n + gridDim.x - 1) / gridDim.x;
    const u64 b = (u64)blockIdx.x * per;
    *begin = b < n ? b : n;
    *end = (n - *begin) < per ? n : *begin + per;
}

// Hands the block's result on: straight to *out for a one-block grid, else to partials[b];
// returns true in every thread of the one block that must merge the partials (last-block
// guard, when `counter` is given). Called by every thread; the branches are uniform.
template <class V>
__device__ __forceinline__ bool publish(V r, V* partials, V* out, unsigned* counter) {
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = r;
        return false;
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = r;
    if (counter == nullptr) return false;
    return is_last_block(counter);
}

// Block-stride fold of the partials, for the last block of the commutative kernels.
template <class Op> __device__ __forceinline__ typename Op::value_type
fold_partials(const typename Op::value_type* partials, Op op) {
    const PartialLoad<typename Op::value_type> part{partials};
    typename Op::value_type acc = Op::identity();
    for (u64 i = threadIdx.x; i < gridDim.x; i += blockDim.x) acc = op(acc, part(i));
    return acc;
}

// =============================================================================================
// TEACHING: the source documents' reduction techniques (Algorithm::Tree … Unrolled), kept as
//           written up in docs/reduce.md and selectable by name. Algorithm::Auto uses one of
//           them only for non-commutative monoids (6d, warp_shuffle, which keeps order).
// =============================================================================================

// Every kernel below runs at most two rounds: round 0 reduces the block's share of the
// input; if publish() elects this block as the last one, round 1 reduces the partials with
// the same block reduction. Between the rounds, the guard's barriers separate the first
// round's reads of shared memory from the second round's writes.

// ---- 1, 3, 4: grid-stride accumulation + shared-memory halving tree (commutative) --------
template <class Op, class In>
__device__ __forceinline__ void tree(const In* __restrict__ in, u64 n,
    typename Op::value_type* partials, typename Op::value_type* out, unsigned* counter) {
    typedef typename Op::value_type V;
    Op op;
    V* s = dynamic_smem<V>();  // blockDim.x values
    const InputLoad<In, V> load{in};
    V acc = Op::identity();
    for (u64 i = global_thread_index(); i < n; i += grid_thread_count()) acc = op(acc, load(i));
#pragma unroll 1
    for (int round = 0;; ++round) {
        const V r = block_reduce_tree(acc, op, s);
        if (round == 1) {
            if (threadIdx.x == 0) *out = r;
            return;
        }
        if (!publish(r, partials, out, counter)) return;
        acc = fold_partials(partials, op);
    }
}

// ---- 6a: grid-stride accumulation + block reduction from shared-memory warp reductions ---
template <class Op, class In>
__device__ __forceinline__ void warp_smem(const In* __restrict__ in, u64 n,
    typename Op::value_type* partials, typename Op::value_type* out, unsigned* counter) {
    typedef typename Op::value_type V;
    Op op;
    V* s = dynamic_smem<V>();  // block_reduce_warp_smem_slots<COMMUTATIVE>(blockDim.x) values
    const InputLoad<In, V> load{in};
    V acc = Op::identity();
    for (u64 i = global_thread_index(); i < n; i += grid_thread_count()) acc = op(acc, load(i));
#pragma unroll 1
    for (int round = 0;; ++round) {
        const V r = block_reduce_warp_smem<WARP_SMEM_COMMUTATIVE>(acc, op, s);
        if (round == 1) {
            if (threadIdx.x == 0) *out = r;
            return;
        }
        if (!publish(r, partials, out, counter)) return;
        acc = fold_partials(partials, op);
    }
}

// ---- 2, 5: order-preserving pairwise reduction, a contiguous chunk per block -------------
template <class Op, class In>
__device__ __forceinline__ void pairwise(const In* __restrict__ in, u64 n,
    typename Op::value_type* partials, typename Op::value_type* out, unsigned* counter) {
    typedef typename Op::value_type V;
    Op op;
    V* s = dynamic_smem<V>();  // 2 * blockDim.x values
    u64 begin, end;
    block_chunk(n, &begin, &end);
#pragma unroll 1
    for (int round = 0;; ++round) {
        const RoundLoad<In, V> load{in, partials, round == 1};
        const V r = block_reduce_pairwise(load, begin, end, op, s);
        if (round == 1) {
            if (threadIdx.x == 0) *out = r;
            return;
        }
        if (!publish(r, partials, out, counter)) return;
        begin = 0;
        end = gridDim.x;
    }
}

// ---- 6b, 6c, 6d: order-preserving tiles, block reduction built from warp reductions ------
enum { ORDERED_SHUFFLE = 3 };
constexpr int ORDERED_ITEMS = 4;  // consecutive elements per thread per tile

template <int Kind, class Op> __device__ __forceinline__ typename Op::value_type
block_reduce_kind(typename Op::value_type v, Op op, typename Op::value_type* s) {
    if constexpr (Kind == ORDERED_SHUFFLE) {
        return block_reduce(v, op, s);
    } else {
        return block_reduce_warp_smem<Kind>(v, op, s);
    }
}

// Reduces load(begin .. end) in order: tiles of blockDim.x * ORDERED_ITEMS elements, thread
// t folding ORDERED_ITEMS consecutive ones, then a block reduction in thread order; thread 0
// accumulates the tiles. Result valid in thread 0.
template <int Kind, class Op, class Load> __device__ __forceinline__ typename Op::value_type
reduce_range_ordered(Load load, u64 begin, u64 end, Op op, typename Op::value_type* s) {
    typedef typename Op::value_type V;
    const u64 tile = (u64)blockDim.x * ORDERED_ITEMS;
    V total = Op::identity();
    for (u64 base = begin; base < end; base += tile) {  // uniform
        const u64 first = base + (u64)threadIdx.x * ORDERED_ITEMS;
        V v = Op::identity();
#pragma unroll
        for (int j = 0; j < ORDERED_ITEMS; ++j) {
            if (first + j < end) v = op(v, load(first + j));
        }
        const V r = block_reduce_kind<Kind>(v, op, s);
        if (threadIdx.x == 0) total = op(total, r);
        __syncthreads();  // `s` is rewritten by the next tile
    }
    return total;
}

template <int Kind, class Op, class In>
__device__ __forceinline__ void ordered(const In* __restrict__ in, u64 n,
    typename Op::value_type* partials, typename Op::value_type* out, unsigned* counter) {
    typedef typename Op::value_type V;
    Op op;
    // Shuffle: 32 values; shared-memory warps: block_reduce_warp_smem_slots<Kind>(blockDim.x).
    V* s = dynamic_smem<V>();
    u64 begin, end;
    block_chunk(n, &begin, &end);
#pragma unroll 1
    for (int round = 0;; ++round) {
        const RoundLoad<In, V> load{in, partials, round == 1};
        const V r = reduce_range_ordered<Kind>(load, begin, end, op, s);
        if (round == 1) {
            if (threadIdx.x == 0) *out = r;
            return;
        }
        if (!publish(r, partials, out, counter)) return;
        begin = 0;
        end = gridDim.x;
    }
}

// ---- 7: the in-place unrolled reduction (one pass) ---------------------------------------
// Writes go to out[0 .. t), reads come from in[t .. n) and in[i] of the writing thread i, so
// with in == out no location is read by one thread and written by another.
template <class Op, class In>
__device__ __forceinline__ void unrolled(const In* in, typename Op::value_type* out, u64 n,
                                         unsigned uf) {
    typedef typename Op::value_type V;
    Op op;
    const u64 t = n / uf;
    const u64 i = global_thread_index();
    if (i >= t) return;
    V acc = ReduceConvert<In, V>::apply(in[i], i);
#pragma unroll 4
    for (unsigned k = 1; k < uf; ++k) {
        const u64 j = i + t * k;
        acc = op(acc, ReduceConvert<In, V>::apply(in[j], j));
    }
    if (i == 0) {
        for (u64 j = t * uf; j < n; ++j) acc = op(acc, ReduceConvert<In, V>::apply(in[j], j));
    }
    out[i] = acc;
}

// =============================================================================================
// PRODUCTION: the default (Algorithm::Auto) — what users run; tuned, benchmarked against CUB.
// =============================================================================================

// ---- 8: the default: one launch at memory bandwidth (commutative operators) --------------
// The 16-byte-aligned body is cut into chunks of AUTO_UNROLL · 32 consecutive vectors, dealt
// to the warps of the grid in turn (warp w takes chunks w, w + warps, ...): each thread issues
// AUTO_UNROLL independent 16-byte loads, lane l of the warp reading vectors l, l + 32, ... of
// the chunk, so every load instruction is one fully coalesced 512-byte row and a warp reads
// 2 KiB of consecutive memory per step (measured faster than loads a whole grid apart; see
// docs/perf-notes.md). The vectors after the last whole chunk, then the unaligned head and
// tail (fewer than one vector each), go to the first threads. Each thread folds in registers;
// then a warp-shuffle block reduction; the last block merges the per-block partials in block
// order. The grid is fixed for a given n and device, and every combine happens in a fixed
// order: run-to-run identical results. blockDim.x is a multiple of 32.
constexpr int AUTO_UNROLL = 4;

template <class Op, class In>
__device__ __forceinline__ void auto_reduce(const In* __restrict__ in, u64 n,
    typename Op::value_type* partials, typename Op::value_type* out, unsigned* counter) {
    typedef typename Op::value_type V;
    typedef ReduceConvert<In, V> Cv;
    constexpr int W = VecWidth<In>::value;
    constexpr u64 CHUNK = 32 * AUTO_UNROLL;  // vectors per warp step
    Op op;
    __shared__ V s[32];
    const u64 tid = global_thread_index();
    const u64 threads = grid_thread_count();
    const u64 head = elements_to_alignment(in, n, 16);
    const u64 vectors = (n - head) / W;
    const u64 tail = head + vectors * W;
    const u64 chunks = vectors / CHUNK;
    const u64 warps = threads >> 5;
    const u64 lane = threadIdx.x & 31u;
    const In* body = in + head;
    V acc = Op::identity();
    for (u64 c = tid >> 5; c < chunks; c += warps) {
        const u64 v = c * CHUNK + lane;
        Vec<In> x[AUTO_UNROLL];
#pragma unroll
        for (int k = 0; k < AUTO_UNROLL; ++k) x[k] = load_vec_streaming(body + (v + 32 * k) * W);
#pragma unroll
        for (int k = 0; k < AUTO_UNROLL; ++k) {
            const u64 first = head + (v + 32 * k) * W;
#pragma unroll
            for (int j = 0; j < W; ++j) acc = op(acc, Cv::apply(x[k].v[j], first + j));
        }
    }
    for (u64 v = chunks * CHUNK + tid; v < vectors; v += threads) {
        const Vec<In> x = load_vec_streaming(body + v * W);
        const u64 first = head + v * W;
#pragma unroll
        for (int j = 0; j < W; ++j) acc = op(acc, Cv::apply(x.v[j], first + j));
    }
    if (tid < head) acc = op(acc, Cv::apply(load_ro(in + tid), tid));
    if (tid < n - tail) acc = op(acc, Cv::apply(load_ro(in + tail + tid), tail + tid));
#pragma unroll 1
    for (int round = 0;; ++round) {
        const V r = block_reduce(acc, op, s);
        if (round == 1) {
            if (threadIdx.x == 0) *out = r;
            return;
        }
        if (!publish(r, partials, out, counter)) return;
        acc = fold_partials(partials, op);
    }
}

// Resident blocks per SM of the in-warp axis lane kernels: five (48 registers, no spills) for
// accumulators of up to 8 bytes, where ptxas 12.0 gives them 64 unbounded; none for wider ones
// (argmin/argmax of 8-byte values spill 16-40 bytes under four blocks' 64 registers).
template <class V> __host__ __device__ constexpr unsigned axis_in_warp_min_blocks() {
    return sizeof(V) > 8 ? 1 : 5;
}

}  // namespace reduce
}  // namespace gp

// ---- Entry points --------------------------------------------------------------------------
// __launch_bounds__(1024): every entry point can run any block size the Rust side accepts.
#define REDUCE_ENTRY __global__ void __launch_bounds__(1024)

#define REDUCE_ONE_LAUNCH(family, call, name, OpT, In)                                           \
    extern "C" REDUCE_ENTRY reduce_##family##_##name(                                            \
        const In* __restrict__ in, gp::u64 n, OpT::value_type* partials, OpT::value_type* out,    \
        unsigned* counter) {                                                                     \
        gp::reduce::call<OpT, In>(in, n, partials, out, counter);                                \
    }

#define REDUCE_ORDERED(family, kind, name, OpT, In)                                              \
    extern "C" REDUCE_ENTRY reduce_##family##_##name(                                            \
        const In* __restrict__ in, gp::u64 n, OpT::value_type* partials, OpT::value_type* out,    \
        unsigned* counter) {                                                                     \
        gp::reduce::ordered<kind, OpT, In>(in, n, partials, out, counter);                       \
    }

#define REDUCE_UNROLLED(name, OpT, In)                                                           \
    extern "C" REDUCE_ENTRY reduce_unrolled_##name(const In* in, OpT::value_type* out, gp::u64 n, \
                                                   unsigned uf) {                                \
        gp::reduce::unrolled<OpT, In>(in, out, n, uf);                                           \
    }

// Order-preserving families: every operator, commutative or not.
#define REDUCE_ORDER_PRESERVING(name, OpT, In)                                                   \
    REDUCE_ONE_LAUNCH(pairwise, pairwise, name, OpT, In)                                         \
    REDUCE_ORDERED(warp_smem_noncommutative, gp::WARP_SMEM_ORDERED, name, OpT, In)               \
    REDUCE_ORDERED(warp_smem_padded, gp::WARP_SMEM_PADDED, name, OpT, In)                        \
    REDUCE_ORDERED(warp_shuffle, gp::reduce::ORDERED_SHUFFLE, name, OpT, In)

// The families for commutative operators, and the single-block order-preserving one.
#define REDUCE_COMMUTATIVE(name, OpT, In)                                                        \
    REDUCE_ONE_LAUNCH(tree, tree, name, OpT, In)                                                 \
    REDUCE_ONE_LAUNCH(warp_smem, warp_smem, name, OpT, In)                                       \
    REDUCE_ONE_LAUNCH(auto, auto_reduce, name, OpT, In)                                          \
    REDUCE_ONE_LAUNCH(pairwise, pairwise, name, OpT, In)                                         \
    REDUCE_UNROLLED(name, OpT, In)

// sum/prod/min/max on every type, and/or/xor on the integers: every family,
// reduce_<family>_<op>_<type>.
#define REDUCE_PLAIN_AS(name, OpT, In)                                                           \
    REDUCE_COMMUTATIVE(name, OpT, In)                                                            \
    REDUCE_ORDERED(warp_smem_noncommutative, gp::WARP_SMEM_ORDERED, name, OpT, In)               \
    REDUCE_ORDERED(warp_smem_padded, gp::WARP_SMEM_PADDED, name, OpT, In)                        \
    REDUCE_ORDERED(warp_shuffle, gp::reduce::ORDERED_SHUFFLE, name, OpT, In)
#define REDUCE_PLAIN(opname, Op, tname, T) REDUCE_PLAIN_AS(opname##_##tname, Op<T>, T)
GP_FOR_EACH_OP_TYPE(REDUCE_PLAIN)

// argmin/argmax (commutative by construction): the commutative families,
// reduce_<family>_argmin_<type>, plus the pair-to-pair second passes
// reduce_tree_argmin_<type>_partials and reduce_unrolled_argmin_<type>_partials. The
// order-preserving warp families are not instantiated for them (PTX size; they would only
// repeat what warp_smem does, slower).
#define REDUCE_ARG(opname, Op, tname, T)                                                         \
    REDUCE_COMMUTATIVE(opname##_##tname, Op<T>, T)                                               \
    REDUCE_ONE_LAUNCH(tree, tree, opname##_##tname##_partials, Op<T>, gp::ArgVal<T>)             \
    REDUCE_UNROLLED(opname##_##tname##_partials, Op<T>, gp::ArgVal<T>)
GP_FOR_EACH_TYPE(REDUCE_ARG, argmin, gp::ArgMin)
GP_FOR_EACH_TYPE(REDUCE_ARG, argmax, gp::ArgMax)

// Widening: reduce_<family>_<op>_<in>_to_<acc> for the commutative families; second passes
// use the plain <acc> kernels.
#define REDUCE_WIDE(opname, Op)                                                                  \
    REDUCE_COMMUTATIVE(opname##_i32_to_i64, Op<gp::i64>, gp::i32)                                \
    REDUCE_COMMUTATIVE(opname##_u32_to_u64, Op<gp::u64>, gp::u32)                                \
    REDUCE_COMMUTATIVE(opname##_f32_to_f64, Op<gp::f64>, gp::f32)
REDUCE_WIDE(sum, gp::Sum)
REDUCE_WIDE(prod, gp::Prod)

// 16-bit floats, computed in f32 (gpu_prims/types.cuh): sum/prod/min/max read as widening,
// reduce_<family>_<op>_<h>_to_f32, in every family (the order-preserving ones too: for these
// types the plain operators are widened); argmin/argmax over (f32 value, index) pairs,
// reduce_<family>_argmin_<h>, the commutative families. Second passes use the f32 kernels
// (sum_f32, argmin_f32_partials).
#define REDUCE_HALF_OP(opname, Op, tname, H)                                                     \
    REDUCE_PLAIN_AS(opname##_##tname##_to_f32, Op<gp::f32>, H)
#define REDUCE_HALF(tname, H)                                                                    \
    REDUCE_HALF_OP(sum, gp::Sum, tname, H)                                                       \
    REDUCE_HALF_OP(prod, gp::Prod, tname, H)                                                     \
    REDUCE_HALF_OP(min, gp::Min, tname, H)                                                       \
    REDUCE_HALF_OP(max, gp::Max, tname, H)                                                       \
    REDUCE_COMMUTATIVE(argmin_##tname, gp::ArgMin<gp::f32>, H)                                   \
    REDUCE_COMMUTATIVE(argmax_##tname, gp::ArgMax<gp::f32>, H)
REDUCE_HALF(f16, gp::f16)
REDUCE_HALF(bf16, gp::bf16)

// Non-commutative monoids (2x2 matrix product, affine composition): the order-preserving
// families only, reduce_<family>_mat2_<type>, reduce_<family>_affine_<type>.
#define REDUCE_MONOID(opname, Op, tname, T)                                                      \
    REDUCE_ORDER_PRESERVING(opname##_##tname, Op<T>, Op<T>::value_type)
GP_FOR_EACH_MONOID_TYPE(REDUCE_MONOID)

// ---- Shaped data: every lane of an axis, or every segment (gpu_prims/lanes.cuh) -------------
// reduce_axis_<kind> and reduce_segments_<kind> for every kind above: plain, argmin/argmax
// (the index is stored), widening, and the non-commutative monoids.
#define REDUCE_LANES_ONE(shape, Lanes, name, OpT, In, StoreT)                                    \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK) reduce_##shape##_##name(        \
        const In* __restrict__ in, Lanes lanes, gp::LaneTiling tiling, StoreT::out_type* out,    \
        OpT::value_type* partials, unsigned* counters) {                                         \
        gp::lanes_reduce<OpT, In, Lanes, StoreT>(in, lanes, tiling, out, partials, counters);     \
    }
// The segment lanes with a register bound (gp::segment_lanes_min_blocks); IN_WARP: the form
// for plans whose lanes each lie within one warp in one split (gp::lanes_reduce), for segments
// and for axis lanes (gp::reduce::axis_in_warp_min_blocks).
#define REDUCE_LANES_BOUNDED(shape, Lanes, name, OpT, In, StoreT, MINB, IN_WARP)                 \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, MINB) reduce_##shape##_##name(  \
        const In* __restrict__ in, Lanes lanes, gp::LaneTiling tiling, StoreT::out_type* out,    \
        OpT::value_type* partials, unsigned* counters) {                                         \
        gp::lanes_reduce<OpT, In, Lanes, StoreT, IN_WARP>(in, lanes, tiling, out, partials,       \
                                                          counters);                             \
    }
// reduce_segment_tiles_<kind>: segments read as flat tiles (gpu_prims/segment_tiles.cuh), 256
// threads, blockDim.x · ITEMS accumulators of dynamic shared memory.
#define REDUCE_SEGMENT_TILES(name, OpT, In, StoreT)                                              \
    extern "C" __global__ void __launch_bounds__(256) reduce_segment_tiles_##name(               \
        const In* __restrict__ in, gp::SegmentTiles st, StoreT::out_type* out, gp::u32* counter, \
        gp::u32* flags, void* aggs, void* incs) {                                                \
        gp::segment_tiles_reduce<OpT, In, StoreT>(                                               \
            in, st, out, counter, flags, aggs, incs,                                             \
            gp::reduce::dynamic_smem<OpT::value_type>());                                        \
    }
// reduce_segments_short_<kind>: a thread per segment, the block's values staged in shared
// memory (gpu_prims/segments_short.cuh), one staged chunk of dynamic shared memory.
#define REDUCE_SEGMENTS_SHORT(name, OpT, In, StoreT)                                             \
    extern "C" __global__ void __launch_bounds__(                                                \
        gp::SHORT_SEGMENTS_BLOCK, gp::short_segments_min_blocks<OpT::value_type>())              \
        reduce_segments_short_##name(const In* __restrict__ in, gp::SegmentLanes lanes,         \
                                     gp::u64 n, const gp::u64* ranges, gp::u64 blocks,           \
                                     StoreT::out_type* out) {                                    \
        gp::short_segments_reduce<OpT, In, StoreT>(in, lanes, n, ranges, blocks, out,            \
                                                   gp::reduce::dynamic_smem<In>());              \
    }
#define REDUCE_LANES(name, OpT, In, StoreT)                                                      \
    REDUCE_LANES_ONE(axis, gp::AxisLanes, name, OpT, In, StoreT)                                 \
    REDUCE_LANES_BOUNDED(axis_in_warp, gp::AxisLanes, name, OpT, In, StoreT,                     \
                         gp::reduce::axis_in_warp_min_blocks<OpT::value_type>(), true)           \
    REDUCE_LANES_BOUNDED(segments, gp::SegmentLanes, name, OpT, In, StoreT,                      \
                         gp::segment_lanes_min_blocks<OpT::value_type>(), false)                 \
    REDUCE_LANES_BOUNDED(segments_in_warp, gp::SegmentLanes, name, OpT, In, StoreT,              \
                         gp::segment_lanes_min_blocks<OpT::value_type>(), true)                  \
    REDUCE_SEGMENT_TILES(name, OpT, In, StoreT)                                                  \
    REDUCE_SEGMENTS_SHORT(name, OpT, In, StoreT)                                                 \
    REDUCE_LANES_BOUNDED(segment_pairs, gp::SegmentPairLanes, name, OpT, In, StoreT,             \
                         gp::segment_lanes_min_blocks<OpT::value_type>(), false)
// reduce_packed_<kind>: rows of a packed array, n = 2^log2n, and reduce_columns_<kind>: lanes
// side by side as vectors (not for the 16-byte monoids). MINB: resident blocks per SM the
// columns kernel is compiled for (5 for plain values: at 64 registers, the interleaved splits'
// count, 4 blocks cost short lanes side by side 0.06-0.10x copy on an H100; 1 for the
// argmin/argmax and widening kernels, which would spill).
#define REDUCE_PACKED(name, OpT, In, StoreT, MINB)                                               \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK) reduce_packed_##name(          \
        const In* __restrict__ in, gp::u64 count, gp::u32 log2n, StoreT::out_type* out) {        \
        gp::lanes_reduce_packed<OpT, In, StoreT>(in, count, log2n, out);                         \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, MINB) reduce_columns_##name(   \
        const In* __restrict__ in, gp::ColumnLanes c, StoreT::out_type* out,                     \
        OpT::value_type* partials, unsigned* counters) {                                         \
        gp::lanes_reduce_columns<OpT, In, StoreT>(in, c, out, partials, counters);               \
    }

// reduce_columns_short_<kind>: values (plain, or 16-bit floats in f32), not their indices; 8
// vector rows of a lane per step, a thread per lane group (gpu_prims/lanes_columns.cuh:
// lanes_reduce_columns_short).
#define REDUCE_COLUMNS_SHORT(name, OpT, In)                                                      \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK, gp::COLUMNS_SHORT_MIN_BLOCKS)  \
        reduce_columns_short_##name(const In* __restrict__ in, gp::ColumnLanes c,                \
                                    OpT::value_type* out) {                                      \
        gp::lanes_reduce_columns_short<OpT, In, gp::StoreValue<OpT::value_type>>(in, c, out);    \
    }
#define REDUCE_LANES_PLAIN(opname, Op, tname, T)                                                 \
    REDUCE_LANES(opname##_##tname, Op<T>, T, gp::StoreValue<T>)                                  \
    REDUCE_PACKED(opname##_##tname, Op<T>, T, gp::StoreValue<T>, 5)                              \
    REDUCE_COLUMNS_SHORT(opname##_##tname, Op<T>, T)
GP_FOR_EACH_OP_TYPE(REDUCE_LANES_PLAIN)

#define REDUCE_LANES_ARG(opname, Op, tname, T)                                                   \
    REDUCE_LANES(opname##_##tname, Op<T>, T, gp::StoreIndex<T>)                                  \
    REDUCE_PACKED(opname##_##tname, Op<T>, T, gp::StoreIndex<T>, 1)
GP_FOR_EACH_TYPE(REDUCE_LANES_ARG, argmin, gp::ArgMin)
GP_FOR_EACH_TYPE(REDUCE_LANES_ARG, argmax, gp::ArgMax)

#define REDUCE_LANES_WIDE(opname, Op)                                                            \
    REDUCE_LANES(opname##_i32_to_i64, Op<gp::i64>, gp::i32, gp::StoreValue<gp::i64>)                 \
    REDUCE_LANES(opname##_u32_to_u64, Op<gp::u64>, gp::u32, gp::StoreValue<gp::u64>)                 \
    REDUCE_LANES(opname##_f32_to_f64, Op<gp::f64>, gp::f32, gp::StoreValue<gp::f64>)                 \
    REDUCE_PACKED(opname##_i32_to_i64, Op<gp::i64>, gp::i32, gp::StoreValue<gp::i64>, 1)          \
    REDUCE_PACKED(opname##_u32_to_u64, Op<gp::u64>, gp::u32, gp::StoreValue<gp::u64>, 1)          \
    REDUCE_PACKED(opname##_f32_to_f64, Op<gp::f64>, gp::f32, gp::StoreValue<gp::f64>, 1)
REDUCE_LANES_WIDE(sum, gp::Sum)
REDUCE_LANES_WIDE(prod, gp::Prod)

// 16-bit floats: every value result stored as the f32 accumulator (min/max exactly: the host
// converts them back), argmin/argmax as indices.
#define REDUCE_LANES_HALF(tname, H)                                                                \
    REDUCE_LANES(sum_##tname##_to_f32, gp::Sum<gp::f32>, H, gp::StoreValue<gp::f32>)               \
    REDUCE_LANES(prod_##tname##_to_f32, gp::Prod<gp::f32>, H, gp::StoreValue<gp::f32>)             \
    REDUCE_LANES(min_##tname##_to_f32, gp::Min<gp::f32>, H, gp::StoreValue<gp::f32>)               \
    REDUCE_LANES(max_##tname##_to_f32, gp::Max<gp::f32>, H, gp::StoreValue<gp::f32>)               \
    REDUCE_LANES(argmin_##tname, gp::ArgMin<gp::f32>, H, gp::StoreIndex<gp::f32>)                  \
    REDUCE_LANES(argmax_##tname, gp::ArgMax<gp::f32>, H, gp::StoreIndex<gp::f32>)                  \
    REDUCE_PACKED(sum_##tname##_to_f32, gp::Sum<gp::f32>, H, gp::StoreValue<gp::f32>, 5)           \
    REDUCE_PACKED(prod_##tname##_to_f32, gp::Prod<gp::f32>, H, gp::StoreValue<gp::f32>, 5)         \
    REDUCE_PACKED(min_##tname##_to_f32, gp::Min<gp::f32>, H, gp::StoreValue<gp::f32>, 5)           \
    REDUCE_PACKED(max_##tname##_to_f32, gp::Max<gp::f32>, H, gp::StoreValue<gp::f32>, 5)           \
    REDUCE_PACKED(argmin_##tname, gp::ArgMin<gp::f32>, H, gp::StoreIndex<gp::f32>, 1)              \
    REDUCE_PACKED(argmax_##tname, gp::ArgMax<gp::f32>, H, gp::StoreIndex<gp::f32>, 1)              \
    REDUCE_COLUMNS_SHORT(sum_##tname##_to_f32, gp::Sum<gp::f32>, H)                                \
    REDUCE_COLUMNS_SHORT(prod_##tname##_to_f32, gp::Prod<gp::f32>, H)                              \
    REDUCE_COLUMNS_SHORT(min_##tname##_to_f32, gp::Min<gp::f32>, H)                                \
    REDUCE_COLUMNS_SHORT(max_##tname##_to_f32, gp::Max<gp::f32>, H)
REDUCE_LANES_HALF(f16, gp::f16)
REDUCE_LANES_HALF(bf16, gp::bf16)

#define REDUCE_LANES_MONOID(opname, Op, tname, T)                                                \
    REDUCE_LANES(opname##_##tname, Op<T>, Op<T>::value_type, gp::StoreValue<Op<T>::value_type>)
GP_FOR_EACH_MONOID_TYPE(REDUCE_LANES_MONOID)

// ---- results of chosen segments put in place (the long segments of a short-segments run) -----
template <int W> struct Words { gp::u32 w[W]; };
#define REDUCE_SCATTER(W)                                                                        \
    extern "C" __global__ void reduce_scatter_w##W(const gp::u32* __restrict__ src,              \
                                                   const gp::u64* __restrict__ list,             \
                                                   gp::u64 count, gp::u32* dst) {                \
        const Words<W>* s = reinterpret_cast<const Words<W>*>(src);                              \
        Words<W>* d = reinterpret_cast<Words<W>*>(dst);                                          \
        for (gp::u64 i = gp::global_thread_index(); i < count; i += gp::grid_thread_count())     \
            d[__ldg(list + i)] = s[i];                                                           \
    }
REDUCE_SCATTER(1)
REDUCE_SCATTER(2)
REDUCE_SCATTER(4)
REDUCE_SCATTER(8)

// ---- argmin/argmax of chunked host data (gpu_prims/arg_merge.cuh) ----------------------------
extern "C" __global__ void reduce_rebase_arg_pairs(gp::u64* pairs, gp::u64 count, gp::u64 chunk) {
    gp::rebase_arg_pairs(pairs, count, chunk);
}
#define REDUCE_MERGE_LANES(name, OpT, In)                                                        \
    extern "C" __global__ void reduce_merge_lanes_##name(                                        \
        const In* __restrict__ in, gp::u64 lanes, gp::u64 count, const gp::u64* local,           \
        gp::u64 base, OpT::value_type* best, gp::u32 first) {                                    \
        gp::merge_arg_lanes<OpT, In>(in, lanes, count, local, base, best, first != 0);           \
    }
#define REDUCE_MERGE_LANES_TYPE(opname, Op, tname, T) REDUCE_MERGE_LANES(opname##_##tname, Op<T>, T)
GP_FOR_EACH_TYPE(REDUCE_MERGE_LANES_TYPE, argmin, gp::ArgMin)
GP_FOR_EACH_TYPE(REDUCE_MERGE_LANES_TYPE, argmax, gp::ArgMax)
REDUCE_MERGE_LANES(argmin_f16, gp::ArgMin<gp::f32>, gp::f16)
REDUCE_MERGE_LANES(argmax_f16, gp::ArgMax<gp::f32>, gp::f16)
REDUCE_MERGE_LANES(argmin_bf16, gp::ArgMin<gp::f32>, gp::bf16)
REDUCE_MERGE_LANES(argmax_bf16, gp::ArgMax<gp::f32>, gp::bf16)
