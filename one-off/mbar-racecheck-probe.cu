// Does compute-sanitizer racecheck follow mbarrier ordering? (forty-seventh session: racecheck
// reported hazards in one-off/ws-scan-harness.cu between shared writes published through an
// mbarrier arrive and reads after the matching wait.) Three kernels, each correct by
// construction, one block of 64 threads: warp 0 writes a shared word and then
//   0: arrives on an mbarrier that warp 1 waits on (the harness's pattern) before reading it;
//   1: the same, the write published by a named barrier (bar.sync / bar.arrive) instead;
//   2: the same through __syncthreads (the control: racecheck must stay silent here).
// Run: compute-sanitizer --tool racecheck ./probe; hazards under kernel 0 alone say racecheck
// does not model mbarrier ordering. nvcc -arch=sm_90a -lineinfo.
#include <cstdio>

typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u32 smem_u32(const void* p) { return (u32)__cvta_generic_to_shared(p); }

template <int MODE> __global__ void probe(int* out) {
    __shared__ u64 bar;
    __shared__ int word;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(&bar)), "r"(1u) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (MODE == 2) {
        if (threadIdx.x == 0) word = 42;
        __syncthreads();
        if (warp == 1 && lane == 0) out[0] = word;
        return;
    }
    if (warp == 0) {
        if (lane == 0) word = 42;
        __syncwarp();
        if (MODE == 0) {
            if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(&bar)) : "memory");
        } else {
            asm volatile("bar.arrive 1, 64;" ::: "memory");
        }
    } else {
        if (MODE == 0) {
            u32 done = 0;
            while (!done)
                asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                             : "=r"(done) : "r"(smem_u32(&bar)), "r"(0u) : "memory");
        } else {
            asm volatile("bar.sync 1, 64;" ::: "memory");
        }
        if (lane == 0) out[1 + MODE] = word;
    }
}

int main() {
    int* out;
    cudaMalloc(&out, 16);
    cudaMemset(out, 0, 16);
    probe<0><<<1, 64>>>(out);
    cudaDeviceSynchronize();
    printf("kernel 0 (mbarrier) done\n");
    fflush(stdout);
    probe<1><<<1, 64>>>(out);
    cudaDeviceSynchronize();
    printf("kernel 1 (named barrier) done\n");
    fflush(stdout);
    probe<2><<<1, 64>>>(out);
    cudaDeviceSynchronize();
    printf("kernel 2 (__syncthreads) done\n");
    int h[4];
    cudaMemcpy(h, out, 16, cudaMemcpyDeviceToHost);
    printf("read %d %d %d (42 each expected) %s\n", h[1], h[2], h[0], cudaGetErrorString(cudaGetLastError()));
    return 0;
}
