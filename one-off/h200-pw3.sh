#!/usr/bin/env bash
# Issue 24 session 3, call W3 (one H200): fixed-width conv1d f32, outputs per thread K and block
# size as policies (K 16/24/32, 64/128/256 threads, occupancy bounds) at 2^28, 2^26, 2^24; SASS of
# the shipped w 31 kernel and the K 32 one.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pw3"; mkdir -p "$R"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/wp one-off/warp-pipe-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
cuobjdump -sass -fun '_Z12conv_shippedILi31EEvPKfPfyyyxiyN2gp15Conv1dFixedMaskIfXT_EEE' /tmp/wp > "$R/sass-shipped31.txt" 2>&1
cuobjdump -sass -fun '_Z12conv_fixed_vILi31ELi32ELi0ELi128ELi8EEvPKfPfyyyxiyN2gp15Conv1dFixedMaskIfXT_EEE' /tmp/wp > "$R/sass-k32-31.txt" 2>&1
V=shipped,v0k32,v0k32b64,v0k32b256,v0k24,v0k16m12,v0k16b64,v0k32m6
timeout 150 /tmp/wp 28 15 $V 7,15,23,31 2>&1 | tee "$R/conv28.txt"
timeout 80 /tmp/wp 26 25 $V 15,31 2>&1 | tee "$R/conv26.txt"
timeout 60 /tmp/wp 24 40 $V 15,31 2>&1 | tee "$R/conv24.txt"
timeout 60 /tmp/wp 22 10 shipped,v0k32b64,v0k24 7,31 7 2>&1 | tee "$R/rows7.txt"
