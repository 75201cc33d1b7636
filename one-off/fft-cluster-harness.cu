// Spans of 65536 points on a cluster of two blocks (sm_90; session 18, an experiment): one
// tile's even and odd points packed into a 32768-point complex transform (the even-and-odd
// packing of gpu_prims/conv1d_fft.cuh, S = 2), split over the two blocks of a cluster, each
// holding 16384 points in BlockFft<f32, 14, 32> (the library's radix-32 transform):
//  1. both blocks read the whole span; rank 0 forms u[j] = z[j] + z[j + 16384], rank 1
//     v[j] = (z[j] − z[j + 16384])·W_32768^j (the first step of a decimation in frequency), and
//     each transforms its half: Z[2k] (rank 0) and Z[2k + 1] (rank 1);
//  2. the even-and-odd product pairs Z[k] with conj(Z[32768 − k]): for even k the mirror is even
//     (rank 0, index −k mod 16384), for odd k odd (rank 1, index 16383 − k'), so it stays
//     within each block;
//  3. each block transforms its half of the product again (E and O), and the halves meet
//     across the cluster through distributed shared memory: Y[n] = E[n] + W^n·O[n] (rank 0),
//     Y[n + 16384] = E[n] − W^n·O[n] (rank 1), the last step of a decimation in time.
// Tiles of L = 65536 − w + 1 outputs instead of 32768 − w + 1: at w = 16383 a third as many
// tiles, each twice the block work. f32 `same` correlation of 2^26 outputs, zero boundary,
// beside the library's 32768-point spans (conv1d_fft_eo32768: one block a tile); every variant
// checked against f64 direct sums at sampled outputs; times as ×copy of a same-process copy.
// Session 18, call C (H200, copy 131.4 µs): correct (errors 6e-9 … 2e-8 of the window norms) but
// slower than the 32768-point spans up to w = 16383 (4095: 714.8 against 523.6 µs; 16383: 866.1
// against 773.3), faster from about 19000 (24575: 1002.9 against 1409.8): a tile on two blocks
// cost 3.4 times a 32768-point tile on one, not the 2.3 times the work predicts (both blocks
// read the whole span, and wait for each other at two cluster barriers a tile).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include one-off/fft-cluster-harness.cu
// Run: ./a.out [reps]
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
typedef gp::BlockFft<float, 14, 32> F;  // 16384 points, 512 threads, radices 32, 16, 32

__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }
// The shared-memory address of `p` in the block of rank `rank` of the cluster.
__device__ __forceinline__ unsigned remote(const void* p, unsigned rank) {
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}
__device__ __forceinline__ C32 ld_remote(unsigned addr) {
    C32 c;
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(c.re), "=f"(c.im) : "r"(addr));
    return c;
}

// Tables: ab[rank][k'] = (a[2k' + rank], b[2k' + rank]) (2 · 16384 · 2 complex), then the
// 16384-point rows (tw), then W_32768^m for m < 16384 (half).
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(512, 1)
    kcluster(const float* __restrict__ x, const C32* __restrict__ ab, const C32* __restrict__ tw,
             const C32* __restrict__ half, float* __restrict__ y, u64 n, i64 off, u64 w,
             u64 tiles) {
    extern __shared__ __align__(16) unsigned char smem[];
    C32* s = reinterpret_cast<C32*>(smem);
    constexpr int N = F::N;  // 16384
    const unsigned rank = cluster_rank();
    const i64 L = 65536 - (i64)w + 1;
    const C32* const abr = ab + (size_t)rank * 2 * N;
    cluster_arrive();  // pairs with the first tile's wait
    for (u64 t = blockIdx.x / 2; t < tiles; t += gridDim.x / 2) {
        const i64 o0 = (i64)t * L;
        const i64 p = o0 + off;
        C32 v[F::E];
        gp::Conv1dFftPoison<float> poison;
        const bool inside = p >= 0 && p + 65536 <= (i64)n;
#pragma unroll
        for (int e = 0; e < F::E; ++e) {
            const int j = F::point(e);
            C32 lo, hi;
            if (inside) {
                lo = {x[p + 2 * j], x[p + 2 * j + 1]};
                hi = {x[p + 2 * j + 2 * N], x[p + 2 * j + 2 * N + 1]};
            } else {
                const i64 q = p + 2 * j;
                lo = {gp::boundary_load(x, q, (i64)n, 0), gp::boundary_load(x, q + 1, (i64)n, 0)};
                hi = {gp::boundary_load(x, q + 2 * N, (i64)n, 0),
                      gp::boundary_load(x, q + 2 * N + 1, (i64)n, 0)};
            }
            poison.add(lo.re);
            poison.add(lo.im);
            poison.add(hi.re);
            poison.add(hi.im);
            if (rank == 0) {
                v[e] = {lo.re + hi.re, lo.im + hi.im};
            } else {
                v[e] = gp::cmul(C32{lo.re - hi.re, lo.im - hi.im}, gp::fft_ldg(gp::fft_launder(half) + j));
            }
        }
        cluster_wait();  // the partner has read this block's s (previous tile)
        const bool bad = __syncthreads_or(!poison.finite());
        if (!bad) {
#pragma unroll 1
            for (int phase = 0; phase < 2; ++phase) {
                F::transform(v, s, tw);
                if (phase == 1) break;
                __syncthreads();
#pragma unroll
                for (int e = 0; e < F::E; ++e) s[F::phys(F::point(e))] = v[e];
                __syncthreads();
                const C32* const abl = gp::fft_launder(abr);
#pragma unroll
                for (int e = 0; e < F::E; ++e) {
                    const int k = F::point(e);
                    const int m = rank == 0 ? ((N - k) & (N - 1)) : (N - 1 - k);
                    const C32 z = v[e], c = s[F::phys(m)];
                    const C32 a = gp::fft_ldg(abl + 2 * k), b = gp::fft_ldg(abl + 2 * k + 1);
                    v[e] = {a.re * z.re - a.im * z.im + b.re * c.re + b.im * c.im,
                            -(a.re * z.im + a.im * z.re + b.im * c.re - b.re * c.im)};
                }
                __syncthreads();
            }
        }
        // E (rank 0) or W^n·O (rank 1) into this block's s, for the partner.
        __syncthreads();  // the last pass's reads of s are done
        if (!bad) {
#pragma unroll
            for (int e = 0; e < F::E; ++e) {
                const int k = F::point(e);
                if (rank == 1) v[e] = gp::cmul(v[e], gp::fft_ldg(gp::fft_launder(half) + k));
                s[F::phys(k)] = v[e];
            }
        }
        cluster_arrive();
        cluster_wait();
        if (!bad) {
            const unsigned base = remote(s, rank ^ 1);
            float* const yt = y + o0;
#pragma unroll
            for (int e = 0; e < F::E; ++e) {
                const int k = F::point(e);
                const C32 q = ld_remote(base + (unsigned)F::phys(k) * 8u);
                // Y[n] = E + P (rank 0, n = k), Y[n + N] = E − P (rank 1); outputs conj(Y).
                const C32 r = rank == 0 ? C32{v[e].re + q.re, v[e].im + q.im}
                                        : C32{q.re - v[e].re, q.im - v[e].im};
                const i64 kk = 2 * ((i64)k + (rank == 0 ? 0 : N));
                if (kk < L && o0 + kk < (i64)n) yt[kk] = r.re;
                if (kk + 1 < L && o0 + kk + 1 < (i64)n) yt[kk + 1] = -r.im;
            }
        }
        cluster_arrive();  // done reading the partner's s
    }
    cluster_wait();
}

// The library's 32768-point spans (one block a tile), for the comparison.
__global__ void __launch_bounds__(512, 1)
    keo32768(const float* __restrict__ x, const C32* __restrict__ spectrum, const C32* __restrict__ tw,
             const float* __restrict__ mask, float* __restrict__ y, u64 n, i64 off, u64 w,
             u64 tiles) {
    extern __shared__ __align__(16) unsigned char smem[];
    gp::conv1d_fft<float, 14, 32, 2, false>(x, spectrum, tw, mask, y, 1, n, n, off, w, 0, tiles, 0,
                                            reinterpret_cast<C32*>(smem));
}

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

typedef std::complex<double> CD;

// In-place radix-2 FFT in f64 (forward: e^{-2πi…}).
static void fft64(std::vector<CD>& a) {
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
                const CD wk(cos(ang * k), sin(ang * k));
                const auto u = a[i + k], v = a[i + k + len / 2] * wk;
                a[i + k] = u + v;
                a[i + k + len / 2] = u - v;
            }
    }
}

// fft.rs's even_odd_pairs: (a[k], b[k]) for k < size / 2, interleaved.
static std::vector<CD> even_odd_pairs(const std::vector<float>& mask, size_t size) {
    std::vector<CD> g(size);
    for (size_t j = 0; j < mask.size(); ++j) g[j] = mask[j];
    fft64(g);
    for (auto& z : g) z = std::conj(z);
    const size_t n = size / 2;
    const CD i(0, 1);
    std::vector<CD> ab;
    for (size_t k = 0; k < n; ++k) {
        const CD w = std::polar(1.0, -M_PI * (double)k / (double)n);
        const CD alpha = (1.0 - i * w) / 2.0, beta = (1.0 + i * w) / 2.0;
        const CD g0 = g[k], g1 = g[k + n];
        ab.push_back(((g0 * alpha + g1 * beta) / 2.0 + i * (g0 * alpha - g1 * beta) / (2.0 * w)) / (double)n);
        ab.push_back(((g0 * beta + g1 * alpha) / 2.0 + i * (g0 * beta - g1 * alpha) / (2.0 * w)) / (double)n);
    }
    return ab;
}

// fft.rs's twiddle_rows for 16384 points, 32 a thread: passes (32, 16), (512, 32), rows of 8.
static std::vector<CD> rows16384() {
    const int N = 16384;
    const int pw[7] = {1, 2, 3, 4, 8, 12, 16};
    std::vector<CD> rows(2 * 512 * 8, CD(0, 0));
    for (auto [ns, R] : {std::pair<int, int>{32, 16}, std::pair<int, int>{512, 32}})
        for (int m = 0; m < ns; ++m)
            for (int i = 0; i < 7; ++i) {
                const long t = ((long)pw[i] * m * (N / (ns * R))) % N;
                rows[(size_t)(ns + m) * 8 + i] = std::polar(1.0, -2 * M_PI * (double)t / N);
            }
    return rows;
}

static void to_c32(const std::vector<CD>& a, std::vector<C32>& out) {
    for (const CD& z : a) out.push_back({(float)z.real(), (float)z.imag()});
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    setvbuf(stdout, nullptr, _IONBF, 0);
    const int reps = argc > 1 ? atoi(argv[1]) : 20;
    const u64 n = 1ull << 26;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> uni(-1.f, 1.f);
    std::vector<float> hx(n);
    for (auto& v : hx) v = uni(rng);
    float *dx, *dy, *dc, *dm;
    C32* dtab;
    CK(cudaMalloc(&dx, n * 4));
    CK(cudaMalloc(&dy, n * 4));
    CK(cudaMalloc(&dc, n * 4));
    CK(cudaMalloc(&dm, 65536 * 4));
    CK(cudaMalloc(&dtab, 4 * 65536 * sizeof(C32)));
    CK(cudaMemcpy(dx, hx.data(), n * 4, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> tc;
    for (int r = 0; r < reps + 3; ++r) {
        CK(cudaEventRecord(e0));
        CK(cudaMemcpyAsync(dc, dx, n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 3) tc.push_back(ms);
    }
    const float copy_ms = median(tc);
    printf("copy 2^26 f32: %.2f us\n", copy_ms * 1e3);
    const size_t shared = (size_t)gp::FftSlots<16384>::value * 8;
    CK(cudaFuncSetAttribute(kcluster, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    CK(cudaFuncSetAttribute(keo32768, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    const std::vector<CD> rows = rows16384();
    std::vector<CD> half(16384);
    for (int m = 0; m < 16384; ++m) half[m] = std::polar(1.0, -2 * M_PI * m / 32768.0);
    const int widths[] = {4095, 8191, 12287, 16383, 24575, 32767, 49151};
    for (int w : widths) {
        std::vector<float> hm(w);
        for (auto& m : hm) m = uni(rng);
        CK(cudaMemcpy(dm, hm.data(), w * 4, cudaMemcpyHostToDevice));
        const i64 off = -(i64)((w - 1) / 2);
        double m2 = 0;
        for (float m : hm) m2 += (double)m * m;
        for (int variant = 0; variant < 2; ++variant) {
            const bool cl = variant == 1;
            // The 32768-point spans past w = 28000 leave a few outputs a tile (w = 32767: two, some
            // 2^25 tiles): minutes a launch (call C's first run hung there).
            if (!cl && w > 28000) continue;
            const i64 span = cl ? 65536 : 32768;
            const i64 L = span - w + 1;
            const u64 tiles = (n + L - 1) / L;
            std::vector<C32> tab;
            const std::vector<CD> ab = even_odd_pairs(hm, span);
            size_t tw_at, half_at = 0;
            if (cl) {
                // ab by rank: even k then odd k, each (a, b) interleaved.
                for (int r = 0; r < 2; ++r)
                    for (int k = 0; k < 16384; ++k)
                        to_c32({ab[2 * (2 * k + r)], ab[2 * (2 * k + r) + 1]}, tab);
                tw_at = tab.size();
                to_c32(rows, tab);
                half_at = tab.size();
                to_c32(half, tab);
            } else {
                to_c32(ab, tab);
                tw_at = tab.size();
                to_c32(rows, tab);
            }
            CK(cudaMemcpy(dtab, tab.data(), tab.size() * sizeof(C32), cudaMemcpyHostToDevice));
            auto launch = [&]() {
                if (cl)
                    kcluster<<<(unsigned)(2 * tiles), 512, shared>>>(dx, dtab, dtab + tw_at, dtab + half_at, dy, n,
                                                                     off, (u64)w, tiles);
                else
                    keo32768<<<(unsigned)tiles, 512, shared>>>(dx, dtab, dtab + tw_at, dm, dy, n, off, (u64)w,
                                                              tiles);
            };
            CK(cudaMemset(dy, 0, n * 4));
            fprintf(stderr, "%s w %d: first launch\n", cl ? "cluster" : "eo32768", w);
            launch();
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            fprintf(stderr, "  done\n");
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
            std::vector<float> hy(n);
            CK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
            std::vector<u64> at;
            for (u64 i = 0; i < 1500; ++i) at.push_back(i), at.push_back(n - 1 - i);
            for (u64 k = 1; k < 6 && k * L < (i64)n; ++k)
                for (i64 d = -40; d < 40; ++d) at.push_back((u64)(k * L + d));
            for (int i = 0; i < 3000; ++i) at.push_back(rng() % n);
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
            printf("%-18s w %5d  tiles %6llu  %8.2f us  %.3fx copy  err %.2e %s\n",
                   cl ? "cluster65536" : "eo32768", w, (unsigned long long)tiles, ms * 1e3,
                   copy_ms / ms, worst, worst < 1e-5 ? "ok" : "WRONG");
        }
    }
    return 0;
}
#endif
