// A look-back tile for 16-bit floats scanned in f32 and written as 16-bit floats (sm_80 and
// later): every thread scans a run of ITEMS consecutive values serially, so each value costs a
// conversion in, an add in each of two passes and half a paired conversion out, instead of the
// warp-striped tiles' per-vector warp scans (scan_tile.cuh, scan_tile_staged.cuh: about nine
// instructions per value, which held the 16-bit scans at 0.64-0.79x a copy on an H100, where
// the f32 scan, with half the values per byte, is bound by memory; docs/scan.md).
//
// Layout: the warp segment (32 · ITEMS values) is 32 · CHUNKS 16-byte chunks of 8 values, copied
// with cp.async into the warp's shared memory in the same order (lane l copies chunks l, l + 32,
// ...: coalesced). Lane l's run is chunks l·CHUNKS … l·CHUNKS + CHUNKS − 1; CHUNKS is odd, so the
// 8 lanes of a quarter warp read 8 different bank groups (no conflicts).
//
// Pass 1 (scan): each lane folds its run left to right into a total; a warp scan of the totals
// gives each lane what comes before its run. Pass 2 (store): each lane scans its run again from
// that prefix, rounds pairs of results with one instruction and writes them back over its own
// chunks; then the warp stores the chunks coalesced. Every grouping is fixed by the layout, so
// results do not depend on timing. f32 results (twice the bytes) cannot go back over their
// chunks: they take ScanStagedConvertTile.
#pragma once
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/scan_tile.cuh>

namespace gp {

template <class In> struct ScanRunShape {
    static constexpr int VEC = VecWidth<In>::value;
    static_assert(VEC == 8, "16-bit values, 8 per 16-byte chunk");
    // 7 chunks (56 values, 112 bytes of shared memory per thread) let two blocks of 1024
    // threads share an SM: 0.86x a copy for f16 at 2^28 on an H100, against at most 0.84 for 9,
    // 11, 13 or 15 chunks at any block size from 128 to 1024 (docs/scan.md).
    static constexpr int CHUNKS = 7;
    static_assert(CHUNKS % 2 == 1, "an odd number of chunks per run keeps shared reads conflict-free");
    static constexpr int ITEMS = CHUNKS * VEC;
    // Dynamic shared memory per thread of the block (the Rust plan mirrors it).
    static constexpr int SHARED_BYTES_PER_THREAD = CHUNKS * 16;
};

// Two f32 results rounded to a 16-bit pair in one instruction on sm_80+ (cvt.rn.f16x2.f32 /
// cvt.rn.bf16x2.f32: `lo` in the low half).
__device__ __forceinline__ u32 pack_rounded(f16*, f32 lo, f32 hi) {
    u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
__device__ __forceinline__ u32 pack_rounded(bf16*, f32 lo, f32 hi) {
    u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

// A value `s` with op(s, x) bit for bit x, for every x: the identity, except -0 for sums
// (0 + -0 is +0).
template <class Op> struct ExactStart {
    static __device__ __forceinline__ typename Op::value_type value() { return Op::identity(); }
};
template <> struct ExactStart<Sum<f32>> {
    static __device__ __forceinline__ f32 value() { return -0.0f; }
};

template <class Op, class In, class Out> struct ScanRunTile {
    typedef typename Op::value_type T;
    static_assert(sizeof(T) == 4, "scanned in f32");
    static_assert(sizeof(Out) == sizeof(In), "16-bit results, written back over their chunks");
    typedef In in_type;
    typedef Out out_type;
    typedef ScanRunShape<In> Shape;
    static constexpr int VEC = Shape::VEC, CHUNKS = Shape::CHUNKS, ITEMS = Shape::ITEMS;

    Vec<In>* chunks;  // this warp's 32 · CHUNKS chunks of shared memory
    T before;         // pass 1: the combination of the earlier lanes' runs (lanes > 0)

    // `warp_shared`: this warp's 32 · Shape::SHARED_BYTES_PER_THREAD bytes (16-byte aligned).
    __device__ explicit ScanRunTile(unsigned char* warp_shared)
        : chunks(reinterpret_cast<Vec<In>*>(warp_shared)) {}

    static __device__ __forceinline__ bool aligned(const In* in, const Out* out) {
        return ((((u64)in) | ((u64)out)) % 16) == 0;
    }

    __device__ __forceinline__ void load(const In* in, u64 seg, u64 n, bool vector_ok) {
        const unsigned lane = lane_id();
        if (vector_ok) {
#pragma unroll
            for (int k = 0; k < CHUNKS; ++k)
                async_copy_16(chunks + k * 32 + lane, in + seg + (u64)(k * 32 + lane) * VEC);
            async_copy_commit();
        } else {
            // Past n: the identity as an `In` (exact: 0 or an infinity).
            const In pad = from_f32<In>(Op::identity());
            for (int k = 0; k < CHUNKS; ++k) {
                Vec<In> x;
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    const u64 i = seg + (u64)(k * 32 + lane) * VEC + e;
                    x.v[e] = i < n ? in[i] : pad;
                }
                chunks[k * 32 + lane] = x;
            }
        }
    }

    // Pass 1: this lane's run folded left to right (from its first value, never from the
    // identity), then a warp scan of the runs. Returns the warp segment's total (every lane).
    __device__ __forceinline__ T scan(bool, Op op) {
        const unsigned lane = lane_id();
        async_copy_wait_all();
        __syncwarp();  // every lane's copies (or stores) in, before any lane reads its run
        const Vec<In>* run = chunks + lane * CHUNKS;
        Vec<In> c = run[0];
        T total = to_f32(c.v[0]);
#pragma unroll
        for (int e = 1; e < VEC; ++e) total = op(total, to_f32(c.v[e]));
#pragma unroll
        for (int k = 1; k < CHUNKS; ++k) {
            c = run[k];
#pragma unroll
            for (int e = 0; e < VEC; ++e) total = op(total, to_f32(c.v[e]));
        }
        const T inclusive = warp_inclusive_scan(total, op);
        before = shfl_up(inclusive, 1);
        return shfl_idx(inclusive, 31);
    }

    // Pass 2 over this lane's run, from `running`: each chunk's results rounded in pairs and
    // written back over the chunk.
    template <bool EXCLUSIVE>
    __device__ __forceinline__ void scan_run(T running, bool first_run, Op op) {
        Vec<In>* run = chunks + lane_id() * CHUNKS;
#pragma unroll 1
        for (int k = 0; k < CHUNKS; ++k) {
            const Vec<In> c = run[k];
            T y[VEC];
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const T next = op(running, to_f32(c.v[e]));
                y[e] = EXCLUSIVE ? running : next;
                running = next;
            }
            if (EXCLUSIVE && first_run && k == 0) y[0] = Op::identity();
            Vec<Out> r;
            u32* words = reinterpret_cast<u32*>(&r);
#pragma unroll
            for (int e = 0; e < VEC / 2; ++e)
                words[e] = pack_rounded(static_cast<Out*>(nullptr), y[2 * e], y[2 * e + 1]);
            reinterpret_cast<Vec<Out>*>(run)[k] = r;
        }
    }

    // Pass 2: results prefix ∘ before ∘ (the run up to each value), or up to and excluding it
    // (exclusive; the identity for the scan's very first value).
    __device__ __forceinline__ void store(Out* out, u64 seg, u64 n, bool vector_ok, T prefix,
                                          bool has_prefix, bool exclusive, Op op) {
        const unsigned lane = lane_id();
        // Only the scan's very first run has nothing before it: it starts from a value that
        // leaves its first element's bits as they are.
        const bool first_run = !has_prefix && lane == 0;
        const T start = has_prefix ? (lane > 0 ? op(prefix, before) : prefix)
                                   : (lane > 0 ? before : ExactStart<Op>::value());
        if (exclusive) scan_run<true>(start, first_run, op);
        else scan_run<false>(start, first_run, op);
        __syncwarp();  // every lane's results in, before the warp stores them coalesced
        const Vec<Out>* res = reinterpret_cast<const Vec<Out>*>(chunks);
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            const u64 at = seg + (u64)(k * 32 + lane) * VEC;
            const Vec<Out> v = res[k * 32 + lane];
            if (vector_ok) {
                store_vec_streaming(out + at, v);
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (at + e < n) out[at + e] = v.v[e];
            }
        }
    }
};

}  // namespace gp
