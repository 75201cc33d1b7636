#!/usr/bin/env bash
# Session 24 (2026-12-03), call E (one H200, the session's last device seconds). Carry:
# one-off/carry-x24e.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, `Auto` and `Strategy::Fft` at the
#    size `Auto` takes, call D's build (d, shipped) against n3 (the spans' finiteness checks
#    dropped), alternating twice.
# 2. Untimed, side by side: n3's fft_gpu (the other tests first: they hold the non-finite cases),
#    then the every-size tests, as far as the budget goes.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x24e
E1="--types f32 --widths 127,1023,2047,4095,16383 --no-direct-above 0 --sizes 1"
E2="--types f16,f64 --widths 1023,4095 --no-direct-above 0 --sizes 1"
for k in 1 2; do
  for b in 1 2; do
    eval "args=\$E$b"
    for v in d n3; do bench $v$b-$k 60 $C/${v}__conv1d-fft $args; done
  done
done
bench_summary > /dev/null
echo "benches done at $(( $(date +%s) - T0 ))s"
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
t fft-rest $F 120 --skip every_size
(t f32-every $F 200 gpu_fft_every_size_mode_boundary_f32) > "$R/bg1.txt" 2>&1 &
(t f64-every $F 200 gpu_fft_every_size_mode_boundary_f64) > "$R/bg2.txt" 2>&1 &
(t f16-every $F 200 gpu_fft_every_size_mode_boundary_f16) > "$R/bg3.txt" 2>&1 &
(t bf16-every $F 200 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg4.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
