#!/usr/bin/env bash
# Session 15, call A (one H200): the FFT convolution's block kernel beside policy variants
# (one-off/fft-conv-harness.cu, nvcc sm_90), then Nsight Compute on three of them.
set -u
cd "$(dirname "$0")/.."
R="$OUT/x15a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-conv-harness.cu -o /tmp/fh > "$R/build.txt" 2>&1; echo "build rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); timeout 120 /tmp/fh 20 > "$R/harness.txt" 2>&1; echo "harness rc=$? $(( $(date +%s) - s ))s"
cat "$R/harness.txt"
s=$(date +%s); timeout 60 /tmp/fh 20 > "$R/harness2.txt" 2>&1; echo "harness2 rc=$? $(( $(date +%s) - s ))s"
cat "$R/harness2.txt"
for v in N4096_E16_B3_PF0 N16384_E16_B1_PF0 N16384_E32_B1_PF0; do
  s=$(date +%s)
  timeout 150 ncu --set full -k regex:kfft -c 1 -o "$R/ncu-$v" /tmp/fh ncu $v > "$R/ncu-$v.log" 2>&1
  echo "ncu $v rc=$? $(( $(date +%s) - s ))s"
  ncu -i "$R/ncu-$v.ncu-rep" --page details > "$R/ncu-$v.txt" 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc A|L1/TEX Hit|Shared.*Bank|Local Memory|Warp Cycles Per Issued|No Eligible" "$R/ncu-$v.txt" | head -30
done
(cd "$OUT" && tar czf x15a.tgz x15a && rm -rf x15a)
