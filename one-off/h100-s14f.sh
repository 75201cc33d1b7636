#!/usr/bin/env bash
# Issue 13 session 14, call F (one H100): wgmma harness variants at 2^28 f16 — ptxas serializes
# the wgmma chain of wg64 (warning C7514) but not of wg64m9 (9 blocks per SM) or wg64a (outputs
# staged in the B regions after a barrier) / wg64a10 (the same, 10 blocks per SM).
set -u
cd "$(dirname "$0")/.."
R="$OUT/s14f"; mkdir -p "$R"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include -DKERNEL_FILE='"../kernels/conv1d_sm80.cu"' -Xptxas -v -o /tmp/wgh one-off/wgmma-harness.cu > "$R/nvcc.log" 2>&1 || { grep -v C7514 "$R/nvcc.log" | grep -v C75 | head -30; exit 1; }
grep -c C7514 "$R/nvcc.log"
V="${VARIANTS:-wg64,wg64a}"
timeout 100 /tmp/wgh 22 3 127 "$V" 2>&1 | grep -E "^check" | grep -v " 0, 0 outputs differ" | grep -v "w=1000" | head
SKIP_CHECKS=1 timeout 200 /tmp/wgh 28 20 ${W28:-31,127,255} "$V" 2>&1 | tee "$R/n28.txt" | grep -E "^w=|copy|non-finite"
SKIP_CHECKS=1 timeout 100 /tmp/wgh 28 20 127 "$V" 2>&1 | grep -E "^w=|copy"
