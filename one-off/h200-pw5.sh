#!/usr/bin/env bash
# Issue 24 session 3, call W5 (one H200): the per-tile 64-bit row division of the fixed-width
# conv1d against a 32-bit one where the tile count fits, 16- and 24-output tiles.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pw5"; mkdir -p "$R"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/wp one-off/warp-pipe-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
V=shipped,v0,v3,v0k24m10,v3k24m10
timeout 60 /tmp/wp 28 15 $V 7,31 2>&1 | tee "$R/conv28.txt"
timeout 60 /tmp/wp 26 15 $V 7,31 4096 2>&1 | tee "$R/rows4096.txt"
