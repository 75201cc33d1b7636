#!/usr/bin/env bash
# Session 27 (2026-12-03), call A (one H200). Carry: one-off/carry-s27a.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same`, zero boundary, `Auto` and `Strategy::Fft` at the
#    size `Auto` takes: main (base) against the decimation-in-time register DFTs (new), in
#    turn, twice.
# 2. Untimed, side by side: new's fft_gpu (every test); compute-sanitizer memcheck, synccheck
#    and racecheck over gpu_fft_sanitize_radix32 and memcheck over gpu_fft_sanitize_even_odd;
#    the four bundle binaries the last session did not reach.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s27a
E1="--types f32 --widths 127,255,1023,2047,4095,16383 --no-direct-above 0 --sizes 1"
E2="--types f16,bf16,f64 --widths 1023,4095 --no-direct-above 0 --sizes 1"
for k in 1 2; do
  for b in 1 2; do
    eval "args=\$E$b"
    for v in base new; do bench $v$b-$k 60 $C/${v}__conv1d-fft $args; done
  done
done
bench_summary > /dev/null
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
(t fft-all $F 330) > "$R/bg0.txt" 2>&1 &
(san mem-r32 memcheck 200 $F gpu_fft_sanitize_radix32; san sync-r32 synccheck 150 $F gpu_fft_sanitize_radix32) > "$R/bg1.txt" 2>&1 &
(san race-r32 racecheck 330 $F gpu_fft_sanitize_radix32) > "$R/bg2.txt" 2>&1 &
(san mem-eo memcheck 150 $F gpu_fft_sanitize_even_odd; t scan-builder gpu-scan__scan_builder 150; t sync-unit gpu-sync__gpu_sync 100) > "$R/bg3.txt" 2>&1 &
(t scan-kernels gpu-scan__kernels 330) > "$R/bg4.txt" 2>&1 &
(t scan-status gpu-scan__status_reuse_gpu 200) > "$R/bg5.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
