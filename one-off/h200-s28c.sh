#!/usr/bin/env bash
# Session 28 (2026-12-04), call C (one H200). Carry: one-off/carry-s28c.sh.
# Alone on the GPU, twice: conv1d-fft 2^26 `same`, zero boundary, bf16 with call B's bf build:
# the 4096- and 8192-point pairs against the 16384-point spans from w = 1300 to 2450 (the
# spans, 3 % faster now, cross the pairs earlier).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s28c
for k in 1 2; do
  bench bf-$k 120 $C/bf__conv1d-fft --types bf16 --widths 1300,1500,1700,1900,2100,2300,2450 --no-direct-above 0 --sizes 4096,8192,16384
done
bench_summary > /dev/null
echo "all done at $(( $(date +%s) - T0 ))s"
