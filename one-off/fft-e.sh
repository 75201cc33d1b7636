#!/usr/bin/env bash
# FFT path, call E: Nsight Compute on the FFT kernels (2048 points at w 1023, 16384 at w 4095,
# 512 at w 3), one launch each, for the next steps.
set -u
cd "$(dirname "$0")/.."
R="$OUT/fft-e"; mkdir -p "$R"
for spec in "2048 1023" "16384 4095" "512 3"; do
  set -- $spec
  timeout 150 ncu --kernel-name "conv1d_fft$1_f32" --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    --section MemoryWorkloadAnalysis --section SchedulerStats \
    gpu-carry2/conv1d-fft --log2 24 --types f32 --widths $2 > "$R/ncu-$1.txt" 2>&1
  echo "ncu $1 rc=$?"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Stall|Issued Ipc|Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Shared Memory" "$R/ncu-$1.txt" | head -40
done
