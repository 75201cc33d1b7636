#!/usr/bin/env bash
# Session 29 (2026-12-04), call A (one H200). Carry: one-off/carry-s29a.sh.
# 1. Alone on the GPU, twice each, alternating: the shapes bench's long column scans (f32) with
#    the staged spans off (a tuning table: scan.column_staged_from = 2^40, the kernels before
#    this change) and on (the built-in H200 tuning).
# 2. Untimed, side by side: the new columns_staged_gpu suite, gpu-conv1d's gpu, oom_gpu and unit
#    tests (owed since 6fee1e1), gpu-scan's unit tests and shaped_gpu.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s29a
echo "scan.column_staged_from = 2^40" > /tmp/unstaged.tune
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
for k in 1 2; do
  for v in unstaged staged; do
    if [ $v = unstaged ]; then export GPU_PRIMS_TUNING=/tmp/unstaged.tune; else unset GPU_PRIMS_TUNING; fi
    bench $v-$k 70 $C/benches__shapes --quick --no-conv --scans-only --types f32 --cases "$CASES" --out "$R/$v-$k"
    cat "$R/$v-$k.tsv" "$R/$v-$k.err" | grep -E "^shapes: (copy|cumsum)" | sed 's/^shapes: //' | cut -c1-110
  done
done
unset GPU_PRIMS_TUNING
echo "benches done at $(($(date +%s) - T0))s"
export GPU_PRIMS_REQUIRE_GPU=1
(t staged gpu-scan__columns_staged_gpu 250 --nocapture; t scan-unit gpu-scan__gpu_scan 60) > "$R/bg0.txt" 2>&1 &
(t conv-gpu gpu-conv1d__gpu 280; t conv-unit gpu-conv1d__gpu_conv1d 60) > "$R/bg1.txt" 2>&1 &
(t conv-oom gpu-conv1d__oom_gpu 120; t shaped gpu-scan__shaped_gpu 200) > "$R/bg2.txt" 2>&1 &
wait
cat "$R"/bg*.txt
grep -h "staged column spans:" "$R/staged.log"
echo "all done at $(( $(date +%s) - T0 ))s"
