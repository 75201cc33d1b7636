#!/usr/bin/env bash
# Session 28 (2026-12-04), call A (one H200). Carry: one-off/carry-s28a.sh.
# Alone on the GPU, twice: conv1d-fft 2^26 `same`, zero boundary, `Auto` and `Strategy::Fft`:
# main's kernels (base), the mask's spectrum loaded through L2 only (l2spec: ld.global.cg, so
# that it does not evict the twiddle rows from L1), and the spectrum and the spans both
# (l2both). Then Nsight Compute's memory and warp-state sections of base's and l2spec's
# 32768-point spans (f32 w = 16383).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s28a
E1="--types f32 --widths 127,1023,2047,4095,8191,16383 --no-direct-above 0 --sizes 1"
E2="--types f16,bf16,f64 --widths 1023,4095,8191 --no-direct-above 0 --sizes 1"
for k in 1 2; do
  for b in 1 2; do
    eval "args=\$E$b"
    for v in base l2spec l2both; do bench $v$b-$k 60 $C/${v}__conv1d-fft $args; done
  done
done
bench_summary > /dev/null
for v in base l2spec; do
  timeout 150 ncu --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SpeedOfLight -c 1 -k regex:eo32768 \
    $C/${v}__conv1d-fft --types f32 --widths 16383 --no-direct-above 0 --sizes 1 > "$R/ncu-$v-eo32768.txt" 2>&1
  echo "ncu $v rc=$?"
done
echo "all done at $(( $(date +%s) - T0 ))s"
