// The library's warp-specialised scan (gpu_prims/scan_warp_specialized.cuh) built by nvcc with
// -lineinfo, so that compute-sanitizer racecheck names the header's lines (the library's kernels
// come from NVRTC PTX without line information). f64 and i32 sums at lengths that make blocks
// take several tiles and wrap their buffers; each result checked against a serial scan.
// nvcc -O3 -lineinfo -gencode arch=compute_90a,code=sm_90a -I kernels/include -o d this.cu
#include <cstdio>
#include <vector>
#include <gpu_prims/ops.cuh>
#include <gpu_prims/scan_warp_specialized.cuh>

extern __shared__ __align__(16) unsigned char ws_smem[];

template <class T>
__global__ void __launch_bounds__(gp::WsScanShape<T>::THREADS, 1)
    ws(const T* in, T* out, gp::u64 n, gp::u32* counter, gp::u32* flags, void* aggs, void* incs) {
    gp::warp_specialized_scan<gp::Sum<T>, false>(in, out, n, 0, counter, flags, aggs, incs, 1, 0, 0,
                                                 ws_smem);
}

template <class T> int run(size_t n, int grid_cap) {
    typedef gp::WsScanShape<T> S;
    const size_t tiles = (n + S::TILE - 1) / S::TILE;
    std::vector<T> h(n), want(n), got(n);
    T acc = 0;
    for (size_t i = 0; i < n; ++i) { h[i] = (T)((i * 7 + 3) % 5); acc += h[i]; want[i] = acc; }
    T *in, *out; gp::u32* counter; void *aggs, *incs;
    cudaMalloc(&in, n * sizeof(T)); cudaMalloc(&out, n * sizeof(T));
    cudaMalloc(&counter, 4); cudaMemset(counter, 0, 4);
    const size_t status = tiles * gp::epoch_status_words<T>() * 8;
    cudaMalloc(&aggs, status); cudaMalloc(&incs, status);
    cudaMemset(aggs, 0, status); cudaMemset(incs, 0, status);
    cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    cudaFuncSetAttribute(ws<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM);
    const int grid = (int)(tiles < (size_t)grid_cap ? tiles : grid_cap);
    ws<T><<<grid, S::THREADS, S::SMEM>>>(in, out, n, counter, nullptr, aggs, incs);
    const cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += got[i] != want[i];
    printf("%s n=%zu tiles=%zu grid=%d: %s, %zu wrong\n", sizeof(T) == 8 ? "f64" : "i32", n, tiles,
           grid, cudaGetErrorString(e), bad);
    cudaFree(in); cudaFree(out); cudaFree(counter); cudaFree(aggs); cudaFree(incs);
    return bad != 0 || e != cudaSuccess;
}

int main() {
    int fails = 0;
    // Two blocks over 13 and 40 tiles: each block goes round its six buffers.
    fails += run<double>(6 * 8192 + 5, 2);
    fails += run<double>(40 * 4096 + 1, 2);
    fails += run<double>(6 * 8192 + 5, 132);
    fails += run<int>(6 * 8192 + 5, 132);
    fails += run<int>(40 * 8192 + 3, 2);
    printf("%s\n", fails ? "FAILED" : "all match");
    return fails;
}
