#!/usr/bin/env bash
# Session 8 (2026-11-29), call A (one H200):
#  1. gpu-reduce's shaped GPU tests on main (the review commit and the host-counts plan);
#  2. the wave scan harness (one-off/wave-scan-harness.cu): block and span sweeps, lag 1 and 2,
#     beside CUB and the same-run copy at 2^24, 2^26, 2^28 (i32, f32), then odd lengths;
#  3. the shipped H200 staged tile (scan-epoch-harness -DBASE_ONLY: epoch, epoch + 32 tiles of
#     prefetch) at the same sizes. Each timing step alone on the GPU.
# Carry: one-off/carry-s8a.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/a8.tar.xz; C=gpu-carry2/a8
R="$OUT/s8a"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
F="-O3 -std=c++17 -arch=sm_90 -I kernels/include"
nvcc $F -o /tmp/wave one-off/wave-scan-harness.cu > "$R/logs/nvcc-wave.log" 2>&1 & p1=$!
nvcc $F -DBASE_ONLY -o /tmp/seh one-off/scan-epoch-harness.cu > "$R/logs/nvcc-seh.log" 2>&1 & p2=$!
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); timeout 150 $C/gpu-reduce__shaped_gpu > "$R/logs/test-shaped_gpu.txt" 2>&1; rc=$?
echo "shaped_gpu rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-shaped_gpu.txt" | tail -1)"
[ $rc = 0 ] || grep -E "FAILED|panicked" -A3 "$R/logs/test-shaped_gpu.txt" | head -12
unset GPU_PRIMS_REQUIRE_GPU
wait $p1; echo "nvcc wave rc=$?"; wait $p2; echo "nvcc seh rc=$?"
tail -5 "$R/logs/nvcc-wave.log"
s=$(date +%s); timeout 200 /tmp/wave 30 24,26,28 all > "$R/wave.txt" 2>&1; echo "wave rc=$? $(( $(date +%s) - s ))s"
cat "$R/wave.txt"
s=$(date +%s); timeout 60 /tmp/wave 5 20 A 16777219 1000003 777 > "$R/wave-odd.txt" 2>&1; echo "wave odd rc=$? $(( $(date +%s) - s ))s"
grep -c " ok" "$R/wave-odd.txt"; grep -E "WRONG|rror" "$R/wave-odd.txt" | head
s=$(date +%s); timeout 120 /tmp/seh 30 24,26,28 > "$R/base.txt" 2>&1; echo "base rc=$? $(( $(date +%s) - s ))s"
cat "$R/base.txt"
