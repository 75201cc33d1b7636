#!/usr/bin/env bash
# Session 23 (2026-12-03), call A (one H200). Carry: one-off/carry-x23a.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, Strategy::Fft at the sizes shown,
#    e07ec70 (base) against the FFT blocks prefetching into L2 the span of the transform one (p1)
#    or two (p2) waves on (a wave: SMs × the kernel's blocks per SM), alternating three times.
# 2. Base only: f16 and bf16 at w 5000-6600, 16384 against 32768 span points (the crossing).
# 3. Base only: first-call latency with CUDA_CACHE_DISABLE=1 (the conv1d cases).
# 4. Untimed: p1's every-size f32 FFT test and memcheck over gpu_fft_sanitize_even_odd and
#    gpu_fft_sanitize_wide_blocks.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x23a
B1="--types f32 --widths 127,1023,2047 --no-direct-above 0 --sizes 1024,4096,8192"
B2="--types f32 --widths 4095,6000 --no-direct-above 0 --sizes 16384,32768"
B3="--types f32 --widths 8191,16383 --no-direct-above 0 --sizes 32768"
B4="--types f16,bf16 --widths 1023,4095,8191 --no-direct-above 0 --sizes 4096,16384,32768"
B5="--types f64 --widths 1023,4095 --no-direct-above 0 --sizes 4096,16384"
for k in 1 2 3; do
  for b in 1 2 3 4 5; do
    eval "args=\$B$b"
    for v in base p1 p2; do bench $v$b-$k 60 $C/${v}__conv1d-fft $args; done
  done
done
X="--types f16,bf16 --widths 5000,5500,5800,6000,6143,6400,6600 --no-direct-above 0 --sizes 16384,32768"
for k in 1 2; do bench xbase-$k 90 $C/base__conv1d-fft $X; bench xp1-$k 90 $C/p1__conv1d-fft $X; done
bench_summary
s=$(date +%s)
CUDA_CACHE_DISABLE=1 timeout 200 $C/base__first-call --out "$R/first-call" conv1d conv1d-other conv1d-half conv1d-fft > "$R/first-call.txt" 2>&1
echo "first-call rc=$? $(( $(date +%s) - s ))s"
cat "$R/first-call/first-call.md" 2>/dev/null | head -40
export GPU_PRIMS_REQUIRE_GPU=1
t p1-f32-every p1__fft_gpu 200 gpu_fft_every_size_mode_boundary_f32
san p1-mem-eo memcheck 200 p1__fft_gpu gpu_fft_sanitize_even_odd
san p1-mem-wide memcheck 200 p1__fft_gpu gpu_fft_sanitize_wide_blocks
echo "all done at $(( $(date +%s) - T0 ))s"
