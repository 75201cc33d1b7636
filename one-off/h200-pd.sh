#!/usr/bin/env bash
# Issue 24 session 2, call D (one H200): the staged scan whose loads start before its tile index
# arrives (speculative on blockIdx.x, reloaded on a miss; one-off/pipeline-harness.cu scan_spec)
# against the shipped kernel and the blockIdx.x bound, 2^24-2^28; sanitizers.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pd"; mkdir -p "$R"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/ph one-off/pipeline-harness.cu > "$R/nvcc.log" 2>&1 || { head -80 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
V=shipped1024,spec1024,bid1024,shipped768,spec768,bid768
timeout 100 /tmp/ph 24 40 scan $V 2>&1 | tee "$R/scan24.txt"
timeout 100 /tmp/ph 26 20 scan $V 2>&1 | tee "$R/scan26.txt"
timeout 150 /tmp/ph 28 15 scan $V,spec512 2>&1 | tee "$R/scan28.txt"
for t in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $t /tmp/ph 20 1 scan spec1024,spec512 > "$R/san-$t.txt" 2>&1
  echo "$t rc=$? $(grep -c WRONG "$R/san-$t.txt") wrong; $(tail -1 "$R/san-$t.txt")"
done
