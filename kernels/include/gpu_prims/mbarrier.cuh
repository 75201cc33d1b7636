// Shared-memory mbarriers and the bulk copy that completes on one (compute capability 9.0 and
// later: included only by *_sm90*.cu modules). A producer arrives with the bytes it expects and
// starts a cp.async.bulk of them; waiters spin on the barrier's phase parity, which flips once
// every expected arrival and byte has come. Arrive is a release and the wait an acquire
// (PTX ISA, "mbarrier"), so shared writes before an arrive are visible after the wait.
#pragma once
#include <gpu_prims/types.cuh>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#error "gpu_prims/mbarrier.cuh needs compute_90 or later (cp.async.bulk, mbarrier.try_wait)"
#endif

namespace gp {

// The intrinsic rather than async_copy.cuh's gp::shared_address (an opaque cvta in inline asm):
// with it the scan_ws_* kernels' machine code is 9 KB (compressed) smaller.
__device__ __forceinline__ u32 mbarrier_address(const void* p) {
    return (u32)__cvta_generic_to_shared(p);
}

// Sets up `bar` for `count` arrivals a phase (one thread, before the block's first barrier;
// mbarrier_init_fence then publishes it to the other threads' barrier operations).
__device__ __forceinline__ void mbarrier_init(u64* bar, u32 count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(mbarrier_address(bar)), "r"(count)
                 : "memory");
}
__device__ __forceinline__ void mbarrier_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void mbarrier_arrive(u64* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(mbarrier_address(bar)) : "memory");
}

// Arrives on `bar` expecting `bytes` more, then copies them from global `src` to shared `dst`
// (both 16-byte aligned, `bytes` a positive multiple of 16), completing them on `bar`.
__device__ __forceinline__ void mbarrier_arrive_bulk_copy(u64* bar, void* dst, const void* src,
                                                          u32 bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbarrier_address(bar)),
                 "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            mbarrier_address(dst)),
        "l"(src), "r"(bytes), "r"(mbarrier_address(bar))
        : "memory");
}

// Waits until the phase of parity `parity` of `bar` has completed.
__device__ __forceinline__ void mbarrier_wait(u64* bar, u32 parity) {
    u32 done = 0;
    while (!done) {
        asm volatile(
            "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, "
            "0, p; }"
            : "=r"(done)
            : "r"(mbarrier_address(bar)), "r"(parity)
            : "memory");
    }
}

}  // namespace gp
