#!/usr/bin/env bash
# Session 29 (2026-12-04), call G (one H200). Carry: one-off/carry-s29g.sh.
# Untimed, side by side: the staged suite (built-in rule from 2^24), shaped_gpu and
# host_pipeline; compute-sanitizer memcheck and racecheck over the staged suite's short cases
# (the narrow tiles among them, new since call C).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s29g
export GPU_PRIMS_REQUIRE_GPU=1
(t staged gpu-scan__columns_staged_gpu 120 --nocapture; t shaped gpu-scan__shaped_gpu 150) > "$R/bg0.txt" 2>&1 &
(t hostpipe gpu-scan__host_pipeline 200) > "$R/bg1.txt" 2>&1 &
(STAGED_TEST_MAX_LEN=300000 san mem memcheck 120 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu
 STAGED_TEST_MAX_LEN=170000 san race racecheck 150 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu) > "$R/bg2.txt" 2>&1 &
wait
cat "$R"/bg*.txt
grep -h "staged column spans:" "$R"/staged.log "$R"/san-*.log
echo "all done at $(( $(date +%s) - T0 ))s"
