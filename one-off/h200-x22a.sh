#!/usr/bin/env bash
# Session 22 (2026-12-03), call A (one H200). Carry: one-off/carry-x22a.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, Strategy::Fft, this build (tiles
#    of an even length from 16384 span points; f32 16384-point spans through the pairs kernel
#    for even masks too; f64 spans with 16-byte pair I/O) against 4117e4f, alternating three
#    times: f32 and f16 at 16384 (w 4095, 4096, 5000, 6142) and 32768 (8191, 8192, 12000)
#    points; f64 and bf16 at 16384 (4095, 4096, 8191, 12000).
# 2. Untimed, side by side: fft_gpu's every-size tests of the four types and its other tests,
#    gpu-conv1d's gpu, host_pipeline, axis_gpu and tuning_gpu tests, synccheck and memcheck
#    over gpu_fft_sanitize_even_odd.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x22a
B1="--types f32,f16 --widths 4095,4096,5000,6142 --no-direct-above 0 --sizes 16384"
B2="--types f32,f16 --widths 8191,8192,12000 --no-direct-above 0 --sizes 32768"
B3="--types f64,bf16 --widths 4095,4096,8191,12000 --no-direct-above 0 --sizes 16384"
for k in 1 2 3; do
  bench new$k 60 $C/benches__conv1d-fft $B1
  bench base$k 60 $C/base__conv1d-fft $B1
  bench xnew$k 60 $C/benches__conv1d-fft $B2
  bench xbase$k 60 $C/base__conv1d-fft $B2
  bench dnew$k 60 $C/benches__conv1d-fft $B3
  bench dbase$k 60 $C/base__conv1d-fft $B3
done
bench_summary
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
(t f32-every $F 300 gpu_fft_every_size_mode_boundary_f32; t f64-every $F 300 gpu_fft_every_size_mode_boundary_f64) > "$R/bg1.txt" 2>&1 &
(t f16-every $F 300 gpu_fft_every_size_mode_boundary_f16) > "$R/bg2.txt" 2>&1 &
(t bf16-every $F 300 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg3.txt" 2>&1 &
(t fft-rest $F 300 --skip every_size; t gpu gpu-conv1d__gpu 300; t host-pipeline gpu-conv1d__host_pipeline 200
 t axis gpu-conv1d__axis_gpu 200; t tuning gpu-conv1d__tuning_gpu 200) > "$R/bg4.txt" 2>&1 &
(san synceo synccheck 200 $F gpu_fft_sanitize_even_odd; san memeo memcheck 200 $F gpu_fft_sanitize_even_odd) > "$R/bg5.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
