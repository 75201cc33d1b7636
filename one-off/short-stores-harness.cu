// Harness (thirty-third session): how the thread-per-lane-group columns reduction
// (reduce_columns_short_*) should store its results. Many short lanes side by side (2^28 values
// as R rows of L lanes, the lanes contiguous: 134217728x2 / 67108864x4 F order along axis 1),
// a thread per lane group of one 16-byte vector (8 f16 or 4 f32 lanes), H = 2 groups a block
// apart, all rows loaded before any is folded (as lanes_reduce_columns_short_h), then one of:
//   0 a scalar store per lane (the shipped kernel)        1 16-byte vector stores
//   2 16-byte stores after a pair-of-lanes shuffle, so each warp store covers 512 contiguous
//     bytes (full sectors)                                3 the block's results staged in
//     shared memory, stored as coalesced 16-byte vectors
// each against a same-run device copy, checked against the CPU.
// nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include one-off/short-stores-harness.cu
#include <gpu_prims/ops.cuh>
#include <gpu_prims/load.cuh>
#include <gpu_prims/reduce_arg.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace gp;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int BLOCK = 256, H = 2;

template <class Op, class In, int MODE, int R>
__global__ void __launch_bounds__(BLOCK, 3) kern(const In* __restrict__ in, u64 lanes, f32* out) {
    constexpr int W = VecWidth<In>::value;  // lanes per group
    typedef Vec<In, W> Vw;
    typedef ReduceConvert<In, f32> Cv;
    Op op;
    const u64 groups = lanes / W;
    __shared__ Vec<f32, 4> stage[MODE == 3 ? BLOCK * H * W / 4 : 1];
    const u64 g0 = (u64)blockIdx.x * BLOCK * H + threadIdx.x;
    f32 acc[H][W];
    bool valid[H];
    Vw x[H][R];
#pragma unroll
    for (int h = 0; h < H; ++h) {
        const u64 g = g0 + (u64)h * BLOCK;
        valid[h] = g < groups;
#pragma unroll
        for (int r = 0; r < R; ++r)
            if (valid[h]) x[h][r] = *reinterpret_cast<const Vw*>(in + (u64)r * lanes + g * W);
    }
#pragma unroll
    for (int h = 0; h < H; ++h) {
#pragma unroll
        for (int k = 0; k < W; ++k) acc[h][k] = Op::identity();
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int k = 0; k < W; ++k) acc[h][k] = op(acc[h][k], Cv::apply(x[h][r].v[k], r));
    }
    if constexpr (MODE == 0) {
#pragma unroll
        for (int h = 0; h < H; ++h)
            if (valid[h])
#pragma unroll
                for (int k = 0; k < W; ++k) out[(g0 + (u64)h * BLOCK) * W + k] = acc[h][k];
    } else if constexpr (MODE == 1) {
#pragma unroll
        for (int h = 0; h < H; ++h)
            if (valid[h])
#pragma unroll
                for (int j = 0; j < W / 4; ++j) {
                    Vec<f32, 4> v{{acc[h][4 * j], acc[h][4 * j + 1], acc[h][4 * j + 2], acc[h][4 * j + 3]}};
                    reinterpret_cast<Vec<f32, 4>*>(out + (g0 + (u64)h * BLOCK) * W)[j] = v;
                }
    } else if constexpr (MODE == 2) {
        // W == 8: lane l stores half (l & 1) of the group of lane (l >> 1) + 16 j.
        const int l = threadIdx.x & 31;
        const u64 wbase = g0 - l;  // group of lane 0 of this warp
#pragma unroll
        for (int h = 0; h < H; ++h)
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const int src = (l >> 1) + 16 * j;
                Vec<f32, 4> v;
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    const f32 lo = __shfl_sync(0xffffffffu, acc[h][q], src);
                    const f32 hi = __shfl_sync(0xffffffffu, acc[h][4 + q], src);
                    v.v[q] = (l & 1) ? hi : lo;
                }
                const u64 g = wbase + src + (u64)h * BLOCK;
                if (g < groups) reinterpret_cast<Vec<f32, 4>*>(out + g * W)[l & 1] = v;
            }
    } else {
        f32* s = reinterpret_cast<f32*>(stage);
#pragma unroll
        for (int h = 0; h < H; ++h)
#pragma unroll
            for (int j = 0; j < W / 4; ++j) {
                // Groups a block apart stage as one contiguous run of H * BLOCK groups.
                Vec<f32, 4> v{{acc[h][4 * j], acc[h][4 * j + 1], acc[h][4 * j + 2], acc[h][4 * j + 3]}};
                stage[((u64)h * BLOCK + threadIdx.x) * (W / 4) + j] = v;
            }
        (void)s;
        __syncthreads();
        const u64 first = (u64)blockIdx.x * BLOCK * H * W;  // first f32 of the block's run
#pragma unroll
        for (int i = 0; i < H * W / 4; ++i) {
            const u64 e = (u64)(i * BLOCK + threadIdx.x) * 4;
            if (first / W + e / W < groups) reinterpret_cast<Vec<f32, 4>*>(out + first)[i * BLOCK + threadIdx.x] = stage[i * BLOCK + threadIdx.x];
        }
    }
}

template <class T> __global__ void fill(T* in, u64 n);
template <> __global__ void fill<f32>(f32* in, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        in[i] = (f32)((i * 7) % 41) - 20.f;
}
template <> __global__ void fill<f16>(f16* in, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        in[i] = from_f32<f16>((f32)((i * 7) % 41) - 20.f);
}
static f32 val(u64 i) { return (f32)((i * 7) % 41) - 20.f; }

static double copy_gbps;
cudaEvent_t ea, eb;
template <class F> float timeit(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.2) { f(); CK(cudaDeviceSynchronize()); }
    std::vector<float> t;
    for (int r = 0; r < 21; ++r) {
        cudaEventRecord(ea); f(); cudaEventRecord(eb); CK(cudaEventSynchronize(eb));
        float ms; cudaEventElapsedTime(&ms, ea, eb); t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class Op, class In, int MODE, int R>
void run(const char* tname, const char* opname, const In* in, f32* out, bool is_max) {
    constexpr int W = VecWidth<In>::value;
    const u64 n = 1ull << 28, lanes = n / R, groups = lanes / W;
    const u64 blocks = (groups + BLOCK * H - 1) / (BLOCK * H);
    CK(cudaMemset(out, 0, lanes * 4));
    const float ms = timeit([&] { kern<Op, In, MODE, R><<<blocks, BLOCK>>>(in, lanes, out); });
    CK(cudaGetLastError());
    std::vector<f32> got(lanes);
    CK(cudaMemcpy(got.data(), out, lanes * 4, cudaMemcpyDeviceToHost));
    u64 bad = 0;
    for (u64 l = 0; l < lanes; l += 1 + (l % 7)) {
        f32 w = is_max ? -1e30f : 0.f;
        for (int r = 0; r < R; ++r) w = is_max ? std::max(w, val(r * lanes + l)) : w + val(r * lanes + l);
        if (got[l] != w) ++bad;
    }
    const double bytes = (double)n * sizeof(In) + (double)lanes * 4;
    printf("%s %s %llux%d F axis 1 mode %d: %.4f ms %.3fx copy %s\n", opname, tname,
           (unsigned long long)lanes, R, MODE, ms, bytes / (ms * 1e6) / copy_gbps, bad ? "WRONG" : "ok");
}

template <class In, int R> void modes(const char* tname, const In* in, f32* out) {
    run<Sum<f32>, In, 0, R>(tname, "sum", in, out, false);
    run<Sum<f32>, In, 1, R>(tname, "sum", in, out, false);
    if constexpr (VecWidth<In>::value == 8) run<Sum<f32>, In, 2, R>(tname, "sum", in, out, false);
    run<Sum<f32>, In, 3, R>(tname, "sum", in, out, false);
    run<Max<f32>, In, 0, R>(tname, "max", in, out, true);
    run<Max<f32>, In, 1, R>(tname, "max", in, out, true);
    if constexpr (VecWidth<In>::value == 8) run<Max<f32>, In, 2, R>(tname, "max", in, out, true);
    run<Max<f32>, In, 3, R>(tname, "max", in, out, true);
}

int main() {
    const u64 n = 1ull << 28;
    f32 *in32, *out, *copy;
    f16* in16;
    CK(cudaMalloc(&in32, n * 4)); CK(cudaMalloc(&in16, n * 2)); CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&copy, n * 4));
    fill<f32><<<1024, 256>>>(in32, n);
    fill<f16><<<1024, 256>>>(in16, n);
    CK(cudaDeviceSynchronize());
    cudaEventCreate(&ea); cudaEventCreate(&eb);
    for (int round = 0; round < 2; ++round) {
        const float cms = timeit([&] { CK(cudaMemcpyAsync(copy, in32, n * 4, cudaMemcpyDeviceToDevice)); });
        copy_gbps = 2.0 * n * 4 / (cms * 1e6);
        printf("round %d: copy 2^28 x 4 bytes %.4f ms (%.0f GB/s read + written)\n", round, cms, copy_gbps);
        modes<f16, 2>("f16", in16, out);
        modes<f16, 4>("f16", in16, out);
        modes<f32, 2>("f32", in32, out);
        modes<f32, 4>("f32", in32, out);
    }
    return 0;
}
