// Standalone harness (issue 24, the H200's conv1d f32 w = 31 miss): f32 correlation on the
// warpgroup tensor cores in three TF32 products ("3xTF32"), beside the shipped FMA kernels
// (gp::conv1d_fixed, 16 and 24 outputs a thread) and a device copy, one GPU, same process. Built on
// the device with nvcc -arch=sm_90a (one-off/h100-s45.sh, part tf32). Not shipped.
//
// Why: at w = 31 the FMA kernels are bound by issue slots (docs/tuning.md: FMA pipe 39-43 % busy,
// issue 60 %), not by memory. A TF32 product keeps 11 significant bits; an f32 value splits
// exactly into hi = tf32(x) and lo = x - hi, and hi*hi + hi*lo + lo*hi (lo*lo dropped) gives
// about 2^-22 relative error a term: close to f32 (2^-24), unlike TF32 alone (2^-11).
//
// The product, as in kernels/conv1d_sm90a.cu with the roles swapped (A the signal, B the mask):
// cut a tile's outputs into 64 NCH segments of N; D[s][o] = sum_t A[s][t] B[t][o] with
// A[s][t] = X(p + N s + t) (the signal's Hankel matrix, from registers: a thread loads its
// fragment from the staged span, splits it into hi and lo) and B[t][o] = M[t + o - (N - 1)]
// (the mask's Toeplitz matrix with its columns reversed, from shared memory, laid out once by the
// host), so D[s][o] is output N s + N - 1 - o of the tile. K = 16 KP >= N + w - 1 values of t.
//  - A's register fragment (m64nNk8, tf32; CUTLASS's ALayout_64x8): warp v, lane l (g = l / 4,
//    q = l % 4) holds a0 = A[16v+g][q], a1 = A[16v+g+8][q], a2 = A[16v+g][q+4], a3 = A[16v+g+8][q+4].
//    The order of t inside a pair of k-steps is free (B follows it): step 2p + h, column k holds
//    t = 16 p + 4 (k % 4) + 2 h + k / 4, so one 16-byte load of X(p + N s + 16 p + 4 q ..) gives
//    a thread both steps' values of row s.
//  - B, no swizzle, K-major core matrices (8 rows of o x 4 values of t, 128 bytes): the core
//    matrix of rows o0.. and step 2p + h, half kh depends on E = 16 p + o0 only; it sits at byte
//    64 E + 256 h + 128 kh, so step 2p + h starts at 1024 p + 256 h, LBO = 128, SBO = 512.
//  - The span: 16-byte chunk c at chunk c ^ (4 (c / (N / 4) % 2)): a quarter-warp's 16-byte
//    loads (rows s, s + 1) then hit distinct banks.
// Tiles holding an infinity or NaN (hi - x is NaN there, and the zeros of B times inf too) are
// computed directly with f32 FMAs, as the 16-bit kernel does.
//
// usage: tf32-conv-harness <log2 n> <reps> <variants,...|all> <widths>
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/conv1d_boundary.cuh>
#include <gpu_prims/conv1d_fixed.cuh>
#include <gpu_prims/wgmma.cuh>

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#endif

using gp::f32;
using gp::i64;
using gp::u32;
using gp::u64;

// D (64 x N, f32) = A (64 x 8, tf32, registers) * B (8 x N, tf32, descriptor), or D += A * B.
template <int N> struct WgmmaTf32;
template <> struct WgmmaTf32<32> {
    static __device__ __forceinline__ void start(f32 (&d)[16], const u32 (&a)[4], u64 db) {
        asm volatile("wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, 0, 1, 1;"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    }
    static __device__ __forceinline__ void accumulate(f32 (&d)[16], const u32 (&a)[4], u64 db) {
        asm volatile("wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, 1, 1, 1;"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    }
};
template <> struct WgmmaTf32<64> {
    static __device__ __forceinline__ void start(f32 (&d)[32], const u32 (&a)[4], u64 db) {
        asm volatile("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, 0, 1, 1;"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]), "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]), "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    }
    static __device__ __forceinline__ void accumulate(f32 (&d)[32], const u32 (&a)[4], u64 db) {
        asm volatile("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, 1, 1, 1;"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    }
};

template <int P> __device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(P) : "memory");
}

// x = hi + lo exactly, hi rounded to TF32 (11 significant bits); lo goes to the tensor core as f32
// bits, which keeps its top 11.
__device__ __forceinline__ void split_tf32(f32 x, u32& hi, u32& lo) {
    u32 h;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(h) : "f"(x));
    hi = h;
    lo = __float_as_uint(x - __uint_as_float(h));
}

// d + k, computed where it is used: left to the compiler, every step's descriptor is hoisted out
// of the tile loop and held in registers (two each).
__device__ __forceinline__ u64 desc_at(u64 d, u32 k) {
    u64 r;
    asm volatile("add.s64 %0, %1, %2;" : "=l"(r) : "l"(d), "l"((u64)k));
    return r;
}

__device__ __forceinline__ bool finite4(float4 v) {
    const u32 e = 0x7f800000u;
    return (__float_as_uint(v.x) & e) != e && (__float_as_uint(v.y) & e) != e &&
           (__float_as_uint(v.z) & e) != e && (__float_as_uint(v.w) & e) != e;
}

template <int W, int N, int NCH> struct Tf32Shape {
    static constexpr int KP = (W + N - 1 + 15) / 16;  // pairs of k-steps
    static constexpr int K = 16 * KP;
    static constexpr int TILE = 64 * N * NCH;
    static constexpr int SPAN = (TILE + K + N - 1) / N * N;  // whole rows of N (the swizzle)
    static constexpr u32 BBYTES = 64u * (16u * KP + N);      // one of B's hi and lo
    static constexpr int V = 4;
    // Output slot q at q + 8 (q / 32): the staging writes of a warp spread over the banks.
    static __device__ __forceinline__ int phys(int q) { return q + 8 * (q >> 5); }
    static constexpr int YS = TILE + 8 + 8 * ((TILE + 8) / 32 + 1);
    static constexpr int XS = SPAN > YS ? SPAN : YS;
    static constexpr u32 SMEM = 2u * BBYTES + 4u * XS;
    // Chunk c (4 values) of the span at chunk c ^ (4 (c / (N/4) % 2)).
    static __device__ __forceinline__ u32 chunk(u32 c) { return c ^ (((c / (N / 4)) & 1u) << 2); }
    static __device__ __forceinline__ u32 in_phys(u32 i) { return 4u * chunk(i >> 2) + (i & 3u); }
};

extern __shared__ __align__(128) unsigned char tf32_smem[];

// WAITP: wgmma groups left in flight when the next pair's fragments are loaded (1: the loads
// overlap the products; 0: each pair waits, fewer registers live).
template <int W, int N, int NCH, int MINB, int WAITP>
__global__ void __launch_bounds__(128, MINB)
    conv_tf32(const float* __restrict__ x, const float* __restrict__ mask, const uint4* __restrict__ bmat,
              float* __restrict__ y, u64 n, u64 n_out, i64 off, u64 tiles) {
    typedef Tf32Shape<W, N, NCH> S;
    const u32 base = gp::shared_address(tf32_smem);
    const u32 bhi = base, blo = base + S::BBYTES, xbase = base + 2u * S::BBYTES;
    float* xs = reinterpret_cast<float*>(tf32_smem + 2u * S::BBYTES);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, q = lane & 3;
    for (u32 c = tid; c < 2u * S::BBYTES / 16u; c += 128) gp::async_copy_16_shared(base + 16u * c, bmat + c);
    const i64 d = gp::floor_mod(off, 4);
    const u64 dhi0 = gp::wgmma_descriptor(bhi, 128, 512), dlo0 = gp::wgmma_descriptor(blo, 128, 512);
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const i64 o_tile = (i64)(b * S::TILE) - d;
        const i64 p_tile = o_tile + off;  // 16-byte aligned
        __syncthreads();                  // the previous tile is done with xs
        bool bad = false;
        if (p_tile >= 0 && p_tile + S::SPAN <= (i64)n) {
            const float4* src = reinterpret_cast<const float4*>(x + p_tile);
            for (u32 c = tid; c < S::SPAN / 4; c += 128) gp::async_copy_16_shared(xbase + 16u * S::chunk(c), src + c);
            gp::async_copy_wait_all();
            for (u32 c = tid; c < S::SPAN / 4; c += 128)
                bad |= !finite4(*reinterpret_cast<const float4*>(xs + 4 * S::chunk(c)));
        } else {
            gp::async_copy_wait_all();
            for (int i = tid; i < S::SPAN; i += 128) {
                const i64 pp = p_tile + i;
                const float v = pp >= 0 && pp < (i64)n ? x[pp] : 0.0f;
                bad |= !finite4(make_float4(v, 0.f, 0.f, 0.f));
                xs[S::in_phys(i)] = v;
            }
        }
        gp::fence_proxy_async_shared();  // B's copies, visible to wgmma
        const bool any_bad = __syncthreads_or(bad);
        if (!any_bad) {
            f32 acc[NCH][N / 2];
#pragma unroll
            for (int ch = 0; ch < NCH; ++ch) {
                const u32 s0 = 64 * ch + 16 * warp + g;  // rows s0 and s0 + 8
#pragma unroll
                for (int p = 0; p < S::KP; ++p) {
                    const float4 v0 = *reinterpret_cast<const float4*>(xs + 4 * S::chunk((N * s0 + 16 * p) / 4 + q));
                    const float4 v1 = *reinterpret_cast<const float4*>(xs + 4 * S::chunk((N * (s0 + 8) + 16 * p) / 4 + q));
                    u32 ah[2][4], al[2][4];
                    split_tf32(v0.x, ah[0][0], al[0][0]);
                    split_tf32(v1.x, ah[0][1], al[0][1]);
                    split_tf32(v0.y, ah[0][2], al[0][2]);
                    split_tf32(v1.y, ah[0][3], al[0][3]);
                    split_tf32(v0.z, ah[1][0], al[1][0]);
                    split_tf32(v1.z, ah[1][1], al[1][1]);
                    split_tf32(v0.w, ah[1][2], al[1][2]);
                    split_tf32(v1.w, ah[1][3], al[1][3]);
                    gp::wgmma_fence();
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        // Step 2p + h starts 1024 p + 256 h bytes on (the address field counts 16 bytes).
                        const u64 dhi = desc_at(dhi0, (1024u * p + 256u * h) / 16u);
                        const u64 dlo = desc_at(dlo0, (1024u * p + 256u * h) / 16u);
                        if (p == 0 && h == 0)
                            WgmmaTf32<N>::start(acc[ch], al[h], dhi);
                        else
                            WgmmaTf32<N>::accumulate(acc[ch], al[h], dhi);
                        WgmmaTf32<N>::accumulate(acc[ch], ah[h], dlo);
                        WgmmaTf32<N>::accumulate(acc[ch], ah[h], dhi);
                    }
                    gp::wgmma_commit();
                    wgmma_wait<WAITP>();
                }
            }
            gp::wgmma_wait_all();
#pragma unroll
            for (int ch = 0; ch < NCH; ++ch) gp::wgmma_fence_operands(acc[ch]);
            __syncthreads();  // every warp's loads of the span are done: the outputs go there
            const i64 yt = o_tile;  // one row
            const int sh = (int)gp::floor_mod(yt, 4);
#pragma unroll
            for (int ch = 0; ch < NCH; ++ch)
#pragma unroll
                for (int j = 0; j < N / 8; ++j)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int s = 64 * ch + 16 * warp + g + 8 * (e >> 1);
                        const int o = 8 * j + 2 * q + (e & 1);
                        xs[S::phys(sh + N * s + N - 1 - o)] = gp::wgmma_result(acc[ch][4 * j + e]);
                    }
            __syncthreads();
            gp::conv1d_store_tile<float, S, 128>(y, xs, yt, o_tile, n_out);
        } else {
            for (int k = tid; k < S::TILE; k += 128) {
                const i64 o = o_tile + k;
                if (o < 0 || o >= (i64)n_out) continue;
                f32 a = 0.0f;
                for (int j = 0; j < W; ++j) a = __fmaf_rn(xs[S::in_phys((u32)(k + j))], mask[j], a);
                y[o] = a;
            }
        }
    }
}

// The shipped fixed-width kernels: 16 outputs a thread, 8 blocks per SM (the H100's), and 24 at
// 10 (the H200's for rows of 2^24 and more).
template <int W>
__global__ void __launch_bounds__(128, 8) ship16(const float* __restrict__ x, float* __restrict__ y, u64 rows, u64 n,
                                                 u64 n_out, i64 off, u64 tiles_per_row, gp::Conv1dFixedMask<float, W> m) {
    gp::conv1d_fixed<float, W, 16, 128>(x, y, rows, n, n_out, off, 0, tiles_per_row, m);
}
template <int W>
__global__ void __launch_bounds__(128, 10) ship24(const float* __restrict__ x, float* __restrict__ y, u64 rows, u64 n,
                                                  u64 n_out, i64 off, u64 tiles_per_row, gp::Conv1dFixedMask<float, W> m) {
    gp::conv1d_fixed<float, W, 24, 128>(x, y, rows, n, n_out, off, 0, tiles_per_row, m);
}

#define TF32_VARIANTS(M, W) M(W, 32, 1, 8, 1) M(W, 32, 1, 8, 0) M(W, 32, 2, 6, 1) M(W, 64, 1, 6, 1)
#define TF32_WIDTHS(M) M(7) M(15) M(31)

#ifdef __CUDACC_RTC__
#define INST(W, N, NCH, MINB, WAITP)                                                                \
    template __global__ void conv_tf32<W, N, NCH, MINB, WAITP>(const float*, const float*, const uint4*, float*, u64, u64, \
                                                        i64, u64);
#define INST_W(W) TF32_VARIANTS(INST, W)
TF32_WIDTHS(INST_W)
#else

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

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
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return v[v.size() / 2];
}

static std::vector<std::string> g_vs;
static bool want(const std::string& name) {
    if (g_vs.empty()) return true;
    for (auto& v : g_vs)
        if (v == name || v == "all") return true;
    return false;
}

struct Data {
    const float* x;
    float* y;
    u64 n;
    const std::vector<float>* hx;
    const std::vector<float>* hm;
    const float* dmask;
    int reps;
    double copy_us;
    int sms;
};

// Every output of the first and last 5000 and 300000 random ones against f64: the error in units
// of 2^-24 sum_j |x m| (f32's rounding of the sum's scale). Returns {wrong (over 64 units), max units}.
template <int W> static std::pair<u64, double> check(const Data& d, i64 off) {
    std::vector<float> got(d.n);
    CK(cudaMemcpy(got.data(), d.y, got.size() * 4, cudaMemcpyDeviceToHost));
    u64 bad = 0;
    double worst = 0;
    auto test = [&](u64 o) {
        double s = 0, a = 0;
        for (int j = 0; j < W; ++j) {
            const i64 p = (i64)o + off + j;
            if (p >= 0 && p < (i64)d.n) {
                s += (double)(*d.hx)[p] * (*d.hm)[j];
                a += std::fabs((double)(*d.hx)[p] * (*d.hm)[j]);
            }
        }
        const double u = std::fabs(s - got[o]) / (a * std::ldexp(1.0, -24) + 1e-300);
        if (!(u <= 64.0)) ++bad;
        if (!(u <= worst)) worst = std::isnan(u) ? INFINITY : std::max(worst, u);
    };
    for (u64 o = 0; o < 5000 && o < d.n; ++o) test(o);
    for (u64 o = d.n > 5000 ? d.n - 5000 : 0; o < d.n; ++o) test(o);
    std::mt19937_64 rng(7);
    for (u64 k = 0; k < 300000; ++k) test(rng() % d.n);
    return {bad, worst};
}

static void report(const Data& d, int w, const char* name, double us, std::pair<u64, double> c, const char* extra) {
    printf("conv f32 n=%llu w=%3d %-16s %9.2f us  %.3fx copy  err<=%6.2f units  %s  %s\n", (unsigned long long)d.n, w,
           name, us, d.copy_us / us, c.second, c.first ? "WRONG" : "ok", extra);
    CK(cudaMemset(d.y, 0xff, d.n * 4));  // NaNs: the next variant must write every output
    fflush(stdout);
}

template <int W, int K, int MINB, class Kern> static void run_ship(const Data& d, Kern k, const char* tag) {
    if (!want(tag)) return;
    const i64 off = -(i64)((W - 1) / 2);
    const u64 tile = 128 * K;
    const u64 tiles = (d.n + 3 + tile - 1) / tile;
    gp::Conv1dFixedMask<float, W> m;
    for (int j = 0; j < W; ++j) m.m[j] = (*d.hm)[j];
    auto run = [&] { k<<<(unsigned)tiles, 128>>>(d.x, d.y, 1, d.n, d.n, off, tiles, m); };
    const double us = median_us(d.reps, run);
    CK(cudaGetLastError());
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 128, 0));
    char extra[64];
    snprintf(extra, sizeof extra, "[%d outputs a thread, %d blocks/SM]", K, per_sm);
    report(d, W, tag, us, check<W>(d, off), extra);
}

static float tf32_round(float v) {  // cvt.rna.tf32.f32 for finite v
    u32 b;
    memcpy(&b, &v, 4);
    b = (b + 0x1000u) & 0xffffe000u;
    float r;
    memcpy(&r, &b, 4);
    return r;
}

template <int W, int N, int NCH, int MINB, int WAITP> static void run_tf32(const Data& d) {
    char tag[32];
    snprintf(tag, sizeof tag, "tf32-n%d-c%d-b%d-w%d", N, NCH, MINB, WAITP);
    if (!want(tag) && !want("tf32")) return;
    typedef Tf32Shape<W, N, NCH> S;
    const i64 off = -(i64)((W - 1) / 2);
    // B, hi then lo: the value of core row r, column kk of (E, h, kh) is M[E + 4 kk + 2 h + kh + r - (N - 1)].
    std::vector<float> hb(2 * S::BBYTES / 4, 0.0f);
    for (u32 e8 = 0; e8 < (16 * S::KP + N) / 8; ++e8)
        for (int h = 0; h < 2; ++h)
            for (int kh = 0; kh < 2; ++kh)
                for (int r = 0; r < 8; ++r)
                    for (int kk = 0; kk < 4; ++kk) {
                        const int idx = 8 * (int)e8 + 4 * kk + 2 * h + kh + r - (N - 1);
                        const float m = idx >= 0 && idx < W ? (*d.hm)[idx] : 0.0f;
                        const float hi = tf32_round(m);
                        const u32 at = (64 * 8 * e8 + 256 * h + 128 * kh + 16 * r + 4 * kk) / 4;
                        hb[at] = hi;
                        hb[S::BBYTES / 4 + at] = m - hi;
                    }
    uint4* bmat;
    CK(cudaMalloc(&bmat, hb.size() * 4));
    CK(cudaMemcpy(bmat, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    auto k = conv_tf32<W, N, NCH, MINB, WAITP>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::SMEM));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 128, S::SMEM));
    const u64 tiles = (d.n + 3 + S::TILE - 1) / S::TILE;
    const u64 grid = std::min<u64>(tiles, (u64)per_sm * d.sms);
    auto run = [&] { k<<<(unsigned)grid, 128, S::SMEM>>>(d.x, d.dmask, bmat, d.y, d.n, d.n, off, tiles); };
    const double us = median_us(d.reps, run);
    CK(cudaGetLastError());
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    char extra[128];
    snprintf(extra, sizeof extra, "[N %d x %d chains, K %d, %d regs, %u B smem, %d blocks/SM, %.1f TFLOP/s useful]", N, NCH,
             S::K, fa.numRegs, S::SMEM, per_sm, 2.0 * W * d.n / us / 1e6);
    report(d, W, tag, us, check<W>(d, off), extra);
    CK(cudaFree(bmat));
}

template <int W> static void width(const Data& d) {
    run_ship<W, 16, 8>(d, ship16<W>, "ship16");
    run_ship<W, 24, 10>(d, ship24<W>, "ship24");
#define RUN(W_, N, NCH, MINB, WAITP) run_tf32<W_, N, NCH, MINB, WAITP>(d);
    TF32_VARIANTS(RUN, W)
#undef RUN
}

int main(int argc, char** argv) {
    const int lg = argc > 1 ? atoi(argv[1]) : 28;
    const int reps = argc > 2 ? atoi(argv[2]) : 20;
    if (argc > 3) {
        std::string s = argv[3];
        size_t p = 0;
        while (p <= s.size()) {
            size_t q = s.find(',', p);
            if (q == std::string::npos) q = s.size();
            if (q > p) g_vs.push_back(s.substr(p, q - p));
            p = q + 1;
        }
    }
    const std::string widths = argc > 4 ? argv[4] : "7,15,31";
    const u64 n = 1ull << lg;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    void *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMemset(a, 0, n * 4));
    auto copy = [&] { CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice)); };
    const double copy_us = median_us(reps, copy);
    printf("copy 2^%d x 4 bytes: %.2f us\n", lg, copy_us);
    CK(cudaFree(a));
    CK(cudaFree(b));
    // Full 24-bit mantissas (small integers would be exact in TF32 and hide the lo parts).
    std::vector<float> hx(n), hm(64);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& v : hx) v = u(rng);
    for (auto& v : hm) v = u(rng);
    float *x, *y, *dm;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&y, n * 4));
    CK(cudaMalloc(&dm, 64 * 4));
    CK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dm, hm.data(), 64 * 4, cudaMemcpyHostToDevice));
    Data d{x, y, n, &hx, &hm, dm, reps, copy_us, prop.multiProcessorCount};
    auto has = [&](int w) { return ("," + widths + ",").find("," + std::to_string(w) + ",") != std::string::npos; };
#define WIDTH(W) if (has(W)) width<W>(d);
    TF32_WIDTHS(WIDTH)
#undef WIDTH
    // One infinity: its tiles take the direct path, every other tile the products.
    if (has(31) && want("inf")) {
        std::vector<float> hx2 = hx;
        hx2[n / 2 + 5] = INFINITY;
        CK(cudaMemcpy(x, hx2.data(), n * 4, cudaMemcpyHostToDevice));
        Data d2 = d;
        d2.hx = &hx2;
        run_tf32<31, 32, 1, 8, 1>(d2);
    }
    CK(cudaFree(x));
    CK(cudaFree(y));
    {
        void *a2, *b2;
        CK(cudaMalloc(&a2, n * 4));
        CK(cudaMalloc(&b2, n * 4));
        auto copy2 = [&] { CK(cudaMemcpyAsync(b2, a2, n * 4, cudaMemcpyDeviceToDevice)); };
        printf("copy again: %.2f us\n", median_us(reps, copy2));
    }
    return 0;
}
#endif
