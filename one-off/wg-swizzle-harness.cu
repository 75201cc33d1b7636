// Standalone harness (issue 13, forty-third session, fifth lead): the committed warpgroup conv1d
// kernel (kernels/conv1d_sm90a.cu as of main 045a62f, included as is) against a copy whose span
// is staged contiguously in wgmma's 128-byte swizzle (K-major, SBO 1024 B) instead of the
// no-swizzle layout's 8 regions. Nsight Compute on the shipped kernel (results/h100-session43,
// s43a) found its span copies (cp.async, 16 bytes a thread, scattered over the 8 regions) at
// 32 L2 sectors and 32 shared wavefronts a warp where 16 and 4 would do; here 8 neighbouring
// threads fill one 128-byte row (permuted within it), so both sides are contiguous. The chunk c
// of t starts at byte 32 c of the span (row c / 4, 32 (c % 4) within it): the descriptor's start
// moves by 32 bytes a chunk. BOFF 0 leaves the descriptor's base offset (bits 49-51) at 0 (the
// swizzle from address bits alone); BOFF 1 sets it to (start >> 7) & 7. One GPU, one process,
// the same copy; f16, `same`, zero boundary. Built on the device:
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include \
//        -o /tmp/wgs one-off/wg-swizzle-harness.cu
// Usage: [VARIANTS=sw0,swb] [SKIP_CHECKS=1] [QUICK=1] wgs LOG2N REPS WIDTHS (comma-separated);
// the shipped kernel ("wg1") always runs. Not shipped.
#include "../kernels/conv1d_sm90a.cu"

// Element offset of staged input q in the swizzled span: row q / 64 (128 bytes), 16-byte chunk
// (q / 8) % 8 XOR the row's low 3 bits (the span starts 1024-byte aligned).
__device__ __forceinline__ u32 sw_element(u32 q) {
    const u32 row = q >> 6;
    return 64u * row + 8u * (((q >> 3) & 7u) ^ (row & 7u)) + (q & 7u);
}

// A K-major 128-byte-swizzle descriptor at `addr`: LBO unused (16), SBO 1024 (8 rows of 128 B).
template <int BOFF>
__device__ __forceinline__ u64 sw_descriptor(u32 addr) {
    u64 d = (u64)((addr & 0x3ffffu) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
    if (BOFF) d |= (u64)((addr >> 7) & 7u) << 49;
    return d;
}

template <class T, int BOFF>
__device__ __forceinline__ void conv_wgmma_sw(const T* __restrict__ x, const f32* __restrict__ mask,
                                              const uint4* __restrict__ arows, T* __restrict__ y,
                                              u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode,
                                              u64 tiles_per_row, int kt) {
    typedef gp::TensorPolicy<T> P;
    static_assert(P::EPG == 8, "16-bit types");
    const WarpgroupLayout L(kt);
    const u32 base = gp::shared_address(conv1d_wgmma_smem);
    const u32 a_base = base, b_base = (base + L.a_bytes + 1023u) & ~1023u;
    T* xs = reinterpret_cast<T*>(conv1d_wgmma_smem + (b_base - base));
    T* ys = xs;
    for (u32 g = threadIdx.x; g < L.a_bytes / 16; g += WG_BLOCK)
        gp::async_copy_16_shared(a_base + 16u * g, arows + g);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const u64 row = rows == 1 ? 0 : b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const T* xr = x + row * n;
        const i64 d = gp::floor_mod((i64)(row * n) + off, P::EPG);
        const i64 o_tile = (i64)(tile * WG_TILE) - d;
        const i64 p_tile = o_tile + off;
        __syncthreads();
        bool bad = false;
        if (p_tile >= 0 && p_tile + L.span <= (i64)n) {
            const u32 granules = (u32)L.span / 8;
            const uint4* src = reinterpret_cast<const uint4*>(xr + p_tile);
            for (u32 g = threadIdx.x; g < granules; g += WG_BLOCK)
                gp::async_copy_16_shared(b_base + 128u * (g >> 3) + 16u * ((g & 7u) ^ ((g >> 3) & 7u)), src + g);
            gp::async_copy_wait_all();
            u32 acc = P::CHECK_START;
            for (u32 g = threadIdx.x; g < granules; g += WG_BLOCK)
                P::collect(*reinterpret_cast<const uint4*>(xs + sw_element(8 * g)), acc);
            bad = P::any_direct(acc);
        } else {
            gp::async_copy_wait_all();
            for (int q = threadIdx.x; q < L.span; q += WG_BLOCK) {
                const T v = gp::boundary_load(xr, p_tile + q, (i64)n, bmode);
                bad |= P::needs_direct(v);
                xs[sw_element((u32)q)] = v;
            }
        }
        gp::fence_proxy_async_shared();
        const bool any_bad = __syncthreads_or(bad);
        const i64 yt = (i64)(row * n_out) + o_tile;
        if (!any_bad) {
            f32 acc[WG_SEGMENTS / 2];
            gp::wgmma_fence();
            u64 da = gp::wgmma_descriptor(a_base, 128, 128);
            gp::Wgmma<T, WG_SEGMENTS>::start(acc, da, sw_descriptor<BOFF>(b_base));
#pragma unroll 1
            for (int c = 1; c < kt; ++c) {
                da += 16;
                gp::Wgmma<T, WG_SEGMENTS>::accumulate(acc, da, sw_descriptor<BOFF>(b_base + 32u * (u32)c));
            }
            gp::wgmma_commit();
            gp::wgmma_wait_all();
            gp::wgmma_fence_operands(acc);
            __syncthreads();
            const int sh = (int)gp::floor_mod(yt, P::EPG);
            const int m0 = 16 * warp + (lane >> 2);
#pragma unroll
            for (int j = 0; j < WG_SEGMENTS / 8; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int m = m0 + 8 * (e >> 1);
                    const int s = 8 * j + 2 * (lane & 3) + (e & 1);
                    ys[WarpgroupOutputs::phys(sh + 64 * s + 63 - m)] =
                        gp::narrow<T>(gp::wgmma_result(acc[4 * j + e]));
                }
            __syncthreads();
            gp::conv1d_store_tile<T, WarpgroupOutputs, WG_BLOCK>(y, ys, yt, o_tile, n_out);
        } else {
            T* yr = y + row * n_out;
            for (int k = threadIdx.x; k < WG_TILE; k += WG_BLOCK) {
                const i64 o = o_tile + k;
                if (o < 0 || o >= (i64)n_out) continue;
                f32 a = 0.0f;
                for (u64 j = 0; j < w; ++j)
                    a = __fmaf_rn(gp::widen(xs[sw_element((u32)(k + (int)j))]), mask[j], a);
                yr[o] = gp::narrow<T>(a);
            }
        }
    }
}

#define WGS_ENTRY(name, T, BOFF)                                                                  \
    extern "C" __global__ void __launch_bounds__(WG_BLOCK, 8) name(                              \
        const T* __restrict__ x, const f32* __restrict__ mask, const uint4* __restrict__ arows,   \
        T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w, int boundary,             \
        u64 tiles_per_row, int kt) {                                                              \
        conv_wgmma_sw<T, BOFF>(x, mask, arows, y, rows, n, n_out, off, w, boundary, tiles_per_row, kt); \
    }
WGS_ENTRY(wgs0_f16, gp::f16, 0)
WGS_ENTRY(wgsb_f16, gp::f16, 1)

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

typedef void (*KernelFn)(const gp::f16*, const f32*, const uint4*, gp::f16*, u64, u64, u64, i64,
                         u64, int, u64, int);

__global__ void fill_signal(gp::f16* x, u64 n, u32 seed) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u32 h = (u32)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = gp::from_f32<gp::f16>((f32)(h & 0xffff) / 32768.0f - 1.0f);
    }
}

// The mask's rows as crates/gpu-conv1d/src/tensor.rs (warpgroup_rows) lays them out: element
// 64 g + 8 r + k = M[8 g + r + k - 63], g < 2 kt + 7.
__global__ void build_rows(gp::f16* out, const f32* m, int w, int kt) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (2 * kt + 7) * 64) return;
    const int g = idx / 64, r = (idx / 8) % 8, k = idx % 8;
    const int j = 8 * g + r + k - 63;
    out[idx] = gp::from_f32<gp::f16>((j >= 0 && j < w) ? m[j] : 0.0f);
}

__global__ void reference(const gp::f16* x, const f32* m, gp::f16* y, u64 rows, u64 n, i64 off, int w) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < rows * n; i += (u64)gridDim.x * blockDim.x) {
        const u64 r = i / n, o = i % n;
        f32 a = 0.0f;
        for (int j = 0; j < w; ++j) {
            const i64 p = (i64)o + off + j;
            const f32 v = (p >= 0 && p < (i64)n) ? gp::widen(x[r * n + p]) : 0.0f;
            a = __fmaf_rn(v, m[j], a);
        }
        y[i] = gp::narrow<gp::f16>(a);
    }
}

typedef void (*KernelPf)(const gp::f16*, const f32*, const uint4*, gp::f16*, u64, u64, u64, i64,
                         u64, int, u64, int, u64);

struct Variant {
    const char* name;
    KernelFn fn;
    int g;  // warpgroups per block
    KernelPf pf_fn = nullptr;  // instead of fn: the prefetching entry, pf tiles ahead
    u64 pf = 0;
    bool swz = false;  // the swizzled span: 1024-byte alignment slack, no region padding
};

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Dynamic shared memory for G warpgroups (tensor.rs's warpgroup_shared_bytes with the tile
// G * 4096).
static size_t shared_bytes(int g, int kt, bool swz = false) {
    const size_t tile = 4096 * (size_t)g;
    const size_t span = (tile + 16 * kt + 63) / 64 * 64, slots = span / 64;
    const size_t slots_pad = slots + (9 - slots % 8) % 8;
    const size_t outputs = tile + 8 + 8 * (tile / 64 + 1);
    // Enough for either layout of the span: the included kernel (wg1) is main's, which takes
    // the swizzled layout from the forty-third session on (1024 bytes of alignment slack).
    (void)swz;
    return 128 * (2 * kt + 7) + std::max(1024 + std::max(2 * span, 2 * outputs),
                                         std::max(8 * 16 * slots_pad, 2 * outputs));
}

static void launch(const Variant& v, const gp::f16* x, const f32* m, const gp::f16* rowsbuf, gp::f16* y,
                   u64 rows, u64 n, i64 off, int w) {
    const int kt = (w + 63 + 15) / 16;
    const u64 tpr = (n + 7 + 4096ull * v.g - 1) / (4096ull * v.g);
    if (v.pf_fn)
        v.pf_fn<<<(unsigned)(rows * tpr), 128 * v.g, shared_bytes(v.g, kt, v.swz)>>>(
            x, m, (const uint4*)rowsbuf, y, rows, n, n, off, (u64)w, 0, tpr, kt, v.pf);
    else
        v.fn<<<(unsigned)(rows * tpr), 128 * v.g, shared_bytes(v.g, kt, v.swz)>>>(
            x, m, (const uint4*)rowsbuf, y, rows, n, n, off, (u64)w, 0, tpr, kt);
}

int main(int argc, char** argv) {
    const int log2n = argc > 1 ? atoi(argv[1]) : 28;
    const int reps = argc > 2 ? atoi(argv[2]) : 20;
    const u64 n = 1ull << log2n;
    setvbuf(stdout, nullptr, _IOLBF, 0);
    std::vector<int> widths = {31, 63, 127, 255};
    if (argc > 3) {
        widths.clear();
        for (char* t = strtok(argv[3], ","); t; t = strtok(nullptr, ",")) widths.push_back(atoi(t));
    }
    const bool quick = getenv("QUICK") != nullptr;  // the sanitizers: checks only, small
    // VARIANTS: which to run (comma-separated names; default all).
    Variant all[] = {{"wg1", conv1d_wgmma_f16, 1}, {"sw0", wgs0_f16, 1, nullptr, 0, true},
                     {"swb", wgsb_f16, 1, nullptr, 0, true}};
    std::vector<Variant> vars;
    {
        const std::string keep = std::string(",") + (getenv("VARIANTS") ? getenv("VARIANTS") : "") + ",";
        for (auto& v : all)
            if (&v == &all[0] || keep == ",," || keep.find(std::string(",") + v.name + ",") != std::string::npos)
                vars.push_back(v);
    }
    gp::f16 *x, *y, *yb, *yc, *rb;
    f32* m;
    CK(cudaMalloc(&x, n * 2));
    CK(cudaMalloc(&y, n * 2));
    CK(cudaMalloc(&yb, n * 2));
    CK(cudaMalloc(&yc, n * 2));
    CK(cudaMalloc(&m, 4096 * 4));
    CK(cudaMalloc(&rb, 1 << 20));
    fill_signal<<<1024, 256>>>(x, n, 12345u);
    for (auto& v : vars) {
        const void* f = v.pf_fn ? (const void*)v.pf_fn : (const void*)v.fn;
        CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000));
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, f));
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 128 * v.g, shared_bytes(v.g, 12, v.swz)));
        printf("kernel %s regs %d local %zu blocks/SM at w=127: %d\n", v.name, fa.numRegs, fa.localSizeBytes, per_sm);
    }
    auto set_mask = [&](int w) {
        std::vector<float> hm(w);
        for (int j = 0; j < w; ++j) hm[j] = (float)(((j * 37 + 11) % 41) - 20) / 64.0f;
        CK(cudaMemcpy(m, hm.data(), w * 4, cudaMemcpyHostToDevice));
        const int kt = (w + 63 + 15) / 16;
        build_rows<<<((2 * kt + 7) * 64 + 127) / 128, 128>>>(rb, m, w, kt);
        CK(cudaDeviceSynchronize());
    };
    std::vector<uint16_t> h1(n), hy(n), hr(n);
    // Checks: every variant bit for bit against G = 1 (the same products per segment), and the
    // count of outputs differing from the direct f32 kernel; rows of odd lengths (row ends, tiles
    // across rows), a NaN and an infinity (the cold path).
    auto check = [&](const char* what, u64 rows, u64 rn, int w) {
        const i64 off = -(i64)(w / 2);
        reference<<<4096, 256>>>(x, m, yb, rows, rn, off, w);
        CK(cudaMemset(y, 0xff, rows * rn * 2));
        launch(vars[0], x, m, rb, y, rows, rn, off, w);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h1.data(), y, rows * rn * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hr.data(), yb, rows * rn * 2, cudaMemcpyDeviceToHost));
        u64 vs_direct = 0;
        for (u64 i = 0; i < rows * rn; ++i) vs_direct += h1[i] != hr[i];
        for (auto& v : vars) {
            if (&v == &vars[0]) continue;
            CK(cudaMemset(y, 0xff, rows * rn * 2));
            launch(v, x, m, rb, y, rows, rn, off, w);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(hy.data(), y, rows * rn * 2, cudaMemcpyDeviceToHost));
            u64 diff = 0;
            for (u64 i = 0; i < rows * rn; ++i) diff += hy[i] != h1[i];
            printf("check %s rows=%llu n=%llu w=%-4d %s: %llu outputs differ from wg1 (wg1: %llu differ from direct)\n",
                   what, (unsigned long long)rows, (unsigned long long)rn, w, v.name, (unsigned long long)diff,
                   (unsigned long long)vs_direct);
        }
    };
    const u64 small = std::min<u64>(1000003, n / 4 + 3);
    const bool skip_checks = getenv("SKIP_CHECKS") != nullptr;  // the profiler: timed loop only
    for (int w : {1, 3, 31, 64, 127, 255, 1000, 2048}) {
        if (skip_checks) break;
        set_mask(w);
        check("odd", 3, small, w);
        check("short", 5, 4099, w);
    }
    if (!skip_checks) {
        const uint16_t specials[3] = {0x7c00, 0x7e00, 0xfc00};
        const u64 at[3] = {12345, small + 77, 2 * small + 9000};
        for (int i = 0; i < 3; ++i) CK(cudaMemcpy(x + at[i], &specials[i], 2, cudaMemcpyHostToDevice));
        set_mask(127);
        check("nonfinite", 3, small, 127);
        fill_signal<<<1024, 256>>>(x, n, 12345u);
    }
    if (quick) return 0;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto timed = [&](auto&& f) {
        std::vector<float> ts;
        for (int r = 0; r < reps + 3; ++r) {
            CK(cudaEventRecord(e0));
            f();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 3) ts.push_back(ms);
        }
        return median(ts);
    };
    auto copy = [&]() { CK(cudaMemcpyAsync(yc, x, n * 2, cudaMemcpyDeviceToDevice)); };
    const float copy_ms = timed(copy);
    printf("n=2^%d copy %.2f us\n", log2n, copy_ms * 1e3);
    // Twice round, alternating, so drift shows.
    for (int round = 0; round < 2; ++round)
        for (int w : widths) {
            set_mask(w);
            for (auto& v : vars) {
                const float t = timed([&] { launch(v, x, m, rb, y, 1, n, -(i64)(w / 2), w); });
                printf("round %d w=%-4d %s %8.2f us  x%.3f copy\n", round, w, v.name, t * 1e3, copy_ms / t);
            }
        }
    printf("copy after %.2f us\n", timed(copy) * 1e3);
    return 0;
}
