// Standalone harness for a wgmma (sm_90a) 16-bit conv1d kernel (issue 13): the committed
// mma.sync kernel (kernels/conv1d_sm80.cu, included as is) against wgmma variants, one GPU, same
// process, same copy. Built on the device with nvcc -arch=sm_90a: one-off/h100-s14a.sh. Not shipped.
//
// The product (docs/conv1d.md has the mma.sync one): cut a tile's outputs into NS segments of 64;
// D[m][n] = sum_t A[m][t] B[t][n] with A[m][t] = M[t + m - 63] (the Toeplitz matrix of the mask
// with its rows reversed, so that consecutive rows move forward in memory: a Hankel matrix) and
// B[t][n] = X(p + 64 n + t); D[m][n] is output 64 n + 63 - m of the tile. wgmma m64nNSk16 takes
// both from shared memory through descriptors, no swizzle, K-major core matrices of 8 rows x 16
// bytes:
//  - B: granule g (8 elements) of the staged span lives in region g % 8, slot g / 8 (16 bytes per
//    slot, RS bytes per region): the 8 granules (64 n + 16 c .. + 8) of n = n0 .. n0 + 7 are then
//    8 consecutive slots of one region. Chunk c starts at region 2c % 8, slot c / 4; LBO = RS
//    (next 8 values of t: the next region), SBO = 128 (next 8 segments).
//  - A: 8 strips, granule row g (128 bytes) holding at 16 r + 2 k the value M[8 g + r + k - 63];
//    the core matrix of rows m0.. m0+7 and t0 .. t0+7 is granule row (m0 + t0) / 8. Chunk c starts
//    at row 2c; LBO = SBO = 128.
#include KERNEL_FILE

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#endif

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

template <class T, int N> struct Wgmma;
template <> struct Wgmma<gp::f16, 32> {
    static __device__ __forceinline__ void run(f32 (&d)[16], u64 da, u64 db, int accumulate) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, 1, 1, 0, 0;\n}"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
            : "l"(da), "l"(db), "r"(accumulate));
    }
};
template <> struct Wgmma<gp::bf16, 32> {
    static __device__ __forceinline__ void run(f32 (&d)[16], u64 da, u64 db, int accumulate) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, 1, 1, 0, 0;\n}"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
            : "l"(da), "l"(db), "r"(accumulate));
    }
};
template <> struct Wgmma<gp::f16, 64> {
    static __device__ __forceinline__ void run(f32 (&d)[32], u64 da, u64 db, int accumulate) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
            : "l"(da), "l"(db), "r"(accumulate));
    }
};
template <> struct Wgmma<gp::bf16, 64> {
    static __device__ __forceinline__ void run(f32 (&d)[32], u64 da, u64 db, int accumulate) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
            : "l"(da), "l"(db), "r"(accumulate));
    }
};
template <> struct Wgmma<gp::f16, 128> {
    static __device__ __forceinline__ void run(f32 (&d)[64], u64 da, u64 db, int accumulate) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
            : "l"(da), "l"(db), "r"(accumulate));
    }
};
template <> struct Wgmma<gp::bf16, 128> {
    static __device__ __forceinline__ void run(f32 (&d)[64], u64 da, u64 db, int accumulate) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
            : "l"(da), "l"(db), "r"(accumulate));
    }
};

__device__ __forceinline__ u64 wg_desc(u32 addr, u32 lbo, u32 sbo) {
    return (u64)((addr & 0x3ffffu) >> 4) | ((u64)(lbo >> 4) << 16) | ((u64)(sbo >> 4) << 32);
}
template <int R> __device__ __forceinline__ void wg_pin(f32 (&d)[R]) {
#ifndef NO_PIN
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
#endif
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
__device__ __forceinline__ void proxy_fence() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// Shared memory of one block: A strips, the 8 regions of B, the output staging.
template <int NS> struct WgLayout {
    static constexpr int TILE = 64 * NS;
    int kt, span, slots_pad;
    u32 a_bytes, rs, b_bytes, y_off;
    __host__ __device__ WgLayout(int kt_) : kt(kt_) {
        span = (TILE + 16 * kt + 63) / 64 * 64;
        const int slots = span / 64;
        slots_pad = slots + ((1 - slots) % 8 + 8) % 8;  // = 1 mod 8: staging without bank conflicts
        a_bytes = 128u * (2u * kt + 7u);
        rs = 16u * slots_pad;
        b_bytes = 8u * rs;
        y_off = a_bytes + b_bytes;
    }
    __host__ __device__ u32 total() const { return y_off + 2u * (TILE + 8 + 8 * (TILE / 64 + 1)) + 16; }
    // element offset of staged input q inside the B regions
    __device__ __forceinline__ u32 b_elem(u32 q) const {
        return (rs / 2) * ((q >> 3) & 7) + 8 * (q >> 6) + (q & 7);
    }
};

template <int NS> struct WgOut {
    static constexpr int TILE = 64 * NS;
    static constexpr int V = 8;
    static __device__ __forceinline__ int phys(int q) { return q + 8 * (q >> 6); }
};

extern __shared__ __align__(128) unsigned char wg_smem[];

template <class T, int NS, int MINB, bool ALIAS = false>
__device__ __forceinline__ void conv_wgmma(const T* __restrict__ x, const f32* __restrict__ mask,
                                           const uint4* __restrict__ strips, T* __restrict__ y,
                                           u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode,
                                           u64 tiles_per_row, int kt) {
    typedef TensorPolicy<T> P;
    constexpr int TILE = 64 * NS;
    const WgLayout<NS> L(kt);
    const u32 base = gp::shared_address(wg_smem);
    const u32 abase = base, bbase = base + L.a_bytes;
    T* xs = reinterpret_cast<T*>(wg_smem + L.a_bytes);
    T* ys = reinterpret_cast<T*>(wg_smem + (ALIAS ? L.a_bytes : L.y_off));
    // The A strips once per block.
    for (u32 g = threadIdx.x; g < L.a_bytes / 16; g += 128) gp::async_copy_16_shared(abase + 16 * g, strips + g);
    gp::async_copy_wait_all();
    proxy_fence();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u64 tiles = rows * tiles_per_row;
    for (u64 b = blockIdx.x; b < tiles; b += gridDim.x) {
        const u64 row = b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const T* xr = x + row * n;
        const i64 d = gp::floor_mod((i64)(row * n) + off, P::EPG);
        const i64 o_tile = (i64)(tile * TILE) - d;
        const i64 p_tile = o_tile + off;
        __syncthreads();
        bool bad = false;
        if (p_tile >= 0 && p_tile + L.span <= (i64)n) {
            const u32 granules = (u32)L.span / 8;
            const uint4* src = reinterpret_cast<const uint4*>(xr + p_tile);
            for (u32 g = threadIdx.x; g < granules; g += 128)
                gp::async_copy_16_shared(bbase + L.rs * (g & 7) + 16 * (g >> 3), src + g);
            gp::async_copy_wait_all();
            u32 acc = P::CHECK_START;
            for (u32 g = threadIdx.x; g < granules; g += 128)
                P::collect(*reinterpret_cast<const uint4*>(xs + L.b_elem(8 * g)), acc);
            bad = P::any_direct(acc);
        } else {
            for (int q = threadIdx.x; q < L.span; q += 128) {
                const T v = gp::boundary_load(xr, p_tile + q, (i64)n, bmode);
                bad |= P::needs_direct(v);
                xs[L.b_elem(q)] = v;
            }
        }
        proxy_fence();
        const bool any_bad = __syncthreads_or(bad);
        T* yr = y + row * n_out;
        const i64 yt = (i64)(row * n_out) + o_tile;
        const int sh = (int)gp::floor_mod(yt, P::EPG);
        if (!any_bad) {
            f32 acc[NS / 2];
#pragma unroll
            for (int i = 0; i < NS / 2; ++i) acc[i] = 0.0f;
            wg_pin(acc);
            wg_fence();
            u32 a_at = abase, b_reg = 0;
#pragma unroll 1
            for (int c = 0; c < kt; ++c) {
                const u64 da = wg_desc(a_at, 128, 128);
                const u64 db = wg_desc(bbase + L.rs * ((2 * c) & 7) + 16 * (c >> 2), L.rs, 128);
                Wgmma<T, NS>::run(acc, da, db, c > 0);
                a_at += 256;
                (void)b_reg;
            }
            wg_commit();
            wg_wait0();
            wg_pin(acc);
            if (ALIAS) __syncthreads();  // every warp's product has read B: outputs go there
            // D[m][nn]: m = 16 warp + lane / 4 (+ 8), nn = 8 j + 2 (lane % 4) (+ 1); slot 64 nn + 63 - m.
            const int m0 = 16 * warp + (lane >> 2);
#pragma unroll
            for (int j = 0; j < NS / 8; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int m = m0 + 8 * (e >> 1);
                    const int nn = 8 * j + 2 * (lane & 3) + (e & 1);
                    ys[WgOut<NS>::phys(sh + 64 * nn + 63 - m)] = gp::narrow<T>(acc[4 * j + e]);
                }
            __syncthreads();
            gp::conv1d_store_tile<T, WgOut<NS>, 128>(y, ys, yt, o_tile, n_out);
        } else {
            for (int k = threadIdx.x; k < TILE; k += 128) {
                const i64 o = o_tile + k;
                if (o < 0 || o >= (i64)n_out) continue;
                f32 a = 0.0f;
                for (u64 j = 0; j < w; ++j) a = __fmaf_rn(gp::widen(xs[L.b_elem(k + (int)j)]), mask[j], a);
                yr[o] = gp::narrow<T>(a);
            }
        }
    }
}

#define WG_VARIANT(name, NS, MINB)                                                               \
    extern "C" __global__ void __launch_bounds__(128, MINB) name(                                \
        const gp::f16* __restrict__ x, const f32* __restrict__ mask, const uint4* __restrict__ s, \
        gp::f16* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode, u64 tpr,  \
        int kt) {                                                                                 \
        conv_wgmma<gp::f16, NS, MINB>(x, mask, s, y, rows, n, n_out, off, w, bmode, tpr, kt);     \
    }
#define WG_VARIANT_A(name, NS, MINB)                                                             \
    extern "C" __global__ void __launch_bounds__(128, MINB) name(                                \
        const gp::f16* __restrict__ x, const f32* __restrict__ mask, const uint4* __restrict__ s, \
        gp::f16* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode, u64 tpr,  \
        int kt) {                                                                                 \
        conv_wgmma<gp::f16, NS, MINB, true>(x, mask, s, y, rows, n, n_out, off, w, bmode, tpr, kt); \
    }

WG_VARIANT_A(wg64a, 64, 8)
WG_VARIANT(wg32, 32, 8)
WG_VARIANT(wg64, 64, 8)
WG_VARIANT(wg64m6, 64, 6)
WG_VARIANT(wg128, 128, 4)
extern "C" __global__ void __launch_bounds__(128, 8) wg64bf(
    const gp::bf16* __restrict__ x, const f32* __restrict__ mask, const uint4* __restrict__ s,
    gp::bf16* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode, u64 tpr, int kt) {
    conv_wgmma<gp::bf16, 64, 8>(x, mask, s, y, rows, n, n_out, off, w, bmode, tpr, kt);
}

// ---- Double-buffered, persistent: the next tile's copies in flight during this tile's product ----
// Staging states: 0 copies in flight (check after the wait), 1 staged and clean, 2 staged, needs
// the direct path.
template <class T, int NS>
__device__ __forceinline__ int wg_stage_issue(const WgLayout<NS>& L, u32 bb, T* xs, const T* __restrict__ x,
                                              u64 b, u64 tiles_per_row, u64 n, i64 off, int bmode) {
    typedef TensorPolicy<T> P;
    constexpr int TILE = 64 * NS;
    const u64 row = b / tiles_per_row;
    const u64 tile = b - row * tiles_per_row;
    const T* xr = x + row * n;
    const i64 d = gp::floor_mod((i64)(row * n) + off, P::EPG);
    const i64 p_tile = (i64)(tile * TILE) - d + off;
    if (p_tile >= 0 && p_tile + L.span <= (i64)n) {
        const u32 granules = (u32)L.span / 8;
        const uint4* src = reinterpret_cast<const uint4*>(xr + p_tile);
        for (u32 g = threadIdx.x; g < granules; g += 128)
            gp::async_copy_16_shared(bb + L.rs * (g & 7) + 16 * (g >> 3), src + g);
        return 0;
    }
    bool bad = false;
    for (int q = threadIdx.x; q < L.span; q += 128) {
        const T v = gp::boundary_load(xr, p_tile + q, (i64)n, bmode);
        bad |= P::needs_direct(v);
        xs[L.b_elem(q)] = v;
    }
    return bad ? 2 : 1;
}

template <class T, int NS>
__device__ __forceinline__ void conv_wgmma_db(const T* __restrict__ x, const f32* __restrict__ mask,
                                              const uint4* __restrict__ strips, T* __restrict__ y,
                                              u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode,
                                              u64 tiles_per_row, int kt) {
    typedef TensorPolicy<T> P;
    constexpr int TILE = 64 * NS;
    const WgLayout<NS> L(kt);
    const u32 ybytes = 2u * (TILE + 8 + 8 * (TILE / 64 + 1));
    const u32 buf = (L.b_bytes > ybytes ? L.b_bytes : ybytes) + 15u & ~15u;
    const u32 base = gp::shared_address(wg_smem);
    const u32 abase = base;
    for (u32 g = threadIdx.x; g < L.a_bytes / 16; g += 128) gp::async_copy_16_shared(abase + 16 * g, strips + g);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u64 tiles = rows * tiles_per_row;
    u64 b = blockIdx.x;
    int cur = 0;
    int state = b < tiles ? wg_stage_issue<T, NS>(L, base + L.a_bytes, reinterpret_cast<T*>(wg_smem + L.a_bytes),
                                                  x, b, tiles_per_row, n, off, bmode) : 1;
    for (; b < tiles; b += gridDim.x) {
        const u32 bb = base + L.a_bytes + buf * cur;
        T* xs = reinterpret_cast<T*>(wg_smem + L.a_bytes + buf * cur);
        gp::async_copy_wait_all();
        bool bad = state == 2;
        if (state == 0) {
            u32 acc = P::CHECK_START;
            for (u32 g = threadIdx.x; g < (u32)L.span / 8; g += 128)
                P::collect(*reinterpret_cast<const uint4*>(xs + L.b_elem(8 * g)), acc);
            bad = P::any_direct(acc);
        }
        proxy_fence();
        const bool any_bad = __syncthreads_or(bad);
        const u64 nb = b + gridDim.x;
        if (nb < tiles)
            state = wg_stage_issue<T, NS>(L, base + L.a_bytes + buf * (cur ^ 1),
                                          reinterpret_cast<T*>(wg_smem + L.a_bytes + buf * (cur ^ 1)), x, nb,
                                          tiles_per_row, n, off, bmode);
        const u64 row = b / tiles_per_row;
        const u64 tile = b - row * tiles_per_row;
        const i64 d = gp::floor_mod((i64)(row * n) + off, P::EPG);
        const i64 o_tile = (i64)(tile * TILE) - d;
        T* yr = y + row * n_out;
        const i64 yt = (i64)(row * n_out) + o_tile;
        const int sh = (int)gp::floor_mod(yt, P::EPG);
        if (!any_bad) {
            f32 acc[NS / 2];
#pragma unroll
            for (int i = 0; i < NS / 2; ++i) acc[i] = 0.0f;
            wg_pin(acc);
            wg_fence();
            u32 a_at = abase;
#pragma unroll 1
            for (int c = 0; c < kt; ++c) {
                const u64 da = wg_desc(a_at, 128, 128);
                const u64 db = wg_desc(bb + L.rs * ((2 * c) & 7) + 16 * (c >> 2), L.rs, 128);
                Wgmma<T, NS>::run(acc, da, db, c > 0);
                a_at += 256;
            }
            wg_commit();
            wg_wait0();
            wg_pin(acc);
            __syncthreads();  // every warp's product has read this buffer: the outputs go there
            T* ys = xs;
            const int m0 = 16 * warp + (lane >> 2);
#pragma unroll
            for (int j = 0; j < NS / 8; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int m = m0 + 8 * (e >> 1);
                    const int nn = 8 * j + 2 * (lane & 3) + (e & 1);
                    ys[WgOut<NS>::phys(sh + 64 * nn + 63 - m)] = gp::narrow<T>(acc[4 * j + e]);
                }
            __syncthreads();
            gp::conv1d_store_tile<T, WgOut<NS>, 128>(y, ys, yt, o_tile, n_out);
        } else {
            for (int k = threadIdx.x; k < TILE; k += 128) {
                const i64 o = o_tile + k;
                if (o < 0 || o >= (i64)n_out) continue;
                f32 a = 0.0f;
                for (u64 j = 0; j < w; ++j) a = __fmaf_rn(gp::widen(xs[L.b_elem(k + (int)j)]), mask[j], a);
                yr[o] = gp::narrow<T>(a);
            }
        }
        cur ^= 1;
    }
}

#define WG_DB_VARIANT(name, NS, MINB)                                                            \
    extern "C" __global__ void __launch_bounds__(128, MINB) name(                                \
        const gp::f16* __restrict__ x, const f32* __restrict__ mask, const uint4* __restrict__ s, \
        gp::f16* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off, u64 w, int bmode, u64 tpr,  \
        int kt) {                                                                                 \
        conv_wgmma_db<gp::f16, NS>(x, mask, s, y, rows, n, n_out, off, w, bmode, tpr, kt);        \
    }
WG_DB_VARIANT(wgdb64, 64, 8)
WG_DB_VARIANT(wgdb64m6, 64, 6)
WG_DB_VARIANT(wgdb32, 32, 8)

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

// A fragments of the committed kernel (as crates/gpu-conv1d/src/tensor.rs lays them out).
__global__ void build_afrag(u32* out, const f32* m, int w, int kt) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= kt * 32 * 4) return;
    const int c = idx / 128, lane = (idx / 4) % 32, r = idx % 4;
    const int g = lane / 4, q = lane % 4;
    const int is[4] = {g, g + 8, g, g + 8};
    const int ts[4] = {2 * q, 2 * q, 2 * q + 8, 2 * q + 8};
    auto at = [&](int i, int t) -> u32 {
        const int j = 16 * c + t - i;
        const f32 v = (j >= 0 && j < w) ? m[j] : 0.0f;
        return gp::from_f32<gp::f16>(v).bits;
    };
    out[idx] = at(is[r], ts[r]) | (at(is[r], ts[r] + 1) << 16);
}

// The wgmma kernels' A strips: element 64 g + 8 r + k = M[8 g + r + k - 63], g < 2 kt + 7.
__global__ void build_strips(gp::f16* out, const f32* m, int w, int kt) {
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

#ifndef __CUDACC_RTC__
static float half_to_float(uint16_t h) {
    const u32 s = (h >> 15) & 1, e = (h >> 10) & 31, f = h & 1023;
    float v;
    if (e == 0) v = ldexpf((float)f, -24);
    else if (e == 31) v = f ? NAN : INFINITY;
    else v = ldexpf((float)(f | 1024), (int)e - 25);
    return s ? -v : v;
}

struct Variant {
    const char* name;
    KernelFn fn;
    int ns;           // 0: the committed kernel; else segments of 64 per tile
    bool persistent;  // a grid of resident blocks (else one block per tile, capped)
    bool db = false;  // two staging buffers, the outputs staged in the current one
    bool alias = false;  // the outputs staged in the B regions
};

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Setup {
    u64 tile;
    int kt;
    size_t shared;
    const void* aux;
};

static Setup setup(const Variant& v, int w, const void* af, const void* st) {
    Setup s;
    if (v.ns == 0) {
        s.tile = 2048;
        s.kt = (w + 15 + 15) / 16;
        s.shared = (size_t)((s.tile + 16 * s.kt + 63) / 64 * 64) * 2;
        s.aux = af;
    } else {
        s.tile = 64 * v.ns;
        s.kt = (w + 63 + 15) / 16;
        auto sz = [&](auto L) -> size_t {
            if (v.alias) {
                const u32 yb = 2u * (L.TILE + 8 + 8 * (L.TILE / 64 + 1));
                return L.a_bytes + (L.b_bytes > yb ? L.b_bytes : yb);
            }
            if (!v.db) return L.total();
            const u32 yb = 2u * (L.TILE + 8 + 8 * (L.TILE / 64 + 1));
            const u32 buf = ((L.b_bytes > yb ? L.b_bytes : yb) + 15u) & ~15u;
            return L.a_bytes + 2 * buf;
        };
        if (v.ns == 32) s.shared = sz(WgLayout<32>(s.kt));
        else if (v.ns == 64) s.shared = sz(WgLayout<64>(s.kt));
        else s.shared = sz(WgLayout<128>(s.kt));
        s.aux = st;
    }
    return s;
}

static unsigned grid_for(const Variant& v, u64 tiles, size_t shared) {
    if (!v.persistent) return (unsigned)std::min<u64>(tiles, 2147483647ull);
    int per_sm = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.fn, 128, shared));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    return (unsigned)std::min<u64>(tiles, (u64)per_sm * sms);
}

static void prepare(const f32* m, int w, u32* af, gp::f16* st) {
    const int kt = (w + 15 + 15) / 16, kt64 = (w + 63 + 15) / 16;
    build_afrag<<<(kt * 128 + 127) / 128, 128>>>(af, m, w, kt);
    build_strips<<<((2 * kt64 + 7) * 64 + 127) / 128, 128>>>(st, m, w, kt64);
    CK(cudaDeviceSynchronize());
}

int main(int argc, char** argv) {
    const int log2n = argc > 1 ? atoi(argv[1]) : 28;
    const int reps = argc > 2 ? atoi(argv[2]) : 20;
    const u64 n = 1ull << log2n;
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const bool skip_checks = getenv("SKIP_CHECKS") != nullptr;
    // Outputs compared on the host: all up to 2^24, else the first and last 2^23.
    auto compared = [&](u64 i) { return n <= (1ull << 24) || i < (1ull << 23) || i >= n - (1ull << 23); };
    std::vector<int> widths = {3, 31, 63, 127, 255};
    if (argc > 3) {
        widths.clear();
        for (char* t = strtok(argv[3], ","); t; t = strtok(nullptr, ",")) widths.push_back(atoi(t));
    }
    Variant all[] = {
        {"committed", conv1d_tensor_f16, 0, false},
        {"wg32", wg32, 32, false}, {"wg32p", wg32, 32, true},
        {"wg64", wg64, 64, false}, {"wg64p", wg64, 64, true},
        {"wg64m6p", wg64m6, 64, true},
        {"wg128", wg128, 128, false}, {"wg128p", wg128, 128, true},
        {"wgdb64", wgdb64, 64, true, true}, {"wgdb64m6", wgdb64m6, 64, true, true},
        {"wgdb32", wgdb32, 32, true, true},
        {"wg64a", wg64a, 64, false, false, true},
    };
    std::vector<Variant> vars;
    {
        const std::string keep = std::string(",") + (argc > 4 ? argv[4] : "wg64,wg64p") + ",";
        for (auto& v : all)
            if (v.ns == 0 || keep.find(std::string(",") + v.name + ",") != std::string::npos) vars.push_back(v);
    }
    gp::f16 *x, *y, *yb, *yc, *st;
    CK(cudaMalloc(&x, n * 2));
    CK(cudaMalloc(&y, n * 2));
    CK(cudaMalloc(&yb, n * 2));
    CK(cudaMalloc(&yc, n * 2));
    f32* m;
    u32* af;
    CK(cudaMalloc(&m, 16384 * 4));
    CK(cudaMalloc(&af, 1 << 20));
    CK(cudaMalloc(&st, 1 << 20));
    fill_signal<<<1024, 256>>>(x, n, 12345u);
    for (auto& v : vars) {
        CK(cudaFuncSetAttribute(v.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000));
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, v.fn));
        printf("kernel %-10s regs %d local %zu\n", v.name, fa.numRegs, fa.localSizeBytes);
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto copy_time = [&]() {
        std::vector<float> ct;
        for (int r = 0; r < reps + 3; ++r) {
            CK(cudaEventRecord(e0));
            CK(cudaMemcpyAsync(yc, x, n * 2, cudaMemcpyDeviceToDevice));
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 3) ct.push_back(ms);
        }
        return median(ct);
    };
    const float copy_ms = copy_time();
    printf("n=2^%d copy %.2f us\n", log2n, copy_ms * 1e3);
    std::vector<uint16_t> hb(n), hy(n), hr(n);
    // Correctness first: rows of odd lengths (row ends, tiles across rows), several widths.
    if (!skip_checks) {
        const u64 rows = 3, rn = std::min<u64>(1000003, n / 4 + 3);
        for (int w : {1, 3, 31, 64, 127, 255, 1000}) {
            std::vector<float> hm(w);
            for (int j = 0; j < w; ++j) hm[j] = (float)(((j * 37 + 11) % 41) - 20) / 64.0f;
            CK(cudaMemcpy(m, hm.data(), w * 4, cudaMemcpyHostToDevice));
            prepare(m, w, af, st);
            const i64 off = -(i64)(w / 2);
            reference<<<4096, 256>>>(x, m, yb, rows, rn, off, w);
            CK(cudaMemcpy(hr.data(), yb, rows * rn * 2, cudaMemcpyDeviceToHost));
            for (auto& v : vars) {
                const Setup s = setup(v, w, af, st);
                const u64 tpr = (rn + 7 + s.tile - 1) / s.tile;
                CK(cudaMemset(y, 0xff, rows * rn * 2));
                v.fn<<<grid_for(v, rows * tpr, s.shared), 128, s.shared>>>(x, m, (const uint4*)s.aux, y, rows, rn, rn, off, (u64)w, 0, tpr, s.kt);
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(hy.data(), y, rows * rn * 2, cudaMemcpyDeviceToHost));
                double md = 0;
                u64 diff = 0;
                for (u64 i = 0; i < rows * rn; ++i) {
                    const float a = half_to_float(hy[i]), b = half_to_float(hr[i]);
                    if (!(fabsf(a - b) <= 1e30f)) md = INFINITY;
                    else md = std::max(md, (double)fabsf(a - b));
                    diff += hy[i] != hr[i];
                }
                printf("check rows=3 n=%llu w=%-4d %-10s max|y - direct| %.3g, %llu outputs differ\n",
                       (unsigned long long)rn, w, v.name, md, (unsigned long long)diff);
            }
        }
    }
    for (int w : widths) {
        std::vector<float> hm(w);
        for (int j = 0; j < w; ++j) hm[j] = (float)(((j * 37 + 11) % 41) - 20) / 64.0f;
        CK(cudaMemcpy(m, hm.data(), w * 4, cudaMemcpyHostToDevice));
        prepare(m, w, af, st);
        const i64 off = -(i64)(w / 2);
        reference<<<4096, 256>>>(x, m, yb, 1, n, off, w);
        CK(cudaMemcpy(hr.data(), yb, n * 2, cudaMemcpyDeviceToHost));
        for (auto& v : vars) {
            const Setup s = setup(v, w, af, st);
            const u64 tpr = (n + 7 + s.tile - 1) / s.tile;
            const unsigned grid = grid_for(v, tpr, s.shared);
            CK(cudaMemset(y, 0xff, n * 2));
            std::vector<float> ts;
            for (int r = 0; r < reps + 3; ++r) {
                CK(cudaEventRecord(e0));
                v.fn<<<grid, 128, s.shared>>>(x, m, (const uint4*)s.aux, y, 1, n, n, off, (u64)w, 0, tpr, s.kt);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaGetLastError());
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r >= 3) ts.push_back(ms);
            }
            CK(cudaMemcpy(hy.data(), y, n * 2, cudaMemcpyDeviceToHost));
            const float t = median(ts);
            double md = 0;
            u64 diff = 0;
            for (u64 i = 0; i < n; ++i) {
                if (!compared(i)) continue;
                const float a = half_to_float(hy[i]), b = half_to_float(hr[i]);
                if (!(fabsf(a - b) <= 1e30f)) md = INFINITY;
                else md = std::max(md, (double)fabsf(a - b));
                diff += hy[i] != hr[i];
            }
            printf("w=%-4d %-10s grid %7u smem %6zu %8.2f us  x%.3f  max|y - direct| %.3g (%llu differ)\n", w, v.name,
                   grid, s.shared, t * 1e3, copy_ms / t, md, (unsigned long long)diff);
        }
    }
    {  // Non-finite inputs: NaN positions must match the direct reference, w = 31.
        const uint16_t specials[4] = {0x7c00, 0x7e00, 0xfc00, 0x7bff};
        const u64 at[4] = {12345, n / 2 + 3, n - 5, 2048 * 7 + 1};
        for (int i = 0; i < 4; ++i) CK(cudaMemcpy(x + at[i], &specials[i], 2, cudaMemcpyHostToDevice));
        const int w = 31;
        std::vector<float> hm(w);
        for (int j = 0; j < w; ++j) hm[j] = (float)(((j * 37 + 11) % 41) - 20) / 64.0f;
        CK(cudaMemcpy(m, hm.data(), w * 4, cudaMemcpyHostToDevice));
        prepare(m, w, af, st);
        reference<<<4096, 256>>>(x, m, yb, 1, n, -15, w);
        CK(cudaMemcpy(hr.data(), yb, n * 2, cudaMemcpyDeviceToHost));
        for (auto& v : vars) {
            const Setup s = setup(v, w, af, st);
            const u64 tpr = (n + 7 + s.tile - 1) / s.tile;
            CK(cudaMemset(y, 0xff, n * 2));
            v.fn<<<grid_for(v, tpr, s.shared), 128, s.shared>>>(x, m, (const uint4*)s.aux, y, 1, n, n, -15, 31, 0, tpr, s.kt);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(hy.data(), y, n * 2, cudaMemcpyDeviceToHost));
            u64 nan_mismatch = 0, nans = 0;
            for (u64 i = 0; i < n; ++i) {
                if (!compared(i) && i != n / 2 + 3 && (i < n / 2 - 64 || i > n / 2 + 64)) continue;
                const bool a = std::isnan(half_to_float(hy[i])), b = std::isnan(half_to_float(hr[i]));
                nans += b;
                nan_mismatch += a != b || (!a && !b && std::isinf(half_to_float(hy[i])) != std::isinf(half_to_float(hr[i])));
            }
            printf("non-finite w=31 %-10s %llu NaN in reference, %llu mismatched\n", v.name,
                   (unsigned long long)nans, (unsigned long long)nan_mismatch);
        }
    }
    printf("copy after %.2f us\n", copy_time() * 1e3);
    return 0;
}
#endif
