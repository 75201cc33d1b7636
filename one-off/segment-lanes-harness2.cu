// Harness 2 (issue 12, session of 2026-12-02): the library's segment lane reduction as built
// from the include folder given to nvcc (-I kernels/include: as shipped; -I an experimental
// copy), five and six blocks per SM, beside the bare fold of harness 1 (MODE 1), on segments
// of 1-MAXLEN f32 values, G threads per segment. Harness 1's notes follow.
// Harness (issue 12, session of 2026-12-01): the segment lane reduction (gpu_prims/lanes.cuh,
// lanes_reduce over SegmentLanes with a warp per segment: G = 32, Wh = 1) on segments of 1-2000
// f32 values over 2^28 values, against a same-run device copy, with the shapes benchmark's byte
// model (values + 8 bytes of offsets and 4 of result per segment). Variants of the per-segment
// fold (how a segment starting anywhere is loaded, how the vectors left after the last step of
// four are loaded) and of the block size (segments per block: a block holds its resources
// until its longest segment is done). nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include.
#include <gpu_prims/ops.cuh>
#include <gpu_prims/lanes.cuh>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <random>
#include <chrono>
#include <cmath>

using namespace gp;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

typedef Vec<f32, 4> V4;
typedef Vec<f32, 2> V2;

// The shipped loop: four vectors a step, then the rest one after another.
template <class V, int VW, bool BATCH>
__device__ __forceinline__ f32 fold(const f32* __restrict__ base, u64 b, u64 e, u64 p, u64 P, f32 acc) {
    const V* vb = reinterpret_cast<const V*>(base + b);
    const u64 nv = (e - b) / VW;
    u64 v = p;
    for (; v + 3 * P < nv; v += 4 * P) {
        V x[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) x[k] = vb[v + k * P];
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int i = 0; i < VW; ++i) acc += x[k].v[i];
    }
    if constexpr (BATCH) {
        if (v < nv) {
            V x[3];
#pragma unroll
            for (int k = 0; k < 3; ++k) x[k] = vb[v + k * P < nv ? v + k * P : v];
#pragma unroll
            for (int k = 0; k < 3; ++k)
                if (v + k * P < nv)
#pragma unroll
                    for (int i = 0; i < VW; ++i) acc += x[k].v[i];
        }
    } else {
        for (; v < nv; v += P) {
            const V x = vb[v];
#pragma unroll
            for (int i = 0; i < VW; ++i) acc += x.v[i];
        }
    }
    for (u64 j = b + nv * VW + p; j < e; j += P) acc += __ldg(base + j);
    return acc;
}

// MODE 0: shipped (16-byte, 8-byte or scalar loads by the start's alignment).
// MODE 1: head one per position first, then 16-byte vectors, tail batched (this session's build).
// MODE 2: head loaded before the vectors, folded after them; tail batched.
// MODE 3: as 2 with the plain tail.
// MODE 4: shipped paths with the tail batched.
template <int MODE>
__device__ __forceinline__ f32 segment_fold(const f32* __restrict__ in, u64 b, u64 e, u64 p, u64 P) {
    f32 acc = 0.f;
    const u64 addr = (u64)(in + b);
    if constexpr (MODE == 0 || MODE == 4) {
        constexpr bool B = MODE == 4;
        if (addr % 16 == 0) return fold<V4, 4, B>(in, b, e, p, P, acc);
        if (addr % 8 == 0) return fold<V2, 2, B>(in, b, e, p, P, acc);
        u64 j = b + p;
        for (; j + 7 * P < e; j += 8 * P) {
            f32 x[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) x[k] = __ldg(in + j + k * P);
#pragma unroll
            for (int k = 0; k < 8; ++k) acc += x[k];
        }
        for (; j < e; j += P) acc += __ldg(in + j);
        return acc;
    } else {
        const u64 mis = (addr / 4) % 4;
        const u64 head = mis == 0 ? 0 : (4 - mis < e - b ? 4 - mis : e - b);
        if constexpr (MODE == 1) {
            for (u64 j = b + p; j < b + head; j += P) acc += __ldg(in + j);
            return fold<V4, 4, true>(in, b + head, e, p, P, acc);
        } else {
            const f32 h = p < head ? __ldg(in + b + p) : 0.f;  // P = 32 here
            acc = fold<V4, 4, MODE == 2>(in, b + head, e, p, P, acc);
            return acc + h;
        }
    }
}

// A warp per segment, BLOCK / 32 segments per block, one tile per block (as the library's
// segment lanes); PERSIST: grid-stride over the tiles with a grid of resident blocks.
// LIB bit 0: the library's lane_split (a 64-bit division by gridDim.y) before the fold;
// bit 1: the library's epilogue (LaneThread from a runtime LaneTiling, lanes_block_reduce).
template <int MODE, int BLOCK, int MINB, int LIB = 0>
__global__ void __launch_bounds__(BLOCK, MINB) segkern(const f32* __restrict__ in, const u64* __restrict__ off, u64 count, f32* out, u32 P, LaneTiling tiling) {
    // P (32) is a launch argument: the library's positions are not known at compile time.
    __shared__ f32 scratch[LANES_BLOCK];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    constexpr unsigned W = BLOCK / 32;
    const u64 tiles = (count + W - 1) / W;
    for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const u64 seg = tile * W + warp;
        const bool valid = seg < count;
        u64 b = valid ? __ldg(off + seg) : 0, e = valid ? __ldg(off + seg + 1) : 0;
        if constexpr ((LIB & 1) != 0) {
            u64 lo, hi;
            lane_split(e - b, blockIdx.y, gridDim.y, &lo, &hi);
            e = b + hi;
            b = b + lo;
        }
        f32 acc = segment_fold<MODE>(in, b, e, lane, P);
        if constexpr ((LIB & 2) != 0) {
            const LaneThread t(tiling);
            acc = lanes_block_reduce(acc, Sum<f32>(), t, scratch);
        } else {
            // Inclusive warp scan (as lanes_warp_scan with Q = 32), result from the last lane.
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const f32 o = __shfl_up_sync(0xffffffffu, acc, d);
                if (lane >= (unsigned)d) acc += o;
            }
            acc = __shfl_sync(0xffffffffu, acc, 31);
        }
        if (valid && lane == 0) out[seg] = acc;
    }
}

template <int MINB>
__global__ void __launch_bounds__(LANES_BLOCK, MINB) libkern(const f32* __restrict__ in, SegmentLanes lanes, LaneTiling tiling, f32* out, f32* partials, unsigned* counters) {
    lanes_reduce<Sum<f32>, f32, SegmentLanes, StoreValue<f32>>(in, lanes, tiling, out, partials, counters);
}

__global__ void fill(f32* in, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        in[i] = (f32)((i * 7) % 41) - 20.f;
}

int main(int argc, char** argv) {
    const int log2 = argc > 1 ? atoi(argv[1]) : 28;
    const int maxlen = argc > 2 ? atoi(argv[2]) : 2000;
    const unsigned G = argc > 3 ? atoi(argv[3]) : 32;
    const char* tag = argc > 4 ? argv[4] : "";
    const u64 n = 1ull << log2;
    std::mt19937_64 rng(7);
    std::vector<u64> off{0};
    while (off.back() < n) off.push_back(std::min<u64>(n, off.back() + 1 + rng() % maxlen));
    const u64 count = off.size() - 1;
    std::vector<f32> want(count);
    for (u64 s = 0; s < count; ++s) {
        double a = 0;
        for (u64 i = off[s]; i < off[s + 1]; ++i) a += (f32)((i * 7) % 41) - 20.f;
        want[s] = (f32)a;
    }
    f32 *in, *out, *copy; u64* doff;
    CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&copy, n * 4));
    CK(cudaMalloc(&out, count * 4)); CK(cudaMalloc(&doff, (count + 1) * 8));
    CK(cudaMemcpy(doff, off.data(), (count + 1) * 8, cudaMemcpyHostToDevice));
    fill<<<1024, 256>>>(in, n);
    CK(cudaDeviceSynchronize());
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    auto timeit = [&](auto&& f) {
        const auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.2) { f(); CK(cudaDeviceSynchronize()); }
        std::vector<float> t;
        for (int r = 0; r < 21; ++r) {
            cudaEventRecord(a); f(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
            float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
        }
        std::sort(t.begin(), t.end()); return t[t.size() / 2];
    };
    const double bytes = n * 4.0 + count * 12.0;
    printf("%s n=2^%d segments=%llu (1-%d) G=%u\n", tag, log2, (unsigned long long)count, maxlen, G);
    // Compares within the f32 sum's reassociation (the tree differs from the serial order).
    auto check = [&](const std::vector<f32>& h) {
        u64 bad = 0;
        for (u64 s = 0; s < count; ++s) {
            const double tol = 1e-5 * (off[s + 1] - off[s]) * 20 + 1e-3;
            if (std::abs((double)h[s] - (double)want[s]) > tol) ++bad;
        }
        return bad;
    };
#define RUN(MODE, BLOCK, MINB) { \
        auto kern = segkern<MODE, BLOCK, MINB>; \
        cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, kern)); \
        int per; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, BLOCK, 0)); \
        const u64 tiles = (count + BLOCK / 32 - 1) / (BLOCK / 32); \
        CK(cudaMemset(out, 0, count * 4)); \
        float ms = timeit([&] { kern<<<tiles, BLOCK>>>(in, doff, count, out, 32u, LaneTiling{32, 1, 1, 0}); }); CK(cudaGetLastError()); \
        std::vector<f32> h(count); CK(cudaMemcpy(h.data(), out, count * 4, cudaMemcpyDeviceToHost)); \
        const u64 bad = check(h); \
        const float cms = timeit([&] { cudaMemcpyAsync(copy, in, n * 4, cudaMemcpyDeviceToDevice); }); \
        printf("%s bare mode %d block %3d minb %2d regs %2d spill %zu occ %2d  %.4f ms  %.3fx copy (%.4f)  %s\n", tag, MODE, BLOCK, MINB, fa.numRegs, fa.localSizeBytes, per, \
               ms, (bytes / ms) / (2.0 * n * 4 / cms), cms, bad == 0 ? "ok" : "WRONG"); \
        fflush(stdout); }
#define LIB(MINB) { \
        auto kern = libkern<MINB>; \
        cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, kern)); \
        int per; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, LANES_BLOCK, 0)); \
        const u64 L = LANES_BLOCK / G; \
        const u64 tiles = (count + L - 1) / L; \
        CK(cudaMemset(out, 0, count * 4)); \
        SegmentLanes sl{doff, count}; \
        float ms = timeit([&] { kern<<<tiles, LANES_BLOCK>>>(in, sl, LaneTiling{G, 32 / G, 1, 0}, out, nullptr, nullptr); }); CK(cudaGetLastError()); \
        std::vector<f32> h(count); CK(cudaMemcpy(h.data(), out, count * 4, cudaMemcpyDeviceToHost)); \
        const u64 bad = check(h); \
        const float cms = timeit([&] { cudaMemcpyAsync(copy, in, n * 4, cudaMemcpyDeviceToDevice); }); \
        printf("%s library lanes_reduce block 256 minb %2d regs %2d spill %zu occ %2d  %.4f ms  %.3fx copy (%.4f)  %s\n", tag, MINB, fa.numRegs, fa.localSizeBytes, per, \
               ms, (bytes / ms) / (2.0 * n * 4 / cms), cms, bad == 0 ? "ok" : "WRONG"); \
        fflush(stdout); }
    for (int round = 0; round < 2; ++round) {
        LIB(5)
        LIB(6)
        if (G == 32) {
            RUN(1, 256, 5)
            RUN(1, 256, 6)
        }
    }
    return 0;
}
