// Harness (issue 12, session of 2026-11-28): policies of the short-segments reduction
// (gpu_prims/segments_short.cuh) on segments of 1-8 f32 values over 2^28 values, against a
// same-run device copy, with the shapes benchmark's byte model (values + 8 bytes of offsets and
// 4 of result per segment). Also a variant that loads the next tile's offsets before folding
// the current one (persistent grid). nvcc -O3 -arch=sm_90 -I kernels/include.
#include <gpu_prims/ops.cuh>
#include <gpu_prims/segments_short.cuh>
#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <random>
#endif

using namespace gp;
extern __shared__ __align__(16) unsigned char smem[];

template <class P, int MINB>
__global__ void __launch_bounds__(256, MINB) plain(const f32* in, SegmentLanes s, u64 n, f32* out) {
    short_segments_reduce<Sum<f32>, f32, StoreValue<f32>, P>(in, s, n, out, reinterpret_cast<f32*>(smem));
}

// The next tile's offsets in flight while the current one is staged and folded.
template <class P, int MINB>
__global__ void __launch_bounds__(256, MINB) piped(const f32* __restrict__ in, SegmentLanes s, u64 n, f32* out) {
    typedef Sum<f32> Op;
    typedef f32 V;
    typedef f32 In;
    typedef ShortSegmentsStage<In, P::STAGE> Stage;
    constexpr int K = P::K;
    In* staged = reinterpret_cast<In*>(smem);
    const u64 S = (u64)blockDim.x * K;
    const bool vector_ok = ((u64)in % sizeof(Vec<In>)) == 0;
    const unsigned lane = lane_id();
    u64 nstart[K], nend[K], nbase = 0, nstop = 0;
    auto fetch = [&](u64 b) {
        const u64 s0 = b * S, s1 = min(s0 + S, s.count);
        nbase = __ldg(s.offsets + s0); nstop = __ldg(s.offsets + s1);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const u64 j = min(s0 + (u64)k * blockDim.x + threadIdx.x, s1);
            nstart[k] = __ldg(s.offsets + j);
            nend[k] = lane == 31 ? __ldg(s.offsets + min(j + 1, s1)) : 0;
        }
    };
    u64 b = blockIdx.x;
    if (b * S < s.count) fetch(b);
    for (; b * S < s.count; b += gridDim.x) {
        const u64 s0 = b * S, s1 = min(s0 + S, s.count);
        const u64 base = nbase, stop = nstop;
        u32 start[K], end[K];
#pragma unroll
        for (int k = 0; k < K; ++k) { start[k] = (u32)(nstart[k] - base); end[k] = (u32)(nend[k] - base); }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const u32 next = __shfl_down_sync(FULL_MASK, start[k], 1);
            if (lane != 31) end[k] = next;
        }
        if ((b + gridDim.x) * S < s.count) fetch(b + gridDim.x);
        V acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = Op::identity();
        const u32 span = (u32)(stop - base);
        for (u32 c = 0; c < span;) {
            const u64 a0 = vector_ok ? (base + c) - (base + c) % Stage::VEC : base + c;
            const u32 skew = (u32)(base + c - a0);
            const u32 hi = (u32)min((u64)span, (u64)c + Stage::CAP - skew);
            __syncthreads();
            short_segments_stage<In, P::STAGE, P::IN_FLIGHT>(in, n, a0, base + hi, vector_ok, staged);
            __syncthreads();
            const In* chunk = staged + skew;
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const u32 lo = max(start[k], c), e = min(end[k], hi);
                if (lo < e) short_segment_fold<Op, In>(acc[k], lo == start[k], chunk, lo - c, e - c, lo - start[k]);
            }
            c = hi;
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const u64 j = s0 + (u64)k * blockDim.x + threadIdx.x;
            if (j < s1) out[j] = acc[k];
        }
    }
}

#ifdef __CUDACC_RTC__
template __global__ void plain<ShortSegmentsPolicy<8, 49152, 4>, 4>(const f32*, SegmentLanes, u64, f32*);
template __global__ void plain<ShortSegmentsPolicy<8, 49152, 2>, 4>(const f32*, SegmentLanes, u64, f32*);
template __global__ void plain<ShortSegmentsPolicy<8, 49152, 1>, 4>(const f32*, SegmentLanes, u64, f32*);
#endif
__global__ void fill(f32* x, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        x[i] = (f32)((i * 2654435761u >> 7) % 41) - 20.0f;
}

#ifndef __CUDACC_RTC__
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

int main(int argc, char** argv) {
    const int log2 = argc > 1 ? atoi(argv[1]) : 28;
    const u64 n = 1ull << log2;
    std::mt19937_64 rng(7);
    std::vector<u64> off{0};
    while (off.back() < n) off.push_back(std::min<u64>(n, off.back() + 1 + rng() % 8));
    const u64 count = off.size() - 1;
    f32 *in, *out, *ref, *copy; u64* doff;
    CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&copy, n * 4));
    CK(cudaMalloc(&out, count * 4)); CK(cudaMalloc(&ref, count * 4));
    CK(cudaMalloc(&doff, (count + 1) * 8));
    CK(cudaMemcpy(doff, off.data(), (count + 1) * 8, cudaMemcpyHostToDevice));
    fill<<<1024, 256>>>(in, n);
    SegmentLanes s{doff, count};
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    auto timeit = [&](auto&& f) {
        std::vector<float> t;
        for (int r = 0; r < 25; ++r) {
            cudaEventRecord(a); f(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
            float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 5) t.push_back(ms);
        }
        std::sort(t.begin(), t.end()); return t[t.size() / 2];
    };
    const float copy_ms = timeit([&] { cudaMemcpyAsync(copy, in, n * 4, cudaMemcpyDeviceToDevice); });
    const double bytes = n * 4.0 + count * 12.0;
    auto report = [&](const char* name, float ms) {
        std::vector<f32> h(count), r(count);
        CK(cudaMemcpy(h.data(), out, count * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(r.data(), ref, count * 4, cudaMemcpyDeviceToHost));
        const bool same = memcmp(h.data(), r.data(), count * 4) == 0;
        printf("%-34s %.4f ms  %.3fx copy  %s\n", name, ms, (bytes / ms) / (2.0 * n * 4 / copy_ms), same ? "same" : "DIFFERENT");
        CK(cudaMemset(out, 0, count * 4));
    };
    printf("n=2^%d segments=%llu copy %.4f ms\n", log2, (unsigned long long)count, copy_ms);
    // Reference: the shipped policy.
    {
        typedef ShortSegmentsPolicy<4, 32768, 4> P;
        const u64 tiles = (count + 1023) / 1024;
        plain<P, 4><<<tiles, 256, P::STAGE>>>(in, s, n, ref); CK(cudaDeviceSynchronize());
    }
#define PLAIN(KK, ST, MB, GRID_PERSIST, FL) { \
        typedef ShortSegmentsPolicy<KK, ST, FL> P; \
        auto kern = plain<P, MB>; \
        CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, ST)); \
        const u64 tiles = (count + 256 * KK - 1) / (256 * KK); \
        int per; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, 256, ST)); \
        const u64 grid = GRID_PERSIST ? std::min<u64>(tiles, (u64)sms * per) : tiles; \
        float ms = timeit([&] { kern<<<grid, 256, ST>>>(in, s, n, out); }); CK(cudaGetLastError()); \
        char name[96]; snprintf(name, sizeof name, "plain K%d %uK minb%d occ%d fl%d%s", KK, ST / 1024, MB, per, FL, GRID_PERSIST ? " persist" : ""); \
        report(name, ms); }
#define PIPED(KK, ST, MB) { \
        typedef ShortSegmentsPolicy<KK, ST, 4> P; \
        auto kern = piped<P, MB>; \
        CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, ST)); \
        const u64 tiles = (count + 256 * KK - 1) / (256 * KK); \
        int per; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, 256, ST)); \
        const u64 grid = std::min<u64>(tiles, (u64)sms * per); \
        float ms = timeit([&] { kern<<<grid, 256, ST>>>(in, s, n, out); }); CK(cudaGetLastError()); \
        char name[96]; snprintf(name, sizeof name, "piped K%d %uK minb%d occ%d", KK, ST / 1024, MB, per); \
        report(name, ms); }
    for (int round = 0; round < 2; ++round) {
        PLAIN(8, 49152, 4, false, 4)
        PLAIN(8, 49152, 4, false, 6)
        PLAIN(8, 49152, 4, false, 12)
        PLAIN(8, 49152, 3, false, 12)
        PLAIN(4, 32768, 4, false, 8)
        PLAIN(8, 40960, 4, false, 5)
    }
    return 0;
}
#endif
