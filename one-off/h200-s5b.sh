#!/usr/bin/env bash
# Issue 24 session 5, call B (one H200): the bulk L2 prefetch's distance, swept in the scan
# harness (-DPF_SWEEP: 8-96 tiles ahead, 8 and 10 staged rows; 2^24-2^28) and the conv1d harness
# (-DPF_SWEEP: the 24-output tile 132-792 blocks ahead, w 7-31, 2^24-2^28). Each alone on the GPU.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s5b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
F="-O3 -std=c++17 -arch=sm_90 -I kernels/include -DPF_SWEEP"
s=$(date +%s)
nvcc $F -o /tmp/seh one-off/scan-epoch-harness.cu > "$R/nvcc-seh.log" 2>&1 & p1=$!
nvcc $F -o /tmp/wph one-off/warp-pipe-harness.cu > "$R/nvcc-wph.log" 2>&1 & p2=$!
wait $p1; echo "nvcc seh rc=$?"; wait $p2; echo "nvcc wph rc=$?"
echo "compiled in $(( $(date +%s) - s ))s"
s=$(date +%s); timeout 150 /tmp/seh 30 24,26,27,28 > "$R/scan.txt" 2>&1; echo "scan rc=$? $(( $(date +%s) - s ))s"
grep -E "2\^2[678]|copy" "$R/scan.txt"
s=$(date +%s); timeout 100 /tmp/wph 28 20 x 7,23,27,31 > "$R/conv28.txt" 2>&1; echo "conv28 rc=$? $(( $(date +%s) - s ))s"
grep -E "w= 31|w=  7|copy" "$R/conv28.txt"
s=$(date +%s); timeout 40 /tmp/wph 26 20 x 7,31 > "$R/conv26.txt" 2>&1; echo "conv26 rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); timeout 40 /tmp/wph 24 20 x 7,31 > "$R/conv24.txt" 2>&1; echo "conv24 rc=$? $(( $(date +%s) - s ))s"
grep -E "w= 31|copy" "$R/conv26.txt" "$R/conv24.txt"
