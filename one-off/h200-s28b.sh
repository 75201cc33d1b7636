#!/usr/bin/env bash
# Session 28 (2026-12-04), call B (one H200). Carry: one-off/carry-s28b.sh.
# 1. Alone on the GPU, three times: conv1d-fft 2^26 `same`, zero boundary, `Auto` and
#    `Strategy::Fft`, bf16 (and f16, f32 at w = 4095 for reference): main's kernels (base) and
#    bf (the FFT's bf16 results rounded without the NaN test, pairs packed by one permute).
# 2. Untimed: bf's fft_gpu (every test) beside compute-sanitizer over its sanitizer tests.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s28b
E1="--types bf16 --widths 1023,2047,4095,8191,16383 --no-direct-above 0 --sizes 1"
E2="--types f16,f32 --widths 4095 --no-direct-above 0 --sizes 1"
for k in 1 2 3; do
  for b in 1 2; do
    eval "args=\$E$b"
    for v in base bf; do bench $v$b-$k 60 $C/${v}__conv1d-fft $args; done
  done
done
bench_summary > /dev/null
export GPU_PRIMS_REQUIRE_GPU=1
(t fft-all bf__fft_gpu 330) > "$R/bg0.txt" 2>&1 &
(san mem-r32 memcheck 200 bf__fft_gpu gpu_fft_sanitize_radix32; san race-r32 racecheck 200 bf__fft_gpu gpu_fft_sanitize_radix32) > "$R/bg1.txt" 2>&1 &
(san mem-eo memcheck 150 bf__fft_gpu gpu_fft_sanitize_even_odd; san sync-eo synccheck 150 bf__fft_gpu gpu_fft_sanitize_even_odd) > "$R/bg2.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
