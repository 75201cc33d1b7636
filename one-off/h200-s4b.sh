#!/usr/bin/env bash
# Issue 24 session 4, call B (one H200): one-off/scan-epoch-harness.cu (nvcc sm_90): the
# look-back scan's init launch against epoch-tagged status words, and the aggregate published
# before the local scan; 2^20 ... 2^28, i32 and f32, each variant checked against the CPU.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s4b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/seh one-off/scan-epoch-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
timeout 300 /tmp/seh 40 20,22,24,26,28 2>&1 | tee "$R/run1.txt"
timeout 200 /tmp/seh 40 24,28 2>&1 | tee "$R/run2.txt"
