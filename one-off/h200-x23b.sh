#!/usr/bin/env bash
# Session 23 (2026-12-03), call B (one H200). Carry: one-off/carry-x23b.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, f16 around its new crossing
#    (`Auto` and both span sizes), twice.
# 2. Untimed, side by side: fft_gpu (f16 every size, and the tests other than every-size), gpu,
#    the unit tests, host_pipeline; then oom_gpu alone.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x23b
X="--types f16 --widths 5500,5650,5651,5800,6000,6143 --no-direct-above 0 --sizes 16384,32768"
for k in 1 2; do bench f16x-$k 60 $C/benches__conv1d-fft $X; done
bench_summary
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
(t f16-every $F 280 gpu_fft_every_size_mode_boundary_f16) > "$R/bg1.txt" 2>&1 &
(t fft-rest $F 280 --skip every_size) > "$R/bg2.txt" 2>&1 &
(t gpu gpu-conv1d__gpu 280) > "$R/bg3.txt" 2>&1 &
(t unit gpu-conv1d__gpu_conv1d 200; t host-pipeline gpu-conv1d__host_pipeline 250) > "$R/bg4.txt" 2>&1 &
wait
cat "$R"/bg*.txt
t oom gpu-conv1d__oom_gpu 100
echo "all done at $(( $(date +%s) - T0 ))s"
