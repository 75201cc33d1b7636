// Kernels of gpu-sync: probes that check the last-block guard and the work queue (tests and
// compute-sanitizer runs), and the uneven-workload demonstration (static partitioning against
// the work queue).
//
// This file includes only <gpu_prims/sync.cuh>, exactly what a downstream crate gets from
// gpu_sync::write_headers, so it also proves that the exported headers stand on their own.
// The hashes and the demo's arithmetic are mirrored in crates/gpu-sync/src/cpu.rs.
#include <gpu_prims/sync.cuh>

using gp::u32;
using gp::u64;

namespace {

// ---- Small helpers (blockDim.x must be a multiple of 32, at most 1024) ---------------------

// A 32-bit integer hash (xor-shift / multiply), mirrored by cpu::mix32.
__device__ __forceinline__ u32 mix32(u32 x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__device__ __forceinline__ u32 shfl_xor(u32 v, int mask) {
    return __shfl_xor_sync(0xffffffffu, v, mask);
}
__device__ __forceinline__ u64 shfl_xor(u64 v, int mask) {
    u32 lo = shfl_xor((u32)v, mask);
    u32 hi = shfl_xor((u32)(v >> 32), mask);
    return ((u64)hi << 32) | lo;
}

// Wrapping sum over the block, returned in thread 0 (other threads get 0). Called by every
// thread; `s_warp` is a __shared__ array of 32. Ends with a barrier, so `s_warp` may be reused
// at once.
template <class T> __device__ __forceinline__ T block_sum(T v, T* s_warp) {
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) v += shfl_xor(v, m);
    if ((threadIdx.x & 31u) == 0u) s_warp[threadIdx.x >> 5] = v;
    __syncthreads();
    T total = 0;
    if (threadIdx.x == 0) {
        for (unsigned w = 0; w < (blockDim.x >> 5); ++w) total += s_warp[w];
    }
    __syncthreads();
    return total;
}

// ---- Guard probe ---------------------------------------------------------------------------

// What thread `g` of launch `launch` writes as its partial result (cpu::guard_partial).
__device__ __forceinline__ u32 guard_partial(u64 g, u32 launch) {
    return mix32((u32)g * 0x9e3779b1u + (u32)(g >> 32) + launch * 0x85ebca77u);
}

}  // namespace

// One launch of the guard's check. Every thread writes a partial (partials[grid * block]);
// the block's last thread first sleeps a block-dependent time of up to `delay_ns`, so the
// guard has to cover writes of threads other than the leader, and the last block varies.
// The last block then: adds 1 per thread to last_threads[launch * gridDim.x + blockIdx.x]
// (zeroed by the host; so exactly one entry per launch ends at blockDim.x, all others 0),
// and sums every partial through load_coherent into sums[launch].
extern "C" __global__ void sync_guard_probe(unsigned int* counter, u32* partials,
                                            u32* last_threads, u64* sums, u32 launch,
                                            u32 delay_ns) {
    const u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (delay_ns != 0u && threadIdx.x == blockDim.x - 1u) {
        __nanosleep(mix32(blockIdx.x * 0x27d4eb2fu + launch) % (delay_ns + 1u));
    }
    partials[g] = guard_partial(g, launch);

    if (!gp::is_last_block(counter)) return;  // block-uniform

    atomicAdd(&last_threads[(u64)launch * gridDim.x + blockIdx.x], 1u);
    const u64 n = (u64)gridDim.x * blockDim.x;
    u64 s = 0;
    for (u64 j = threadIdx.x; j < n; j += blockDim.x) s += gp::load_coherent(&partials[j]);
    __shared__ u64 s_warp[32];
    s = block_sum(s, s_warp);
    if (threadIdx.x == 0) sums[launch] = s;
}

// ---- Queue probes --------------------------------------------------------------------------

namespace {
// out[i] for item value v (cpu::queue_output).
__device__ __forceinline__ u32 queue_output(u32 v) { return mix32(v ^ 0xa5a5a5a5u); }
}  // namespace

// One item per fetch: every thread of the block adds 1 to hits[i] (so an item taken once by
// one block, with all its threads agreeing on the index, ends at blockDim.x); the leader
// writes out[i].
extern "C" __global__ void sync_queue_probe_single(gp::WorkQueue q, const u32* __restrict__ items,
                                                   u32* out, u32* hits) {
    __shared__ u64 slot;
    for (u64 i = q.fetch(&slot); i < q.total; i = q.fetch(&slot)) {
        atomicAdd(&hits[i], 1u);
        if (gp::is_block_leader()) out[i] = queue_output(items[i]);
    }
}

// `batch` items per fetch, spread over the block's threads: each item taken once ends with
// hits[i] == 1.
extern "C" __global__ void sync_queue_probe_batch(gp::WorkQueue q, u64 batch,
                                                  const u32* __restrict__ items, u32* out,
                                                  u32* hits) {
    __shared__ u64 slot;
    u64 begin = 0, end = 0;
    while (q.fetch_batch(&slot, batch, &begin, &end)) {
        for (u64 i = begin + threadIdx.x; i < end; i += blockDim.x) {
            atomicAdd(&hits[i], 1u);
            out[i] = queue_output(items[i]);
        }
    }
}

// ---- Uneven-workload demonstration ---------------------------------------------------------
// Item i carries a cost k and a seed. The block works on one item at a time: lane l (of
// DEMO_CHAINS × blockDim.x lanes, DEMO_CHAINS per thread, independent) starts at
// seed + l·0x9E3779B9 and takes k steps of the LCG x ← a·x + c (a dependent integer
// multiply-add chain); out[i] is the wrapping sum of the lanes' final values.
// cpu::demo_reference computes the same in O(log k) by jumping the LCG ahead. `a` and `c` are
// kernel parameters (the host passes 1664525 and 1013904223) rather than constants: with
// constants the compiler folds unrolled steps into one (x·a + c)·a + c = x·a² + (a·c + c), and
// an item of cost k would do k/4 steps' work.

// Per-block setup (the workload persistent blocks and a queue exist for): with setup > 0 each
// block first builds a table of DEMO_TABLE_WORDS words in dynamic shared memory, word j being
// DEMO_TABLE_SEED + j·0x9E3779B9 after `setup` LCG steps, once per block; each item's result
// then adds table[seed mod DEMO_TABLE_WORDS]. A persistent block pays the setup once for all its
// items, one block per item pays it for every item. cpu::demo_table_word mirrors it. With
// setup = 0 no table is built or read (and the launch asks for no shared memory).

// One work item, as gpu_sync::DemoItem lays it out (#[repr(C)]).
struct DemoItem {
    u32 cost;
    u32 seed;
};

namespace {
constexpr u32 LANE_STRIDE = 0x9e3779b9u;
constexpr int DEMO_CHAINS = 4;
constexpr u32 DEMO_TABLE_WORDS = 4096;  // 16 KiB
constexpr u32 DEMO_TABLE_SEED = 0x2545f491u;

extern __shared__ u32 demo_table[];

// Builds the block's table (nothing when setup == 0). Block-uniform: every thread calls it.
__device__ __forceinline__ void demo_setup(u32 setup, u32 a, u32 c) {
    if (setup == 0) return;
    for (u32 j = threadIdx.x; j < DEMO_TABLE_WORDS; j += blockDim.x) {
        u32 x = DEMO_TABLE_SEED + j * LANE_STRIDE;
        for (u32 s = 0; s < setup; ++s) x = x * a + c;
        demo_table[j] = x;
    }
    __syncthreads();
}

__device__ __forceinline__ void demo_item(u64 i, const DemoItem* __restrict__ items, u32* out,
                                          u32* s_warp, u32 a, u32 c, u32 setup) {
    const DemoItem it = items[i];
    u32 x[DEMO_CHAINS];
#pragma unroll
    for (int j = 0; j < DEMO_CHAINS; ++j) {
        x[j] = it.seed + (threadIdx.x + j * blockDim.x) * LANE_STRIDE;
    }
#pragma unroll 4
    for (u32 s = 0; s < it.cost; ++s) {
#pragma unroll
        for (int j = 0; j < DEMO_CHAINS; ++j) x[j] = x[j] * a + c;
    }
    u32 v = 0;
#pragma unroll
    for (int j = 0; j < DEMO_CHAINS; ++j) v += x[j];
    v = block_sum(v, s_warp);
    if (threadIdx.x == 0) out[i] = v + (setup ? demo_table[it.seed & (DEMO_TABLE_WORDS - 1)] : 0u);
}
}  // namespace

// Static partitioning: block b takes the contiguous chunk [b·per, min(n, (b+1)·per)),
// per = ceil(n / gridDim.x) (plan::static_chunk).
extern "C" __global__ void sync_demo_static(const DemoItem* __restrict__ items, u64 n, u32* out,
                                            u32 a, u32 c, u32 setup) {
    __shared__ u32 s_warp[32];
    demo_setup(setup, a, c);
    const u64 per = (n + gridDim.x - 1) / gridDim.x;
    const u64 begin = (u64)blockIdx.x * per;
    const u64 end = begin + per < n ? begin + per : n;
    for (u64 i = begin; i < end; ++i) demo_item(i, items, out, s_warp, a, c, setup);
}

// Static, block-strided: block b takes items b, b + gridDim.x, b + 2·gridDim.x, ... (with a
// grid of n blocks this is one block per item, balanced by the hardware's block scheduler).
extern "C" __global__ void sync_demo_strided(const DemoItem* __restrict__ items, u64 n, u32* out,
                                            u32 a, u32 c, u32 setup) {
    __shared__ u32 s_warp[32];
    demo_setup(setup, a, c);
    for (u64 i = blockIdx.x; i < n; i += gridDim.x) demo_item(i, items, out, s_warp, a, c, setup);
}

// Dynamic: blocks take `batch` items at a time from the work queue until it is empty.
extern "C" __global__ void sync_demo_queue(gp::WorkQueue q, u64 batch,
                                           const DemoItem* __restrict__ items, u32* out,
                                           u32 a, u32 c, u32 setup) {
    __shared__ u64 slot;
    __shared__ u32 s_warp[32];
    demo_setup(setup, a, c);
    u64 begin = 0, end = 0;
    while (q.fetch_batch(&slot, batch, &begin, &end)) {
        for (u64 i = begin; i < end; ++i) demo_item(i, items, out, s_warp, a, c, setup);
    }
}
