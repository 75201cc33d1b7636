// argmin / argmax over data that arrive in chunks (the host pipeline): each chunk is reduced
// with indices local to it, and these pieces make the indices global and fold the chunks on
// the device, in order, with the kernels' own total order (gpu_prims/reduce_arg.cuh).
#pragma once
#include <gpu_prims/load.cuh>
#include <gpu_prims/reduce_arg.cuh>

namespace gp {

// `count` (value, index) pairs, pair k reduced from the chunk that starts at element
// k · chunk: each index moves from its chunk to the whole input. Every ArgVal is 16 bytes with
// its index at byte 8, so the pairs are read as u64 words whatever the element type.
__device__ __forceinline__ void rebase_arg_pairs(u64* pairs, u64 count, u64 chunk) {
    for (u64 k = global_thread_index(); k < count; k += grid_thread_count())
        pairs[2 * k + 1] += k * chunk;
}

// One chunk of `count` slices of `lanes` values (slice i, lane l at in[i · lanes + l]) whose
// argmin/argmax along the slices is local[l], merged into best[l] (the chunks before it; with
// `first`, best[l] is written, not read). The chunk starts at slice `base`, so the pair's index
// is base + local[l]. An index out of the chunk (never written by our kernels) is read clamped
// and kept as it is, so the caller's range check sees it.
template <class Op, class In>
__device__ __forceinline__ void merge_arg_lanes(const In* in, u64 lanes, u64 count,
                                                const u64* local, u64 base,
                                                typename Op::value_type* best, bool first) {
    typedef typename Op::value_type V;
    for (u64 l = global_thread_index(); l < lanes; l += grid_thread_count()) {
        const u64 i = local[l];
        const u64 at = (i < count ? i : count - 1) * lanes + l;
        const V here = ReduceConvert<In, V>::apply(in[at], base + i);
        best[l] = first ? here : Op()(best[l], here);
    }
}

}  // namespace gp
