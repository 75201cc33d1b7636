#!/usr/bin/env bash
# Issue 24 session 2, call A (one H200): one-off/pipeline-harness.cu (nvcc sm_90): the shipped
# staged scan and fixed-width conv1d against pipelined variants, 2^28 and 2^24; sanitizers small.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pa"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader > "$R/gpu.txt"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/ph one-off/pipeline-harness.cu > "$R/nvcc.log" 2>&1 || { head -80 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
timeout 200 /tmp/ph 28 15 scan "${SV:-}" 2>&1 | tee "$R/scan28.txt"
timeout 100 /tmp/ph 24 30 scan "${SV:-}" 2>&1 | tee "$R/scan24.txt"
timeout 200 /tmp/ph 28 15 conv "${CV:-}" 2>&1 | tee "$R/conv28.txt"
for t in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $t /tmp/ph 18 1 all p512r12s2,p1024r4s3,cpipe2,cpipe3 > "$R/san-$t.txt" 2>&1
  echo "$t rc=$? $(tail -1 "$R/san-$t.txt")"
done
