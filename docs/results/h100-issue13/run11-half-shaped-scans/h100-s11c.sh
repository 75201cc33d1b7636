#!/usr/bin/env bash
# Issue 13 session 11, call C (one H100): the fixed half_shaped_gpu test binary, and the
# compute-sanitizer runs of its device_arrays_and_into test.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s11c ] || tar -C gpu-carry2 -xJf gpu-carry2/s11c.tar.xz; C=gpu-carry2/s11c
R="$OUT/s11c"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
$C/gpu-scan__half_shaped_gpu > "$R/half_shaped_gpu.log" 2>&1; echo "rc=$?"; grep -E "^test " "$R/half_shaped_gpu.log"
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 150 compute-sanitizer --tool $tool $extra --error-exitcode 9 $C/gpu-scan__half_shaped_gpu device_arrays_and_into --exact --test-threads=1 > "$R/sanitize-$tool.log" 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/sanitize-$tool.log" | tail -2 | tr '\n' ' ')"
done
