#!/usr/bin/env bash
# Session 32 (2026-12-04), call E (one H200), carry gpu-carry3/s32e.tar.xz: gpu-reduce's
# shaped_gpu of the final build (lanes_sanitize_every_mapping now also reduces i32 xor and f16
# sum and max over every mapping: the changed columns kernels, both lane widths, and the
# 16-bit thread-per-lane-group kernel), then compute-sanitizer memcheck (API errors not
# reported: the host pipeline's probe of pageable memory is one by design), synccheck and
# racecheck over that test, side by side (untimed).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s32e
C2=$C/gpu-reduce__shaped_gpu
( t shaped gpu-reduce__shaped_gpu 150 ) &
( timeout 170 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-mem.log" 2>&1
  echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|test result' "$R/san-mem.log" | tr '\n' ' ')" ) &
( timeout 170 compute-sanitizer --tool synccheck --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-sync.log" 2>&1
  echo "synccheck rc=$? $(grep -E 'ERROR SUMMARY|test result' "$R/san-sync.log" | tr '\n' ' ')" ) &
( timeout 170 compute-sanitizer --tool racecheck --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-race.log" 2>&1
  echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result' "$R/san-race.log" | tr '\n' ' ')" ) &
wait
echo "all done at $(($(date +%s) - T0))s"
