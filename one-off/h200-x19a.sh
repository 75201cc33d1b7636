#!/usr/bin/env bash
# Session 19 (2026-12-02), call A (one H200): the flat scan's staged tile in two or four blocks
# per SM (one-off/scan-epoch-harness.cu -DMULTI_SWEEP), so that one block's loads overlap
# another's look-back wait, beside the shipped H200 tile (1024 x 56, 32 tiles of bulk L2
# prefetch) and the same-run copy, at 2^24, 2^26, 2^28 (i32, f32); every variant checked
# against the CPU. nvcc sm_90 on the device; the harness alone on the GPU.
set -u
cd "$(dirname "$0")/.."
R="$OUT/x19a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
F="-O3 -std=c++17 -arch=sm_90 -I kernels/include"
s=$(date +%s)
nvcc $F -DMULTI_SWEEP -o /tmp/seh one-off/scan-epoch-harness.cu > "$R/nvcc-seh.log" 2>&1; echo "nvcc rc=$? $(( $(date +%s) - s ))s"
tail -5 "$R/nvcc-seh.log"
s=$(date +%s); timeout 300 stdbuf -oL /tmp/seh 30 28,24,26 > "$R/scan.txt" 2>&1; echo "scan rc=$? $(( $(date +%s) - s ))s"
cat "$R/scan.txt"
