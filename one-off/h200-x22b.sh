#!/usr/bin/env bash
# Session 22 (2026-12-03), call B (one H200). Carry: one-off/carry-x22a.sh (call A's build,
# whose kernels are the shipped ones: the final PTX differs from it in comments only).
# Alone on the GPU, 2^26 `same`, zero boundary, each twice: where the transform sizes cross
# now that the 16384-point spans have even tiles (and f64 pairs): f64 and f32 at 8192 against
# 16384 points, f32 and f16 at 16384 against 32768; then `Auto` at issue 19's widths.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x22a x22b
B=$C/benches__conv1d-fft
for k in 1 2; do
  bench d$k 90 $B --types f64 --widths 2047,2559,2900,3150,3500 --no-direct-above 0 --sizes 8192,16384
  bench s$k 90 $B --types f32 --widths 2047,2400,2700,2900,3071 --no-direct-above 0 --sizes 8192,16384
  bench l$k 90 $B --types f32,f16 --widths 5500,6000,6142,6143,6600,7000 --no-direct-above 0 --sizes 16384,32768
  bench i$k 120 $B --types f32,f64 --widths 1023,4095,16383 --no-direct-above 0 --sizes 1
done
bench_summary
echo "all done at $(( $(date +%s) - T0 ))s"
