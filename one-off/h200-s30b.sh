#!/usr/bin/env bash
# Session 30 (2026-12-04), call B (one H200). Carry: one-off/carry-s30b.sh.
# 1. Alone on the GPU: which operators and types the staged column spans help. Along axis 0 of
#    C-order 4194304x64, 262144x1024 and 16384x16384, staged spans off (tuning table) and on:
#    cummax f32/i32/f64, cumsum f64/i64, cumprod u32/i64.
# 2. gpu-scan's unit tests (COLUMN_STATIC_SHARED against the kernels).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s30b
echo "scan.column_staged_from = 2^40" > /tmp/unstaged.tune
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
for spec in "max f32,i32,f64" "sum f64,i64" "product u32,i64"; do
  set -- $spec
  for v in unstaged staged; do
    if [ $v = unstaged ]; then export GPU_PRIMS_TUNING=/tmp/unstaged.tune; else unset GPU_PRIMS_TUNING; fi
    bench $v-$1 100 $C/benches__shapes --quick --no-conv --scans-only --types $2 --scan-op $1 --cases "$CASES" --out "$R/$v-$1"
    grep -hE "^shapes: (copy|cum)" "$R/$v-$1.tsv" "$R/$v-$1.err" | sed 's/^shapes: //' | cut -c1-90
  done
done
unset GPU_PRIMS_TUNING
echo "benches done at $(($(date +%s) - T0))s"
export GPU_PRIMS_REQUIRE_GPU=1
t scan-unit gpu-scan__gpu_scan 120
echo "all done at $(( $(date +%s) - T0 ))s"
