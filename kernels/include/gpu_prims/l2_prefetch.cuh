// Bulk L2 prefetch (cp.async.bulk.prefetch.L2, sm_90 and later): one thread asks the memory
// system to bring a whole range into L2, without registers, shared memory or a wait. Streaming
// kernels whose blocks sit idle part of their life (the look-back's wait, a tile's arithmetic)
// prefetch the input of a tile a little ahead of their own, so DRAM keeps working through those
// gaps and later blocks load from L2 (docs/tuning.md, "L2 prefetch"). A hint only: results do not
// depend on it. Only for modules compiled for compute_90+.
#pragma once
#include <gpu_prims/prefetch.cuh>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#error "gpu_prims/l2_prefetch.cuh needs compute_90 or later (cp.async.bulk.prefetch)"
#endif

namespace gp {

// Prefetches into L2 the bytes [begin, end) of one allocation, widened to 16-byte boundaries
// inside it: `begin` rounds down (allocations start on 256-byte boundaries, so the rounded
// address stays in the allocation), the size rounds down to whole 16-byte units.
__device__ __forceinline__ void l2_prefetch(const void* begin, const void* end) {
    const u64 lo = (u64)begin & ~(u64)15;
    const u64 hi = (u64)end;
    if (hi <= lo + 16) return;
    const u64 bytes = (hi - lo) & ~(u64)15;
    // The instruction takes a 32-bit size; callers prefetch a tile or two (kilobytes).
    const u32 size = bytes > 0x7ffffff0ull ? 0x7ffffff0u : (u32)bytes;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(lo), "r"(size) : "memory");
}

// The bulk prefetch as a prefetch policy (prefetch.cuh).
struct L2Prefetch {
    static constexpr bool ENABLED = true;
    u64 tiles;
    template <class T> __device__ __forceinline__ void ahead(const T* in, u64 begin, u64 end) const {
        l2_prefetch(in + begin, in + end);
    }
};

}  // namespace gp
