#!/usr/bin/env bash
# Session 11, call C (one H200): the segment-lanes harness (one-off/segment-lanes-harness.cu),
# segments of 1-2000 and 1-500 f32 values over 2^28, alone on the GPU; then gpu-scan's GPU suites
# owed by the tenth session (its scan kernels are this build's, unchanged) while time is left.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 560 - ($(date +%s) - T0) )); }
R="$OUT/s11c"; mkdir -p "$R"
s=$(date +%s); nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include -o /tmp/seglanes one-off/segment-lanes-harness.cu > "$R/nvcc.txt" 2>&1; echo "nvcc rc=$? $(( $(date +%s) - s ))s"; tail -3 "$R/nvcc.txt"
s=$(date +%s); timeout 200 /tmp/seglanes 28 2000 > "$R/harness-2000.txt" 2>&1; echo "harness 2000 rc=$? $(( $(date +%s) - s ))s"; cat "$R/harness-2000.txt"
s=$(date +%s); timeout 80 /tmp/seglanes 28 500 > "$R/harness-500.txt" 2>&1; echo "harness 500 rc=$? $(( $(date +%s) - s ))s"; cat "$R/harness-500.txt"
if [ -f gpu-carry3/s11c.tar.xz ]; then
  mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s11c.tar.xz; C=/tmp/c/s11c
  export GPU_PRIMS_REQUIRE_GPU=1
  for t in scan-tuning_gpu scan-half_shaped_gpu scan-gpu scan-properties scan-half_gpu scan-shaped_gpu scan-status_reuse_gpu scan-kernels; do
    l=$(left); [ "$l" -gt 25 ] || { echo "$t: not run (time)"; continue; }
    s=$(date +%s); timeout $(( l - 15 < 200 ? l - 15 : 200 )) $C/$t > "$R/test-$t.txt" 2>&1; echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$t.txt" | tr '\n' ' ')"
    grep -E "panicked" "$R/test-$t.txt" | head -3
  done
fi
(cd "$OUT" && tar czf s11c.tgz s11c && rm -rf s11c)
