#!/usr/bin/env bash
# Session 22 (2026-12-03), call C (one H200). Carry: one-off/carry-x22a.sh (call A's build,
# whose kernels are the shipped ones: the final PTX differs from it in comments only).
# Alone on the GPU, 2^26 `same`, zero boundary, each twice: call B's crossings again at the
# widths between those it measured.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x22a x22c
B=$C/benches__conv1d-fft
for k in 1 2; do
  bench d$k 90 $B --types f64 --widths 2100,2200,2300,2400 --no-direct-above 0 --sizes 8192,16384
  bench s$k 90 $B --types f32 --widths 2450,2500,2550,2600,2650 --no-direct-above 0 --sizes 8192,16384
  bench l$k 90 $B --types f32,f16 --widths 6144,6200,6250,6300,6400,6599 --no-direct-above 0 --sizes 16384,32768
done
bench_summary
echo "all done at $(( $(date +%s) - T0 ))s"
