#!/usr/bin/env bash
# Session 24 (2026-12-03), call A (one H200). Carry: one-off/carry-x24a.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, `Strategy::Fft` at the sizes shown
#    and `Auto`, e6a5553 (base) against this build (n1: the FFT blocks' index arithmetic) and n2
#    (n1 with the lean checks and stores in the 8192-point pairs too), alternating three times;
#    the groups of session 23's call A.
# 2. Untimed, side by side: fft_gpu every-size f32 (n1, then n2), f64, f16, bf16 and its other tests, gpu; then
#    compute-sanitizer memcheck over the FFT sanitize tests, racecheck over the radix-32 one, synccheck
#    over the even-and-odd one.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x24a
B1="--types f32 --widths 127,1023,2047 --no-direct-above 0 --sizes 1024,4096,8192"
B2="--types f32 --widths 4095,6000 --no-direct-above 0 --sizes 16384,32768"
B3="--types f32 --widths 8191,16383 --no-direct-above 0 --sizes 32768"
B4="--types f16,bf16 --widths 1023,4095,8191 --no-direct-above 0 --sizes 4096,16384,32768"
B5="--types f64 --widths 1023,4095 --no-direct-above 0 --sizes 4096,16384"
for k in 1 2 3; do
  for b in 1 2 3 4 5; do
    eval "args=\$B$b"
    for v in base n1 n2; do bench $v$b-$k 60 $C/${v}__conv1d-fft $args; done
  done
done
bench_summary
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
(t f32-every $F 280 gpu_fft_every_size_mode_boundary_f32; t n2-f32-every n2__fft_gpu 200 gpu_fft_every_size_mode_boundary_f32) > "$R/bg1.txt" 2>&1 &
(t f64-every $F 280 gpu_fft_every_size_mode_boundary_f64) > "$R/bg2.txt" 2>&1 &
(t f16-every $F 280 gpu_fft_every_size_mode_boundary_f16) > "$R/bg3.txt" 2>&1 &
(t bf16-every $F 280 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg4.txt" 2>&1 &
(t fft-rest $F 280 --skip every_size; t gpu gpu-conv1d__gpu 280) > "$R/bg5.txt" 2>&1 &
(san mem-eo memcheck 250 $F gpu_fft_sanitize_even_odd; san race-r32 racecheck 250 $F gpu_fft_sanitize_radix32) > "$R/bg6.txt" 2>&1 &
(san mem-wide memcheck 150 $F gpu_fft_sanitize_wide_blocks; san mem-small memcheck 150 $F gpu_fft_sanitize_small_blocks) > "$R/bg7.txt" 2>&1 &
(san sync-eo synccheck 250 $F gpu_fft_sanitize_even_odd) > "$R/bg8.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
