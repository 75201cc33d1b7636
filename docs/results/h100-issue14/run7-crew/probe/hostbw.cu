// Host-side bandwidth experiments for issue 14's pageable path (one-off, not shipped).
#include <cuda_runtime.h>
#include <immintrin.h>
#include <omp.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

static const size_t N = 1ull << 30, CH = 8ull << 20, SL = 3, PIECE = 256 << 10;

static void copy_nt(char* d, const char* s, size_t n) {
  // 32-byte aligned assumed (all our buffers are page aligned, pieces 256 KiB).
  for (size_t i = 0; i < n; i += 128) {
    __m256i a = _mm256_loadu_si256((const __m256i*)(s + i));
    __m256i b = _mm256_loadu_si256((const __m256i*)(s + i + 32));
    __m256i c = _mm256_loadu_si256((const __m256i*)(s + i + 64));
    __m256i e = _mm256_loadu_si256((const __m256i*)(s + i + 96));
    _mm256_stream_si256((__m256i*)(d + i), a);
    _mm256_stream_si256((__m256i*)(d + i + 32), b);
    _mm256_stream_si256((__m256i*)(d + i + 64), c);
    _mm256_stream_si256((__m256i*)(d + i + 96), e);
  }
  _mm_sfence();
}

static void pcopy(char* d, const char* s, size_t n, int threads, bool nt) {
  size_t pieces = (n + PIECE - 1) / PIECE;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (size_t k = 0; k < pieces; k++) {
    size_t o = k * PIECE, m = std::min(PIECE, n - o);
    if (nt) copy_nt(d + o, s + o, m); else memcpy(d + o, s + o, m);
  }
}

int main(int argc, char** argv) {
  omp_set_max_active_levels(2);
  int maxt = omp_get_max_threads();
  printf("omp max threads %d\n", maxt);
  char* in = (char*)aligned_alloc(4096, N);
  char* out = (char*)aligned_alloc(4096, N);
  bool huge = argc > 1 && atoi(argv[1]);
  if (huge) { madvise(in, N, MADV_HUGEPAGE); madvise(out, N, MADV_HUGEPAGE); }
  double t0 = now();
  memset(in, 1, N);
  double t1 = now();
  memset(out, 2, N);
  printf("first touch memset 1 GiB: %.1f ms (in), %.1f ms (out) huge=%d\n", (t1 - t0) * 1e3, (now() - t1) * 1e3, huge);
  char *up, *down;
  CK(cudaMallocHost(&up, SL * CH));
  CK(cudaMallocHost(&down, SL * CH));
  char* dev;
  CK(cudaMalloc(&dev, 2 * SL * CH));
  char* devbig;
  CK(cudaMalloc(&devbig, N));
  cudaStream_t su, sd;
  CK(cudaStreamCreateWithFlags(&su, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&sd, cudaStreamNonBlocking));
  cudaEvent_t eu[SL], ed[SL];
  for (int i = 0; i < (int)SL; i++) { CK(cudaEventCreateWithFlags(&eu[i], cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&ed[i], cudaEventDisableTiming)); }
  size_t steps = N / CH;
  auto best = [](auto f) { double b = 1e9; for (int r = 0; r < 5; r++) { double t = now(); f(); b = std::min(b, now() - t); } return b * 1e3; };
  // A. copy-in rates: pageable -> ring (1 GiB through 3 slots)
  for (int nt = 0; nt < 2; nt++)
    for (int t : {1, 4, 8, 16}) {
      if (t > maxt) continue;
      double ms = best([&] { for (size_t k = 0; k < steps; k++) pcopy(up + (k % SL) * CH, in + k * CH, CH, t, nt); });
      printf("A copy-in  pageable->ring  threads %2d nt %d: %6.2f ms  %5.1f GB/s\n", t, nt, ms, N / ms / 1e6);
    }
  // B. copy-out rates: ring -> pageable
  for (int nt = 0; nt < 2; nt++)
    for (int t : {1, 4, 8, 16}) {
      if (t > maxt) continue;
      double ms = best([&] { for (size_t k = 0; k < steps; k++) pcopy(out + k * CH, down + (k % SL) * CH, CH, t, nt); });
      printf("B copy-out ring->pageable  threads %2d nt %d: %6.2f ms  %5.1f GB/s\n", t, nt, ms, N / ms / 1e6);
    }
  // C. both at once, half the threads each
  for (int nt = 0; nt < 2; nt++) {
    double ms = best([&] {
#pragma omp parallel sections num_threads(2)
      {
#pragma omp section
        { for (size_t k = 0; k < steps; k++) pcopy(up + (k % SL) * CH, in + k * CH, CH, maxt / 2, nt); }
#pragma omp section
        { for (size_t k = 0; k < steps; k++) pcopy(out + k * CH, down + (k % SL) * CH, CH, maxt / 2, nt); }
      }
    });
    printf("C in+out at once, %d threads each nt %d: %6.2f ms\n", maxt / 2, nt, ms);
  }
  // D. plain memcpy pageable->pageable 1 GiB
  for (int nt = 0; nt < 2; nt++) {
    double ms = best([&] { pcopy(out, in, N, maxt, nt); });
    printf("D pageable->pageable 1 GiB threads %d nt %d: %6.2f ms %5.1f GB/s\n", maxt, nt, ms, N / ms / 1e6);
  }
  // E. pipelined upload: copy-in chunk k while DMA of k-1 runs (serial driver thread)
  for (int nt = 0; nt < 2; nt++)
    for (int t : {8, 16}) {
      if (t > maxt) continue;
      double ms = best([&] {
        for (size_t k = 0; k < steps; k++) {
          int s = k % SL;
          CK(cudaEventSynchronize(eu[s]));
          pcopy(up + s * CH, in + k * CH, CH, t, nt);
          CK(cudaMemcpyAsync(devbig + k * CH, up + s * CH, CH, cudaMemcpyHostToDevice, su));
          CK(cudaEventRecord(eu[s], su));
        }
        CK(cudaStreamSynchronize(su));
      });
      printf("E pipelined upload threads %2d nt %d: %6.2f ms\n", t, nt, ms);
    }
  {
    double ms = best([&] { CK(cudaMemcpy(devbig, in, N, cudaMemcpyHostToDevice)); });
    printf("E' driver pageable upload: %6.2f ms\n", ms);
    char* pin; CK(cudaMallocHost(&pin, N)); memset(pin, 1, N);
    ms = best([&] { CK(cudaMemcpyAsync(devbig, pin, N, cudaMemcpyHostToDevice, su)); CK(cudaStreamSynchronize(su)); });
    printf("E'' pinned upload: %6.2f ms\n", ms);
    ms = best([&] { CK(cudaMemcpyAsync(devbig, pin, N, cudaMemcpyHostToDevice, su)); CK(cudaMemcpyAsync(pin, devbig, N, cudaMemcpyDeviceToHost, sd)); CK(cudaStreamSynchronize(su)); CK(cudaStreamSynchronize(sd)); });
    printf("E''' pinned both ways: %6.2f ms\n", ms);
    CK(cudaFreeHost(pin));
  }
  // F. pipelined two-way (like the scan): copy-in k, upload k, download k, copy-out; in place on device.
  int splits[][3] = {{8, 8, 0}, {8, 8, 1}, {8, 8, 2}, {10, 6, 2}, {6, 10, 2}, {12, 12, 2}, {16, 16, 2}, {4, 4, 2}};
  for (auto& sp : splits) {
    int ti = sp[0], to = sp[1], nt = sp[2];
    bool ntin = nt == 1, ntout = nt >= 1;
    double ms = best([&] {
      size_t drained = 0;
      for (size_t k = 0; k < steps; k++) {
        int s = k % SL;
        auto fill = [&] { CK(cudaEventSynchronize(eu[s])); pcopy(up + s * CH, in + k * CH, CH, ti, ntin); };
        auto drain = [&] {
          while (drained + 2 < k) { int q = drained % SL; CK(cudaEventSynchronize(ed[q])); pcopy(out + drained * CH, down + q * CH, CH, to, ntout); drained++; }
        };
#pragma omp parallel sections num_threads(2)
        {
#pragma omp section
          fill();
#pragma omp section
          drain();
        }
        CK(cudaMemcpyAsync(dev + s * CH, up + s * CH, CH, cudaMemcpyHostToDevice, su));
        CK(cudaEventRecord(eu[s], su));
        CK(cudaStreamWaitEvent(sd, eu[s], 0));
        CK(cudaMemcpyAsync(down + s * CH, dev + s * CH, CH, cudaMemcpyDeviceToHost, sd));
        CK(cudaEventRecord(ed[s], sd));
        CK(cudaStreamWaitEvent(su, ed[s], 0));  // slot reuse on device
      }
      while (drained < steps) { int q = drained % SL; CK(cudaEventSynchronize(ed[q])); pcopy(out + drained * CH, down + q * CH, CH, 16, ntout); drained++; }
    });
    bool ok = memcmp(in, out, N) == 0;
    printf("F two-way pipeline threads in %d out %d in-nt %d out-nt %d: %6.2f ms ok %d\n", ti, to, ntin, ntout, ms, ok);
  }
  // G. host register cost
  {
    double t = now();
    CK(cudaHostRegister(in, N, cudaHostRegisterDefault));
    double reg = now() - t;
    double ms = best([&] { CK(cudaMemcpyAsync(devbig, in, N, cudaMemcpyHostToDevice, su)); CK(cudaStreamSynchronize(su)); });
    t = now();
    CK(cudaHostUnregister(in));
    printf("G register 1 GiB %.1f ms, upload from it %.2f ms, unregister %.1f ms\n", reg * 1e3, ms, (now() - t) * 1e3);
  }
  return 0;
}
