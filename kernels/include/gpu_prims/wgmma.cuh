// Warpgroup-level tensor-core pieces (compute capability 9.0, architecture-specific: included
// only by *_sm90a.cu modules): wgmma.mma_async with both operands in shared memory, described by
// 64-bit matrix descriptors (PTX ISA, "Matrix Descriptor Format"), f32 accumulators.
//
// Without swizzling, shared-memory operands are K-major *core matrices* of 8 rows x 16 bytes
// (8 16-bit values of K per row), each 128 contiguous bytes; the descriptor gives the first
// core matrix's address, LBO (bytes to the core matrix next along K) and SBO (bytes to the one
// 8 rows on, along M or N). Fragment of D (m64nNk16, f32) in the registers of the 4 warps of a
// warpgroup: warp v, lane l (g = l / 4, q = l % 4), register 4 j + e holds
// D[16 v + g + 8 (e / 2)][8 j + 2 q + e % 2].
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

// The matrix descriptor of a no-swizzle K-major operand at shared address `addr`.
__device__ __forceinline__ u64 wgmma_descriptor(u32 addr, u32 lbo, u32 sbo) {
    return (u64)((addr & 0x3ffffu) >> 4) | ((u64)(lbo >> 4) << 16) | ((u64)(sbo >> 4) << 32);
}

// The matrix descriptor of a K-major operand in the 128-byte swizzle at shared address `addr`:
// rows of 128 bytes (64 16-bit values of K), 16-byte chunk j of row r stored at chunk j ^ (r % 8)
// of its row, the XOR taken from the address bits (so the layout's rows start 1024-byte
// aligned); SBO 1024 bytes (8 rows on), LBO unused (16). `addr` may start anywhere on a 32-byte
// boundary inside that layout: a row or a K offset further on.
__device__ __forceinline__ u64 wgmma_descriptor_sw128(u32 addr) {
    return (u64)((addr & 0x3ffffu) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}

// Orders this thread's earlier register accesses before the warpgroup's next wgmma.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
// Closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until every committed group of this warpgroup has completed (accumulators readable,
// shared operands read).
__device__ __forceinline__ void wgmma_wait_all() {
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}
// Makes this thread's generic-proxy writes to shared memory (st.shared, cp.async) visible to
// the async proxy that wgmma reads its operands through (before the barrier that publishes them).
__device__ __forceinline__ void fence_proxy_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Pins the accumulators at this point of the program: without it the compiler may move the
// epilogue's reads of D above wgmma_wait_all, and ptxas then serializes every wgmma of the
// chain (its notice C7514; scripts/ptx.py refuses any such notice).
template <int R> __device__ __forceinline__ void wgmma_fence_operands(f32 (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// An accumulator's value for the epilogue, through an opaque add of -0 (x + (-0) = x for every
// x, -0 included). ptxas 12.0 serialized the chain (C7514) when a conversion to 16 bits read the
// accumulator registers directly, even after the wait.
__device__ __forceinline__ f32 wgmma_result(f32 d) {
    f32 v;
    asm volatile("add.rn.f32 %0, %1, 0f80000000;" : "=f"(v) : "f"(d));
    return v;
}

// D (64 x N, f32) = A (64 x 16) * B (16 x N) (`start`: D written, never read, so no zeroing
// defines the accumulators inside the chain: ptxas 12.0's C7515) or D += A * B (`accumulate`),
// A and B of type T from the descriptors `da` and `db`, both K-major.
template <class T, int N> struct Wgmma;
#define GP_WGMMA_64(T, ptx_type)                                                                   \
    template <> struct Wgmma<T, 64> {                                                              \
        static __device__ __forceinline__ void start(f32 (&d)[32], u64 da, u64 db) {              \
            asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32." ptx_type " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, 0, 1, 1, 0, 0;" \
                         : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]), "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]), "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31]) \
                         : "l"(da), "l"(db));                                                     \
        }                                                                                         \
        static __device__ __forceinline__ void accumulate(f32 (&d)[32], u64 da, u64 db) {         \
            asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32." ptx_type " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, 1, 1, 1, 0, 0;" \
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) \
                         : "l"(da), "l"(db));                                                     \
        }                                                                                         \
    };
GP_WGMMA_64(f16, "f16.f16")
GP_WGMMA_64(bf16, "bf16.bf16")
#undef GP_WGMMA_64

}  // namespace gp
