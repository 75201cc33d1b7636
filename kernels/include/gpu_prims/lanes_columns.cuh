// Vector columns: lanes side by side in memory (the axis strided), read as 16-byte vectors that
// each hold LW neighbouring lanes of RV consecutive rows (LW * RV = 16 bytes of elements). A
// thread owns one such *lane group*; a block is TX groups across by TY = 256 / TX threads down
// (TX a power of two; long-span scans may launch fewer threads: TY = blockDim.x / TX), so
// every load of a warp is one contiguous run of TX vectors per row.
// This is the columns mapping of lanes.cuh with vector loads and (for scans) a single pass:
//
//   reduce: each thread folds COLUMN_ROWS vector rows per step (rows y, y + TY, ...: a warp
//           reads consecutive rows when TX < 32), then the block folds over y in shared memory;
//           lanes too long for one wave are cut into splits merged by the last arriving block.
//   scan:   a block owns one *span* of TY * R vector rows of its tile (R = COLUMN_ROWS, or
//           COLUMN_LONG_ROWS for few tiles of many spans, plus rows staged in shared memory
//           where a Stage policy gives them; thread y the rows [y R, y R + R)), scans them in
//           registers, across the warp (shuffles) and the
//           warps (shared memory), and gets the prefix of the spans above it by a decoupled
//           look-back per lane group (Merrill & Garland), always folded left to right, so float
//           results do not depend on timing. One read and one write of every element.
//
// The Rust side (gpu_core::ColumnLanes) checks that every vector is 16-byte aligned: inner a
// multiple of LW, axis and outer strides multiples of the vector width, and RV > 1 only for
// dense rows (axis stride = inner = LW) whose count is a multiple of RV.
#pragma once
#include <gpu_prims/prefetch.cuh>
#include <gpu_prims/lanes.cuh>

namespace gp {

// Vector rows each thread takes per step.
constexpr int COLUMN_ROWS = 8;
// Vector rows each thread of a long-span scan holds (scan_columns_long_*): spans four times
// longer for lanes of many spans side by side with few others, where the look-back chain,
// not the memory, sets the pace (one look-back per 128 KiB instead of per 32 KiB).
constexpr int COLUMN_LONG_ROWS = 32;

// Where a long span's rows beyond the R in registers live: nowhere (every span of R rows a
// thread), or shared memory (lanes_columns_staged.cuh's ColumnStage, compute_80+).
struct NoColumnStage {
    static constexpr int ROWS = 0;
};

// One array's lanes in vectors (kernel argument; gpu_core::ColumnLanes).
struct ColumnLanes {
    u64 outer;         // outer indices (each holds groups * LW lanes)
    u64 groups;        // lane groups per outer index
    u64 vrows;         // vector rows per lane (= elements per lane / RV)
    i64 outer_stride;  // elements between outer indices
    i64 vrow_stride;   // elements between consecutive vector rows
    u32 tx;            // lane groups (threads) across a block: a power of two <= 256
    u32 rv;            // rows per vector (RV): 1, 2 (two rows of W / 2 lanes) or, reductions of
                       // 2-byte values only, 4 (four rows of two lanes)
};

// A thread's place in a block of a columns launch.
struct ColumnThread {
    u32 tx, ty, x, y;
    u64 tiles_per_outer;
    __device__ __forceinline__ ColumnThread(const ColumnLanes& c) {
        tx = c.tx;
        // The block may be smaller than LANES_BLOCK (long-span scans, so that blocks share an
        // SM): TY follows the launch.
        ty = blockDim.x / tx;
        x = threadIdx.x % tx;
        y = threadIdx.x / tx;
        tiles_per_outer = (c.groups + tx - 1) / tx;
    }
    __device__ __forceinline__ u64 tiles(const ColumnLanes& c) const {
        return c.outer * tiles_per_outer;
    }
};

// The vector of lane group g (of outer index o) at vector row v.
template <class T>
__device__ __forceinline__ i64 column_offset(const ColumnLanes& c, u64 o, u64 g, u64 v) {
    constexpr int W = VecWidth<T>::value;
    return (i64)o * c.outer_stride + (i64)(g * W) + (i64)v * c.vrow_stride;
}

// ---- Reduction -----------------------------------------------------------------------------

// Folds LW-lane values of the block over y into the threads of y == 0 (fixed tree order).
// `scratch` holds LANES_BLOCK * LW values; ends with a barrier.
template <class Op, int LW>
__device__ __forceinline__ void columns_block_fold(typename Op::value_type (&acc)[LW], Op op,
                                                   const ColumnThread& t,
                                                   typename Op::value_type* scratch) {
#pragma unroll
    for (int k = 0; k < LW; ++k) scratch[threadIdx.x * LW + k] = acc[k];
    __syncthreads();
    for (u32 h = t.ty / 2; h > 0; h /= 2) {
        if (t.y < h) {
#pragma unroll
            for (int k = 0; k < LW; ++k) {
                acc[k] = op(acc[k], scratch[(threadIdx.x + h * t.tx) * LW + k]);
                scratch[threadIdx.x * LW + k] = acc[k];
            }
        }
        __syncthreads();
    }
}

// Reduces every lane of the columns `c` (element values read from `in`) into out[lane], lanes
// numbered o * groups * LW + g * LW + k. Grid: x walks the tiles (grid-stride), y is the
// number of splits S of the vector rows; with S > 1 the splits write partials[s * count +
// lane] and the last split of each tile to arrive (one zeroed counter per block of gridDim.x)
// merges them in split order. Commutative operators only.
// MERGED: LW = W, and each vector holds c.rv rows of LW / c.rv lanes (c.rv = 1, 2 or 4): they
// are folded as LW lanes and each lane's c.rv parts merged after the walk (values whose index
// is not needed only). One loop for every shape: two loops in one kernel took registers for
// their union and spilled under the five-block bound (ptxas: i32 sums 56 bytes, 0 alone).
template <class Op, class In, class Store, int LW, bool MERGED = false>
__device__ __forceinline__ void lanes_reduce_columns_lw(const In* __restrict__ in, ColumnLanes c,
                                                        typename Store::out_type* out,
                                                        typename Op::value_type* partials,
                                                        unsigned* counters) {
    typedef typename Op::value_type V;
    typedef ReduceConvert<In, V> Cv;
    constexpr int W = VecWidth<In>::value;
    constexpr int RV = W / LW;
    static_assert(!MERGED || (RV == 1 && LW % 4 == 0), "MERGED folds whole vectors of lanes");
    typedef Vec<In, W> Vw;
    __shared__ V scratch[LANES_BLOCK * LW];
    Op op;
    const ColumnThread t(c);
    const u64 S = gridDim.y, s = blockIdx.y;
    const u64 tiles = t.tiles(c);
    // This split's vector rows: chunks of one round of the block (COLUMN_ROWS rows per thread),
    // split s taking chunks s, s + S, ...: the S blocks of a tile read neighbouring rows at the
    // same time, as the flat reduction's grid-stride walk does (equal contiguous ranges made S
    // far-apart streams). With S = 1 the order is the plain walk down the lanes.
    const u64 chunk = (u64)COLUMN_ROWS * t.ty;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 o = tile / t.tiles_per_outer;
        const u64 g = (tile % t.tiles_per_outer) * t.tx + t.x;
        const bool valid = g < c.groups;
        V acc[LW];
#pragma unroll
        for (int k = 0; k < LW; ++k) acc[k] = Op::identity();
        if (valid) {
            const In* base = in + column_offset<In>(c, o, g, 0);
            const u64 step = t.ty;
            u64 v0 = s * chunk;
            for (; v0 + chunk <= c.vrows; v0 += S * chunk) {
                const u64 v = v0 + t.y;
                Vw x[COLUMN_ROWS];
#pragma unroll
                for (int r = 0; r < COLUMN_ROWS; ++r)
                    x[r] = *reinterpret_cast<const Vw*>(base + (i64)(v + r * step) * c.vrow_stride);
#pragma unroll
                for (int r = 0; r < COLUMN_ROWS; ++r)
#pragma unroll
                    for (int i = 0; i < W; ++i)
                        acc[i % LW] = op(acc[i % LW], Cv::apply(x[r].v[i], (v + r * step) * RV + i / LW));
            }
            // At most one partly filled chunk is left (this split's next one starts past the end).
            for (u64 v = v0 + t.y; v < c.vrows; v += step) {
                const Vw x = *reinterpret_cast<const Vw*>(base + (i64)v * c.vrow_stride);
#pragma unroll
                for (int i = 0; i < W; ++i)
                    acc[i % LW] = op(acc[i % LW], Cv::apply(x.v[i], v * RV + i / LW));
            }
        }
        columns_block_fold<Op, LW>(acc, op, t, scratch);
        // Lanes a lane group holds: LW, or LW / c.rv for c.rv rows a vector (MERGED only), whose
        // parts merge here (halves, then halves of those). Read from the parameters after the
        // walk and the fold: kept live through them, they cost spills. c.rv is 1, 2 or 4 for
        // 2-byte values, 1 or 2 for 4-byte ones, and each size has the form ptxas fits in 48
        // registers without spills (sm_90 both; sm_80 the 4-byte one): 2-byte values a
        // comparison per lane slot, 4-byte ones a flag (a comparison per slot spilled them on
        // sm_80, the flags spilled 2-byte values on sm_90).
        constexpr bool BYTES2 = sizeof(In) == 2;
        const bool halves = MERGED && c.rv >= 2;
        const int lanes = BYTES2 ? (MERGED ? LW / (int)c.rv : LW) : (halves ? LW / 2 : LW);
        if constexpr (MERGED && BYTES2) {
#pragma unroll
            for (int h = LW / 2; h >= 1; h /= 2)
                if (h >= lanes)
#pragma unroll
                    for (int k = 0; k < h; ++k) acc[k] = op(acc[k], acc[k + h]);
        } else if (halves) {
#pragma unroll
            for (int k = 0; k < LW / 2; ++k) acc[k] = op(acc[k], acc[k + LW / 2]);
        }
        // Whether lane slot k (a constant once unrolled) holds a lane of this group.
        auto holds = [&](int k) {
            if constexpr (BYTES2) return k < lanes;
            else return k < LW / 2 || !halves;
        };
        const u64 count = c.outer * c.groups * lanes;
        const u64 lane0 = (o * c.groups + g) * lanes;
        if (S == 1) {
            if (valid && t.y == 0)
#pragma unroll
                for (int k = 0; k < LW; ++k)
                    if (holds(k)) Store::apply(out, lane0 + k, acc[k]);
            continue;
        }
        if (valid && t.y == 0)
#pragma unroll
            for (int k = 0; k < LW; ++k)
                if (holds(k)) partials[s * count + lane0 + k] = acc[k];
        if (!is_last_arrival(counters + blockIdx.x, (unsigned)S)) continue;
        // The merge: split s2 by thread y = s2 % TY, then the fixed tree over y.
#pragma unroll
        for (int k = 0; k < LW; ++k) acc[k] = Op::identity();
        if (valid) {
#pragma unroll 1
            for (u64 s2 = t.y; s2 < S; s2 += t.ty)
#pragma unroll
                for (int k = 0; k < LW; ++k)
                    if (holds(k))
                        acc[k] = op(acc[k], load_coherent(partials + s2 * count + lane0 + k));
        }
        columns_block_fold<Op, LW>(acc, op, t, scratch);
        if (valid && t.y == 0)
#pragma unroll
            for (int k = 0; k < LW; ++k)
                if (holds(k)) Store::apply(out, lane0 + k, acc[k]);
    }
}

template <class Op, class In, class Store>
__device__ __forceinline__ void lanes_reduce_columns(const In* __restrict__ in, ColumnLanes c,
                                                     typename Store::out_type* out,
                                                     typename Op::value_type* partials,
                                                     unsigned* counters) {
    constexpr int W = VecWidth<In>::value;
    if constexpr (W >= 4) {
        // 4- and 2-byte values (the only ones in rows of two or four lanes: ColumnLanes in
        // gpu_core): one loop for every shape. Values with their index (argmin, argmax) need
        // each element's row: a loop for each (those kernels have room: one block an SM, but
        // not the shared memory of a third: no four rows a vector for them).
        if constexpr (sizeof(In) <= 4 && !IsArgVal<typename Op::value_type>::value) {
            lanes_reduce_columns_lw<Op, In, Store, W, true>(in, c, out, partials, counters);
            return;
        } else if (c.rv == 2) {
            lanes_reduce_columns_lw<Op, In, Store, W / 2>(in, c, out, partials, counters);
            return;
        }
    }
    lanes_reduce_columns_lw<Op, In, Store, W>(in, c, out, partials, counters);
}

// Whether column_group_store can store LW results of type V as 16-byte vectors into `out`:
// values (not indices), whole vectors per group, `out` aligned to 16 bytes (lane groups start
// at multiples of LW lanes).
template <class Store, class V, int LW>
__device__ __forceinline__ bool column_group_vector_stores(const typename Store::out_type* out) {
    constexpr int Q = 16 / (int)sizeof(V);
    if constexpr (StoresValues<Store>::value && Q >= 2 && LW % Q == 0)
        return (u64)out % 16 == 0;
    else
        return false;
}

// The LW results of one lane group into out[lane0, lane0 + LW): 16-byte vectors where `vec`
// (column_group_vector_stores), else a store per lane. A store per lane of 8 f32 results (f16
// input) left each warp store 32 sectors an eighth written: <0.5x copy for lanes of 2-4 values.
template <class Store, class V, int LW>
__device__ __forceinline__ void column_group_store(typename Store::out_type* out, u64 lane0,
                                                   const V (&acc)[LW], bool vec) {
    constexpr int Q = 16 / (int)sizeof(V);
    if constexpr (StoresValues<Store>::value && Q >= 2 && LW % Q == 0) {
        if (vec) {
            Vec<V, Q>* dst = reinterpret_cast<Vec<V, Q>*>(out + lane0);
#pragma unroll
            for (int j = 0; j < LW / Q; ++j) {
                Vec<V, Q> v;
#pragma unroll
                for (int q = 0; q < Q; ++q) v.v[q] = acc[j * Q + q];
                dst[j] = v;
            }
            return;
        }
    }
#pragma unroll
    for (int k = 0; k < LW; ++k) Store::apply(out, lane0 + k, acc[k]);
}

// Lanes with a thread each (a block of 256 lane groups across, no splits): H lane groups a
// block apart per thread, RR rows of them loaded before any is folded, then the next RR rows
// (lanes of at most RR rows: one step), and no block fold or barrier (a lane of a few rows
// has too few bytes to hide one; many lanes of up to a few hundred rows fill the GPU without
// it). The grid walks H tiles per block step. The short columns scan reads such lanes at the
// copy's speed the same way; the general loop above kept one load in flight. A kernel of its
// own (reduce_columns_short_*): in the general one it spilled under the five-block bound.
template <class Op, class In, class Store, int LW, int H, int RR>
__device__ __forceinline__ void lanes_reduce_columns_short_h(const In* __restrict__ in,
                                                           ColumnLanes c,
                                                           typename Store::out_type* out) {
    typedef typename Op::value_type V;
    typedef ReduceConvert<In, V> Cv;
    constexpr int W = VecWidth<In>::value;
    constexpr int RV = W / LW;
    typedef Vec<In, W> Vw;
    Op op;
    const ColumnThread t(c);
    const u64 tiles = t.tiles(c);
    const bool vector_stores = column_group_vector_stores<Store, V, LW>(out);
    for (u64 tile0 = (u64)blockIdx.x * H; tile0 < tiles; tile0 += (u64)gridDim.x * H) {
        u64 lane0[H];
        bool valid[H];
        const In* base[H];
        V acc[H][LW];
#pragma unroll
        for (int h = 0; h < H; ++h) {
            const u64 tile = tile0 + h;
            const u64 o = tile / t.tiles_per_outer;
            const u64 g = (tile % t.tiles_per_outer) * t.tx + t.x;
            valid[h] = tile < tiles && g < c.groups;
            lane0[h] = (o * c.groups + g) * LW;
            base[h] = in + (valid[h] ? column_offset<In>(c, o, g, 0) : 0);
#pragma unroll
            for (int k = 0; k < LW; ++k) acc[h][k] = Op::identity();
        }
        // H > 1 holds lanes of at most RR rows: one step, which the compiler then sees (with
        // the loop's bound at run time it kept every pointer live: 96 registers, two blocks).
        const u64 row_end = H > 1 ? (u64)RR : c.vrows;
        for (u64 r0 = 0; r0 < row_end; r0 += RR) {
            Vw x[H][RR];
#pragma unroll
            for (int h = 0; h < H; ++h)
#pragma unroll
                for (int r = 0; r < RR; ++r)
                    if (valid[h] && r0 + r < c.vrows)
                        x[h][r] = *reinterpret_cast<const Vw*>(base[h] + (i64)(r0 + r) * c.vrow_stride);
#pragma unroll
            for (int h = 0; h < H; ++h) {
                if (!valid[h]) continue;
#pragma unroll
                for (int r = 0; r < RR; ++r)
                    if (r0 + r < c.vrows)
#pragma unroll
                        for (int i = 0; i < W; ++i)
                            acc[h][i % LW] = op(acc[h][i % LW],
                                                Cv::apply(x[h][r].v[i], (r0 + r) * RV + i / LW));
            }
        }
#pragma unroll
        for (int h = 0; h < H; ++h)
            if (valid[h]) column_group_store<Store, V, LW>(out, lane0[h], acc[h], vector_stores);
    }
}

// Resident blocks per SM reduce_columns_short_* are compiled for: three (80 registers, no
// spills). Unbounded they took 96 (two blocks: 134217728 x 2 f32 along axis 1, 0.96 -> 0.73-0.77x
// copy on an H200 after the ninth session's row loop); four spill on sm_80.
constexpr int COLUMNS_SHORT_MIN_BLOCKS = 3;

// The thread-per-lane-group columns reduction (above) of a plan with 256 lane groups across
// and no splits: two lane groups per thread for lanes of up to COLUMN_ROWS / 2 vector rows,
// else one, COLUMN_ROWS rows per step (gpu_core::ColumnLanes::short_reduce_blocks sizes the
// grid by the same rule).
template <class Op, class In, class Store>
__device__ __forceinline__ void lanes_reduce_columns_short(const In* __restrict__ in,
                                                           ColumnLanes c,
                                                           typename Store::out_type* out) {
    constexpr int W = VecWidth<In>::value;
    constexpr int R = COLUMN_ROWS;
    if constexpr (W >= 4) {
        if (c.rv == 2) {
            if (c.vrows <= R / 2)
                lanes_reduce_columns_short_h<Op, In, Store, W / 2, 2, R / 2>(in, c, out);
            else
                lanes_reduce_columns_short_h<Op, In, Store, W / 2, 1, R>(in, c, out);
            return;
        }
    }
    if (c.vrows <= R / 2)
        lanes_reduce_columns_short_h<Op, In, Store, W, 2, R / 2>(in, c, out);
    else
        lanes_reduce_columns_short_h<Op, In, Store, W, 1, R>(in, c, out);
}

// ---- Scan ----------------------------------------------------------------------------------

enum : u32 { COLUMN_SPAN_AGGREGATE = 1, COLUMN_SPAN_INCLUSIVE = 2 };

// The LW values of one lane group, as published by a span.
template <class T, int LW> struct ColumnPack {
    T v[LW];
};

// Published state of the spans: one flag word per (span, tile) for all the block's lane groups
// at once (0 nothing yet, 1 aggregates, 2 inclusive prefixes; it only grows), and per (span,
// tile, lane group) the two values, kept apart so that aggregates stay readable after the
// inclusive prefix is out (the left fold re-reads them). Writers: values, fence, barrier, one
// flag; readers: flag, fence, barrier, values (see lookback.cuh).
template <class T, int LW> struct ColumnStatus {
    u32* flags;                      // [span * tiles + tile]
    ColumnPack<T, LW>* aggregates;  // [(span * tiles + tile) * tx + x]
    ColumnPack<T, LW>* inclusives;

    // Every lane group of the block publishes its values (threads with `mine`), then one flag
    // says so for the whole span. All threads of the block must call it.
    __device__ __forceinline__ void publish(u64 id, u32 tx, u32 x, bool mine,
                                            const ColumnPack<T, LW>& p, u32 flag) const {
        if (mine) {
            store_coherent((flag == COLUMN_SPAN_INCLUSIVE ? inclusives : aggregates) + id * tx + x,
                           p);
            __threadfence();  // values visible device-wide before the flag
        }
        __syncthreads();
        if (threadIdx.x == 0) *reinterpret_cast<volatile u32*>(flags + id) = flag;
    }

    // The span of the nearest inclusive prefix before span s (> 0) of `tile`, found by warp 0
    // looking back 32 spans at a time (one lane per span, as lookback.cuh); every lane returns
    // it. Span 0 publishes only an inclusive prefix, so the search stops there at the latest.
    __device__ __forceinline__ u64 nearest_inclusive(u64 tiles, u64 tile, u64 s) const {
        const int lane = (int)lane_id();
        i64 end = (i64)s;  // the window is spans [end - 32, end)
        while (true) {
            const i64 j = end - 32 + lane;
            u32 f = j < 0 ? COLUMN_SPAN_AGGREGATE : 0u;  // before span 0: never chosen
            while (__any_sync(FULL_MASK, f == 0)) {
                if (f == 0) f = *reinterpret_cast<volatile u32*>(flags + (u64)j * tiles + tile);
            }
            const unsigned inc = __ballot_sync(FULL_MASK, f == COLUMN_SPAN_INCLUSIVE);
            if (inc) {
                __threadfence();  // the flags read above, the values read after the barrier
                return (u64)(end - 32 + (31 - __clz(inc)));
            }
            end -= 32;
        }
    }

    // The exclusive prefix of span s for the lane groups of the block (in the threads y == 0):
    // the left fold inclusive(j) ∘ aggregate(j + 1) ∘ ... ∘ aggregate(s - 1) from the nearest
    // inclusive j, whatever the timing (published values never change). The whole block loads
    // the aggregates, TY spans per round (thread y the span m0 + y), into `buf` (LANES_BLOCK
    // packs of shared memory), and the threads y == 0 fold them in order: one memory latency
    // per TY spans, so a look-back far behind a busy front costs little. All threads call it.
    template <class Op>
    __device__ __forceinline__ ColumnPack<T, LW> prefix(u64 tiles, u64 tile, const ColumnThread& t,
                                                        bool valid, u64 j, u64 s,
                                                        ColumnPack<T, LW>* buf, Op op) const {
        ColumnPack<T, LW> acc;
        if (t.y == 0 && valid) acc = load_coherent(inclusives + (j * tiles + tile) * t.tx + t.x);
        for (u64 m0 = j + 1; m0 < s; m0 += t.ty) {  // block-uniform
            const u64 m = m0 + t.y;
            if (m < s && valid)
                buf[threadIdx.x] = load_coherent(aggregates + (m * tiles + tile) * t.tx + t.x);
            __syncthreads();
            if (t.y == 0 && valid) {
                const u64 n = s - m0 < t.ty ? s - m0 : t.ty;
                for (u32 y = 0; y < (u32)n; ++y) {
                    const ColumnPack<T, LW> a = buf[y * t.tx + t.x];
#pragma unroll
                    for (int k = 0; k < LW; ++k) acc.v[k] = op(acc.v[k], a.v[k]);
                }
            }
            __syncthreads();
        }
        return acc;
    }
};

// Row r of a lane group's output from its in-register inclusive scan x (every lane's values in
// place): inclusive, or shifted one row of the lane for exclusive; `before` (when `has_before`)
// applied on the left.
template <class Op, int LW, int W, int R>
__device__ __forceinline__ Vec<typename Op::value_type, W>
column_scan_row(const Vec<typename Op::value_type, W> (&x)[R], int r,
                const typename Op::value_type (&before)[LW], bool has_before, bool exclusive,
                Op op) {
    Vec<typename Op::value_type, W> y;
#pragma unroll
    for (int i = 0; i < W; ++i) {
        const int k = i % LW;
        if (!exclusive) {
            y.v[i] = has_before ? op(before[k], x[r].v[i]) : x[r].v[i];
        } else if (i >= LW || r > 0) {
            const auto prev = i >= LW ? x[r].v[i - LW] : x[r - 1].v[i + W - LW];
            y.v[i] = has_before ? op(before[k], prev) : prev;
        } else {
            y.v[i] = has_before ? before[k] : Op::identity();
        }
    }
    return y;
}

// Lanes with a thread each (scan_columns_short_*): no block work at all, so a kernel of its
// own (the spans' kernel needs three times the registers). Each thread scans H lane groups a
// block apart per step, all their loads in flight first: H = 2 for lanes of up to RR = 4
// vector rows (one step), else one group walked RR = 8 vector rows a step, its running values
// carried in registers from step to step (many lanes of any length: gpu_core's
// LanePlan::thread_columns; lanes of 64 rows through a block of 8 threads down and its
// barriers read at 0.77x copy on an H200). Grid-stride over the lane groups, H per thread.
template <class Op, int LW, int H, int RR>
__device__ __forceinline__ void lanes_scan_columns_short_h(const typename Op::value_type* in,
                                                           ColumnLanes ci,
                                                           typename Op::value_type* out,
                                                           ColumnLanes co, u32 exclusive) {
    typedef typename Op::value_type T;
    constexpr int W = VecWidth<T>::value;
    typedef Vec<T, W> Vw;
    Op op;
    const u64 total = ci.outer * ci.groups;
    const u64 stride = (u64)gridDim.x * blockDim.x * H;
    // H > 1 holds lanes of at most RR rows: one step the compiler sees.
    const u64 row_end = H > 1 ? (u64)RR : ci.vrows;
    for (u64 q0 = (u64)blockIdx.x * blockDim.x * H + threadIdx.x; q0 < total; q0 += stride) {
        const T* src[H];
        T* dst[H];
        T run[H][LW];  // each lane's inclusive value so far (valid from the second step)
#pragma unroll
        for (int h = 0; h < H; ++h) {
            const u64 q = q0 + (u64)h * blockDim.x;
            src[h] = in + (q < total ? column_offset<T>(ci, q / ci.groups, q % ci.groups, 0) : 0);
            dst[h] = out + (q < total ? column_offset<T>(co, q / co.groups, q % co.groups, 0) : 0);
        }
        for (u64 r0 = 0; r0 < row_end; r0 += RR) {
            Vw x[H][RR];
#pragma unroll
            for (int h = 0; h < H; ++h) {
                const u64 q = q0 + (u64)h * blockDim.x;
#pragma unroll
                for (int r = 0; r < RR; ++r) {
                    if (q < total && r0 + r < ci.vrows) {
                        x[h][r] = *reinterpret_cast<const Vw*>(src[h] + (i64)(r0 + r) * ci.vrow_stride);
                    } else {
#pragma unroll
                        for (int i = 0; i < W; ++i) x[h][r].v[i] = Op::identity();
                    }
                }
            }
#pragma unroll
            for (int h = 0; h < H; ++h) {
                const u64 q = q0 + (u64)h * blockDim.x;
                if (q >= total) continue;
                // The running values before this step: the exclusive output's first row.
                T before[LW];
#pragma unroll
                for (int k = 0; k < LW; ++k) before[k] = r0 > 0 ? run[h][k] : Op::identity();
                // Each lane's first value is taken as it is (op(identity, -0.0) is +0.0).
#pragma unroll
                for (int r = 0; r < RR; ++r)
#pragma unroll
                    for (int i = 0; i < W; ++i) {
                        const int k = i % LW;
                        if (r0 > 0 || r > 0 || i >= LW) x[h][r].v[i] = op(run[h][k], x[h][r].v[i]);
                        run[h][k] = x[h][r].v[i];
                    }
#pragma unroll
                for (int r = 0; r < RR; ++r) {
                    if (r0 + r >= ci.vrows) continue;
                    Vw y = x[h][r];
                    if (exclusive) {
#pragma unroll
                        for (int i = 0; i < W; ++i)
                            y.v[i] = i >= LW  ? x[h][r].v[i - LW]
                                     : r > 0 ? x[h][r - 1].v[i + W - LW]
                                             : before[i];
                    }
                    *reinterpret_cast<Vw*>(dst[h] + (i64)(r0 + r) * co.vrow_stride) = y;
                }
            }
        }
    }
}

template <class Op>
__device__ __forceinline__ void lanes_scan_columns_short(const typename Op::value_type* in,
                                                         ColumnLanes ci,
                                                         typename Op::value_type* out,
                                                         ColumnLanes co, u32 exclusive) {
    constexpr int W = VecWidth<typename Op::value_type>::value;
    constexpr int R = COLUMN_ROWS;
    if constexpr (W >= 4) {
        if (ci.rv == 2) {
            if (ci.vrows <= R / 2)
                lanes_scan_columns_short_h<Op, W / 2, 2, R / 2>(in, ci, out, co, exclusive);
            else
                lanes_scan_columns_short_h<Op, W / 2, 1, R>(in, ci, out, co, exclusive);
            return;
        }
    }
    if (ci.vrows <= R / 2)
        lanes_scan_columns_short_h<Op, W, 2, R / 2>(in, ci, out, co, exclusive);
    else
        lanes_scan_columns_short_h<Op, W, 1, R>(in, ci, out, co, exclusive);
}

// Vector rows of one span (a block's share of a tile): TY threads down, R each.
template <int R> __device__ __forceinline__ u64 column_span_rows(const ColumnLanes& c) {
    return (u64)(blockDim.x / c.tx) * R;
}

// Asks for the input of span `id` (of `total`) into L2: one range where its rows follow one
// another in memory (a tile across whole rows of dense lanes), else one per vector row, the
// block's threads taking the rows in turn.
template <class T, class Prefetch>
__device__ __forceinline__ void column_span_prefetch(const T* in, const ColumnLanes& c,
                                                     const ColumnThread& t, u64 tiles,
                                                     u64 span_rows, u64 id, u64 total,
                                                     const Prefetch& prefetch) {
    constexpr int W = VecWidth<T>::value;
    if (id >= total) return;
    const u64 s = id / tiles, tile = id % tiles;
    const u64 o = tile / t.tiles_per_outer;
    const u64 g0 = (tile % t.tiles_per_outer) * t.tx;
    const u64 groups = c.groups - g0 < t.tx ? c.groups - g0 : t.tx;
    const u64 v0 = s * span_rows;
    const u64 rows = c.vrows - v0 < span_rows ? c.vrows - v0 : span_rows;
    const T* first = in + column_offset<T>(c, o, g0, v0);
    if (c.vrow_stride == (i64)(groups * W)) {
        if (threadIdx.x == 0) prefetch.ahead(first, 0, rows * groups * W);
    } else {
        for (u64 r = threadIdx.x; r < rows; r += blockDim.x)
            prefetch.ahead(first + (i64)r * c.vrow_stride, 0, groups * W);
    }
}

// Scans every lane of the columns `ci` (read from `in`) into the same lanes of `co` (written to
// `out`, same geometry, own strides; `in` may equal `out` with the same lanes), inclusive or
// exclusive. `state` holds a zeroed span counter then one zeroed flag per (span, tile, lane
// group); `values` two ColumnPack arrays of as many entries (aggregates, then inclusives).
// Spans are handed out in order by the counter (span-major over tiles), so a block only
// waits on spans held by blocks already running. A launch scans the span ids [begin, end)
// only (0 and ~0 for all): a host pipeline launches each chunk's spans in turn over one
// status, the counter zeroed before each launch, so the spans of a chunk look back into the
// earlier chunks' exactly as in one launch (the same results, bit for bit). Prefetch policy
// (prefetch.cuh): once its loads are out, a block asks for the input of the span handed out
// `prefetch.tiles` after its own.
template <class Op, int LW, int R, class Prefetch = NoPrefetch, class Stage = NoColumnStage>
__device__ __forceinline__ void lanes_scan_columns_lw(const typename Op::value_type* in,
                                                      ColumnLanes ci,
                                                      typename Op::value_type* out,
                                                      ColumnLanes co, u32* state, void* values,
                                                      u32 exclusive, u64 begin, u64 end,
                                                      Prefetch prefetch = Prefetch(),
                                                      Stage stage = Stage()) {
    typedef typename Op::value_type T;
    constexpr int W = VecWidth<T>::value;
    typedef Vec<T, W> Vw;
    typedef ColumnPack<T, LW> Pack;
    __shared__ T totals[LANES_BLOCK * LW];  // per (warp row group, x): inclusive totals
    __shared__ Pack prefixes[LANES_BLOCK];  // per x: the span's exclusive prefix
    __shared__ u64 span_id;
    __shared__ u64 look_from;  // the nearest span with its inclusive prefix out
    Op op;
    const ColumnThread t(ci);
    const u64 tiles = t.tiles(ci);
    constexpr int RT = R + Stage::ROWS;  // vector rows a thread: R in registers, the rest staged
    const u64 span_rows = column_span_rows<RT>(ci);
    const u64 spans = (ci.vrows + span_rows - 1) / span_rows;
    const u64 total = tiles * spans;
    const u64 slots = total * t.tx;
    const u64 limit = end < total ? end : total;
    const ColumnStatus<T, LW> st{state + 1, static_cast<Pack*>(values),
                                 static_cast<Pack*>(values) + slots};
    // Rows of a warp: TX >= 32, one row y of 32 groups; TX < 32, 32 / TX rows of TX groups.
    const u32 ys = t.tx >= 32 ? 1u : 32u / t.tx;
    const u32 yy = t.y % ys;           // row within the warp
    const u32 yg = t.y / ys;           // the warp's row group
    const u32 YG = t.ty / ys;          // row groups of the block (<= 8)
    u64 pass = 0;
    while (true) {
        // One span per lane: no look-back, so no order to keep (and no atomic per block).
        if (threadIdx.x == 0) {
            const u64 next = spans == 1 ? (u64)blockIdx.x + pass * gridDim.x
                                        : (u64)atomicAdd(state, 1u);
            span_id = begin + next;
        }
        ++pass;
        __syncthreads();
        const u64 id = span_id;
        __syncthreads();
        if (id >= limit) break;
        const u64 s = id / tiles, tile = id % tiles;
        const u64 o = tile / t.tiles_per_outer;
        const u64 g = (tile % t.tiles_per_outer) * t.tx + t.x;
        const bool valid = g < ci.groups;
        const u64 v0 = s * span_rows + (u64)t.y * RT;
        Vw x[R];
        const T* src = in + (valid ? column_offset<T>(ci, o, g, 0) : 0);
        // The staged rows' copies go out first: they need no registers while in flight.
        if constexpr (Stage::ROWS > 0)
            stage.template load<Op>(src, ci.vrow_stride, v0 + R, ci.vrows, valid);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (valid && v0 + r < ci.vrows) {
                x[r] = *reinterpret_cast<const Vw*>(src + (i64)(v0 + r) * ci.vrow_stride);
            } else {
#pragma unroll
                for (int i = 0; i < W; ++i) x[r].v[i] = Op::identity();
            }
        }
        if constexpr (Prefetch::ENABLED) {
            if (prefetch.tiles > 0)
                column_span_prefetch(in, ci, t, tiles, span_rows, id + prefetch.tiles, total,
                                     prefetch);
        }
        // In registers: each lane's inclusive scan over this thread's R * RV rows, in place.
        T run[LW];
#pragma unroll
        for (int k = 0; k < LW; ++k) run[k] = Op::identity();
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int i = 0; i < W; ++i) {
                run[i % LW] = op(run[i % LW], x[r].v[i]);
                x[r].v[i] = run[i % LW];
            }
        if constexpr (Stage::ROWS > 0) stage.template scan<Op, LW>(run, op);
        // Across the rows of the warp (threads TX apart), then across the warps' row groups.
        T before[LW];  // this thread's exclusive prefix within the span
#pragma unroll
        for (int k = 0; k < LW; ++k) {
            T incl = run[k];
            before[k] = Op::identity();
            if (ys > 1) {  // block-uniform: every thread of the warp shuffles
                for (u32 d = 1; d < ys; d <<= 1) {
                    const T other = shfl_up(incl, d * t.tx);
                    if (yy >= d) incl = op(other, incl);
                }
                const T prev = shfl_up(incl, t.tx);
                if (yy > 0) before[k] = prev;
            }
            if (yy == ys - 1) totals[(yg * t.tx + t.x) * LW + k] = incl;
        }
        __syncthreads();
        // Each lane's column of the row groups' totals scanned in place, left to right, by a
        // thread of its own (exclusive; the span's aggregate parked in `prefixes` until the
        // look-back writes the prefix there): YG loads per lane, not per thread (0.59 -> 0.63x
        // copy with the single span below, 4194304x64 on an H200: docs/shapes.md).
        const u32 lanes_across = t.tx * LW;
        for (u32 c = threadIdx.x; c < lanes_across; c += blockDim.x) {
            T acc = Op::identity();
            for (u32 h = 0; h < YG; ++h) {
                const T w = totals[h * lanes_across + c];
                totals[h * lanes_across + c] = acc;
                acc = op(acc, w);
            }
            prefixes[c / LW].v[c % LW] = acc;
        }
        __syncthreads();
        Pack agg;  // read by the threads that publish it only (y == 0), which alone
                   // overwrite prefixes[x] later
#pragma unroll
        for (int k = 0; k < LW; ++k) {
            before[k] = op(totals[yg * lanes_across + t.x * LW + k], before[k]);
            agg.v[k] = t.y == 0 ? prefixes[t.x].v[k] : Op::identity();
        }
        // The span's prefix from the spans above: the block publishes its aggregates under one
        // flag, warp 0 finds the nearest inclusive span (32 at a time), then each lane group
        // folds from there on its own. One span per lane: nothing to publish or look up.
        if (spans > 1) {
            const bool mine = t.y == 0 && valid;
            if (s == 0) {
                st.publish(id, t.tx, t.x, mine, agg, COLUMN_SPAN_INCLUSIVE);
                if (mine) {
#pragma unroll
                    for (int k = 0; k < LW; ++k) prefixes[t.x].v[k] = Op::identity();
                }
            } else {
                st.publish(id, t.tx, t.x, mine, agg, COLUMN_SPAN_AGGREGATE);
                if (threadIdx.x < 32) {
                    const u64 j = st.nearest_inclusive(tiles, tile, s);
                    if (threadIdx.x == 0) look_from = j;
                }
                __syncthreads();
                // `totals` is free again (read before the first publish's barrier).
                const Pack p = st.template prefix<Op>(tiles, tile, t, valid, look_from, s,
                                                      reinterpret_cast<Pack*>(totals), op);
                Pack inc;
                if (mine) {
#pragma unroll
                    for (int k = 0; k < LW; ++k) inc.v[k] = op(p.v[k], agg.v[k]);
                    prefixes[t.x] = p;
                }
                st.publish(id, t.tx, t.x, mine, inc, COLUMN_SPAN_INCLUSIVE);
            }
        } else if (t.y == 0) {
#pragma unroll
            for (int k = 0; k < LW; ++k) prefixes[t.x].v[k] = Op::identity();
        }
        __syncthreads();
        if (valid) {
            const Pack p = prefixes[t.x];
#pragma unroll
            for (int k = 0; k < LW; ++k) before[k] = op(p.v[k], before[k]);
            T* dst = out + column_offset<T>(co, o, g, 0);
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if (v0 + r >= ci.vrows) continue;
                *reinterpret_cast<Vw*>(dst + (i64)(v0 + r) * co.vrow_stride) =
                    column_scan_row<Op, LW, W, R>(x, r, before, true, exclusive != 0, op);
            }
            if constexpr (Stage::ROWS > 0)
                stage.template store<Op, LW>(dst, co.vrow_stride, v0 + R, ci.vrows, x[R - 1],
                                             before, exclusive != 0, op);
        }
        // A grid of a block per span id is done: asking the counter again would hold each
        // block's SM one more round trip for nothing.
        if ((u64)gridDim.x >= limit - begin) break;
    }
}

// A kernel of 4-byte values holds two lane widths (LW 4, and 2 for rows of two lanes). Inlined
// side by side they got registers for their union: ptxas sm_90 gave the staged f32 max 255
// registers and 88 bytes of spills, against 216 and 206 and none with each width a function of
// its own; prod, min and max kernels of 4-byte values spilled less or not at all apart, and the
// f32 cummax along axis 0 of 2^28 values ran 12-30 % faster staged (H200, docs/shapes.md,
// thirty-first session). The sums keep both inline: apart they ran 1-5 % slower.
template <class Op> struct ColumnWidthsApart {
    static constexpr bool value = true;
};
template <class T> struct ColumnWidthsApart<Sum<T>> {
    static constexpr bool value = false;
};

template <class Op, int LW, int R, class Prefetch, class Stage>
__device__ __noinline__ void lanes_scan_columns_lw_apart(const typename Op::value_type* in,
                                                        ColumnLanes ci,
                                                        typename Op::value_type* out,
                                                        ColumnLanes co, u32* state, void* values,
                                                        u32 exclusive, u64 begin, u64 end,
                                                        Prefetch prefetch, Stage stage) {
    lanes_scan_columns_lw<Op, LW, R>(in, ci, out, co, state, values, exclusive, begin, end,
                                     prefetch, stage);
}

// One lane width's scan, inline or (APART) a function of its own.
template <class Op, int LW, int R, bool APART, class Prefetch, class Stage>
__device__ __forceinline__ void lanes_scan_columns_width(const typename Op::value_type* in,
                                                         ColumnLanes ci,
                                                         typename Op::value_type* out,
                                                         ColumnLanes co, u32* state,
                                                         void* values, u32 exclusive, u64 begin,
                                                         u64 end, Prefetch prefetch,
                                                         Stage stage) {
    if constexpr (APART)
        lanes_scan_columns_lw_apart<Op, LW, R>(in, ci, out, co, state, values, exclusive, begin,
                                               end, prefetch, stage);
    else
        lanes_scan_columns_lw<Op, LW, R>(in, ci, out, co, state, values, exclusive, begin, end,
                                         prefetch, stage);
}

// R vector rows per thread in registers: COLUMN_ROWS (scan_columns_*) or COLUMN_LONG_ROWS
// (scan_columns_long_*), plus Stage::ROWS in shared memory (scan_columns_staged_*); the Rust
// plan mirrors the span length (ColumnLanes::spans_in).
template <class Op, int R = COLUMN_ROWS, class Prefetch = NoPrefetch, class Stage = NoColumnStage>
__device__ __forceinline__ void lanes_scan_columns(const typename Op::value_type* in,
                                                   ColumnLanes ci, typename Op::value_type* out,
                                                   ColumnLanes co, u32* state, void* values,
                                                   u32 exclusive, u64 begin, u64 end,
                                                   Prefetch prefetch = Prefetch(),
                                                   Stage stage = Stage()) {
    constexpr int W = VecWidth<typename Op::value_type>::value;
    constexpr bool APART = W >= 4 && ColumnWidthsApart<Op>::value;
    if constexpr (W >= 4) {
        if (ci.rv == 2) {
            lanes_scan_columns_width<Op, W / 2, R, APART>(in, ci, out, co, state, values,
                                                          exclusive, begin, end, prefetch, stage);
            return;
        }
    }
    lanes_scan_columns_width<Op, W, R, APART>(in, ci, out, co, state, values, exclusive, begin,
                                              end, prefetch, stage);
}

}  // namespace gp
