#!/usr/bin/env bash
# Session 24 (2026-12-03), call B (one H200). Carry: one-off/carry-x24b.sh.
# 1. Alone on the GPU, twice: conv1d-fft 2^26 `same`, zero boundary, this build (call A's n2),
#    at the crossings `Auto` takes from measured times, which the faster blocks may have moved:
#    f32's transform sizes (K1-K4), f16's and bf16's warpgroup-to-FFT crossing (K5, the `auto`
#    rows the warpgroup kernel below 1730/1840), f16's and bf16's 16384/32768 crossing (K6),
#    f64's sizes (K7), the block FFT against cuFFT's segments (K8).
# 2. Untimed, side by side: fft_gpu every-size f16 and bf16 (the lean 8192-point pairs are new
#    for them), memcheck over gpu_fft_sanitize_wide_blocks.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x24b
K1="--types f32 --widths 200,230,260,380,427,480 --no-direct-above 0 --sizes 1024,2048,4096"
K2="--types f32 --widths 1100,1300,1500,1700 --no-direct-above 0 --sizes 4096,8192"
K3="--types f32 --widths 2200,2450,2700,3000 --no-direct-above 0 --sizes 8192,16384"
K4="--types f32 --widths 5000,5500,5800,6200 --no-direct-above 0 --sizes 16384,32768"
K5="--types f16,bf16 --widths 1100,1279,1400,1535,1700 --no-direct-above 0 --sizes 4096"
K6="--types f16,bf16 --widths 5000,5300,5650,6000 --no-direct-above 0 --sizes 16384,32768"
K7="--types f64 --widths 1100,1220,1400,1500,1700,1800,2047,2300 --no-direct-above 0 --sizes 2048,4096,8192,16384"
K8="--types f32 --widths 27300,27700,28100 --no-direct-above 0 --sizes 32768,1048576"
K9="--types f64 --widths 12900,13100,13300 --no-direct-above 0 --sizes 16384,1048576"
for k in 1 2; do
  for b in 1 2 3 4 5 6 7 8 9; do
    eval "args=\$K$b"
    bench k$b-$k 90 $C/benches__conv1d-fft $args
  done
done
bench_summary > /dev/null
echo "benches done at $(( $(date +%s) - T0 ))s"
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
(t f16-every $F 250 gpu_fft_every_size_mode_boundary_f16) > "$R/bg1.txt" 2>&1 &
(t bf16-every $F 250 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg2.txt" 2>&1 &
(san mem-wide memcheck 150 $F gpu_fft_sanitize_wide_blocks; san mem-small memcheck 150 $F gpu_fft_sanitize_small_blocks) > "$R/bg3.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
