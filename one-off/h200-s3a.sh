#!/usr/bin/env bash
# Issue 24 session 3, call A (one H200): the wide-tile f32 kernels (conv1d_auto_wide_w<W>_f32):
# gpu-conv1d's GPU tests and gpu-core's tuning test, then memcheck, racecheck and synccheck over
# the tuned-crossover test (every wide kernel against the 16-output ones, bit for bit).
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/a.tar.xz; C=gpu-carry2/a
R="$OUT/a"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
declare -A T=([gpu-conv1d__gpu]=170)
for b in gpu-core__tuning_gpu gpu-conv1d__tuning_gpu gpu-conv1d__gpu gpu-conv1d__kernels gpu-conv1d__properties; do
  s=$(date +%s); timeout ${T[$b]:-80} $C/$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked|failed" "$R/logs/test-$b.txt" | head -5
done
grep -h "wide tiles" "$R"/logs/test-gpu-conv1d__tuning_gpu.txt
for t in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 100 compute-sanitizer --tool $t --report-api-errors no $C/gpu-conv1d__tuning_gpu > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
