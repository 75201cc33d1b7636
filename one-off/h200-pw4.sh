#!/usr/bin/env bash
# Issue 24 session 3, call W4 (one H200): fixed-width conv1d f32, outputs per thread K 16/20/24/28
# and occupancy bounds, every width class 3-31, single rows 2^28/2^26/2^24 and batches of rows.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pw4"; mkdir -p "$R"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/wp one-off/warp-pipe-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
V=shipped,v0k20,v0k24,v0k28,v0k24m10,v0k20m10,v0k24b256,v0k16m12
timeout 200 /tmp/wp 28 15 $V 3,7,11,15,19,23,27,31 2>&1 | tee "$R/conv28.txt"
timeout 80 /tmp/wp 26 25 $V 3,7,31 2>&1 | tee "$R/conv26.txt"
timeout 60 /tmp/wp 24 40 $V 3,7,31 2>&1 | tee "$R/conv24.txt"
timeout 60 /tmp/wp 26 15 shipped,v0k20,v0k24,v0k16m12 7,31 64 2>&1 | tee "$R/rows64.txt"
timeout 60 /tmp/wp 26 15 shipped,v0k20,v0k24,v0k16m12 7,31 4096 2>&1 | tee "$R/rows4096.txt"
