#!/usr/bin/env bash
# Session 22 (2026-12-03), call D (one H200). Carry: one-off/carry-x22d.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, Strategy::Fft, this build (from
#    16384 span points, masks whose `same` offset is odd get a leading zero so that spans and
#    outputs share their alignment: fft_pad) against call A's kernels (81e2000), alternating
#    three times: w ≡ 3 and 2 (mod 4), which change, and w ≡ 0 and 1, which must not, at 16384
#    and 32768 points (f32, f16), f64 and bf16 at 16384, and f32 at 4096 points (no pad there).
# 2. Untimed, side by side: every gpu-conv1d test binary but fault_injection and oom_gpu
#    (fft_gpu in four processes), synccheck and memcheck over gpu_fft_sanitize_even_odd; then
#    fault_injection and oom_gpu alone.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x22d
B1="--types f32,f16 --widths 3071,4093,4094,4095,4096,5002 --no-direct-above 0 --sizes 16384"
B2="--types f32,f16 --widths 8190,8191,8192,16383 --no-direct-above 0 --sizes 32768"
B3="--types f64,bf16 --widths 4094,4095,4096,8191 --no-direct-above 0 --sizes 16384"
B4="--types f32 --widths 1023,1025 --no-direct-above 0 --sizes 4096"
for k in 1 2 3; do
  for b in 1 2 3 4; do
    eval "args=\$B$b"
    bench new$b-$k 60 $C/benches__conv1d-fft $args
    bench base$b-$k 60 $C/base__conv1d-fft $args
  done
done
bench_summary
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
(t f32-every $F 300 gpu_fft_every_size_mode_boundary_f32; t f64-every $F 300 gpu_fft_every_size_mode_boundary_f64) > "$R/bg1.txt" 2>&1 &
(t f16-every $F 300 gpu_fft_every_size_mode_boundary_f16) > "$R/bg2.txt" 2>&1 &
(t bf16-every $F 300 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg3.txt" 2>&1 &
(t fft-rest $F 300 --skip every_size; t gpu gpu-conv1d__gpu 300; t axis gpu-conv1d__axis_gpu 200
 t tuning gpu-conv1d__tuning_gpu 200; t kernels gpu-conv1d__kernels 200) > "$R/bg4.txt" 2>&1 &
(t host-pipeline gpu-conv1d__host_pipeline 300; t properties gpu-conv1d__properties 200
 t inputs gpu-conv1d__inputs 200; t unit gpu-conv1d__gpu_conv1d 200; t cpu gpu-conv1d__cpu 200
 t axis-cpu gpu-conv1d__axis_cpu 200) > "$R/bg5.txt" 2>&1 &
(san synceo synccheck 200 $F gpu_fft_sanitize_even_odd; san memeo memcheck 200 $F gpu_fft_sanitize_even_odd) > "$R/bg6.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "parallel tests done at $(( $(date +%s) - T0 ))s"
t fault gpu-conv1d__fault_injection 120
t oom gpu-conv1d__oom_gpu 120
echo "all done at $(( $(date +%s) - T0 ))s"
