// Cooperation between the blocks of one launch without a grid-wide barrier: the last-block
// guard and the global work queue.
//
// Blocks of one launch cannot wait for each other: nothing guarantees that they are resident
// at the same time (a grid may have more blocks than the GPU holds at once, and the hardware
// starts a waiting block only when a running one exits), so a block spinning until another
// block has done something can deadlock. What blocks *can* do without waiting:
//  * hand their results to whichever block finishes last (`is_last_block`), and
//  * take work from a shared counter as they become free (`WorkQueue`).
// Neither ever waits for another block, so both are safe for any grid size.
//
// Memory-model notes (Volta and later, PTX memory model):
//  * The guard is a release/acquire pair through one device-scope atomic: each block's writes
//    are ordered before its arrival (barrier, then a fence by the block's leader, then the
//    atomic), and the last block's reads after it (the leader's fence after the atomic, then a
//    barrier that hands the ordering to every thread of the block).
//  * Read other blocks' results with `load_coherent` (or another strong load). Never read them
//    through a `const T* __restrict__` pointer: the compiler may use the non-coherent
//    read-only path (ld.global.nc), which can return data older than the launch's writes.
//
// This header includes nothing but gpu_prims/types.cuh; downstream crates get both from
// gpu_sync::write_headers / gpu_sync::HEADERS.
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

// The one thread per block that talks to global counters: threadIdx == (0, 0, 0).
__device__ __forceinline__ bool is_block_leader() {
    return (threadIdx.x | threadIdx.y | threadIdx.z) == 0u;
}

// ---- Last-block guard --------------------------------------------------------------------
// Returns true, in every thread of exactly one of `arrivals` blocks that call it with the same
// counter: the block that arrives last. When it returns true, every write that any thread of
// any of those blocks made before calling is visible to every thread of the returning block
// (read it with load_coherent).
//
// Preconditions:
//  * `counter` points to global memory holding 0 when the first of the blocks arrives. The
//    last block resets it to 0 in the same atomic that finds it last (atomicInc wraps), so one
//    counter serves any number of rounds that run one after the other (one stream) without a
//    memset in between. Launches that may overlap (different streams, CUDA graph branches)
//    need one counter each. A launch that dies part way (a trap, a fault) leaves the counter
//    non-zero: zero it again before the next launch.
//  * Every thread of every block calls it, once per round, from block-uniform control flow
//    (it contains __syncthreads: a block where some threads skip it hangs or is undefined).
//  * Exactly `arrivals` (>= 1) blocks arrive per round.
// Guarantees nothing about which block is last, nor about when the other blocks exit; it
// never waits, so it cannot deadlock. Costs two block barriers and one atomic per block.
__device__ __forceinline__ bool is_last_arrival(unsigned int* counter, unsigned int arrivals) {
    // Every thread of this block has written its part of the block's result.
    __syncthreads();
    int last = 0;
    if (is_block_leader()) {
        // Release: the fence is cumulative, so it orders the whole block's writes (which the
        // barrier ordered before this thread) before the atomic that announces the arrival.
        __threadfence();
        // atomicInc stores (old >= limit ? 0 : old + 1): the last arrival, which reads
        // arrivals - 1, leaves 0 behind for the next round.
        unsigned int arrived = atomicInc(counter, arrivals - 1u);
        last = arrived == arrivals - 1u;
        // Acquire: the atomic read every other block's arrival; the fence orders this block's
        // later reads after it.
        if (last) __threadfence();
    }
    // Broadcast the answer; the barrier carries the leader's acquire to every thread.
    return __syncthreads_or(last) != 0;
}

// The guard over a whole 1-D launch (gridDim.y and gridDim.z must be 1): the last of the
// gridDim.x blocks. See is_last_arrival for the contract.
__device__ __forceinline__ bool is_last_block(unsigned int* counter) {
    return is_last_arrival(counter, gridDim.x);
}

// A strong load of a value other blocks wrote during this launch: volatile word loads, which
// bypass the (non-coherent) L1 cache and the read-only path. Works for any value type whose
// size is a multiple of 4 bytes (matrices, pairs). Not atomic as a whole: use it only for
// data whose writers finished before a guard or another release/acquire handed it over.
template <class T> __device__ __forceinline__ T load_coherent(const T* p) {
    static_assert(sizeof(T) % 4 == 0, "coherent loads move whole 32-bit words");
    T r;
    const volatile int* src = reinterpret_cast<const volatile int*>(p);
    int* dst = reinterpret_cast<int*>(&r);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) dst[i] = src[i];
    return r;
}

// The store counterpart: volatile word stores, for values other blocks read with
// load_coherent after a flag or fence hands them over (not atomic as a whole either).
template <class T> __device__ __forceinline__ void store_coherent(T* p, const T& v) {
    static_assert(sizeof(T) % 4 == 0, "coherent stores move whole 32-bit words");
    const int* src = reinterpret_cast<const int*>(&v);
    volatile int* dst = reinterpret_cast<volatile int*>(p);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) dst[i] = src[i];
}

// ---- Global work queue -------------------------------------------------------------------
// Items 0 .. total-1 handed out to the blocks of a launch through one atomic on a cursor in
// global memory: a block takes its next item only when it has finished the previous one, so
// blocks that drew cheap items take more of them. Usually launched on a persistent grid
// (SMs × resident blocks per SM) whose blocks loop until the queue is empty.
//
//     __shared__ gp::u64 slot;
//     for (gp::u64 i = q.fetch(&slot); i < q.total; i = q.fetch(&slot)) { work on item i }
//
// Preconditions:
//  * `cursor` points to global memory holding the first index to hand out (0 for a fresh
//    queue) when the launch starts; the host resets it before every launch that should see the
//    whole queue again (a launch that finds cursor >= total takes nothing).
//  * `total` and the items do not change while a launch consumes the queue (no items added).
//  * Every thread of the block calls fetch / fetch_batch, from block-uniform control flow
//    (they contain __syncthreads), with the same `shared_slot`, a block-private location
//    (normally a __shared__ u64) that nothing else writes.
//  * total + gridDim.x * batch < 2^64 (the cursor overshoots total, see below).
// Two fetches may follow each other directly: fetch begins with a barrier, so the leader
// never rewrites the slot while another thread still reads the previous index (the
// source's "barrier between two fetches" is built in).
// Guarantees: each index in [0, total) goes to exactly one block of one launch, and every
// thread of that block gets the same index. Nothing about which block gets which item, or
// in what order. After the launch min(*cursor, total) items have been taken; the cursor
// itself ends above total (each block's last, failed fetch still adds).
struct WorkQueue {
    u64* cursor;
    u64 total;

    // The next item's index for the whole block, or `total` when the queue is empty.
    __device__ __forceinline__ u64 fetch(u64* shared_slot) const {
        __syncthreads();  // every thread has read the slot's previous value
        if (is_block_leader()) *shared_slot = atomicAdd(cursor, 1ull);
        __syncthreads();
        u64 i = *shared_slot;
        return i < total ? i : total;
    }

    // Up to `batch` consecutive items per atomic (less contention when items are cheap):
    // false when the queue is empty; otherwise [*begin, *end) is this block's batch, never
    // empty and never past `total`. A batch of 0 is taken as 1.
    __device__ __forceinline__ bool fetch_batch(u64* shared_slot, u64 batch, u64* begin,
                                                u64* end) const {
        const u64 step = batch == 0ull ? 1ull : batch;
        __syncthreads();  // every thread has read the slot's previous value
        if (is_block_leader()) *shared_slot = atomicAdd(cursor, step);
        __syncthreads();
        u64 b = *shared_slot;
        if (b >= total) return false;
        *begin = b;
        *end = (total - b) < step ? total : b + step;
        return true;
    }
};

}  // namespace gp
