#!/usr/bin/env bash
# Session 26 (2026-12-03), call A (one H200). Carry: one-off/carry-s26a.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, `Auto` and `Strategy::Fft` at the
#    size `Auto` takes: main (d) against the unchecked spans (n3) and n3 with tiles rounded to
#    multiples of 32 (n4), in turn, twice.
# 2. Untimed: n3's fft_gpu (every test), then compute-sanitizer memcheck, racecheck and
#    synccheck over gpu_fft_sanitize_even_odd, side by side.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s26a
E1="--types f32 --widths 127,1023,2047,4095,16383 --no-direct-above 0 --sizes 1"
E2="--types f16,bf16,f64 --widths 1023,4095 --no-direct-above 0 --sizes 1"
for k in 1 2; do
  for b in 1 2; do
    eval "args=\$E$b"
    for v in d n3 n4; do bench $v$b-$k 90 $C/${v}__conv1d-fft $args; done
  done
done
bench_summary > /dev/null
echo "benches done at $(( $(date +%s) - T0 ))s"
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
t fft-all $F 300
(san mem-eo memcheck 200 $F gpu_fft_sanitize_even_odd) > "$R/bg1.txt" 2>&1 &
(san race-eo racecheck 200 $F gpu_fft_sanitize_even_odd) > "$R/bg2.txt" 2>&1 &
(san sync-eo synccheck 200 $F gpu_fft_sanitize_even_odd) > "$R/bg3.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
