#!/usr/bin/env bash
# Session 27 (2026-12-03), call D (one H200). Carry: one-off/carry-s27d.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, `Auto` and `Strategy::Fft`: st
#    and fin in turn, three times.
# 2. Untimed: fin's fft_gpu (every test) beside compute-sanitizer over its sanitizer tests.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s27d
E1="--types f32 --widths 127,1023,2047,4095,8191,16383 --no-direct-above 0 --sizes 1"
E2="--types f16,bf16,f64 --widths 1023,4095,8191 --no-direct-above 0 --sizes 1"
for k in 1 2 3; do
  for b in 1 2; do
    eval "args=\$E$b"
    for v in st fin; do bench $v$b-$k 60 $C/${v}__conv1d-fft $args; done
  done
done
bench_summary > /dev/null
export GPU_PRIMS_REQUIRE_GPU=1
(t fft-all fin__fft_gpu 330) > "$R/bg0.txt" 2>&1 &
(san mem-r32 memcheck 200 fin__fft_gpu gpu_fft_sanitize_radix32; san sync-r32 synccheck 150 fin__fft_gpu gpu_fft_sanitize_radix32; san race-r32 racecheck 200 fin__fft_gpu gpu_fft_sanitize_radix32) > "$R/bg1.txt" 2>&1 &
(san mem-eo memcheck 150 fin__fft_gpu gpu_fft_sanitize_even_odd; san sync-eo synccheck 150 fin__fft_gpu gpu_fft_sanitize_even_odd) > "$R/bg2.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
