#!/usr/bin/env bash
# Session 18, call E (one H200): Nsight Compute on the library's radix-32 transforms
# (one-off/fft-conv-harness.cu's N8192_E32_B2_PF0 and N16384_E32_B1_PF0, the library's
# pair kernel) and the 4096-point lean pair: where the blocks wait now (stall reasons, and the
# stall samples per SASS opcode and instruction by one-off/ncu-sass-stalls.py).
set -u
cd "$(dirname "$0")/.."
R="$OUT/x18e"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include one-off/fft-conv-harness.cu -o /tmp/fh > "$R/build.txt" 2>&1; echo "build rc=$? $(( $(date +%s) - s ))s"
for v in N4096_E32_B3_lean N8192_E32_B2_PF0 N16384_E32_B1_PF0; do
  s=$(date +%s)
  timeout 90 ncu --set full --import-source no -k regex:kfft -c 1 -o "$R/ncu-$v" /tmp/fh ncu $v > "$R/ncu-$v.log" 2>&1
  echo "ncu $v rc=$? $(( $(date +%s) - s ))s"
  ncu -i "$R/ncu-$v.ncu-rep" --page details > "$R/ncu-$v.txt" 2>&1
  ncu -i "$R/ncu-$v.ncu-rep" --page source --csv --print-source sass > "$R/ncu-$v-sass.csv" 2>&1
  grep -E "Duration|Issue Slots Busy|Executed Ipc A|No Eligible|Achieved Occupancy|Warp Cycles Per Issued|Shared Memory Throughput|L1/TEX Hit|Mem Pipes Busy" "$R/ncu-$v.txt" | head -14
  python3 one-off/ncu-sass-stalls.py "$R/ncu-$v-sass.csv" 12 > "$R/stalls-$v.txt" 2>&1; head -32 "$R/stalls-$v.txt"
  rm -f "$R/ncu-$v.ncu-rep" "$R/ncu-$v-sass.csv"
done
(cd "$OUT" && tar czf x18e.tgz x18e && rm -rf x18e)
