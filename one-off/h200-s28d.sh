#!/usr/bin/env bash
# Session 28 (2026-12-04), call D (one H200). No carry: builds one-off/columns-staged-harness.cu
# with the machine's nvcc and runs it alone on the GPU, two rounds (round 0 checks every
# variant but the bounds against the CPU).
set -u
cd "$(dirname "$0")/.."
R="$OUT/s28d"
mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include one-off/columns-staged-harness.cu -o /tmp/cst -Xptxas -v > "$R/build.txt" 2>&1 || { tail -20 "$R/build.txt"; exit 1; }
grep -A2 "staged_scan\|lib_long" "$R/build.txt" | grep -E "Used|spill" | head -20
timeout 400 /tmp/cst 2 2>&1 | tee "$R/run.txt"
