// Prefetch policies of the streaming kernels (today the look-back scan): a policy has ENABLED, `tiles` (how far ahead of its own tile a block prefetches) and
// ahead(in, begin, end), which asks for values [begin, end) of `in` to be brought into L2.
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

}  // namespace gp
