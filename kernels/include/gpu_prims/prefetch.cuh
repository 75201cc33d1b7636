// Prefetch policies of the streaming kernels (the look-back scans): a policy has ENABLED, `tiles`
// (how far ahead of its own tile or span a block prefetches) and ahead(in, begin, end), which
// asks for values [begin, end) of `in` to be brought into L2.
// NoPrefetch compiles to nothing; L2Prefetch (l2_prefetch.cuh, compute_90+ modules only) issues
// one bulk prefetch. Results never depend on the policy.
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

struct NoPrefetch {
    static constexpr bool ENABLED = false;
    u64 tiles = 0;
    template <class T> __device__ __forceinline__ void ahead(const T*, u64, u64) const {}
};

// The flat rule, for any policy: once a tile's own loads are out (asking before them cost
// look-back rows 0.83 → 0.73× copy on an H200), thread 0 asks for the tile `p.tiles` on in the
// same array of n values.
template <class P, class T>
__device__ __forceinline__ void tile_prefetch(const P& p, const T* in, u64 tile, u64 tile_items,
                                              u64 n) {
    const u64 ahead = (tile + p.tiles) * tile_items;
    if (p.tiles > 0 && ahead < n) p.ahead(in, ahead, ahead + tile_items < n ? ahead + tile_items : n);
}

}  // namespace gp
