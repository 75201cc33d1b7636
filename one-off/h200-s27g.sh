#!/usr/bin/env bash
# Session 27 (2026-12-03), call G (one H200). Carry: one-off/carry-s27g.sh. Untimed:
# gpu-conv1d's GPU tests on the final build (refitted FFT sizes, cuFFT and warp-group
# crossings): oom_gpu alone (it fills the device), then the others side by side.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s27g
export GPU_PRIMS_REQUIRE_GPU=1
t oom gpu-conv1d__oom_gpu 90
(t fft gpu-conv1d__fft_gpu 330) > "$R/bg0.txt" 2>&1 &
(t gpu gpu-conv1d__gpu 330) > "$R/bg1.txt" 2>&1 &
(t kernels gpu-conv1d__kernels 330) > "$R/bg2.txt" 2>&1 &
(t faults gpu-conv1d__fault_injection 330; t tuning gpu-conv1d__tuning_gpu 100; t unit gpu-conv1d__gpu_conv1d 100) > "$R/bg3.txt" 2>&1 &
(t host gpu-conv1d__host_pipeline 330; t axis gpu-conv1d__axis_gpu 100; t props gpu-conv1d__properties 100; t inputs gpu-conv1d__inputs 100) > "$R/bg4.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
