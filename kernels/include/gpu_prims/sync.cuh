// Cooperation between the blocks of one launch without a grid-wide barrier: the last-block
// guard and the global work queue. Blocks of one launch cannot wait for each other (nothing
// guarantees they are resident at the same time), but they can hand results to whichever
// block finishes last, and they can take work from a shared counter.
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

// ---- Last-block guard --------------------------------------------------------------------
// Returns true, in every thread of exactly one block per launch, for the block that finishes
// last; that block then sees every other block's results.
//
// Preconditions (the source's, kept):
//  * `counter` points to global memory holding 0 before the launch. The last block resets
//    it to 0 itself, so one counter serves any number of launches in one stream without a
//    memset in between (launches that overlap — different streams — need their own counter).
//  * Every thread of every block calls it, once per launch, after writing its partial result.
//  * 1-D grid (gridDim.x blocks).
// Read other blocks' results with load_coherent() (L1 is not coherent between SMs).
__device__ __forceinline__ bool is_last_block(unsigned int* counter) {
    // Make this block's partial results visible device-wide before announcing completion.
    __threadfence();
    int last = 0;
    if (threadIdx.x == 0) {
        unsigned int arrived = atomicAdd(counter, 1u);
        last = (arrived == gridDim.x - 1);
        if (last) {
            // Every other block has arrived: reset for the next launch, and order this
            // block's later reads after the other blocks' fences.
            *counter = 0u;
            __threadfence();
        }
    }
    return __syncthreads_or(last) != 0;
}

// A load that bypasses L1, for reading data other blocks wrote during this launch.
// Word by word through volatile, so it works for any value type (matrices, pairs).
template <class T> __device__ __forceinline__ T load_coherent(const T* p) {
    static_assert(sizeof(T) % 4 == 0, "coherent loads move whole 32-bit words");
    T r;
    const volatile int* src = reinterpret_cast<const volatile int*>(p);
    int* dst = reinterpret_cast<int*>(&r);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) dst[i] = src[i];
    return r;
}

// ---- Global work queue -------------------------------------------------------------------
// Items 0 .. total-1 handed out to blocks through one atomic on a cursor in global memory.
//
// Preconditions (the source's, kept):
//  * `cursor` is in global memory and holds the first index to hand out (0 for a fresh queue)
//    before the launch; the host resets it between launches.
//  * No items are added while a kernel consumes the queue.
//  * Every thread of the block calls fetch uniformly, and there is a __syncthreads() between
//    two fetches of one block (the shared slot is rewritten by the next fetch).
// After the launch min(*cursor, total) items have been taken (the cursor overshoots by the
// final failed fetch of each block).
struct WorkQueue {
    u64* cursor;
    u64 total;

    // The next item's index for the whole block, or `total` when the queue is empty.
    __device__ __forceinline__ u64 fetch(u64* shared_slot) const {
        if (threadIdx.x == 0) *shared_slot = atomicAdd(cursor, 1ull);
        __syncthreads();
        u64 i = *shared_slot;
        return i < total ? i : total;
    }

    // Up to `batch` consecutive items per atomic (less contention when items are cheap):
    // returns false when the queue is empty; otherwise [*begin, *end) is this block's batch.
    __device__ __forceinline__ bool fetch_batch(u64* shared_slot, u64 batch, u64* begin,
                                                u64* end) const {
        if (threadIdx.x == 0) *shared_slot = atomicAdd(cursor, batch);
        __syncthreads();
        u64 b = *shared_slot;
        if (b >= total) return false;
        *begin = b;
        *end = (total - b) < batch ? total : b + batch;
        return true;
    }
};

}  // namespace gp
