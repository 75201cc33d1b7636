#!/usr/bin/env bash
# Session 18, call A (one H200): the harness with the radix-32 experiments (8192 and 16384 points in three
# passes) beside the shipped pairs, twice.
set -u
cd "$(dirname "$0")/.."
R="$OUT/x18a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-conv-harness.cu -o /tmp/fh > "$R/harness-build.txt" 2>&1; echo "harness build rc=$? $(( $(date +%s) - s ))s"
grep -E "kfft_r32|registers|spill" "$R/harness-build.txt" | head -40
for i in 1 2; do timeout 40 /tmp/fh 20 > "$R/harness$i.txt" 2>&1; echo "harness$i rc=$?"; cat "$R/harness$i.txt"; done
(cd "$OUT" && tar czf x18a.tgz x18a && rm -rf x18a)
