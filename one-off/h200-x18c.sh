#!/usr/bin/env bash
# Session 18, call C (one H200): the cluster harness (one-off/fft-cluster-harness.cu: spans of
# 65536 points on two blocks of a cluster) beside the library's 32768-point spans, twice.
set -u
cd "$(dirname "$0")/.."
R="$OUT/x18c"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-cluster-harness.cu -o /tmp/fc > "$R/harness-build.txt" 2>&1; echo "harness build rc=$? $(( $(date +%s) - s ))s"
grep -E "error|registers|spill" "$R/harness-build.txt" | head -20
for i in 1 2; do timeout 100 /tmp/fc 20 > "$R/harness$i.txt" 2>&1; echo "harness$i rc=$?"; cat "$R/harness$i.txt"; done
(cd "$OUT" && tar czf x18c.tgz x18c && rm -rf x18c)
