// Asynchronous global → shared copies (cp.async, sm_80 and later): a thread starts 16-byte copies
// that land in shared memory without passing through its registers, so a block can keep more
// bytes in flight than its register file holds. Only for modules compiled for compute_80+.
#pragma once
#include <gpu_prims/types.cuh>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "gpu_prims/async_copy.cuh needs compute_80 or later (cp.async)"
#endif

namespace gp {

// 32-bit shared-memory address of a generic pointer into shared memory (what cp.async takes).
__device__ __forceinline__ u32 shared_address(const void* p) {
    u32 a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

// Starts copying 16 bytes from global `src` to shared `dst` (both 16-byte aligned). `.cg`: cached
// in L2 only, as streamed data should be.
__device__ __forceinline__ void async_copy_16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(dst)), "l"(src)
                 : "memory");
}

// The same with the destination given as a 32-bit shared-memory address (as shared_address
// returns), for callers that step through a staged tile by address arithmetic.
__device__ __forceinline__ void async_copy_16_shared(u32 dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

// Closes the group of copies this thread started since the last commit.
__device__ __forceinline__ void async_copy_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Waits until every copy this thread started has landed (its own copies only: other threads'
// copies need a barrier after their own wait).
__device__ __forceinline__ void async_copy_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

}  // namespace gp
