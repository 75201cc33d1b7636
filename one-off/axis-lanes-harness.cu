// Harness 3 (issue 12, session of 2026-12-02): the library's lane reduction (gpu_prims/lanes.cuh,
// lanes_reduce) in its general form and its in-warp form (IN_WARP: no splits' merge and no
// warps' combine compiled), over (a) axis lanes: rows of COLS contiguous f32 (2^28 values in
// all; 1024 columns take 32 threads per row, 512 take 16), launched as gpu-reduce launches
// reduce_axis_* (a block per tile, at most four resident waves, grid-stride), and (b) segments
// of 1-MAXLEN values (a warp or a group per segment, a block per tile), each against a
// same-run device copy and checked against the CPU.
// nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include one-off/axis-lanes-harness.cu
#include <gpu_prims/ops.cuh>
#include <gpu_prims/lanes.cuh>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace gp;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

template <bool IN_WARP>
__global__ void __launch_bounds__(LANES_BLOCK) axkern(const f32* __restrict__ in, AxisLanes lanes, LaneTiling tiling, f32* out, f32* partials, unsigned* counters) {
    lanes_reduce<Sum<f32>, f32, AxisLanes, StoreValue<f32>, IN_WARP>(in, lanes, tiling, out, partials, counters);
}
template <bool IN_WARP>
__global__ void __launch_bounds__(LANES_BLOCK, 5) segkern(const f32* __restrict__ in, SegmentLanes lanes, LaneTiling tiling, f32* out, f32* partials, unsigned* counters) {
    lanes_reduce<Sum<f32>, f32, SegmentLanes, StoreValue<f32>, IN_WARP>(in, lanes, tiling, out, partials, counters);
}
__global__ void fill(f32* in, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        in[i] = (f32)((i * 7) % 41) - 20.f;
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "axis";
    const u64 arg = argc > 2 ? atoll(argv[2]) : 1024;
    const u64 n = 1ull << 28;
    f32 *in, *copy, *out; u64* doff = nullptr;
    CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&copy, n * 4)); CK(cudaMalloc(&out, n * 4));
    fill<<<1024, 256>>>(in, n);
    CK(cudaDeviceSynchronize());
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::vector<u64> off{0};
    u64 count;
    if (mode == "axis") {
        count = n / arg;
    } else {
        std::mt19937_64 rng(7);
        while (off.back() < n) off.push_back(std::min<u64>(n, off.back() + 1 + rng() % arg));
        count = off.size() - 1;
        CK(cudaMalloc(&doff, (count + 1) * 8));
        CK(cudaMemcpy(doff, off.data(), (count + 1) * 8, cudaMemcpyHostToDevice));
    }
    std::vector<f32> want(count);
    for (u64 s = 0; s < count; ++s) {
        const u64 b = mode == "axis" ? s * arg : off[s], e = mode == "axis" ? b + arg : off[s + 1];
        double a = 0;
        for (u64 i = b; i < e; ++i) a += (f32)((i * 7) % 41) - 20.f;
        want[s] = (f32)a;
    }
    // The plan's mapping: one position per 32 values (axis) or 16 (segments), a power of two
    // up to a warp.
    const u64 mean = mode == "axis" ? arg : (arg + 1) / 2;
    u32 G = 1;
    while (G * 2 <= 32 && G * 2 <= mean / (mode == "axis" ? 32 : 16)) G *= 2;
    const LaneTiling tiling{G, 32 / G, 1, 0};
    const u64 L = (LANES_BLOCK / 32) * (32 / G);
    const u64 tiles = (count + L - 1) / L;
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
    const double bytes = n * 4.0 + count * (mode == "axis" ? 4.0 : 12.0);
    printf("%s %llu: %llu lanes, G=%u, %llu tiles\n", mode.c_str(), (unsigned long long)arg, (unsigned long long)count, G, (unsigned long long)tiles);
    auto run = [&](auto kern, const char* name, bool waves, auto lanes) {
        cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, kern));
        int per; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, LANES_BLOCK, 0));
        const u64 grid = waves ? std::min<u64>(tiles, 4ull * sms * per) : tiles;
        CK(cudaMemset(out, 0, count * 4));
        const float ms = timeit([&] { kern<<<grid, LANES_BLOCK>>>(in, lanes, tiling, out, nullptr, nullptr); });
        CK(cudaGetLastError());
        std::vector<f32> h(count); CK(cudaMemcpy(h.data(), out, count * 4, cudaMemcpyDeviceToHost));
        u64 bad = 0;
        for (u64 s = 0; s < count; ++s) bad += h[s] != want[s];
        const float cms = timeit([&] { cudaMemcpyAsync(copy, in, n * 4, cudaMemcpyDeviceToDevice); });
        printf("%-22s regs %2d spill %zu occ %2d grid %7llu  %.4f ms  %.3fx copy (%.4f)  %s\n", name, fa.numRegs, fa.localSizeBytes, per,
               (unsigned long long)grid, ms, (bytes / ms) / (2.0 * n * 4 / cms), cms, bad == 0 ? "ok" : "WRONG");
        fflush(stdout);
    };
    for (int round = 0; round < 2; ++round) {
        if (mode == "axis") {
            const AxisLanes lanes{count, count, arg, 0, (i64)arg, 1};
            run(axkern<false>, "axis general", true, lanes);
            run(axkern<true>, "axis in-warp", true, lanes);
        } else {
            const SegmentLanes lanes{doff, count};
            run(segkern<false>, "segments general", false, lanes);
            run(segkern<true>, "segments in-warp", false, lanes);
        }
    }
    return 0;
}
