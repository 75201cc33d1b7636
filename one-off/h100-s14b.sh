#!/usr/bin/env bash
# Issue 13 session 14, call B (one H100): the wgmma conv1d harness at 2^28 f16 (checks skipped:
# call A ran them), then 2^26 for the width sweep.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s14b"; mkdir -p "$R"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include -DKERNEL_FILE='"../kernels/conv1d_sm80.cu"' -o /tmp/wgh one-off/wgmma-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
V="${VARIANTS:-wg32,wg32p,wg64,wg64p,wg64m6p}"
SKIP_CHECKS=1 timeout 200 /tmp/wgh 28 20 ${W28:-31,63,127,255,1023} "$V" 2>&1 | tee "$R/n28.txt"
SKIP_CHECKS=1 timeout 100 /tmp/wgh 26 20 ${W26:-127,511} "$V" 2>&1 | tee "$R/n26.txt"
