#!/usr/bin/env bash
# Session 17, call E (one H200; not run: no device time was left): the harness with the radix-32 experiment (16384 points in three
# passes) beside the shipped pairs, twice.
set -u
cd "$(dirname "$0")/.."
R="$OUT/x17e"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-conv-harness.cu -o /tmp/fh > "$R/harness-build.txt" 2>&1; echo "harness build rc=$? $(( $(date +%s) - s ))s"
grep -A2 "kfft_r32" "$R/harness-build.txt" | grep -E "registers|spill" | head -4
for i in 1 2; do timeout 40 /tmp/fh 20 > "$R/harness$i.txt" 2>&1; echo "harness$i rc=$?"; cat "$R/harness$i.txt"; done
(cd "$OUT" && tar czf x17e.tgz x17e && rm -rf x17e)
