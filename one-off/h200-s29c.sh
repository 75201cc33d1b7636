#!/usr/bin/env bash
# Session 29 (2026-12-04), call C (one H200). Carry: one-off/carry-s29c.sh.
# 1. (call C only) Alone on the GPU: i32 long column scans and f32 16384x16384 F axis 1, staged spans off
#    (tuning table) and on, alternating.
# 2. Untimed: the staged suite in full, and compute-sanitizer over it cut to short cases.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s29c
echo "scan.column_staged_from = 2^40" > /tmp/unstaged.tune
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 F axis 1"
for v in unstaged staged; do
  if [ $v = unstaged ]; then export GPU_PRIMS_TUNING=/tmp/unstaged.tune; else unset GPU_PRIMS_TUNING; fi
  bench $v-i32 70 $C/benches__shapes --quick --no-conv --scans-only --types i32,f32 --cases "$CASES" --out "$R/$v-i32"
  cat "$R/$v-i32.tsv" "$R/$v-i32.err" | grep -E "^shapes: (copy|cumsum)" | sed 's/^shapes: //' | cut -c1-110
done
unset GPU_PRIMS_TUNING
echo "benches done at $(($(date +%s) - T0))s"
export GPU_PRIMS_REQUIRE_GPU=1
(STAGED_TEST_MAX_LEN=300000 san mem memcheck 200 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu
 STAGED_TEST_MAX_LEN=300000 san sync synccheck 200 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu) > "$R/bg0.txt" 2>&1 &
(STAGED_TEST_MAX_LEN=140000 san race racecheck 400 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu) > "$R/bg1.txt" 2>&1 &
(t staged gpu-scan__columns_staged_gpu 200 --nocapture) > "$R/bg2.txt" 2>&1 &
wait
cat "$R"/bg*.txt
grep -h "staged column spans:" "$R"/staged.log "$R"/san-*.log
echo "all done at $(( $(date +%s) - T0 ))s"
