// Issue 14 probe (one-off, not shipped): what a fresh 1 GiB host result costs to fault in and
// free, single-threaded and by 15 threads in 256 KiB pieces (as the copy crew writes), with and
// without MADV_HUGEPAGE, ordinary and streaming stores, and MAP_POPULATE.
#define _GNU_SOURCE
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static const size_t N = 1ull << 30, PIECE = 256 << 10;

static void copy_nt(char* d, const char* s, size_t n) {
  for (size_t i = 0; i < n; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i*)(s + i)), b = _mm_loadu_si128((const __m128i*)(s + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i*)(s + i + 32)), e = _mm_loadu_si128((const __m128i*)(s + i + 48));
    _mm_stream_si128((__m128i*)(d + i), a); _mm_stream_si128((__m128i*)(d + i + 16), b);
    _mm_stream_si128((__m128i*)(d + i + 32), c); _mm_stream_si128((__m128i*)(d + i + 48), e);
  }
  _mm_sfence();
}

static char* fresh(int huge, int populate) {
  char* p = mmap(NULL, N, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
  if (p == MAP_FAILED) { perror("mmap"); exit(1); }
  if (huge) madvise(p, N, MADV_HUGEPAGE);
  return p;
}

static long anon_huge_kb(void) {
  FILE* f = fopen("/proc/meminfo", "r"); char line[256]; long v = -1;
  while (f && fgets(line, sizeof line, f)) if (sscanf(line, "AnonHugePages: %ld kB", &v) == 1) break;
  if (f) fclose(f);
  return v;
}

int main(void) {
  char buf[256];
  for (const char* k = "enabled"; k; k = (k[0] == 'e') ? "defrag" : NULL) {
    char path[128]; snprintf(path, sizeof path, "/sys/kernel/mm/transparent_hugepage/%s", k);
    FILE* f = fopen(path, "r"); if (f && fgets(buf, sizeof buf, f)) printf("thp %s: %s", k, buf); if (f) fclose(f);
  }
  char* src = fresh(1, 0); memset(src, 3, N);
  size_t pieces = N / PIECE;
  for (int rep = 0; rep < 3; rep++) {
    for (int mode = 0; mode < 7; mode++) {
      int huge = mode & 1, threads = (mode >= 2) ? 15 : 1, nt = (mode >= 4), populate = (mode == 6);
      if (mode == 6) huge = 1;
      double t0 = now();
      char* p = fresh(huge, populate);
      double t1 = now();
      if (threads == 1) memset(p, 1, N);
      else {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (size_t k = 0; k < pieces; k++) {
          if (nt) copy_nt(p + k * PIECE, src + k * PIECE, PIECE); else memcpy(p + k * PIECE, src + k * PIECE, PIECE);
        }
      }
      double t2 = now();
      long hp = anon_huge_kb();
      munmap(p, N);
      double t3 = now();
      printf("rep %d: %-2d thread(s) %s%s%s: mmap %.1f ms, touch %.1f ms, munmap %.1f ms (AnonHugePages %ld MiB while mapped)\n",
             rep, threads, threads == 1 ? "memset" : (nt ? "stream copy" : "memcpy"), huge ? " +MADV_HUGEPAGE" : "",
             populate ? " +MAP_POPULATE" : "", (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, hp / 1024);
    }
  }
  return 0;
}
