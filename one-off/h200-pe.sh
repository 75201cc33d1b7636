#!/usr/bin/env bash
# Issue 24 session 2, call E (one H200): fixed-width conv1d f32 shapes across widths 3-31 at 2^28
# and 2^24: the shipped kernel, cp.async staging, two tiles per block (sequential, grid-stride,
# and paired with the second's copies in flight).
set -u
cd "$(dirname "$0")/.."
R="$OUT/pe"; mkdir -p "$R"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/ph one-off/pipeline-harness.cu > "$R/nvcc.log" 2>&1 || { head -80 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
timeout 250 /tmp/ph 28 15 conv cshipped,cpa1,cseq2,cgs2,cpair 2>&1 | tee "$R/conv28.txt"
timeout 150 /tmp/ph 24 40 conv cshipped,cpa1,cpair 2>&1 | tee "$R/conv24.txt"
