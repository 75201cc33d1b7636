#!/usr/bin/env bash
# Issue 24, for a session with an H200 (not yet run): one-off/half-conv-harness.cu (nvcc sm_90),
# the 16-bit fixed-width conv1d tile shapes (16 outputs at 8 and 12 blocks per SM, 24 at 10, 32
# at 8) at 2^28 and on 4096 rows of 16381, f16 and bf16, w 3/7/15/31, checked against the CPU.
# Call F of session 4 measured the shipped 16-bit kernels at 0.68-0.70x copy for w 7 on the H200
# (0.88-0.89 on the H100): this says whether the f32 wide-tile policy carries over.
set -u
cd "$(dirname "$0")/.."
R="$OUT/half-conv"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/hch one-off/half-conv-harness.cu > "$R/nvcc.log" 2>&1 || { head -40 "$R/nvcc.log"; exit 1; }
timeout 400 /tmp/hch 28 15 2>&1 | tee "$R/run.txt"
