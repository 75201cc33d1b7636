// Harness (twenty-eighth session): long column spans staged in shared memory, so that a span
// is 2-2.5 times longer and the look-back chain has that many fewer links. f32 cumsum along
// axis 0 of C-order matrices of 2^28 values (lane groups of four columns, as
// columns-span-harness.cu). Against the library's kernel (COLUMN_LONG_ROWS vector rows a thread
// in registers, with and without the L2 prefetch) in the same process: the same span scan and
// flags protocol (ColumnStatus) with R rows in registers and SR more rows a thread brought into
// shared memory by cp.async (issued before the register loads, so they need no registers), and
// the same without any look-back (NOLB: wrong results, the bound). Every variant but NOLB is
// checked against the CPU. Build (device machine):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include one-off/columns-staged-harness.cu -o cst
#include <gpu_prims/l2_prefetch.cuh>
#include <gpu_prims/lanes_columns.cuh>

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#endif

using namespace gp;
typedef Sum<f32> Op;

extern "C" __global__ void __launch_bounds__(256) lib_long(const float* in, ColumnLanes ci,
                                                           float* out, ColumnLanes co,
                                                           u32* state, void* values) {
    lanes_scan_columns<Op, COLUMN_LONG_ROWS>(in, ci, out, co, state, values, 0, 0, ~0ull);
}
extern "C" __global__ void __launch_bounds__(256) lib_long_pf(const float* in, ColumnLanes ci,
                                                              float* out, ColumnLanes co,
                                                              u32* state, void* values, u64 pf) {
    lanes_scan_columns<Op, COLUMN_LONG_ROWS, L2Prefetch>(in, ci, out, co, state, values, 0, 0,
                                                         ~0ull, L2Prefetch{pf});
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
    const u32 a = (u32)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a), "l"(gmem) : "memory");
}

// One span per block (grid = spans x tiles, ids from the counter): R vector rows a thread in
// registers, then SR in shared memory (stage[r * 256 + tid]).
template <int R, int SR, bool LB, bool PF>
__global__ void __launch_bounds__(256) staged_scan(const float* in, ColumnLanes ci, float* out,
                                                   u32* state, void* values, u64 pf) {
    extern __shared__ float4 stage[];
    __shared__ float totals[32 * 128];  // [row group][x * 4 + k]
    __shared__ float blockagg[128];
    __shared__ ColumnPack<f32, 4> prefixes[32];
    __shared__ ColumnPack<f32, 4> buf[256];
    __shared__ u64 span_id, look_from;
    Op op;
    const ColumnThread t(ci);
    const u32 tx = t.tx, x = t.x, y = t.y, ty = t.ty;
    const u64 tiles = t.tiles(ci);
    constexpr int RT = R + SR;
    const u64 span_rows = (u64)ty * RT;
    const u64 spans = (ci.vrows + span_rows - 1) / span_rows;
    const u64 total = tiles * spans;
    const u32 ys = tx >= 32 ? 1u : 32u / tx;
    const u32 yy = y % ys, yg = y / ys, YG = ty / ys;
    const u32 C = tx * 4;
    if (threadIdx.x == 0) span_id = (u64)atomicAdd(state, 1u);
    __syncthreads();
    const u64 id = span_id;
    if (id >= total) return;
    const u64 s = id / tiles, tile = id % tiles;
    const u64 g = tile * tx + x;
    const bool valid = g < ci.groups;
    const u64 v0 = s * span_rows + (u64)y * RT;
    const float* src = in + (valid ? (i64)(g * 4) : 0);
    float4* const mine_stage = stage + threadIdx.x;
#pragma unroll
    for (int r = 0; r < SR; ++r) {
        if (valid && v0 + R + r < ci.vrows)
            cp_async16(mine_stage + r * 256, src + (i64)(v0 + R + r) * ci.vrow_stride);
        else
            mine_stage[r * 256] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    float4 xr[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        if (valid && v0 + r < ci.vrows)
            xr[r] = *reinterpret_cast<const float4*>(src + (i64)(v0 + r) * ci.vrow_stride);
        else
            xr[r] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    if constexpr (PF) {
        L2Prefetch p{pf};
        column_span_prefetch(in, ci, t, tiles, span_rows, id + pf, total, p);
    }
    float run[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int r = 0; r < R; ++r) {
        run[0] += xr[r].x; xr[r].x = run[0];
        run[1] += xr[r].y; xr[r].y = run[1];
        run[2] += xr[r].z; xr[r].z = run[2];
        run[3] += xr[r].w; xr[r].w = run[3];
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
#pragma unroll 8
    for (int r = 0; r < SR; ++r) {
        float4 v = mine_stage[r * 256];
        run[0] += v.x; v.x = run[0];
        run[1] += v.y; v.y = run[1];
        run[2] += v.z; v.z = run[2];
        run[3] += v.w; v.w = run[3];
        mine_stage[r * 256] = v;
    }
    float before[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        float incl = run[k];
        before[k] = 0.f;
        if (ys > 1) {
            for (u32 d = 1; d < ys; d <<= 1) {
                const float o = __shfl_up_sync(FULL_MASK, incl, d * tx);
                if (yy >= d) incl += o;
            }
            const float prev = __shfl_up_sync(FULL_MASK, incl, tx);
            if (yy > 0) before[k] = prev;
        }
        if (yy == ys - 1) totals[yg * C + x * 4 + k] = incl;
    }
    __syncthreads();
    if (threadIdx.x < C) {
        float a = 0.f;
        for (u32 h = 0; h < YG; ++h) {
            const float v = totals[h * C + threadIdx.x];
            totals[h * C + threadIdx.x] = a;
            a += v;
        }
        blockagg[threadIdx.x] = a;
    }
    __syncthreads();
    float agg[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        before[k] += totals[yg * C + x * 4 + k];
        agg[k] = blockagg[x * 4 + k];
    }
    if constexpr (!LB) {
        if (y == 0) prefixes[x] = ColumnPack<f32, 4>{{0.f, 0.f, 0.f, 0.f}};
    } else {
        const ColumnStatus<f32, 4> st{state + 1, static_cast<ColumnPack<f32, 4>*>(values),
                                      static_cast<ColumnPack<f32, 4>*>(values) + total * tx};
        const bool mine = y == 0 && valid;
        ColumnPack<f32, 4> a{{agg[0], agg[1], agg[2], agg[3]}};
        if (s == 0) {
            st.publish(id, tx, x, mine, a, COLUMN_SPAN_INCLUSIVE);
            if (mine) prefixes[x] = ColumnPack<f32, 4>{{0.f, 0.f, 0.f, 0.f}};
        } else {
            st.publish(id, tx, x, mine, a, COLUMN_SPAN_AGGREGATE);
            if (threadIdx.x < 32) {
                const u64 j = st.nearest_inclusive(tiles, tile, s);
                if (threadIdx.x == 0) look_from = j;
            }
            __syncthreads();
            const ColumnPack<f32, 4> p =
                st.template prefix<Op>(tiles, tile, t, valid, look_from, s, buf, op);
            ColumnPack<f32, 4> inc;
            if (mine) {
#pragma unroll
                for (int k = 0; k < 4; ++k) inc.v[k] = p.v[k] + agg[k];
                prefixes[x] = p;
            }
            st.publish(id, tx, x, mine, inc, COLUMN_SPAN_INCLUSIVE);
        }
    }
    __syncthreads();
    if (!valid) return;
    const ColumnPack<f32, 4> p = prefixes[x];
#pragma unroll
    for (int k = 0; k < 4; ++k) before[k] += p.v[k];
    float* dst = out + (i64)(g * 4);
#pragma unroll
    for (int r = 0; r < R; ++r) {
        if (v0 + r >= ci.vrows) continue;
        float4 o = xr[r];
        o.x += before[0];
        o.y += before[1];
        o.z += before[2];
        o.w += before[3];
        *reinterpret_cast<float4*>(dst + (i64)(v0 + r) * ci.vrow_stride) = o;
    }
#pragma unroll 8
    for (int r = 0; r < SR; ++r) {
        if (v0 + R + r >= ci.vrows) continue;
        float4 o = mine_stage[r * 256];
        o.x += before[0];
        o.y += before[1];
        o.z += before[2];
        o.w += before[3];
        *reinterpret_cast<float4*>(dst + (i64)(v0 + R + r) * ci.vrow_stride) = o;
    }
}

#ifdef __CUDACC_RTC__
template __global__ void staged_scan<32, 48, true, true>(const float*, ColumnLanes, float*, u32*, void*, u64);
template __global__ void staged_scan<32, 0, true, true>(const float*, ColumnLanes, float*, u32*, void*, u64);
template __global__ void staged_scan<16, 48, true, true>(const float*, ColumnLanes, float*, u32*, void*, u64);
#else
#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));          \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

struct Case {
    u64 rows, cols;
};

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    const u64 n = 1ull << 28;
    std::vector<float> h(n);
    u64 st = 12345;
    for (u64 i = 0; i < n; ++i) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        h[i] = (float)((int)((st >> 33) % 41) - 20);
    }
    float *din, *dout;
    CK(cudaMalloc(&din, n * 4));
    CK(cudaMalloc(&dout, n * 4));
    CK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));
    void* scratch;
    const size_t scratch_bytes = 256ull << 20;
    CK(cudaMalloc(&scratch, scratch_bytes));
    std::vector<float> got(n);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const int reps = 9;
    auto timed = [&](auto&& launch) {
        launch();
        CK(cudaDeviceSynchronize());
        std::vector<float> ms;
        for (int r = 0; r < reps; ++r) {
            CK(cudaEventRecord(e0));
            launch();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float t;
            CK(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
        }
        CK(cudaGetLastError());
        return median(ms);
    };
    {  // 200 ms of copies first (clocks up)
        float el = 0;
        while (el < 200) {
            CK(cudaEventRecord(e0));
            CK(cudaMemcpyAsync(dout, din, n * 4, cudaMemcpyDeviceToDevice));
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float t;
            CK(cudaEventElapsedTime(&t, e0, e1));
            el += t;
        }
    }
    const Case cases[] = {{4194304, 64}, {262144, 1024}, {16384, 16384}};
    const int rounds = argc > 1 ? atoi(argv[1]) : 2;
    for (int round = 0; round < rounds; ++round) {
        for (const Case& c : cases) {
            const float copy = timed([&] {
                CK(cudaMemcpyAsync(dout, din, n * 4, cudaMemcpyDeviceToDevice));
            });
            printf("round %d case %llux%llu C axis 0: copy %.4f ms\n", round,
                   (unsigned long long)c.rows, (unsigned long long)c.cols, copy);
            const u64 groups = c.cols / 4;
            auto check = [&](const std::string& name, float ms, bool verify) {
                bool ok = true;
                if (verify) {
                    CK(cudaMemcpy(got.data(), dout, n * 4, cudaMemcpyDeviceToHost));
                    for (u64 col = 0; col < c.cols && ok; col += (col + 8 < c.cols ? 8 : (col + 1 < c.cols ? c.cols - 1 - col : 1))) {
                        float a = 0.f;
                        for (u64 r = 0; r < c.rows; ++r) {
                            a += h[r * c.cols + col];
                            if (got[r * c.cols + col] != a) {
                                ok = false;
                                printf("  MISMATCH %s col %llu row %llu got %g want %g\n",
                                       name.c_str(), (unsigned long long)col,
                                       (unsigned long long)r, got[r * c.cols + col], a);
                                break;
                            }
                        }
                    }
                }
                printf("  %-28s %.4f ms %.3fx copy %s\n", name.c_str(), ms, copy / ms,
                       verify ? (ok ? "ok" : "WRONG") : "(unchecked)");
                fflush(stdout);
            };
            auto lanes = [&](u32 tx) {
                ColumnLanes l;
                l.outer = 1;
                l.groups = groups;
                l.vrows = c.rows;
                l.outer_stride = (i64)n;
                l.vrow_stride = (i64)c.cols;
                l.tx = tx;
                l.rv = 1;
                return l;
            };
            const u32 tx = groups >= 32 ? 32 : (u32)groups;
            const u64 tiles = (groups + tx - 1) / tx;
            const u32 lib_threads = c.cols == 16384 ? 128 : 256;  // as the library ships
            {
                const ColumnLanes l = lanes(tx);
                const u64 span_rows = (u64)(lib_threads / tx) * COLUMN_LONG_ROWS;
                const u64 total = tiles * ((c.rows + span_rows - 1) / span_rows);
                u32* state = (u32*)scratch;
                void* values = (char*)scratch + ((1 + total) * 4 + 255) / 256 * 256;
                const u64 pf = (7ull << 20) / (span_rows * tx * 16);
                for (int with_pf = 0; with_pf < 2; ++with_pf) {
                    const float ms = timed([&] {
                        CK(cudaMemsetAsync(state, 0, (1 + total) * 4));
                        if (with_pf)
                            lib_long_pf<<<(unsigned)total, lib_threads>>>(din, l, dout, l, state,
                                                                          values, pf);
                        else
                            lib_long<<<(unsigned)total, lib_threads>>>(din, l, dout, l, state,
                                                                       values);
                    });
                    check(std::string("lib ") + std::to_string(lib_threads) +
                              (with_pf ? " pf" + std::to_string(pf) : ""),
                          ms, round == 0);
                }
            }
            auto staged = [&](auto kernel, int R, int SR, bool lb, bool pf_on) {
                const ColumnLanes l = lanes(tx);
                const u64 span_rows = (u64)(256 / tx) * (R + SR);
                const u64 total = tiles * ((c.rows + span_rows - 1) / span_rows);
                u32* state = (u32*)scratch;
                void* values = (char*)scratch + ((1 + total) * 4 + 255) / 256 * 256;
                const u64 pf = (7ull << 20) / (span_rows * tx * 16);
                const size_t smem = (size_t)SR * 256 * 16;
                CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)smem));
                const float ms = timed([&] {
                    CK(cudaMemsetAsync(state, 0, (1 + total) * 4));
                    kernel<<<(unsigned)total, 256, smem>>>(din, l, dout, state, values,
                                                           pf_on ? pf : 0);
                });
                check(std::string(lb ? "staged " : "nolb ") + std::to_string(R) + "+" +
                          std::to_string(SR) + (pf_on ? " pf" + std::to_string(pf) : "") +
                          " (" + std::to_string(total) + " spans)",
                      ms, round == 0 && lb);
            };
            staged(staged_scan<32, 0, true, true>, 32, 0, true, true);
            staged(staged_scan<32, 16, true, true>, 32, 16, true, true);
            staged(staged_scan<32, 32, true, false>, 32, 32, true, false);
            staged(staged_scan<32, 32, true, true>, 32, 32, true, true);
            staged(staged_scan<32, 48, true, false>, 32, 48, true, false);
            staged(staged_scan<32, 48, true, true>, 32, 48, true, true);
            staged(staged_scan<16, 48, true, true>, 16, 48, true, true);
            staged(staged_scan<32, 0, false, false>, 32, 0, false, false);
            staged(staged_scan<32, 48, false, false>, 32, 48, false, false);
        }
    }
    return 0;
}
#endif
