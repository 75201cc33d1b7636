#!/usr/bin/env bash
# Issue 13 session 14, call C (one H100): double-buffered wgmma variants, checked at 2^24
# (rows of odd lengths, every width), timed at 2^28 f16.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s14c"; mkdir -p "$R"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include -DKERNEL_FILE='"../kernels/conv1d_sm80.cu"' -o /tmp/wgh one-off/wgmma-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
V="${VARIANTS:-wg64,wgdb64,wgdb64m6,wgdb32}"
timeout 100 /tmp/wgh 24 10 127 "$V" > "$R/n24.txt" 2>&1
grep -v "^check" "$R/n24.txt"; grep "^check" "$R/n24.txt" | grep -v " 0, 0 outputs differ"
SKIP_CHECKS=1 timeout 200 /tmp/wgh 28 20 ${W28:-31,127,255} "$V" 2>&1 | tee "$R/n28.txt"
compute-sanitizer --tool racecheck /tmp/wgh 14 1 31 wgdb64 2>&1 | tail -2
compute-sanitizer --tool memcheck /tmp/wgh 14 1 31 wgdb64 2>&1 | tail -2
