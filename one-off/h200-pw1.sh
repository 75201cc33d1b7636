#!/usr/bin/env bash
# Issue 24 session 3, call W1 (one H200): fixed-width conv1d f32 with per-warp cp.async pipelines
# (one-off/warp-pipe-harness.cu) beside the shipped kernel and a same-run copy, widths 3-31.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pw1"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/wp one-off/warp-pipe-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
timeout 200 /tmp/wp 28 15 all 3,7,15,23,31 2>&1 | tee "$R/conv28.txt"
timeout 60 /tmp/wp 24 40 shipped,k16s2,k16s3,k16s4,k32s3 3,7,31 2>&1 | tee "$R/conv24.txt"
timeout 60 /tmp/wp 22 10 shipped,k16s3,k16s4os,k32s3 7,31 7 2>&1 | tee "$R/rows7.txt"
