#!/usr/bin/env bash
# Issue 24 session 4, call E (one H200): one-off/scan-epoch-harness.cu: look-back polls backing
# off (__nanosleep 20/80/250 ns after an invalid slot) against none, 8 and 10 staged rows.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s4e"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/seh one-off/scan-epoch-harness.cu > "$R/nvcc.log" 2>&1 || { head -40 "$R/nvcc.log"; exit 1; }
timeout 150 /tmp/seh 30 24,28,26 2>&1 | tee "$R/run1.txt"
timeout 100 /tmp/seh 30 28 2>&1 | tee "$R/run2.txt"
