#!/usr/bin/env bash
# Session 29 (2026-12-04), call B (one H200). Carry: one-off/carry-s29a.sh (the same build).
# Untimed: compute-sanitizer (memcheck, racecheck, synccheck) over the staged column spans'
# suite cut to short cases (STAGED_TEST_MAX_LEN), side by side with the whole staged suite,
# gpu-conv1d's gpu suite (both ran out of memory in call A beside oom_gpu, which fills the GPU
# on purpose), gpu-scan's host_pipeline and prefetch_gpu suites.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s29a s29b
export GPU_PRIMS_REQUIRE_GPU=1
(STAGED_TEST_MAX_LEN=300000 san mem memcheck 280 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu
 STAGED_TEST_MAX_LEN=300000 san sync synccheck 250 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu) > "$R/bg0.txt" 2>&1 &
(STAGED_TEST_MAX_LEN=140000 san race racecheck 520 gpu-scan__columns_staged_gpu gpu_staged_column_spans_match_the_cpu) > "$R/bg1.txt" 2>&1 &
(t staged gpu-scan__columns_staged_gpu 150 --nocapture; t conv-gpu gpu-conv1d__gpu 150; t hostpipe gpu-scan__host_pipeline 250) > "$R/bg2.txt" 2>&1 &
(t prefetch gpu-scan__prefetch_gpu 300) > "$R/bg3.txt" 2>&1 &
wait
cat "$R"/bg*.txt
for f in "$R"/san-*.log; do grep -h "staged column spans:" "$f"; done
echo "all done at $(( $(date +%s) - T0 ))s"
