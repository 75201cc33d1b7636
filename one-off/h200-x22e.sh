#!/usr/bin/env bash
# Session 22 (2026-12-03), call E (one H200). Carry: one-off/carry-x22e.sh (final, then bf16).
# 1. Alone on the GPU, twice: `Auto` at issue 19's widths (f32 and f64: 1023, 4095, 16383) and
#    the refitted crossings with the padded spans (f32 2400-2500 and f32, f16 6143-6300, both
#    sizes beside); then bf16 spans with pair I/O (one-off/fft-eo-bf16-pairs.patch) against the
#    final build, alternating three times (w 3071, 4095, 4096, 6000 at 16384; 8191, 16383 at
#    32768).
# 2. Then, side by side: gpu-conv1d's gpu tests (gpu_shared_by_16_threads with bf16 w = 2400),
#    the bf16 build's every-size bf16 test and synccheck and memcheck over its
#    gpu_fft_sanitize_even_odd; then oom_gpu alone.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x22e
B=$C/benches__conv1d-fft
X=$C/bf16pairs__benches__conv1d-fft
for k in 1 2; do
  bench i$k 120 $B --types f32,f64 --widths 1023,4095,16383 --no-direct-above 0 --sizes 1
  bench s$k 60 $B --types f32 --widths 2400,2450,2451,2500 --no-direct-above 0 --sizes 8192,16384
  bench l$k 60 $B --types f32,f16 --widths 6143,6200,6201,6300 --no-direct-above 0 --sizes 16384,32768
done
for k in 1 2 3; do
  bench bnew$k 60 $X --types bf16 --widths 3071,4095,4096,6000 --no-direct-above 0 --sizes 16384
  bench bbase$k 60 $B --types bf16 --widths 3071,4095,4096,6000 --no-direct-above 0 --sizes 16384
  bench xnew$k 60 $X --types bf16 --widths 8191,16383 --no-direct-above 0 --sizes 32768
  bench xbase$k 60 $B --types bf16 --widths 8191,16383 --no-direct-above 0 --sizes 32768
done
bench_summary
export GPU_PRIMS_REQUIRE_GPU=1
(t gpu gpu-conv1d__gpu 300) > "$R/bg1.txt" 2>&1 &
(t bf16-every bf16pairs__gpu-conv1d__fft_gpu 300 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg2.txt" 2>&1 &
(san synceo synccheck 200 bf16pairs__gpu-conv1d__fft_gpu gpu_fft_sanitize_even_odd
 san memeo memcheck 200 bf16pairs__gpu-conv1d__fft_gpu gpu_fft_sanitize_even_odd) > "$R/bg3.txt" 2>&1 &
wait
cat "$R"/bg*.txt
t oom gpu-conv1d__oom_gpu 120
echo "all done at $(( $(date +%s) - T0 ))s"
