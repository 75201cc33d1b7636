#!/usr/bin/env bash
# Issue 24 session 2, call B (one H200): the shipped staged scan across block sizes (waves of
# tiles at 2^24-2^26), diagnostics (tile copy, no look-back) at 2^28; conv1d blocks that take
# 2-8 neighbouring tiles with the next one's copies in flight.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pb"; mkdir -p "$R"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/ph one-off/pipeline-harness.cu > "$R/nvcc.log" 2>&1 || { head -80 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
timeout 100 /tmp/ph 24 40 scan shippedall,diagcopy,diaglocal 2>&1 | tee "$R/scan24.txt"
timeout 100 /tmp/ph 25 30 scan shippedall 2>&1 | tee "$R/scan25.txt"
timeout 100 /tmp/ph 26 20 scan shipped1024,shipped896,shipped768,shipped640,shipped512 2>&1 | tee "$R/scan26.txt"
timeout 150 /tmp/ph 28 15 scan shipped1024,shipped768,shipped512,diagcopy,diaglocal 2>&1 | tee "$R/scan28.txt"
timeout 200 /tmp/ph 28 15 conv cshipped,cpair,cquad,coct,cquad3 2>&1 | tee "$R/conv28.txt"
