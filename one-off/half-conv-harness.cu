// Standalone harness (issue 24, for a session with an H200): the fixed-width 16-bit conv1d
// kernels (gp::conv1d_fixed over f16 and bf16, f32 accumulation) with the shipped tile (16
// outputs per thread, 8 blocks of 128 per SM) against the shapes the f32 kernels measured on the
// H200 in session 3: 24 outputs at 10 blocks per SM (shipped for f32 as the wide tiles), 16 at
// 12 and 32 at 8. `same` correlation, zero boundary, one row of 2^k values and 4096 rows of
// 16381; each row's ends and 300000 spread outputs checked bit for bit against the CPU (data of
// small multiples of 1/8 and a mask of multiples of 1/4: every f32 sum is exact, and rounded once
// to the 16-bit type on both sides). Same-run copy of the 16-bit signal. Built on the device with nvcc -arch=sm_90: one-off/h200-half-conv.sh.
//
// usage: half-conv-harness <log2 n> <reps>
#include <gpu_prims/conv1d_fixed.cuh>

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

using gp::i64;
using gp::u64;

template <class T, int W, int K, int MINB>
__global__ void __launch_bounds__(128, MINB) conv_half(const T* __restrict__ x, T* __restrict__ y,
                                                       u64 rows, u64 n, u64 n_out, i64 off,
                                                       int bmode, u64 tiles_per_row,
                                                       gp::Conv1dFixedMask<float, W> mask) {
    gp::conv1d_fixed<T, W, K, 128>(x, y, rows, n, n_out, off, bmode, tiles_per_row, mask);
}

template <class F> static double median_us(int reps, F f) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> v;
    f();
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        v.push_back(ms * 1000.f);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A float rounded to the 16-bit type (to nearest even; no NaNs here), as bits, and back.
static unsigned short to_bits(float v, bool bf) {
    if (bf) {
        unsigned u;
        memcpy(&u, &v, 4);
        u += 0x7fffu + ((u >> 16) & 1u);
        return (unsigned short)(u >> 16);
    }
    return __half_as_ushort(__float2half_rn(v));
}
static float from_bits(unsigned short b, bool bf) {
    if (bf) {
        const unsigned u = (unsigned)b << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return __half2float(__ushort_as_half(b));
}

struct Case {
    u64 rows, n;
    const std::vector<float>* hx;  // the values (exact in both 16-bit types)
    const std::vector<float>* hm;
    void* x;
    void* y;
    double copy_us;
    int reps;
};

template <class T, int W, int K, int MINB> static void run(const Case& c, bool bf, const char* tag) {
    const i64 off = -(i64)((W - 1) / 2);
    const u64 n_out = c.n, tile = 128 * K;
    const u64 tiles_per_row = (n_out + 7 + tile - 1) / tile;  // + V - 1: the alignment shift
    gp::Conv1dFixedMask<float, W> m;
    for (int j = 0; j < W; ++j) m.m[j] = (*c.hm)[j];
    const u64 grid = std::min<u64>(c.rows * tiles_per_row, 2147483647ull);
    auto k = conv_half<T, W, K, MINB>;
    const T* x = static_cast<const T*>(c.x);
    T* y = static_cast<T*>(c.y);
    CK(cudaMemset(y, 0xff, c.rows * n_out * 2));
    auto launch = [&] { k<<<(unsigned)grid, 128>>>(x, y, c.rows, c.n, n_out, off, 0, tiles_per_row, m); };
    const double us = median_us(c.reps, launch);
    CK(cudaGetLastError());
    std::vector<unsigned short> got(c.rows * n_out);
    CK(cudaMemcpy(got.data(), y, got.size() * 2, cudaMemcpyDeviceToHost));
    // The first and last 3000 outputs of every row and 300000 spread ones: the f32 sum is exact
    // (small multiples of 1/32), and the kernel rounds it once, as to_bits does.
    u64 bad = 0;
    auto test = [&](u64 r, u64 o) {
        float s = 0;
        for (int j = 0; j < W; ++j) {
            const i64 p = (i64)o + off + j;
            if (p >= 0 && p < (i64)c.n) s += (*c.hx)[r * c.n + p] * (*c.hm)[j];
        }
        bad += got[r * n_out + o] != to_bits(s, bf);
    };
    for (u64 r = 0; r < c.rows; ++r) {
        for (u64 o = 0; o < 3000 && o < n_out; ++o) test(r, o);
        for (u64 o = n_out > 3000 ? n_out - 3000 : 0; o < n_out; ++o) test(r, o);
    }
    for (u64 k = 0; k < 300000; ++k) {
        const u64 f = (k * 2654435761ull + 12345) % (c.rows * n_out);
        test(f / n_out, f % n_out);
    }
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 128, 0));
    printf("conv %s %llux%llu w=%2d %-10s K%-2d %d regs %2d blocks/SM: %9.2f us  %.3fx copy  %s\n",
           bf ? "bf16" : "f16", (unsigned long long)c.rows, (unsigned long long)c.n, W, tag, K,
           fa.numRegs, per_sm, us, c.copy_us / us, bad ? "WRONG" : "ok");
    fflush(stdout);
}

template <class T, int W> static void widths(const Case& c, bool bf) {
    run<T, W, 16, 8>(c, bf, "shipped");
    run<T, W, 24, 10>(c, bf, "wide");
    run<T, W, 16, 12>(c, bf, "occupancy");
    run<T, W, 32, 8>(c, bf, "k32");
}

template <class T> static void all_widths(const Case& c, bool bf) {
    widths<T, 3>(c, bf);
    widths<T, 7>(c, bf);
    widths<T, 15>(c, bf);
    widths<T, 31>(c, bf);
}

int main(int argc, char** argv) {
    const int lg = argc > 1 ? atoi(argv[1]) : 28;
    const int reps = argc > 2 ? atoi(argv[2]) : 15;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    const u64 total = 1ull << lg;
    std::vector<float> hm(31);
    for (int j = 0; j < 31; ++j) hm[j] = (float)(j % 7 - 3) / 4.f;
    for (auto [rows, n] : {std::pair<u64, u64>{1, total}, std::pair<u64, u64>{4096, 16381}}) {
        std::vector<float> hx(rows * n);
        for (u64 i = 0; i < hx.size(); ++i) hx[i] = (float)((int)(i * 2654435761u >> 20) % 17 - 8) / 8.f;
        void *x, *y, *z;
        CK(cudaMalloc(&x, hx.size() * 2));
        CK(cudaMalloc(&y, hx.size() * 2));
        CK(cudaMalloc(&z, hx.size() * 2));
        auto copy = [&] { CK(cudaMemcpyAsync(z, x, hx.size() * 2, cudaMemcpyDeviceToDevice)); };
        Case c{rows, n, &hx, &hm, x, y, median_us(reps, copy), reps};
        printf("copy %llu x 2 bytes: %.2f us\n", (unsigned long long)hx.size(), c.copy_us);
        for (bool bf : {false, true}) {
            std::vector<unsigned short> bits(hx.size());
            for (u64 i = 0; i < hx.size(); ++i) bits[i] = to_bits(hx[i], bf);
            CK(cudaMemcpy(x, bits.data(), bits.size() * 2, cudaMemcpyHostToDevice));
            if (bf) all_widths<gp::bf16>(c, true);
            else all_widths<gp::f16>(c, false);
        }
        CK(cudaFree(x));
        CK(cudaFree(y));
        CK(cudaFree(z));
    }
    return 0;
}
