// The FFT convolution's block kernel (gpu_prims/conv1d_fft.cuh) beside variants: its policy
// (points per thread E, blocks per SM, an L2 prefetch of a later pair's spans: session 15's calls
// A and B ran this file as of commit b4a7165, docs/conv1d.md) and the lean checks and stores
// (Conv1dFftPolicy::LEAN; session 17's calls A-C, docs/conv1d.md), and radix-32 transforms of
// 8192 and 16384 points (session 18's call A; the library's since, docs/conv1d.md). The twiddles are
// the library's rows (gp::FftTwiddleRows); session 17's call A ran this file with the rows, the
// earlier table of powers and rows of all R − 1 powers side by side (docs/conv1d.md). f32 `same` correlation of
// 2^26 outputs, zero boundary; every variant checked against f64 direct sums at sampled
// outputs; times as ×copy of a same-process device copy of 2^26 f32.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include one-off/fft-conv-harness.cu
// Run: ./a.out [reps]            every variant
//      ./a.out ncu NAME          one launch of the variant NAME (for Nsight Compute)
#include <gpu_prims/conv1d_fft.cuh>

#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#endif
using gp::i64;
using gp::u64;
typedef gp::Complex<float> C32;


// The library's kernel with the lean checks and stores (Conv1dFftPolicy::LEAN; session 15 wrote
// them here, session 17 measured them and moved them into the library).
template <int LOG_N, int E, int MINB>
__global__ void __launch_bounds__((1 << LOG_N) / E, MINB)
    kfft_lean(const float* __restrict__ x, const C32* __restrict__ spectrum,
              const C32* __restrict__ tw, const float* __restrict__ mask, float* __restrict__ y,
              u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode, u64 tiles_per_row,
              i64 origin) {
    extern __shared__ __align__(16) unsigned char smem[];
    gp::conv1d_fft<float, LOG_N, E, 1, true>(x, spectrum, tw, mask, y, rows, n, n_out, off, w,
                                              bmode, tiles_per_row, origin,
                                              reinterpret_cast<C32*>(smem));
}

// PF > 0: before its pair, every block asks L2 for the spans of the pair PF blocks on.
template <int LOG_N, int E, int MINB, int PF>
__global__ void __launch_bounds__((1 << LOG_N) / E, MINB)
    kfft(const float* __restrict__ x, const C32* __restrict__ spectrum, const C32* __restrict__ tw,
         const float* __restrict__ mask, float* __restrict__ y, u64 rows, u64 n, u64 n_out,
         i64 off, u64 w, int bmode, u64 tiles_per_row, i64 origin) {
    extern __shared__ __align__(16) unsigned char smem[];
    if constexpr (PF > 0) {
        constexpr i64 N = 1 << LOG_N;
        const i64 L = N - (i64)w + 1;
        const i64 q = (i64)blockIdx.x + PF;
        const i64 a = 2 * q * L + off;
        i64 b = a + L + N;
        if (b > (i64)n) b = (i64)n;
        for (i64 i = (a < 0 ? 0 : a) + (i64)threadIdx.x * 32; i < b; i += (i64)blockDim.x * 32)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(x + i));
    }
    gp::conv1d_fft<float, LOG_N, E>(x, spectrum, tw, mask, y, rows, n, n_out, off, w, bmode,
                                     tiles_per_row, origin, reinterpret_cast<C32*>(smem));
}

// Radix 32: sessions 17 and 18 had a radix-32 transform here (namespace r32, kernel kfft_r32; run
// in session 18's call A, commit 2da3c26 and before); it is the library's BlockFft since, so the
// pairs of 8192 and 16384 points above are radix-32 transforms.

#ifndef __CUDACC_RTC__
#define CK(x)                                                                       \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,               \
                    cudaGetErrorString(e_));                                        \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

typedef void (*KernelFn)(const float*, const C32*, const C32*, const float*, float*, u64, u64,
                         u64, i64, u64, int, u64, i64);

struct Variant {
    std::string name;
    int log_n, e;
    KernelFn fn;
};

// Twiddle rows (gp::FftTwiddleRows; the library's are fft.rs's twiddle_rows): pass ns's row
// ns + m holds W_N^(e·m·N/(ns·R)) for e in 1, 2, 3, 4, 8, 12.
static void twiddle_rows(std::vector<C32>& out, int log_n) {
    const int N = 1 << log_n;
    int r0, m1, m2;
    switch (log_n) {
        case 11: r0 = 16, m1 = 8, m2 = 0; break;
        case 12: r0 = 16, m1 = 16, m2 = 0; break;
        case 13: r0 = 8, m1 = 16, m2 = 8; break;
        default: r0 = 16, m1 = 8, m2 = 8; break;
    }
    const int width = 6;
    std::vector<std::pair<int, int>> passes = {{r0, m1}};
    int ns = r0 * m1;
    if (m2) passes.push_back({ns, m2}), ns *= m2;
    passes.push_back({ns, r0});
    out.assign((size_t)2 * (N / r0) * width, C32{0.f, 0.f});
    const int rows_pow[6] = {1, 2, 3, 4, 8, 12};
    for (auto [ns_, R] : passes)
        for (int m = 0; m < ns_; ++m) {
            const long step = (long)m * (N / (ns_ * R));
            for (int i = 0; i < 6; ++i) {
                const long e = rows_pow[i];
                const double ang = -2 * M_PI * (double)((e * step) % N) / N;
                out[(size_t)(ns_ + m) * width + i] = {(float)cos(ang), (float)sin(ang)};
            }
        }
}

template <int LOG_N, int E, int MINB> Variant make_lean() {
    char buf[96];
    snprintf(buf, sizeof buf, "N%d_E%d_B%d_lean", 1 << LOG_N, E, MINB);
    return Variant{buf, LOG_N, E, kfft_lean<LOG_N, E, MINB>};
}

template <int LOG_N, int E, int MINB, int PF> Variant make(const char* tag) {
    char buf[96];
    snprintf(buf, sizeof buf, "N%d_E%d_B%d_PF%d%s", 1 << LOG_N, E, MINB, PF, tag);
    return Variant{buf, LOG_N, E, kfft<LOG_N, E, MINB, PF>};
}

// In-place radix-2 FFT in f64 (forward: e^{-2πi…}).
static void fft64(std::vector<std::complex<double>>& a) {
    const size_t n = a.size();
    for (size_t i = 1, j = 0; i < n; ++i) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(a[i], a[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        const double ang = -2 * M_PI / (double)len;
        for (size_t i = 0; i < n; i += len)
            for (size_t k = 0; k < len / 2; ++k) {
                const std::complex<double> wk(cos(ang * k), sin(ang * k));
                const auto u = a[i + k], v = a[i + k + len / 2] * wk;
                a[i + k] = u + v;
                a[i + k + len / 2] = u - v;
            }
    }
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    const bool ncu = argc > 2 && !strcmp(argv[1], "ncu");
    const int reps = (!ncu && argc > 1) ? atoi(argv[1]) : 20;
    const u64 n = 1ull << 26;
    // The shipped policy (session 15) beside its lean form, per size.
    std::vector<Variant> vs = {
        make<11, 16, 6, 0>(""), make_lean<11, 16, 6>(),
        make<12, 32, 3, 0>(""), make_lean<12, 32, 3>(),
        make<13, 32, 2, 0>(""), make_lean<13, 32, 2>(),
        make<14, 32, 1, 0>(""), make_lean<14, 32, 1>(),
    };
    const int widths[4] = {511, 1023, 2047, 4095};
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> uni(-1.f, 1.f);
    std::vector<float> hx(n);
    for (auto& v : hx) v = uni(rng);
    float *dx, *dy, *dc, *dm;
    C32* dtab;
    CK(cudaMalloc(&dx, n * 4));
    CK(cudaMalloc(&dy, n * 4));
    CK(cudaMalloc(&dc, n * 4));
    CK(cudaMalloc(&dm, 16384 * 4));
    CK(cudaMalloc(&dtab, 6 * 16384 * sizeof(C32)));
    CK(cudaMemcpy(dx, hx.data(), n * 4, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> tc;
    for (int r = 0; r < (ncu ? 1 : reps + 3); ++r) {
        CK(cudaEventRecord(e0));
        CK(cudaMemcpyAsync(dc, dx, n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 3) tc.push_back(ms);
    }
    const float copy_ms = ncu ? 1.f : median(tc);
    if (!ncu) printf("copy 2^26 f32: %.2f us\n", copy_ms * 1e3);
    int last_logn = -1;
    std::vector<float> hm;
    for (const Variant& v : vs) {
        if (ncu && v.name != argv[2]) continue;
        const int N = 1 << v.log_n;
        const int w = widths[v.log_n - 11];
        if (v.log_n != last_logn) {
            const bool new_mask = v.log_n != last_logn;
            last_logn = v.log_n;
            if (new_mask) {
                hm.assign(w, 0.f);
                for (auto& m : hm) m = uni(rng);
            }
            std::vector<std::complex<double>> a(N);
            for (int j = 0; j < w; ++j) a[j] = hm[j];
            fft64(a);
            std::vector<C32> tab(N);
            for (int k = 0; k < N; ++k) {
                const auto h = std::conj(a[k]) / (double)N;
                tab[k] = {(float)h.real(), (float)h.imag()};
            }
            CK(cudaMemcpy(dm, hm.data(), w * 4, cudaMemcpyHostToDevice));
            std::vector<C32> rows;
            // The library's pairs of 8192 and 16384 points at 32 points a thread are radix-32
            // transforms too (session 18): the same rows.
            if (v.e == 32 && v.log_n >= 13) {
                // Rows of 8 for the passes (ns, R) = (32, MID), (32·MID, 32): w^1..4, 8, 12, 16.
                const int pw[7] = {1, 2, 3, 4, 8, 12, 16};
                const int mid = N / 1024;
                rows.assign(2 * 32 * mid * 8, C32{0.f, 0.f});
                for (auto [ns_, R] : {std::pair<int, int>{32, mid}, std::pair<int, int>{32 * mid, 32}})
                    for (int m = 0; m < ns_; ++m)
                        for (int i = 0; i < 7; ++i) {
                            const long t = ((long)pw[i] * m * (N / (ns_ * R))) % N;
                            const double ang = -2 * M_PI * (double)t / N;
                            rows[(size_t)(ns_ + m) * 8 + i] = {(float)cos(ang), (float)sin(ang)};
                        }
            } else {
                twiddle_rows(rows, v.log_n);
            }
            tab.insert(tab.end(), rows.begin(), rows.end());
            CK(cudaMemcpy(dtab, tab.data(), tab.size() * sizeof(C32), cudaMemcpyHostToDevice));
        }
        const i64 off = -(i64)((w - 1) / 2);
        const i64 L = N - w + 1;
        const u64 tiles = (n + L - 1) / L;
        const u64 pairs = (tiles + 1) / 2;
        const size_t shared = (size_t)(N + N / 16) * 8;  // FftSlots<N> complex f32
        CK(cudaFuncSetAttribute(v.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, v.fn));
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.fn, N / v.e, shared));
        auto launch = [&]() {
            v.fn<<<(unsigned)pairs, N / v.e, shared>>>(dx, dtab, dtab + N, dm, dy, 1, n, n, off,
                                                      (u64)w, 0, tiles, 0);
        };
        CK(cudaMemset(dy, 0, n * 4));
        launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (ncu) return 0;
        std::vector<float> t;
        for (int r = 0; r < reps + 3; ++r) {
            CK(cudaEventRecord(e0));
            launch();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 3) t.push_back(ms);
        }
        // Check sampled outputs (both ends, every tile edge near them, random ones).
        std::vector<float> hy(n);
        CK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
        std::vector<u64> at;
        for (u64 i = 0; i < 3000; ++i) at.push_back(i), at.push_back(n - 1 - i);
        for (int i = 0; i < 6000; ++i) at.push_back(rng() % n);
        double m2 = 0;
        for (float m : hm) m2 += (double)m * m;
        double worst = 0;
        for (u64 o : at) {
            double acc = 0, x2 = 0;
            for (int j = 0; j < w; ++j) {
                const i64 p = (i64)o + off + j;
                const double xv = (p >= 0 && p < (i64)n) ? hx[p] : 0.0;
                acc += xv * hm[j];
                x2 += xv * xv;
            }
            const double err = fabs(hy[o] - acc) / (sqrt(x2 * m2) + 1e-30);
            worst = std::max(worst, err);
        }
        const float ms = median(t);
        printf("%-22s w %5d  regs %3d spill %4d B  %d/SM  %8.2f us  %.3fx copy  err %.2e %s\n",
               v.name.c_str(), w, fa.numRegs, (int)fa.localSizeBytes, per_sm, ms * 1e3,
               copy_ms / ms, worst, worst < 1e-5 ? "ok" : "WRONG");
    }
    return 0;
}
#endif
