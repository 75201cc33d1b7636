#!/usr/bin/env bash
# Session 24 (2026-12-03), call D (one H200). Carry: one-off/carry-x24d.sh.
# 1. Alone on the GPU, twice: conv1d-fft 2^26 `same`, zero boundary, this build (the sizes and
#    crossings refitted from calls B and C): issue 19's widths (D1, D2) and `Auto` on both sides
#    of each moved crossing (D3-D7).
# 2. Untimed, side by side: every gpu-conv1d GPU test binary but oom_gpu (fft_gpu without its
#    every-size tests, which calls A and B ran on these kernels); then oom_gpu alone.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x24d
D1="--types f32 --widths 1023,4095,16383 --no-direct-above 0 --sizes 4096,16384,32768"
D2="--types f64 --widths 1023,4095 --no-direct-above 0 --sizes 2048,4096,16384"
D3="--types f32 --widths 70,90,700,800,1200,1300,5700,5900 --no-direct-above 0 --sizes 512,1024,2048,4096,8192,16384,32768"
D4="--types f16,bf16 --widths 1200,1250,1270,4700,4900 --no-direct-above 0 --sizes 4096,16384,32768"
D5="--types f64 --widths 1400,1500 --no-direct-above 0 --sizes 4096,8192"
D6="--types f32 --widths 27800,28100 --no-direct-above 0 --sizes 32768,1048576"
D7="--types f64 --widths 13000,13200 --no-direct-above 0 --sizes 16384,1048576"
for k in 1 2; do
  for b in 1 2 3 4 5 6 7; do
    eval "args=\$D$b"
    bench d$b-$k 90 $C/benches__conv1d-fft $args
  done
done
echo "benches done at $(( $(date +%s) - T0 ))s"
export GPU_PRIMS_REQUIRE_GPU=1
P=gpu-conv1d
(t gpu ${P}__gpu 250) > "$R/bg1.txt" 2>&1 &
(t fft-rest ${P}__fft_gpu 250 --skip every_size) > "$R/bg2.txt" 2>&1 &
(t host-pipeline ${P}__host_pipeline 250; t tuning ${P}__tuning_gpu 100) > "$R/bg3.txt" 2>&1 &
(t unit ${P}__gpu_conv1d 200; t axis ${P}__axis_gpu 150; t kernels ${P}__kernels 100; t properties ${P}__properties 150; t inputs ${P}__inputs 100) > "$R/bg4.txt" 2>&1 &
wait
cat "$R"/bg*.txt
t oom ${P}__oom_gpu 100
t fault ${P}__fault_injection 100
echo "all done at $(( $(date +%s) - T0 ))s"
