#!/usr/bin/env bash
# Issue 24 session 3, call W2 (one H200): the shipped fixed-width conv1d loop with its output
# staging as a policy (scalar at the shift = shipped; 16-byte stores, the shift in registers),
# K = 8 / 16 / 32 outputs per thread; rows of odd length (every shift); then Nsight Compute on w 31.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pw2"; mkdir -p "$R"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/wp one-off/warp-pipe-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
timeout 150 /tmp/wp 28 15 shipped,v0,v1,v2,v0k32,v2k32,v2k8 3,7,15,23,31 2>&1 | tee "$R/conv28.txt"
timeout 60 /tmp/wp 24 40 shipped,v2,v2k32 3,7,31 2>&1 | tee "$R/conv24.txt"
timeout 60 /tmp/wp 22 10 shipped,v2,v2k32,v2k8 7,31 7 2>&1 | tee "$R/rows7.txt"
timeout 60 /tmp/wp 21 5 shipped,v2,v2k32 3,31 5 2>&1 | tee "$R/rows5.txt"
for k in conv_shipped conv_fixed_v; do
  timeout 60 ncu --kernel-name regex:$k --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis /tmp/wp 24 3 shipped,v2 31 > "$R/ncu-$k.txt" 2>&1
done
grep -E "Throughput|Busy|Stall|Bank|Pipe|Issue" "$R"/ncu-*.txt | head -60
