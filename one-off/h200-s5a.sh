#!/usr/bin/env bash
# Issue 24 session 5, call A (one H200): L2 prefetch of a later tile's input, in the scan harness
# (one-off/scan-epoch-harness.cu: tiles 16-264 ahead, line by line or one bulk prefetch, at the
# tile's start or while warp 0 looks back) and in the conv1d harness (one-off/warp-pipe-harness.cu
# -DPF_ONLY: the wide 24-output tile, 660-2640 blocks ahead); then the 16-bit conv1d tile shapes
# (one-off/half-conv-harness.cu, prepared in session 4). Each harness alone on the GPU; nvcc sm_90.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s5a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.memory --format=csv,noheader | tee "$R/gpu.txt"
F="-O3 -std=c++17 -arch=sm_90 -I kernels/include"
s=$(date +%s)
nvcc $F -o /tmp/seh one-off/scan-epoch-harness.cu > "$R/nvcc-seh.log" 2>&1 & p1=$!
nvcc $F -DPF_ONLY -o /tmp/wph one-off/warp-pipe-harness.cu > "$R/nvcc-wph.log" 2>&1 & p2=$!
nvcc $F -o /tmp/hch one-off/half-conv-harness.cu > "$R/nvcc-hch.log" 2>&1 & p3=$!
wait $p1; echo "nvcc seh rc=$?"; wait $p2; echo "nvcc wph rc=$?"; wait $p3; echo "nvcc hch rc=$?"
echo "compiled in $(( $(date +%s) - s ))s"
s=$(date +%s); timeout 150 /tmp/seh 30 24,26,28 > "$R/scan.txt" 2>&1; echo "scan rc=$? $(( $(date +%s) - s ))s"
grep -E "2\^28|copy" "$R/scan.txt"
s=$(date +%s); timeout 120 /tmp/wph 28 20 x 7,15,23,31 > "$R/conv28.txt" 2>&1; echo "conv28 rc=$? $(( $(date +%s) - s ))s"
grep -E "w= 31|w=  7|copy" "$R/conv28.txt"
s=$(date +%s); timeout 50 /tmp/wph 26 20 x 7,31 > "$R/conv26.txt" 2>&1; echo "conv26 rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); timeout 150 /tmp/hch 28 15 > "$R/half.txt" 2>&1; echo "half rc=$? $(( $(date +%s) - s ))s"
grep -E "w=  7|copy" "$R/half.txt" | head -30
