// Short segments, a thread per segment: a block takes K · blockDim.x consecutive segments
// (thread t segments t, t + blockDim.x, …, so a warp holds 32 neighbouring segments at each step
// and its stores are coalesced), stages their values in shared memory with 16-byte loads, a
// chunk of STAGE bytes at a time, and each thread folds its own segments from there, in order,
// one operator per value (K and STAGE: the policy, by accumulator size).
//
// Why not the segment tiles (segment_tiles.cuh): with segments of a few values their marking,
// bitmask and segmented warp scans issue 1.7 warp instructions per value, and the kernel is
// bound by issuing them (docs/shapes.md, run 17); here a value costs a shared load and an
// operator.
// Why not a thread per segment reading global memory (lanes.cuh, G = 1): a warp's loads then
// touch the same lines up to 8 times each, one step after another (0.33× copy, run 12).
//
// A segment is folded by one thread, so a long one is slow: the plan takes this kernel only
// for segments short on average and bounded in length (gpu-reduce's plan_segments). Results
// are those of a serial left-to-right fold of each segment, whatever the grid.
#pragma once
#include <gpu_prims/lanes.cuh>
#include <gpu_prims/load.cuh>
#include <gpu_prims/reduce_arg.cuh>

namespace gp {

constexpr unsigned SHORT_SEGMENTS_BLOCK = 256;

// The long segments a short-segments run leaves out, as lanes of the lane kernels (lanes.cuh):
// lane l is [pairs[2l], pairs[2l + 1]) (taken by the Rust side from checked offsets).
struct SegmentPairLanes {
    const u64* pairs;
    u64 count;
    __device__ __forceinline__ i64 start(u64 l) const { return (i64)__ldg(pairs + 2 * l); }
    __device__ __forceinline__ u64 length(u64 l) const {
        return __ldg(pairs + 2 * l + 1) - __ldg(pairs + 2 * l);
    }
    __device__ __forceinline__ i64 step() const { return 1; }
};
template <> struct LanesAreSegments<SegmentPairLanes> {
    static constexpr bool value = true;
};

// Tuning, apart from the algorithm: segments per thread (accumulators in registers; a block
// takes PER_THREAD · 256 segments), the bytes of one staged chunk (dynamic shared memory), and
// the 16-byte loads a thread has in flight while staging.
template <int PER_THREAD, unsigned STAGE_BYTES, int LOADS_IN_FLIGHT = 4> struct ShortSegmentsPolicy {
    static constexpr int K = PER_THREAD;
    static constexpr unsigned STAGE = STAGE_BYTES;
    static constexpr int IN_FLIGHT = LOADS_IN_FLIGHT;
};
// The shipped policies, by accumulator size (harness on an H200, segments of 1-8 f32 values:
// docs/shapes.md, run 21): 4-byte accumulators 8 segments per thread (2048 per block) in 48 KiB
// chunks, so that such a block is one chunk, four loads in flight: 0.86× copy, against 0.82
// with 4 per thread in 32 KiB, 0.63-0.75 with 6, 10, 12 or 16 per thread, 0.67-0.78 with 2 or
// 6 loads in flight; wider ones 4 per thread in 32 KiB, for their registers.
template <class V> struct ShortSegmentsPolicyFor {
    typedef ShortSegmentsPolicy<sizeof(V) <= 4 ? 8 : 4, sizeof(V) <= 4 ? 49152u : 32768u> type;
};

// Resident blocks per SM a kernel is compiled for: four (64 registers) for accumulators of up
// to 8 bytes, three for 16 bytes (argmin/argmax pairs, 16-byte monoids) and two for 32 bytes,
// whose accumulators would spill heavily at 64 registers.
template <class V> __host__ __device__ constexpr unsigned short_segments_min_blocks() {
    return sizeof(V) > 16 ? 2 : sizeof(V) > 8 ? 3 : 4;
}

// The staging of In in chunks of STAGE bytes: VEC values per 16-byte load, CAP values per
// chunk, LOADS vectors per thread.
template <class In, unsigned STAGE> struct ShortSegmentsStage {
    static constexpr int VEC = VecWidth<In>::value;
    static constexpr u64 CAP = STAGE / sizeof(In);
    static constexpr int LOADS = (int)(CAP / VEC / SHORT_SEGMENTS_BLOCK);
    static_assert(CAP % VEC == 0 && LOADS >= 1, "whole vectors, at least one per thread");
};

// Block piece: stages values [a0, hi) of `in` (n values) at staged[0 .. hi - a0), hi - a0 at
// most CAP. With `vector_ok` (in 16-byte aligned, a0 a multiple of VEC) in whole vectors, the
// last one possibly reaching past hi (values of later segments, never past n).
template <class In, unsigned STAGE, int IN_FLIGHT>
__device__ __forceinline__ void short_segments_stage(const In* __restrict__ in, u64 n, u64 a0,
                                                     u64 hi, bool vector_ok, In* staged) {
    typedef ShortSegmentsStage<In, STAGE> S;
    if (vector_ok) {
        const u32 vectors = (u32)((hi - a0 + S::VEC - 1) / S::VEC);
        // Rounds of ROUND vectors in flight (all of them at once cost registers the folds need).
        constexpr int ROUND = S::LOADS < IN_FLIGHT ? S::LOADS : IN_FLIGHT;
#pragma unroll
        for (int r0 = 0; r0 < S::LOADS; r0 += ROUND) {
            Vec<In> v[ROUND];
#pragma unroll
            for (int r = 0; r < ROUND; ++r) {
                const u32 q = threadIdx.x + (r0 + r) * SHORT_SEGMENTS_BLOCK;
                const u64 i = a0 + (u64)q * S::VEC;
                if (q < vectors && i + S::VEC <= n) v[r] = load_vec_streaming(in + i);
            }
#pragma unroll
            for (int r = 0; r < ROUND; ++r) {
                const u32 q = threadIdx.x + (r0 + r) * SHORT_SEGMENTS_BLOCK;
                const u64 i = a0 + (u64)q * S::VEC;
                if (q >= vectors) continue;
                if (i + S::VEC <= n) {
                    *reinterpret_cast<Vec<In>*>(staged + q * S::VEC) = v[r];
                } else {
                    for (int e = 0; e < S::VEC; ++e)
                        if (i + e < n) staged[q * S::VEC + e] = in[i + e];
                }
            }
        }
    } else {
        for (u64 i = a0 + threadIdx.x; i < hi; i += blockDim.x) staged[i - a0] = in[i];
    }
}

// Folds staged[lo .. e) into acc, in order (`fresh`: acc holds nothing yet, so the
// first value replaces it: a segment of one -0.0 stays -0.0). `index` is the segment position
// of staged[lo] (argmin/argmax count along the segment).
template <class Op, class In>
__device__ __forceinline__ void short_segment_fold(typename Op::value_type& acc, bool fresh,
                                                   const In* staged, u32 lo, u32 e, u32 index) {
    typedef typename Op::value_type V;
    Op op;
    if (lo >= e) return;
    if (fresh) {
        acc = ReduceConvert<In, V>::apply(staged[lo], index);
        ++lo;
        ++index;
    }
    // ptxas 12.0.76 miscompiles unrolled ordered loops over 16-byte monoids (docs/shapes.md,
    // "A compiler bug worked around"): those fold one value per iteration.
    if (sizeof(V) >= 16) {
#pragma unroll 1
        for (u32 p = lo; p < e; ++p)
            acc = op(acc, ReduceConvert<In, V>::apply(staged[p], index + (p - lo)));
    } else {
#pragma unroll 4
        for (u32 p = lo; p < e; ++p)
            acc = op(acc, ReduceConvert<In, V>::apply(staged[p], index + (p - lo)));
    }
}

// Device piece: reduces segments of `s` (values `in`, n of them) into out[segment] (Store: the
// value, or the argmin/argmax index along the segment; an empty segment stores the identity),
// `blocks` blocks of them, grid-stride. Block b takes segments [b·S, (b+1)·S) (S =
// Policy::K · blockDim.x), or with `ranges` [ranges[2b], ranges[2b + 1]), at most S of them:
// the Rust side then leaves the long segments out of every range (they go to the lane kernels).
// `staged` holds Policy::STAGE bytes (dynamic shared memory). Needs fewer than 2^32 values in
// any block's segments (positions are kept from the block's first value in 32 bits): the plan
// bounds the longest segment a block takes.
template <class Op, class In, class Store,
          class Policy = typename ShortSegmentsPolicyFor<typename Op::value_type>::type>
__device__ __forceinline__ void short_segments_reduce(const In* __restrict__ in, SegmentLanes s,
                                                      u64 n, const u64* __restrict__ ranges,
                                                      u64 blocks,
                                                      typename Store::out_type* out,
                                                      In* staged) {
    typedef typename Op::value_type V;
    typedef ShortSegmentsStage<In, Policy::STAGE> Stage;
    constexpr int K = Policy::K;
    const u64 S = (u64)blockDim.x * K;
    const bool vector_ok = ((u64)in % sizeof(Vec<In>)) == 0;
    const unsigned lane = lane_id();
    for (u64 b = blockIdx.x; b < blocks; b += gridDim.x) {
        const u64 s0 = ranges != nullptr ? __ldg(ranges + 2 * b) : b * S;
        const u64 s1 = ranges != nullptr ? __ldg(ranges + 2 * b + 1) : min(s0 + S, s.count);
        const u64 base = __ldg(s.offsets + s0), stop = __ldg(s.offsets + s1);
        // This thread's segments, from `base`: a segment past s1 is empty (start = end =
        // offsets[s1]); the end of each is the next lane's start, lane 31 reads its own.
        u32 start[K], end[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const u64 j = min(s0 + (u64)k * blockDim.x + threadIdx.x, s1);
            start[k] = (u32)(__ldg(s.offsets + j) - base);
            end[k] = lane == 31 ? (u32)(__ldg(s.offsets + min(j + 1, s1)) - base) : 0;
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const u32 next = __shfl_down_sync(FULL_MASK, start[k], 1);
            if (lane != 31) end[k] = next;
        }
        V acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = Op::identity();
        // Chunks of the block's values, each staged whole before any thread folds from it; the
        // chunk [c, hi) counts from `base`, its staging starts at a0 <= base + c (aligned).
        const u32 span = (u32)(stop - base);
        for (u32 c = 0; c < span;) {
            const u64 a0 = vector_ok ? (base + c) - (base + c) % Stage::VEC : base + c;
            const u32 skew = (u32)(base + c - a0);
            const u32 hi = (u32)min((u64)span, (u64)c + Stage::CAP - skew);
            __syncthreads();  // the previous chunk is folded by every thread
            short_segments_stage<In, Policy::STAGE, Policy::IN_FLIGHT>(in, n, a0, base + hi,
                                                                      vector_ok, staged);
            __syncthreads();
            const In* chunk = staged + skew;  // position c of the block
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const u32 lo = max(start[k], c), e = min(end[k], hi);
                if (lo < e)
                    short_segment_fold<Op, In>(acc[k], lo == start[k], chunk, lo - c, e - c,
                                               lo - start[k]);
            }
            c = hi;
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const u64 j = s0 + (u64)k * blockDim.x + threadIdx.x;
            if (j < s1) Store::apply(out, j, acc[k]);
        }
    }
}

}  // namespace gp
