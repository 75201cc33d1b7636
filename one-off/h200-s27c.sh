#!/usr/bin/env bash
# Session 27 (2026-12-03), call C (one H200). Carry: one-off/carry-s27c.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, `Auto` and `Strategy::Fft`: base,
#    dit and st in turn, twice; then Nsight Compute's instruction counts of st's 32768-point
#    spans (f32 w = 16383) beside call B's of dit.
# 2. Untimed: gpu_fft_accuracy of base and st with its table printed (--nocapture), one after
#    the other; then side by side st's fft_gpu (every test) and compute-sanitizer over st's
#    sanitizer tests.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s27c
E1="--types f32 --widths 127,1023,2047,4095,16383 --no-direct-above 0 --sizes 1"
E2="--types f16,bf16,f64 --widths 1023,4095 --no-direct-above 0 --sizes 1"
for k in 1 2; do
  for b in 1 2; do
    eval "args=\$E$b"
    for v in base dit st; do bench $v$b-$k 60 $C/${v}__conv1d-fft $args; done
  done
done
bench_summary > /dev/null
timeout 120 ncu --section InstructionStats --section ComputeWorkloadAnalysis --section WarpStateStats -c 1 -k regex:eo32768 \
  $C/st__conv1d-fft --types f32 --widths 16383 --no-direct-above 0 --sizes 1 > "$R/ncu-st-eo32768.txt" 2>&1
echo "ncu rc=$?"
export GPU_PRIMS_REQUIRE_GPU=1
for v in base st; do t acc-$v ${v}__fft_gpu 120 gpu_fft_accuracy --nocapture; done
(t fft-all st__fft_gpu 330) > "$R/bg0.txt" 2>&1 &
(san mem-r32 memcheck 200 st__fft_gpu gpu_fft_sanitize_radix32; san sync-r32 synccheck 150 st__fft_gpu gpu_fft_sanitize_radix32; san race-r32 racecheck 200 st__fft_gpu gpu_fft_sanitize_radix32) > "$R/bg1.txt" 2>&1 &
(san mem-eo memcheck 150 st__fft_gpu gpu_fft_sanitize_even_odd; san sync-eo synccheck 150 st__fft_gpu gpu_fft_sanitize_even_odd) > "$R/bg2.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
