// Shaped data: many independent *lanes* (the rows or columns of a matrix, the lines of an N-D
// array along one axis, the segments of a CSR-style offsets array), each reduced or scanned on
// its own. This layer maps lanes onto threads, warps and blocks; reduce.cu and scan.cu
// instantiate its two device-level algorithms (lanes_reduce, lanes_scan) per operator and
// type, and the Rust plan (gpu_core::LaneTiling) picks the mapping per shape.
//
// The mapping (block of LANES_BLOCK = 256 threads, 8 warps; all parameters block-uniform):
//   G  = group:          consecutive threads of a warp that share a lane (1, 2, 4, ..., 32)
//   Lw = lanes_per_warp: lanes side by side in a warp (G * Lw <= 32)
//   Wh = warps_per_lane: warps that share the same lanes (1, 2, 4, 8)
// Inside a warp, lane index (lid / G) % Lw; the M = 32 / (G * Lw) groups of a lane are spaced
// G * Lw threads apart. A lane thus has Q = G * M positions per warp and P = Wh * Q positions
// per block, and a block holds L = (8 / Wh) * Lw lanes (its *tile*). Typical choices:
//   long contiguous rows     G = 32, Lw = 1, Wh = 8: a block per row
//   short contiguous rows    G = 4..16: a group per row;  G = 1, Lw = 32: a thread per row
//   columns (lanes adjacent in memory, the axis strided):  G = 1, Lw = lanes side by side,
//                            M = 32 / Lw rows of them per warp: every load is one row of
//                            the tile, coalesced across the lanes
// Lanes too long for one block are cut into gridDim.y *splits*, contiguous ranges of equal
// length; a reduction merges them with a last-arrival guard per tile, a scan takes one seed
// per split (the exclusive scan of the split totals, computed by a first pass).
//
// Lengths and indices are 64-bit; strides are signed (negative strides walk backwards).
#pragma once
#include <gpu_prims/load.cuh>
#include <gpu_prims/reduce_arg.cuh>
#include <gpu_prims/sync.cuh>
#include <gpu_prims/warp.cuh>

namespace gp {

constexpr unsigned LANES_BLOCK = 256;
constexpr unsigned LANES_WARPS = LANES_BLOCK / 32;

// Read-only load of any element type: the non-coherent path for the scalars, a plain load for
// the monoid structs.
template <class T> __device__ __forceinline__ T lane_load(const T* p) { return *p; }
template <> __device__ __forceinline__ i32 lane_load<i32>(const i32* p) { return __ldg(p); }
template <> __device__ __forceinline__ u32 lane_load<u32>(const u32* p) { return __ldg(p); }
template <> __device__ __forceinline__ i64 lane_load<i64>(const i64* p) { return __ldg(p); }
template <> __device__ __forceinline__ u64 lane_load<u64>(const u64* p) { return __ldg(p); }
template <> __device__ __forceinline__ f32 lane_load<f32>(const f32* p) { return __ldg(p); }
template <> __device__ __forceinline__ f64 lane_load<f64>(const f64* p) { return __ldg(p); }

// ---- Where the lanes are ---------------------------------------------------------------------

// The lines of an N-D array along one axis, the other axes merged into (outer, inner) by the
// Rust side: lane l = (l / inner, l % inner); its element j lies at
// (l / inner) * outer_stride + (l % inner) * inner_stride + j * axis_stride.
struct AxisLanes {
    u64 count;
    u64 inner;
    u64 len;
    i64 outer_stride;
    i64 inner_stride;
    i64 axis_stride;
    __device__ __forceinline__ i64 start(u64 l) const {
        return (i64)(l / inner) * outer_stride + (i64)(l % inner) * inner_stride;
    }
    __device__ __forceinline__ u64 length(u64) const { return len; }
    __device__ __forceinline__ i64 step() const { return axis_stride; }
};

// Segments of a contiguous array: lane l is [offsets[l], offsets[l + 1]) (checked by the Rust
// side: non-decreasing, within the array).
struct SegmentLanes {
    const u64* offsets;
    u64 count;
    __device__ __forceinline__ i64 start(u64 l) const { return (i64)__ldg(offsets + l); }
    __device__ __forceinline__ u64 length(u64 l) const {
        return __ldg(offsets + l + 1) - __ldg(offsets + l);
    }
    __device__ __forceinline__ i64 step() const { return 1; }
};

// The mapping parameters (see the top of this file), as the Rust side passes them.
struct LaneTiling {
    u32 group;           // G
    u32 lanes_per_warp;  // Lw
    u32 warps_per_lane;  // Wh
    u32 unused;
};

// One thread's place in the mapping.
struct LaneThread {
    u32 G, Lw, Wh, Q, P, L;
    u32 lid;       // lane of the warp (hardware lane, 0..31)
    u32 lane_w;    // which of the warp's Lw lanes this thread serves
    u32 lane;      // which of the tile's L lanes
    u32 w_hi;      // rank of this warp among the Wh warps of its lanes
    u32 set;       // which group of Wh warps
    u32 q;         // position within the warp's share of the lane, 0..Q-1
    u32 p;         // position within the block's share of the lane, 0..P-1

    __device__ __forceinline__ explicit LaneThread(LaneTiling t) {
        G = t.group;
        Lw = t.lanes_per_warp;
        Wh = t.warps_per_lane;
        const u32 GL = G * Lw;
        Q = G * (32u / GL);
        P = Wh * Q;
        L = (LANES_WARPS / Wh) * Lw;
        lid = lane_id();
        const u32 w = warp_id();
        set = w / Wh;
        w_hi = w % Wh;
        lane_w = (lid / G) % Lw;
        lane = set * Lw + lane_w;
        q = (lid / GL) * G + lid % G;
        p = w_hi * Q + q;
    }
    // The same mapping where G, Lw and Wh are powers of two (every plan of segments): shifts
    // instead of the divisions, which sit on each segment's chain before its offsets load
    // (one tile per block).
    struct Pow2 {};
    __device__ __forceinline__ LaneThread(LaneTiling t, Pow2) {
        G = t.group;
        Lw = t.lanes_per_warp;
        Wh = t.warps_per_lane;
        const u32 lg = __ffs(G) - 1, ll = __ffs(Lw) - 1, lh = __ffs(Wh) - 1;
        const u32 lgl = lg + ll;
        Q = G << (5 - lgl);
        P = Q << lh;
        L = (LANES_WARPS >> lh) << ll;
        lid = lane_id();
        const u32 w = warp_id();
        set = w >> lh;
        w_hi = w & (Wh - 1);
        lane_w = (lid >> lg) & (Lw - 1);
        lane = (set << ll) + lane_w;
        q = ((lid >> lgl) << lg) + (lid & (G - 1));
        p = (w_hi << (5 - lgl + lg)) + q;
    }
    // The hardware lane that holds position q2 of this thread's lane in this warp.
    __device__ __forceinline__ u32 lid_of(u32 q2) const {
        return (q2 / G) * (G * Lw) + lane_w * G + q2 % G;
    }
    // Index of this warp's slot for this lane in the per-block scratch (LANES_BLOCK values).
    __device__ __forceinline__ u32 slot(u32 h) const { return (set * Wh + h) * Lw + lane_w; }
};

// Inclusive scan over the Q positions a warp holds of each of its lanes, in position order
// (Kogge-Stone over computed source lanes; correct for non-commutative operators). Every
// thread of the warp calls it.
template <class Op> __device__ __forceinline__ typename Op::value_type
lanes_warp_scan(typename Op::value_type v, Op op, const LaneThread& t) {
    for (u32 d = 1; d < t.Q; d <<= 1) {
        const u32 src = t.lid_of(t.q >= d ? t.q - d : t.q);
        const typename Op::value_type other = shfl_idx(v, (int)src);
        if (t.q >= d) v = op(other, v);
    }
    return v;
}

// The contiguous range [*b, *e) of a lane of length n that split s of S owns. Splits start at
// multiples of 4 elements, so a split of an aligned lane stays aligned for vector loads.
__device__ __forceinline__ void lane_split(u64 n, u64 s, u64 S, u64* b, u64* e) {
    const u64 per = (((n + S - 1) / S) + 3) & ~3ull;
    const u64 lo = s * per;
    *b = lo < n ? lo : n;
    *e = (n - *b) < per ? n : *b + per;
}

// Reduction of every lane's values over the block's positions, ordered by position: the
// lane's result in the thread at position 0 (others get partial values). `scratch` holds
// LANES_BLOCK values; every thread calls it; it ends with a barrier (scratch reusable), except
// where a lane lies within one warp (Wh == 1): then every thread of the lane gets the result
// from its last position, with no shared memory and no barrier, so a warp goes on to its next
// tile without waiting for the block's other warps.
template <class Op> __device__ __forceinline__ typename Op::value_type
lanes_block_reduce(typename Op::value_type v, Op op, const LaneThread& t,
                   typename Op::value_type* scratch) {
    v = lanes_warp_scan(v, op, t);
    if (t.Wh == 1) return shfl_idx(v, (int)t.lid_of(t.Q - 1));
    if (t.q == t.Q - 1) scratch[t.slot(t.w_hi)] = v;
    __syncthreads();
    typename Op::value_type r = Op::identity();
    if (t.p == 0) {
        for (u32 h = 0; h < t.Wh; ++h) r = op(r, scratch[t.slot(h)]);
    }
    __syncthreads();
    return r;
}

// ---- Reduction -----------------------------------------------------------------------------

// Folds elements [b, e) of a contiguous lane whose element b is aligned to VW elements: position
// p of P takes vectors p, p + P, ... (four loads in flight), then the elements after the last
// whole vector, P apart. Commutative operators only (the fold order is by position).
// BATCH_TAIL: the up to three vectors left after the last step of four are loaded together
// (one round trip, not one each: a warp waits for its slowest thread, and segments of 1-2000
// values paid two more round trips for them); folded in the same order. The axis lanes keep
// the plain loop (with the batch ptxas gives their kernel 48 registers and spills).
template <int VW, class Op, class In, class Cv, bool BATCH_TAIL = false>
__device__ __forceinline__ typename Op::value_type
lanes_fold_vectors(const In* __restrict__ base, u64 b, u64 e, u64 p, u64 P,
                   typename Op::value_type acc, Op op) {
    typedef Vec<In, VW> V;
    const V* vb = reinterpret_cast<const V*>(base + b);
    const u64 nv = (e - b) / VW;
    u64 v = p;
    // 2-byte values fold each of the four vectors in flight into an accumulator of its own,
    // merged in vector order after the walk: with one, a step was a chain of 32 dependent
    // operations (a max two instructions each), twice the 4-byte values' chain per byte, and
    // the next step's loads wait behind it. Other sizes, and values with their index (four of
    // those spilled the segment kernels under their bound), keep one accumulator (ACCS = 1:
    // the same code and results as before).
    constexpr int ACCS =
        sizeof(In) == 2 && !IsArgVal<typename Op::value_type>::value ? 4 : 1;
    typename Op::value_type a[ACCS];
    a[0] = acc;
#pragma unroll
    for (int k = 1; k < ACCS; ++k) a[k] = Op::identity();
    for (; v + 3 * P < nv; v += 4 * P) {
        V x[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) x[k] = vb[v + k * P];
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int i = 0; i < VW; ++i)
                a[k % ACCS] = op(a[k % ACCS], Cv::apply(x[k].v[i], b + (v + k * P) * VW + i));
    }
#pragma unroll
    for (int k = 1; k < ACCS; ++k) a[0] = op(a[0], a[k]);
    acc = a[0];
    if constexpr (BATCH_TAIL) {
        if (v < nv) {
            // Vectors past the end load vector v again (in bounds) and are not folded.
            V x[3];
#pragma unroll
            for (int k = 0; k < 3; ++k) x[k] = vb[v + k * P < nv ? v + k * P : v];
#pragma unroll
            for (int k = 0; k < 3; ++k) {
                if (v + k * P < nv) {
#pragma unroll
                    for (int i = 0; i < VW; ++i)
                        acc = op(acc, Cv::apply(x[k].v[i], b + (v + k * P) * VW + i));
                }
            }
        }
    } else {
        for (; v < nv; v += P) {
            const V x = vb[v];
#pragma unroll
            for (int i = 0; i < VW; ++i) acc = op(acc, Cv::apply(x.v[i], b + v * VW + i));
        }
    }
    for (u64 j = b + nv * VW + p; j < e; j += P) acc = op(acc, Cv::apply(lane_load(base + j), j));
    return acc;
}

// Folds the whole vectors of a contiguous lane [0, n) whose start is aligned to VW elements as
// split s of S, the splits interleaved: chunks of 4P vectors (one round of the block's four
// loads in flight), split s taking chunks s, s + S, ..., and split 0 also the elements after
// the last whole vector. The S blocks of a lane then read neighbouring memory at the same time,
// as the flat reduction's grid-stride walk does, instead of S far-apart streams (H100: long
// rows cut into splits read at 0.91× copy as contiguous ranges). Commutative operators only.
template <int VW, class Op, class In, class Cv>
__device__ __forceinline__ typename Op::value_type
lanes_fold_vectors_interleaved(const In* __restrict__ base, u64 n, u64 s, u64 S, u64 p, u64 P,
                               typename Op::value_type acc, Op op) {
    typedef Vec<In, VW> V;
    const V* vb = reinterpret_cast<const V*>(base);
    const u64 nv = n / VW;
    const u64 chunk = 4 * P;
    u64 v = s * chunk + p;
    for (; v + 3 * P < nv; v += S * chunk) {
        V x[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) x[k] = vb[v + k * P];
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int i = 0; i < VW; ++i) acc = op(acc, Cv::apply(x[k].v[i], (v + k * P) * VW + i));
    }
    // At most one partly filled chunk is left (the next one of this split starts past nv).
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        if (v + k * P < nv) {
            const V x = vb[v + k * P];
#pragma unroll
            for (int i = 0; i < VW; ++i) acc = op(acc, Cv::apply(x.v[i], (v + k * P) * VW + i));
        }
    }
    if (s == 0) {
        for (u64 j = nv * VW + p; j < n; j += P) acc = op(acc, Cv::apply(lane_load(base + j), j));
    }
    return acc;
}

// Which lanes interleave their splits: axis lanes. Segment lanes keep contiguous ranges: the
// interleaved fold took their kernel from 40 to 60 registers (f32 sum), and segments of
// 1-2000 values (one split, 32 threads per lane) fell from 0.79 to 0.46× copy on an H100.
template <class Lanes> struct LanesInterleaveSplits {
    static constexpr bool value = false;
};
template <> struct LanesInterleaveSplits<AxisLanes> {
    static constexpr bool value = true;
};

// Which lanes are segments: they start anywhere and are read in whole vectors after their
// first elements (the few before the first vector boundary one per position), with the
// shift mapping of threads, no split division and the butterfly combine. The axis lanes keep
// their aligned, half-aligned and scalar paths (peeling them too spilled the general kernel:
// rows of 16384 fell from 1.00 to 0.95x copy on an H100, docs/shapes.md run 14).
template <class Lanes> struct LanesAreSegments {
    static constexpr bool value = false;
};
template <> struct LanesAreSegments<SegmentLanes> {
    static constexpr bool value = true;
};

// Resident blocks per SM the segment lane kernels are compiled for: five (48 registers) for
// accumulators of up to 8 bytes, four (64) for 16-byte pairs and monoids, two for wider ones.
// Unbounded, ptxas gives the f32 sum 64 registers (four blocks); segments of 1-2000 read at
// 1.02x copy with five blocks of this fold and 1.03x with six, in the harness (session 11).
template <class V> __host__ __device__ constexpr unsigned segment_lanes_min_blocks() {
    return sizeof(V) > 16 ? 2 : sizeof(V) > 8 ? 4 : 5;
}

// Writes a lane's reduced value: as is, or (argmin/argmax) only the index as a u64.
template <class V> struct StoreValue {
    typedef V out_type;
    static __device__ __forceinline__ void apply(V* out, u64 i, const V& v) { out[i] = v; }
};
template <class T> struct StoreIndex {
    typedef u64 out_type;
    static __device__ __forceinline__ void apply(u64* out, u64 i, const ArgVal<T>& v) {
        out[i] = v.index;
    }
};

// Reduces every lane of `lanes` (element values read from `in`, converted by ReduceConvert
// with their index along the lane) into out[lane]. Grid: x walks the tiles (grid-stride), y is
// the number of splits S. With S > 1 the splits write partials[s * count + lane]; then, if
// `counters` is not null (one zeroed counter per block of gridDim.x), the last split of each
// tile to finish merges its lanes' S partials in split order and stores the results; with a
// null counter nothing is stored to `out` (a scan's first pass reads the partials).
// Commutative operators read each position's elements P apart (coalesced in every mapping);
// non-commutative ones give each position one contiguous run, so the combine order is the
// lane's order. Empty lanes give the identity (argmin/argmax: index ~0).
// IN_WARP: the launch's plan keeps every lane within one warp, in one split (Wh == 1,
// gridDim.y == 1), so the splits' partials and merge and the warps' combine are not compiled:
// a segment's chain is its offsets, loads, butterfly and store only. The general kernel of the
// same lanes carries them (48 registers either way), and its segments of 1-2000 values read at
// 0.82-0.84x copy against 1.00x for this form (H200; docs/shapes.md, twelfth session).
template <class Op, class In, class Lanes, class Store, bool IN_WARP = false>
__device__ __forceinline__ void lanes_reduce(const In* __restrict__ in, Lanes lanes,
                                             LaneTiling tiling,
                                             typename Store::out_type* out,
                                             typename Op::value_type* partials,
                                             unsigned* counters) {
    typedef typename Op::value_type V;
    typedef ReduceConvert<In, V> Cv;
    __shared__ V scratch[LANES_BLOCK];
    Op op;
    constexpr bool SEGMENTS = LanesAreSegments<Lanes>::value;
    const LaneThread t = SEGMENTS ? LaneThread(tiling, LaneThread::Pow2()) : LaneThread(tiling);
    const u64 S = IN_WARP ? 1 : gridDim.y, s = IN_WARP ? 0 : blockIdx.y;
    const u64 tiles = (lanes.count + t.L - 1) / t.L;
    const i64 step = lanes.step();
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 lane = tile * t.L + t.lane;
        const bool valid = lane < lanes.count;
        const u64 n = valid ? lanes.length(lane) : 0;
        const In* base = in + (valid ? lanes.start(lane) : 0);
        u64 b = 0, e = n;
        // (Segments in one split skip the split's 64-bit division: it sits between the offsets'
        // load and the values' in each segment's chain of round trips.)
        if (!SEGMENTS || S > 1) lane_split(n, s, S, &b, &e);
        V acc = Op::identity();
        // Contiguous lanes: 16-byte loads where aligned (8-byte ones for 4-byte types aligned to
        // 8, rows of two), scalar loads otherwise.
        constexpr int W = VecWidth<In>::value;
        constexpr int W2 = W >= 4 ? W / 2 : 1;
        const u64 addr = (u64)(base + b);
        // Splits of a reduction (not a scan's totals pass, whose splits must be contiguous
        // ranges: counters null) interleave over an aligned contiguous lane.
        const bool interleave = LanesInterleaveSplits<Lanes>::value && S > 1 &&
                                counters != nullptr && Op::commutative && W >= 2 && step == 1 &&
                                ((u64)base % (sizeof(In) * W)) == 0;
        if (interleave) {
            acc = lanes_fold_vectors_interleaved<W, Op, In, Cv>(base, n, s, S, t.p, t.P, acc, op);
        } else if (SEGMENTS && Op::commutative && W >= 2 && step == 1) {
            // A segment starts anywhere: its elements before the first vector boundary go one
            // per position, the rest in whole vectors (three in four segments of 4-byte values
            // would otherwise take 8-byte or scalar loads: more round trips per segment).
            const u64 mis = (addr / sizeof(In)) % W;
            const u64 head = mis == 0 ? 0 : (W - mis < e - b ? W - mis : e - b);
            for (u64 j = b + t.p; j < b + head; j += t.P) acc = op(acc, Cv::apply(lane_load(base + j), j));
            acc = lanes_fold_vectors<W, Op, In, Cv, true>(base, b + head, e, t.p, t.P, acc, op);
        } else if (Op::commutative && W >= 2 && step == 1 && (addr % (sizeof(In) * W)) == 0) {
            acc = lanes_fold_vectors<W, Op, In, Cv>(base, b, e, t.p, t.P, acc, op);
        } else if (Op::commutative && W2 >= 2 && step == 1 && (addr % (sizeof(In) * W2)) == 0) {
            acc = lanes_fold_vectors<W2, Op, In, Cv>(base, b, e, t.p, t.P, acc, op);
        } else if (Op::commutative) {
            // Strided lanes (columns): eight loads in flight per thread, since each is small.
            const u64 P = t.P;
            u64 j = b + t.p;
            for (; j + 7 * P < e; j += 8 * P) {
                In x[8];
#pragma unroll
                for (int k = 0; k < 8; ++k) x[k] = lane_load(base + (i64)(j + k * P) * step);
#pragma unroll
                for (int k = 0; k < 8; ++k) acc = op(acc, Cv::apply(x[k], j + k * P));
            }
            for (; j < e; j += P) acc = op(acc, Cv::apply(lane_load(base + (i64)j * step), j));
        } else {
            const u64 per = (e - b + t.P - 1) / t.P;
            const u64 lo = b + t.p * per;
            u64 j = lo < e ? lo : e;
            const u64 end = (e - j) < per ? e : j + per;
            // Not unrolled: ptxas 12.0.76 miscompiles this loop's unrolled form for 16-byte
            // monoids (wrong sm_80/sm_90 code from correct PTX; see docs/shapes.md).
#pragma unroll 1
            for (; j < end; ++j) acc = op(acc, Cv::apply(lane_load(base + (i64)j * step), j));
        }
        V r;
        if constexpr (SEGMENTS && Op::commutative) {
            // A segment's positions in a warp are G consecutive threads (every plan of segments
            // has G * Lw = 32; the Rust side checks it):
            // a butterfly over them (every thread gets the warp's part), then, with several
            // warps per segment, their parts in warp order. No position arithmetic: on each
            // segment's chain lanes_warp_scan's divisions by G cost 0.88 -> 0.76x copy
            // (harness, segments of 1-2000 f32 on an H200; docs/shapes.md, session 11).
            r = acc;
            for (u32 o = 1; o < t.G; o <<= 1) r = op(r, shfl_idx(r, (int)(t.lid ^ o)));
            if (!IN_WARP && t.Wh > 1) {
                if (t.q == 0) scratch[t.slot(t.w_hi)] = r;
                __syncthreads();
                r = Op::identity();
                if (t.p == 0) {
                    for (u32 h = 0; h < t.Wh; ++h) r = op(r, scratch[t.slot(h)]);
                }
                __syncthreads();
            }
        } else {
            r = lanes_block_reduce(acc, op, t, scratch);
        }
        if (S == 1) {
            if (valid && t.p == 0) Store::apply(out, lane, r);
            continue;
        }
        if (valid && t.p == 0) partials[s * lanes.count + lane] = r;
        if (counters == nullptr) continue;
        if (!is_last_arrival(counters + blockIdx.x, (unsigned)S)) continue;
        // The merge: the tile's lanes' S partials, in split order.
        acc = Op::identity();
        const u64 per = (S + t.P - 1) / t.P;
        const u64 lo = (u64)t.p * per;
#pragma unroll 1  // as above: ptxas 12.0.76 and ordered loops over 16-byte monoids
        for (u64 k = lo; k < lo + per && k < S; ++k)
            if (valid) acc = op(acc, load_coherent(partials + k * lanes.count + lane));
        r = lanes_block_reduce(acc, op, t, scratch);
        if (valid && t.p == 0) Store::apply(out, lane, r);
    }
}

// ---- Scan ----------------------------------------------------------------------------------

// Items per thread per round of a lane scan: four of the small types (one 16-byte load when
// the lane is contiguous and aligned), one of the 16-byte-plus monoids (registers).
template <class T> struct LaneItems {
    static constexpr int value = sizeof(T) <= 4 ? 4 : (sizeof(T) <= 8 ? 2 : 1);
};

// Scans every lane of `in_lanes` (elements read from `in`) into the same positions of
// `out_lanes` (written to `out`; `in` may equal `out` with the same lanes: each element is
// read and written by one thread, read first). Grid: x walks the tiles, y is the number of
// splits S; split s of a lane starts from seeds[s * count + lane] (the exclusive scan of the
// split totals, from a lanes_reduce first pass) or, with null seeds (S == 1), the identity.
// Each round, every thread takes I consecutive elements of its lane; the block's P positions
// cover P * I elements, scanned in registers, across the warp (lanes_warp_scan), across the
// warps (scratch), and prefixed with the running total of the earlier rounds.
// In and Out are the element types in memory: Op::value_type itself, or 16-bit floats read
// exactly into f32 and written back rounded once (seeds stay in Op::value_type). A thread's I
// elements move as one 16- or 8-byte vector where the lane is contiguous and aligned.
template <class Op, class InLanes, class OutLanes, class In = typename Op::value_type,
          class Out = typename Op::value_type>
__device__ __forceinline__ void lanes_scan(const In* in, InLanes in_lanes, Out* out,
                                           OutLanes out_lanes, LaneTiling tiling,
                                           const typename Op::value_type* seeds,
                                           u32 exclusive) {
    typedef typename Op::value_type T;
    typedef ReduceConvert<In, T> Cv;
    constexpr int I = LaneItems<T>::value;
    constexpr int IN_BYTES = I * (int)sizeof(In), OUT_BYTES = I * (int)sizeof(Out);
    constexpr bool IN_VEC = IN_BYTES == 16 || IN_BYTES == 8;
    constexpr bool OUT_VEC = OUT_BYTES == 16 || OUT_BYTES == 8;
    __shared__ T scratch[LANES_BLOCK];
    Op op;
    const LaneThread t(tiling);
    const u64 S = gridDim.y, s = blockIdx.y;
    const u64 tiles = (in_lanes.count + t.L - 1) / t.L;
    const i64 in_step = in_lanes.step(), out_step = out_lanes.step();
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 lane = tile * t.L + t.lane;
        const bool valid = lane < in_lanes.count;
        const u64 n = valid ? in_lanes.length(lane) : 0;
        const In* src = in + (valid ? in_lanes.start(lane) : 0);
        Out* dst = out + (valid ? out_lanes.start(lane) : 0);
        u64 b, e;
        lane_split(n, s, S, &b, &e);
        T carry = (seeds != nullptr && valid) ? load_coherent(seeds + s * in_lanes.count + lane)
                                              : Op::identity();
        const u64 round = (u64)t.P * I;
        // Block-uniform loop: lanes of one tile may differ in length (segments).
        for (u64 r0 = b; __syncthreads_or(r0 < e); r0 += round) {
            const u64 j0 = r0 + (u64)t.p * I;
            T x[I];
            if (IN_VEC && in_step == 1 && j0 + I <= e && ((u64)(src + j0) % IN_BYTES) == 0) {
                const Vec<In, I> v = *reinterpret_cast<const Vec<In, I>*>(src + j0);
#pragma unroll
                for (int k = 0; k < I; ++k) x[k] = Cv::apply(v.v[k], 0);
            } else {
#pragma unroll
                for (int k = 0; k < I; ++k)
                    x[k] = j0 + k < e ? Cv::apply(src[(i64)(j0 + k) * in_step], 0) : Op::identity();
            }
            // Exclusive form: keep each element's predecessor-inclusive value for the store.
            T incl[I];
            incl[0] = x[0];
#pragma unroll
            for (int k = 1; k < I; ++k) incl[k] = op(incl[k - 1], x[k]);
            const T total = lanes_warp_scan(incl[I - 1], op, t);
            if (t.q == t.Q - 1) scratch[t.slot(t.w_hi)] = total;
            // This thread's exclusive prefix within the warp: the scan of the position before.
            const T before = shfl_idx(total, (int)t.lid_of(t.q > 0 ? t.q - 1 : 0));
            __syncthreads();
            T prefix = carry;
            T round_total = carry;
            for (u32 h = 0; h < t.Wh; ++h) {
                const T w = scratch[t.slot(h)];
                if (h < t.w_hi) prefix = op(prefix, w);
                round_total = op(round_total, w);
            }
            if (t.q > 0) prefix = op(prefix, before);
            if (valid) {
                Out y[I];
#pragma unroll
                for (int k = 0; k < I; ++k)
                    y[k] = ElementOut<Out, T>::apply(exclusive ? (k == 0 ? prefix : op(prefix, incl[k - 1]))
                                                            : op(prefix, incl[k]));
                if (OUT_VEC && out_step == 1 && j0 + I <= e &&
                    ((u64)(dst + j0) % OUT_BYTES) == 0) {
                    Vec<Out, I> v;
#pragma unroll
                    for (int k = 0; k < I; ++k) v.v[k] = y[k];
                    *reinterpret_cast<Vec<Out, I>*>(dst + j0) = v;
                } else {
#pragma unroll
                    for (int k = 0; k < I; ++k)
                        if (j0 + k < e) dst[(i64)(j0 + k) * out_step] = y[k];
                }
            }
            carry = round_total;
        }
    }
}

// ---- Packed rows ---------------------------------------------------------------------------
// Lanes that are the consecutive rows of one contiguous array (lane l = elements [l n, l n + n)),
// n a power of two of at most 32 vectors, 16-byte aligned: the array is read as the flat
// reduction reads it, PACKED_VECTORS 16-byte vectors in flight per thread, consecutive
// threads on consecutive vectors. A vector holds VW / n whole lanes (n <= VW), or one of the
// G = n / VW vectors of a lane, which G consecutive threads of a warp hold and combine by
// shuffles, in lane order. No tiles, no block-wide steps: short rows at the speed of a copy.
constexpr int PACKED_VECTORS = 4;

template <class S> struct StoresValues {
    static constexpr bool value = false;
};
template <class V> struct StoresValues<StoreValue<V>> {
    static constexpr bool value = true;
};

// The W / N whole lanes of N values in one vector `x` (its first element at flat index f),
// each folded in order, stored with vector stores of up to 16 bytes: one store a warp covers
// contiguously, where a store per lane leaves every instruction's sectors half written (rows
// of 2 f32: 0.83× copy on an H200, the scan of the same rows 0.97×). `out` must be aligned to
// one store (the caller checks).
template <class Op, class In, class V, int W, int N>
__device__ __forceinline__ void packed_store_lanes(const Vec<In, W>& x, u64 f, V* out) {
    typedef ReduceConvert<In, V> Cv;
    constexpr int P = W / N;                          // lanes in the vector
    constexpr int Q = P < 16 / (int)sizeof(V) ? P : 16 / (int)sizeof(V);  // values per store
    Op op;
    Vec<V, Q> s[P / Q];
#pragma unroll
    for (int p = 0; p < P; ++p) {
        V acc = Op::identity();
#pragma unroll
        for (int i = 0; i < N; ++i) acc = op(acc, Cv::apply(x.v[p * N + i], (u64)i));
        s[p / Q].v[p % Q] = acc;
    }
    Vec<V, Q>* dst = reinterpret_cast<Vec<V, Q>*>(out + f / N);
#pragma unroll
    for (int j = 0; j < P / Q; ++j) dst[j] = s[j];
}

// Values per vector store of packed_store_lanes for lanes of 2^log2n values (0: none, a lane
// per vector or more).
template <class In, class V>
__device__ __forceinline__ u32 packed_store_width(u32 log2n) {
    constexpr u32 W = VecWidth<In>::value, Q0 = 16 / sizeof(V);
    const u32 p = (1u << log2n) < W ? W >> log2n : 1u;
    const u32 q = p < Q0 ? p : Q0;
    return q >= 2 ? q : 0u;
}

template <class Op, class In, class V, int W>
__device__ __forceinline__ void packed_store_dispatch(const Vec<In, W>& x, u64 f, u32 log2n,
                                                      V* out) {
    if constexpr (W >= 2) {
        if (log2n == 0) return packed_store_lanes<Op, In, V, W, 1>(x, f, out);
    }
    if constexpr (W >= 4) {
        if (log2n == 1) return packed_store_lanes<Op, In, V, W, 2>(x, f, out);
    }
    if constexpr (W >= 8) {
        if (log2n == 2) return packed_store_lanes<Op, In, V, W, 4>(x, f, out);
    }
    if constexpr (W >= 16) {
        if (log2n == 3) return packed_store_lanes<Op, In, V, W, 8>(x, f, out);
    }
}

// Reduces every lane into out[lane] (commutative and non-commutative scalar operators alike:
// the combine follows lane order). Grid-stride over chunks of blockDim.x * PACKED_VECTORS
// vectors; the elements after the last whole vector (n < VW only) by block 0. Several lanes
// per vector store their values together where `out` is aligned for it (packed_store_lanes).
template <class Op, class In, class Store>
__device__ __forceinline__ void lanes_reduce_packed(const In* __restrict__ in, u64 count,
                                                    u32 log2n, typename Store::out_type* out) {
    typedef typename Op::value_type V;
    typedef ReduceConvert<In, V> Cv;
    constexpr int W = VecWidth<In>::value;
    typedef Vec<In, W> Vw;
    Op op;
    const u64 n = 1ull << log2n, mask = n - 1;
    const u64 total = count << log2n;
    const u64 nvec = total / W;
    const u32 G = n > (u64)W ? (u32)(n / W) : 1u;  // threads per lane
    const Vw* vin = reinterpret_cast<const Vw*>(in);
    const u64 chunk = (u64)blockDim.x * PACKED_VECTORS;
    bool vector_stores = false;
    if constexpr (StoresValues<Store>::value) {
        const u32 q = packed_store_width<In, V>(log2n);
        vector_stores = q != 0 && ((u64)out % (q * sizeof(V))) == 0;
    }
    for (u64 c0 = (u64)blockIdx.x * chunk; c0 < nvec; c0 += (u64)gridDim.x * chunk) {
        Vw x[PACKED_VECTORS];
#pragma unroll
        for (int k = 0; k < PACKED_VECTORS; ++k) {
            const u64 v = c0 + (u64)k * blockDim.x + threadIdx.x;
            if (v < nvec) x[k] = vin[v];
        }
#pragma unroll
        for (int k = 0; k < PACKED_VECTORS; ++k) {
            const u64 v = c0 + (u64)k * blockDim.x + threadIdx.x;
            const u64 f = v * W;  // flat index of the vector's first element
            if (G == 1) {
                if (v >= nvec) continue;
                if constexpr (StoresValues<Store>::value) {
                    if (vector_stores) {
                        packed_store_dispatch<Op, In, V, W>(x[k], f, log2n, out);
                        continue;
                    }
                }
                V acc = Op::identity();
#pragma unroll
                for (int i = 0; i < W; ++i) {
                    const u64 j = (f + i) & mask;
                    acc = op(acc, Cv::apply(x[k].v[i], j));
                    if (j == mask) {
                        Store::apply(out, (f + i) >> log2n, acc);
                        acc = Op::identity();
                    }
                }
            } else {
                // Every thread of the warp takes part in the shuffles (the chunk loop is
                // block-uniform); threads past the end hold the identity.
                V acc = Op::identity();
                if (v < nvec) {
#pragma unroll
                    for (int i = 0; i < W; ++i) acc = op(acc, Cv::apply(x[k].v[i], (f & mask) + i));
                }
                for (u32 d = 1; d < G; d <<= 1) {
                    const V other = shfl_down(acc, d);
                    if ((threadIdx.x & (2 * d - 1)) == 0) acc = op(acc, other);
                }
                if (v < nvec && (threadIdx.x & (G - 1)) == 0) Store::apply(out, f >> log2n, acc);
            }
        }
    }
    if (blockIdx.x == 0) {
        for (u64 l = nvec * W / n + threadIdx.x; l < count; l += blockDim.x) {
            V acc = Op::identity();
            for (u64 j = 0; j < n; ++j) acc = op(acc, Cv::apply(lane_load(in + (l << log2n) + j), j));
            Store::apply(out, l, acc);
        }
    }
}

// Scans every lane of a packed array into the same positions of `out` (packed the same
// way; may equal `in`), inclusive or exclusive. Same reading as lanes_reduce_packed; lanes of
// G > 1 vectors: each thread scans its vector, then a Kogge-Stone scan over the G threads
// of the lane gives each its prefix.
template <class Op>
__device__ __forceinline__ void lanes_scan_packed(const typename Op::value_type* in,
                                                  typename Op::value_type* out, u64 count,
                                                  u32 log2n, u32 exclusive) {
    typedef typename Op::value_type T;
    constexpr int W = VecWidth<T>::value;
    typedef Vec<T, W> Vw;
    Op op;
    const u64 n = 1ull << log2n, mask = n - 1;
    const u64 total = count << log2n;
    const u64 nvec = total / W;
    const u32 G = n > (u64)W ? (u32)(n / W) : 1u;
    const Vw* vin = reinterpret_cast<const Vw*>(in);
    Vw* vout = reinterpret_cast<Vw*>(out);
    const u64 chunk = (u64)blockDim.x * PACKED_VECTORS;
    for (u64 c0 = (u64)blockIdx.x * chunk; c0 < nvec; c0 += (u64)gridDim.x * chunk) {
        Vw x[PACKED_VECTORS];
#pragma unroll
        for (int k = 0; k < PACKED_VECTORS; ++k) {
            const u64 v = c0 + (u64)k * blockDim.x + threadIdx.x;
            if (v < nvec) x[k] = vin[v];
        }
#pragma unroll
        for (int k = 0; k < PACKED_VECTORS; ++k) {
            const u64 v = c0 + (u64)k * blockDim.x + threadIdx.x;
            const u64 f = v * W;
            Vw y;
            if (G == 1) {
                T acc = Op::identity();
#pragma unroll
                for (int i = 0; i < W; ++i) {
                    if (((f + i) & mask) == 0) acc = Op::identity();
                    const T before = acc;
                    acc = op(acc, x[k].v[i]);
                    y.v[i] = exclusive ? before : acc;
                }
            } else {
                T incl[W];
                incl[0] = v < nvec ? x[k].v[0] : Op::identity();
#pragma unroll
                for (int i = 1; i < W; ++i) incl[i] = op(incl[i - 1], v < nvec ? x[k].v[i] : Op::identity());
                // Inclusive scan of the vector totals over the lane's G threads.
                const u32 r = threadIdx.x & (G - 1);
                T total_incl = incl[W - 1];
                for (u32 d = 1; d < G; d <<= 1) {
                    const T other = shfl_up(total_incl, d);
                    if (r >= d) total_incl = op(other, total_incl);
                }
                T prefix = shfl_up(total_incl, 1);
                if (r == 0) prefix = Op::identity();
#pragma unroll
                for (int i = 0; i < W; ++i)
                    y.v[i] = exclusive ? (i == 0 ? prefix : op(prefix, incl[i - 1])) : op(prefix, incl[i]);
            }
            if (v < nvec) vout[v] = y;
        }
    }
    if (blockIdx.x == 0) {
        for (u64 l = nvec * W / n + threadIdx.x; l < count; l += blockDim.x) {
            T acc = Op::identity();
            for (u64 j = 0; j < n; ++j) {
                const T x = in[(l << log2n) + j];
                const T before = acc;
                acc = op(acc, x);
                out[(l << log2n) + j] = exclusive ? before : acc;
            }
        }
    }
}

}  // namespace gp
