#!/usr/bin/env bash
# Session 31 (2026-12-04), call C (one H200). Carry: one-off/carry-s31c.sh (the shipped rule).
# Untimed: the limits suite alone (it fills the GPU), then side by side the suites that reach the
# columns scans and compute-sanitizer (memcheck, synccheck, racecheck) over the staged suite's
# short cases and shaped_gpu's lanes_sanitize (sums and, new, f32 max over every mapping).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s31c
export GPU_PRIMS_REQUIRE_GPU=1
t limits gpu-scan__columns_staged_limits_gpu 200 --nocapture
grep -E "^staged spans" "$R/limits.log"
(t scan-unit gpu-scan__gpu_scan 60
 t staged gpu-scan__columns_staged_gpu 150 --nocapture
 t shaped gpu-scan__shaped_gpu 200
 t prefetch gpu-scan__prefetch_gpu 60
 t host gpu-scan__host_pipeline 120
 t props gpu-scan__properties 150 gpu) > "$R/bg0.txt" 2>&1 &
(STAGED_TEST_MAX_LEN=300000 san mem memcheck 100 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu
 STAGED_TEST_MAX_LEN=300000 san sync synccheck 100 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu
 STAGED_TEST_MAX_LEN=140000 san race racecheck 150 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu) > "$R/bg1.txt" 2>&1 &
(san lmem memcheck 200 gpu-scan__shaped_gpu lanes_sanitize
 san lsync synccheck 150 gpu-scan__shaped_gpu lanes_sanitize) > "$R/bg2.txt" 2>&1 &
(san lrace racecheck 330 gpu-scan__shaped_gpu lanes_sanitize) > "$R/bg3.txt" 2>&1 &
wait
cat "$R"/bg*.txt
grep -h "staged column spans:" "$R"/staged.log "$R"/san-*.log | sort | uniq -c
echo "all done at $(( $(date +%s) - T0 ))s"
