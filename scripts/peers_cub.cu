// peers_cub.cu — CUB's device-wide sum, max and inclusive sum on the same GPU as the report,
// timed as the report times ours (CUDA events, warm-up, the median of samples batched to at
// least 0.2 ms), each with a device-to-device copy of the same array in the same run.
//
// Build and run on the GPU machine (nvcc's own CUB, e.g. CUB 3.0 with CUDA 13):
//   nvcc -O3 -std=c++17 -arch=native -o peers_cub scripts/peers_cub.cu
//   ./peers_cub [log2 sizes, default 24 28] > peers-cub.json
// Output: {"schema": "gpu-prims-peers-cub/1", "device": ..., "cub": "3.0.0", "results": [
//   {"op": "sum"|"max"|"cumsum", "library": "cub", "dtype": "f32"|"i32", "n": ..., "ms": ...,
//    "copy_ms": ..., "copy_fraction": ..., "checked": true|false}]}
// Byte model (the report's): sum and max read n values, cumsum reads and writes n; the copy
// reads and writes n: copy_fraction = (bytes / ms) / (2 * n * size / copy_ms).
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

// Median ms per run of `run`, batched so a sample lasts >= 0.2 ms.
static double time_ms(const std::function<void()>& run) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) run();
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(a));
    run();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float one = 0;
    CK(cudaEventElapsedTime(&one, a, b));
    int batch = one >= 0.2f ? 1 : std::min(200, (int)(0.2f / std::max(one, 1e-4f)) + 1);
    std::vector<double> s;
    for (int r = 0; r < 15; ++r) {
        CK(cudaEventRecord(a));
        for (int i = 0; i < batch; ++i) run();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        s.push_back(ms / batch);
    }
    std::sort(s.begin(), s.end());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return s[s.size() / 2];
}

static bool first = true;
static void emit(const char* op, const char* dtype, size_t n, double ms, double copy_ms,
                 double bytes, size_t size, bool checked) {
    double f = (bytes / ms) / (2.0 * n * size / copy_ms);
    printf("%s    {\"op\": \"%s\", \"library\": \"cub\", \"dtype\": \"%s\", \"n\": %zu, "
           "\"ms\": %.5f, \"copy_ms\": %.5f, \"copy_fraction\": %.4f, \"checked\": %s}",
           first ? "" : ",\n", op, dtype, n, ms, copy_ms, f, checked ? "true" : "false");
    first = false;
    fprintf(stderr, "cub %s %s 2^%d: %.4f ms, %.3fx copy%s\n", op, dtype, __builtin_ctzll(n), ms,
            f, checked ? "" : " (WRONG)");
}

template <class T> static void run_type(const char* dtype, size_t n) {
    // Small integers: every sum and prefix sum exact in f32 as in i32.
    std::vector<T> h(n);
    unsigned long long z = 12345;
    for (size_t i = 0; i < n; ++i) {
        z = z * 6364136223846793005ULL + 1442695040888963407ULL;
        h[i] = (T)((int)((z >> 33) % 41) - 20);
    }
    T *x, *y, *r;
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&r, sizeof(T)));
    CK(cudaMemcpy(x, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    size_t t1 = 0, t2 = 0, t3 = 0;
    CK(cub::DeviceReduce::Sum(nullptr, t1, x, r, (int64_t)n));
    CK(cub::DeviceReduce::Max(nullptr, t2, x, r, (int64_t)n));
    CK(cub::DeviceScan::InclusiveSum(nullptr, t3, x, y, (int64_t)n));
    size_t tb = std::max(t1, std::max(t2, t3));
    void* tmp;
    CK(cudaMalloc(&tmp, tb));
    double copy = time_ms([&] { CK(cudaMemcpyAsync(y, x, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
    // Sum.
    double want_sum = 0, want_max = -1e30;
    for (size_t i = 0; i < n; ++i) {
        want_sum += (double)h[i];
        want_max = std::max(want_max, (double)h[i]);
    }
    T got;
    CK(cub::DeviceReduce::Sum(tmp, t1, x, r, (int64_t)n));
    CK(cudaMemcpy(&got, r, sizeof(T), cudaMemcpyDeviceToHost));
    bool ok = (double)got == want_sum;
    double ms = time_ms([&] { CK(cub::DeviceReduce::Sum(tmp, t1, x, r, (int64_t)n)); });
    emit("sum", dtype, n, ms, copy, (double)n * sizeof(T), sizeof(T), ok);
    CK(cub::DeviceReduce::Max(tmp, t2, x, r, (int64_t)n));
    CK(cudaMemcpy(&got, r, sizeof(T), cudaMemcpyDeviceToHost));
    ok = (double)got == want_max;
    ms = time_ms([&] { CK(cub::DeviceReduce::Max(tmp, t2, x, r, (int64_t)n)); });
    emit("max", dtype, n, ms, copy, (double)n * sizeof(T), sizeof(T), ok);
    CK(cub::DeviceScan::InclusiveSum(tmp, t3, x, y, (int64_t)n));
    std::vector<T> out(n);
    CK(cudaMemcpy(out.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
    T acc = 0;
    ok = true;
    for (size_t i = 0; i < n && ok; ++i) {
        acc += h[i];
        ok = out[i] == acc;
    }
    ms = time_ms([&] { CK(cub::DeviceScan::InclusiveSum(tmp, t3, x, y, (int64_t)n)); });
    emit("cumsum", dtype, n, ms, copy, 2.0 * n * sizeof(T), sizeof(T), ok);
    CK(cudaFree(tmp));
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(r));
}

int main(int argc, char** argv) {
    std::vector<int> logs;
    for (int i = 1; i < argc; ++i) logs.push_back(atoi(argv[i]));
    if (logs.empty()) logs = {24, 28};
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("{\"schema\": \"gpu-prims-peers-cub/1\", \"device\": \"%s\", \"cub\": \"%d.%d.%d\", "
           "\"results\": [\n",
           p.name, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    for (int l : logs) {
        run_type<float>("f32", (size_t)1 << l);
        run_type<int>("i32", (size_t)1 << l);
    }
    printf("\n]}\n");
    return 0;
}
