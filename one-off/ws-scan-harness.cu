// Standalone harness (issue 24, forty-fifth session, H200): a warp-specialised look-back scan.
// The scan at 2^28 loses its last 10 % to the look-back's wait: a tile's SM has nothing in
// flight while it waits (docs/tuning.md, "Kernel shapes tried on the H200"). Persistent blocks
// that took tiles ahead lost because a tile taken ahead published its aggregate only when its
// block reached it (a convoy). Here each persistent block splits its warps by role, so loads
// stay in flight through every wait and every tile's aggregate goes out as soon as it lands:
//   producer (warp 0, one lane): takes the next tile index from the counter when a buffer is
//            free and asks for the whole tile with one cp.async.bulk (mbarrier completion);
//            NBUF buffers, so up to NBUF tiles of a block are loading or waiting
//   reducers (AGG warps): as each tile lands, the totals of the consumers' segments and the
//            tile's aggregate, published at once (the only wait: the data)
//   look-back (LB warps, taking the block's tiles in turn): each prefix from the
//            predecessors' status words, 32 * WIN a step; publishes the inclusive prefix
//   consumers (CONS warps): each scans its segment of the tile from shared memory with its
//            prefix and stores it; then the buffer is free again
// No role waits on one that waits on it: a tile's index is taken only when its load is issued,
// so every taken tile publishes its aggregate without waiting, and every look-back ends.
// Full tiles only (n a multiple of the tile), i32 and f32 sums, checked against the CPU.
// The status words, warp pieces and vectors are the library's (gpu_prims: ScanEpochStatus,
// warp_reduce, warp_inclusive_scan, Vec). One GPU, one process, the same-run copy at each size.
// nvcc -O3 -arch=sm_90a -I kernels/include.
//
// usage: ws-scan-harness <reps> <log2 sizes, comma-separated>
#include <gpu_prims/lookback_epoch.cuh>
#include <gpu_prims/scan_tile.cuh>

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <chrono>
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#endif

#define CK(x)                                                                                \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

using gp::u32;
using gp::u64;

__device__ __forceinline__ u32 smem_u32(const void* p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(u64* bar, u32 count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_copy(u64* bar, void* dst, const void* src, u32 bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem_u32(dst)), "l"(src), "r"(bytes), "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive(u64* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(u64* bar, u32 parity) {
    u32 done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
    }
}
constexpr u32 END = 0xffffffffu;

// TILE values a tile (a multiple of 128 * CONS), NBUF buffers, CONS consumer warps, AGG reducer
// warps (CONS a multiple of AGG), WIN status slots a lane a look-back step, LB look-back warps.
template <class T, int TILE, int NBUF, int CONS, int AGG, int WIN, int LB = 1>
struct Ws {
    static constexpr int THREADS = 32 * (1 + LB + AGG + CONS);
    static constexpr int SEG = TILE / CONS;  // values a consumer's segment
    static constexpr int ROWS = SEG / 128;   // rows of 32 lanes x 4 values
    static_assert(SEG % 128 == 0, "segment of whole rows");
    static_assert(CONS % AGG == 0, "reducers share the segments evenly");
    struct Shared {
        u64 full[NBUF], reduced[NBUF], prefixed[NBUF], empty[NBUF];
        u32 tile[NBUF];
        u32 end_round;  // the round whose tile index ran past the end (set by the reducers)
        T seg_total[NBUF][CONS];
        T tile_prefix[NBUF];
    };
    static constexpr size_t DATA_OFFSET = (sizeof(Shared) + 127) / 128 * 128;
    static constexpr size_t SMEM = DATA_OFFSET + (size_t)NBUF * TILE * sizeof(T);
};

template <class T, int TILE, int NBUF, int CONS, int AGG, int WIN, int LB>
__global__ void __launch_bounds__(Ws<T, TILE, NBUF, CONS, AGG, WIN, LB>::THREADS, 1)
ws_scan(const T* in, T* out, u64 tiles, u32* counter, u64* aggs, u64* incs, u32 epoch, u32 base) {
    typedef Ws<T, TILE, NBUF, CONS, AGG, WIN, LB> P;
    typedef gp::Vec<T> Vec;
    gp::Sum<T> op;
    extern __shared__ __align__(128) unsigned char smem[];
    typename P::Shared& sh = *reinterpret_cast<typename P::Shared*>(smem);
    T* data = reinterpret_cast<T*>(smem + P::DATA_OFFSET);
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const gp::ScanEpochStatus<T> status(nullptr, aggs, incs, epoch);
    static_assert(LB <= NBUF, "the end reaches every look-back warp");
    if (threadIdx.x == 0) {
        sh.end_round = END;
        for (int b = 0; b < NBUF; ++b) {
            mbar_init(&sh.full[b], 1);
            mbar_init(&sh.reduced[b], 1);
            mbar_init(&sh.prefixed[b], 1);
            mbar_init(&sh.empty[b], CONS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (warp == 0) {
        // Producer: a tile index is taken only when its load goes out at once.
        if (lane != 0) return;
        for (u32 r = 0;; ++r) {
            const int b = r % NBUF;
            mbar_wait(&sh.empty[b], ((r / NBUF) & 1) ^ 1);
            const u32 t = atomicAdd(counter, 1u) - base;
            if (t >= tiles) {
                sh.tile[b] = END;
                mbar_arrive(&sh.full[b]);
                return;
            }
            sh.tile[b] = t;
            mbar_expect_copy(&sh.full[b], data + (size_t)b * TILE, in + (u64)t * TILE,
                             TILE * sizeof(T));
        }
    } else if (warp <= LB) {
        // Look-back: the block's tiles in order, LB warps taking them in turn.
        for (u32 r = warp - 1;; r += LB) {
            const int b = r % NBUF;
            mbar_wait(&sh.reduced[b], (r / NBUF) & 1);
            // Past the end: the warp holding the end round passes it on to the consumers; the
            // other look-back warps were released by the reducers and stop.
            const u32 end = *reinterpret_cast<volatile u32*>(&sh.end_round);
            if (r >= end) {
                if (r == end && lane == 0) mbar_arrive(&sh.prefixed[b]);
                return;
            }
            const u32 t = sh.tile[b];
            T agg = 0;
#pragma unroll
            for (int c = 0; c < CONS; ++c) agg += sh.seg_total[b][c];
            T prefix = 0;
            if (t > 0) {
                long long at = (long long)t - 1;  // nearest predecessor not yet read
                while (true) {
                    // Lane l reads slots at - l*WIN - j, nearest first; stops at its first
                    // inclusive prefix.
                    // All WIN slots asked for at once (one round trip); a slot found invalid
                    // is polled again alone.
                    T v[WIN];
                    int st[WIN];
#pragma unroll
                    for (int j = 0; j < WIN; ++j) {
                        const long long p = at - (long long)lane * WIN - j;
                        v[j] = 0;
                        st[j] = p >= 0 ? status.poll((u64)p, v[j]) : gp::SCAN_TILE_INCLUSIVE;
                    }
                    T part = 0;
                    bool inc = false;
#pragma unroll
                    for (int j = 0; j < WIN; ++j) {
                        if (!inc) {
                            const long long p = at - (long long)lane * WIN - j;
                            while (st[j] == gp::SCAN_TILE_INVALID) st[j] = status.poll((u64)p, v[j]);
                            part += v[j];
                            inc = st[j] == gp::SCAN_TILE_INCLUSIVE;
                        }
                    }
                    const u32 m = __ballot_sync(0xffffffffu, inc);
                    const unsigned stop = m ? __ffs(m) - 1 : 31;
                    prefix += gp::warp_reduce(lane <= stop ? part : T(0), op);  // valid in lane 0
                    if (m) break;
                    at -= 32 * WIN;
                }
            } else {
                // Tile 0's inclusive prefix is its aggregate.
            }
            if (lane == 0) {
                status.publish_inclusive(t, prefix + agg);
                sh.tile_prefix[b] = prefix;
                mbar_arrive(&sh.prefixed[b]);
            }
            __syncwarp();
        }
    } else if (warp < 1 + LB + AGG) {
        // Reducers: segment totals and the tile's aggregate as soon as the data lands.
        const int a = warp - 1 - LB;
        for (u32 r = 0;; ++r) {
            const int b = r % NBUF;
            mbar_wait(&sh.full[b], (r / NBUF) & 1);
            const u32 t = sh.tile[b];
            if (t != END) {
                const Vec* v = reinterpret_cast<const Vec*>(data + (size_t)b * TILE);
#pragma unroll 1
                for (int c = a; c < CONS; c += AGG) {
                    T acc = 0;
#pragma unroll 4
                    for (int k = 0; k < P::ROWS; ++k) {
                        const Vec x = v[(c * P::ROWS + k) * 32 + lane];
                        acc += (x.v[0] + x.v[1]) + (x.v[2] + x.v[3]);
                    }
                    acc = gp::warp_reduce(acc, op);
                    if (lane == 0) sh.seg_total[b][c] = acc;
                }
            }
            // Reducer warps meet (named barrier 1), then one publishes the aggregate.
            asm volatile("bar.sync 1, %0;" ::"n"(32 * AGG) : "memory");
            if (a == 0 && lane == 0) {
                if (t == END) {
                    // Every look-back warp waits on a round of its own: release the end round
                    // and the LB - 1 after it (their barriers' previous rounds are done).
                    *reinterpret_cast<volatile u32*>(&sh.end_round) = r;
                    for (int j = 0; j < LB; ++j) mbar_arrive(&sh.reduced[(r + j) % NBUF]);
                } else {
                    if (t > 0) {
                        T agg = 0;
#pragma unroll
                        for (int c = 0; c < CONS; ++c) agg += sh.seg_total[b][c];
                        status.publish_aggregate(t, agg);
                    }
                    mbar_arrive(&sh.reduced[b]);
                }
            }
            if (t == END) return;
        }
    } else {
        // Consumers: each its segment, prefix of the tile and of the earlier segments.
        const int c = warp - 1 - LB - AGG;
        for (u32 r = 0;; ++r) {
            const int b = r % NBUF;
            mbar_wait(&sh.prefixed[b], (r / NBUF) & 1);
            const u32 t = sh.tile[b];
            if (t == END) return;
            T carry = sh.tile_prefix[b];
            for (int k = 0; k < c; ++k) carry += sh.seg_total[b][k];
            const Vec* v = reinterpret_cast<const Vec*>(data + (size_t)b * TILE);
#pragma unroll 2
            for (int k = 0; k < P::ROWS; ++k) {
                const int at = (c * P::ROWS + k) * 32 + lane;
                Vec x = v[at];
#pragma unroll
                for (int e = 1; e < 4; ++e) x.v[e] += x.v[e - 1];
                const T incl = gp::warp_inclusive_scan(x.v[3], op);
                const T before = carry + incl - x.v[3];
#pragma unroll
                for (int e = 0; e < 4; ++e) x.v[e] += before;
                gp::store_vec_streaming(out + (u64)t * TILE + (u64)at * 4, x);
                carry += __shfl_sync(0xffffffffu, incl, 31);
            }
            __syncwarp();
            if (lane == 0) mbar_arrive(&sh.empty[b]);
        }
    }
}

#ifdef __CUDACC_RTC__
// NVRTC syntax and register check (one-off/nvrtc-check.py one-off/ws-scan-harness.cu compute_90a).
template __global__ void ws_scan<float, 8192, 6, 8, 2, 4, 1>(const float*, float*, u64, u32*, u64*, u64*, u32, u32);
template __global__ void ws_scan<int, 16384, 3, 16, 4, 4, 2>(const int*, int*, u64, u32*, u64*, u64*, u32, u32);
template __global__ void ws_scan<float, 8192, 6, 8, 2, 1, 2>(const float*, float*, u64, u32*, u64*, u64*, u32, u32);
#else
struct Timer {
    cudaEvent_t a, b;
    Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); }
};

template <class F> static double median_us(int reps, F f) {
    Timer t;
    std::vector<float> v;
    f();
    f();
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(t.a));
        f();
        CK(cudaEventRecord(t.b));
        CK(cudaEventSynchronize(t.b));
        float ms;
        CK(cudaEventElapsedTime(&ms, t.a, t.b));
        v.push_back(ms * 1000.f);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class T> struct Suite {
    u64 n;
    int reps;
    double copy_us;
    const char* tn;
    T *in, *out;
    u32* scratch;
    u64 max_tiles;
    std::vector<T> want, got;

    Suite(u64 n_, int reps_, double copy_) : n(n_), reps(reps_), copy_us(copy_), want(n_), got(n_) {
        tn = T(0.5) != T(0) ? "f32" : "i32";
        std::vector<T> h(n);
        srand(7);
        long long acc = 0;
        for (u64 i = 0; i < n; ++i) {
            h[i] = (T)((rand() % 5) - 2);
            acc += (long long)h[i];
            want[i] = (T)acc;  // exact for f32 too: |acc| stays far below 2^24 with this data
        }
        CK(cudaMalloc(&in, n * sizeof(T)));
        CK(cudaMalloc(&out, n * sizeof(T)));
        CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        max_tiles = n / 1024 + 1;
        CK(cudaMalloc(&scratch, (64 + 4 * max_tiles) * 4));
    }
    ~Suite() {
        CK(cudaFree(in));
        CK(cudaFree(out));
        CK(cudaFree(scratch));
    }

    template <int TILE, int NBUF, int CONS, int AGG, int WIN, int LB = 1> void run(int per_sm_wanted = 1) {
        typedef Ws<T, TILE, NBUF, CONS, AGG, WIN, LB> P;
        auto kernel = ws_scan<T, TILE, NBUF, CONS, AGG, WIN, LB>;
        if (n % TILE) return;
        const u64 tiles = n / TILE;
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)P::SMEM));
        int per_sm = 0, dev = 0, sms = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, P::THREADS, P::SMEM));
        if (per_sm < 1) {
            printf("scan %s TILE %d NBUF %d: does not fit\n", tn, TILE, NBUF);
            return;
        }
        per_sm = std::min(per_sm, per_sm_wanted);
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        const u64 grid = std::min<u64>(tiles, (u64)per_sm * sms);
        u32* counter = scratch;
        u64* aggs = reinterpret_cast<u64*>(scratch + 64);
        u64* incs = aggs + max_tiles;
        CK(cudaMemset(scratch, 0, (64 + 4 * max_tiles) * 4));
        u32 epoch = 0, base = 0;
        auto launch = [&] {
            ++epoch;
            kernel<<<(unsigned)grid, P::THREADS, P::SMEM>>>(in, out, tiles, counter, aggs, incs, epoch, base);
            base += (u32)(tiles + grid);  // every producer takes one index past the end
        };
        CK(cudaMemset(out, 0xff, n * sizeof(T)));
        // One launch watched first: a hang ends the process in 3 s (its context goes with it)
        // instead of the call's time limit.
        {
            cudaEvent_t done;
            CK(cudaEventCreate(&done));
            launch();
            CK(cudaEventRecord(done));
            const auto t0 = std::chrono::steady_clock::now();
            while (cudaEventQuery(done) == cudaErrorNotReady) {
                if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(3)) {
                    printf("scan %s TILE %d NBUF %d CONS %d AGG %d WIN %d LB %d: HANG (3 s)\n", tn, TILE,
                           NBUF, CONS, AGG, WIN, LB);
                    fflush(stdout);
                    _exit(3);
                }
            }
            CK(cudaEventSynchronize(done));
        }
        const double us = median_us(reps, launch);
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
        u64 bad = 0, first = 0;
        for (u64 i = 0; i < n; ++i)
            if (got[i] != want[i] && !bad++) first = i;
        printf("scan %s 2^%-2.0f ws tile %5d x %2d buf, %2d cons %d red, win %d, lb %d, %d/SM (%3d threads, %6zu B): "
               "%9.2f us  %.3fx copy  %s",
               tn, std::log2((double)n), TILE, NBUF, CONS, AGG, WIN, LB, per_sm, P::THREADS, P::SMEM, us,
               copy_us / us, bad ? "WRONG" : "ok");
        if (bad) printf(" (%llu wrong, first at %llu)", bad, first);
        printf("\n");
        fflush(stdout);
    }
};

template <class T> static void suite(u64 n, int reps, double copy_us) {
    Suite<T> s(n, reps, copy_us);
#ifdef QUICK
    s.template run<8192, 6, 8, 2, 1>();
#elif defined(FEW)  // a short call: four shapes
    s.template run<8192, 6, 8, 2, 4>();
    s.template run<8192, 6, 8, 2, 4, 2>();
    s.template run<16384, 3, 8, 2, 4>();
    s.template run<4096, 12, 8, 2, 4, 2>();
#else
    s.template run<8192, 6, 8, 2, 1>();     // 32 KiB tiles (f32), 192 KiB in flight an SM
    s.template run<8192, 6, 8, 2, 4>();
    s.template run<8192, 6, 8, 2, 4, 2>();  // two look-back warps
    s.template run<16384, 3, 8, 2, 4>();    // 64 KiB tiles
    s.template run<16384, 3, 16, 4, 4, 2>();
    s.template run<4096, 12, 8, 2, 4, 2>(); // 16 KiB tiles
    s.template run<4096, 12, 8, 2, 4, 4>();
    s.template run<8192, 6, 16, 4, 4, 2>();
    s.template run<8192, 4, 8, 2, 4, 2>();
    s.template run<4096, 6, 8, 2, 4, 2>(2); // two blocks an SM
    s.template run<8192, 6, 8, 2, 1>();
#endif
}

int main(int argc, char** argv) {
    const int reps = argc > 1 ? atoi(argv[1]) : 30;
    std::vector<int> lgs;
    {
        std::string s = argc > 2 ? argv[2] : "24,26,28";
        size_t p = 0;
        while (p < s.size()) {
            size_t q = s.find(',', p);
            if (q == std::string::npos) q = s.size();
            lgs.push_back(atoi(s.substr(p, q - p).c_str()));
            p = q + 1;
        }
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    for (int lg : lgs) {
        const u64 n = 1ull << lg;
        void *a, *b;
        CK(cudaMalloc(&a, n * 4));
        CK(cudaMalloc(&b, n * 4));
        CK(cudaMemset(a, 0, n * 4));
        auto copy = [&] { CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice)); };
        const double copy_us = median_us(reps, copy);
        printf("copy 2^%d x 4 bytes: %.2f us\n", lg, copy_us);
        CK(cudaFree(a));
        CK(cudaFree(b));
        suite<int>(n, reps, copy_us);
        suite<float>(n, reps, copy_us);
    }
    return 0;
}
#endif
