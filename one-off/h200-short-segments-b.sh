#!/usr/bin/env bash
# Issue 12 on one H200 (2026-11-28, call B): the short-segments harness alone on the GPU
# (one-off/short-segments-harness.cu: policies, a persistent grid, the next tile's offsets in
# flight), then gpu-reduce's shaped_gpu with the fixed plan-limits test and the sanitizers over
# the short-segments tests. Carry: one-off/carry-short-segments-b.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/ssb.tar.xz; C=gpu-carry2/ssb
R="$OUT/short-segments-b"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-400} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s); nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include -o /tmp/ssh one-off/short-segments-harness.cu > "$R/logs/nvcc.log" 2>&1; echo "nvcc rc=$? $(( $(date +%s) - s ))s"; tail -5 "$R/logs/nvcc.log"
s=$(date +%s); timeout 150 /tmp/ssh 28 ${WHICH:-1} > "$R/harness.txt" 2>&1; echo "harness rc=$? $(( $(date +%s) - s ))s"; cat "$R/harness.txt"
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); timeout 100 $C/gpu-reduce__shaped_gpu > "$R/logs/test-shaped.txt" 2>&1; echo "shaped_gpu rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-shaped.txt" | tail -1)"
grep -E "FAILED|panicked" "$R/logs/test-shaped.txt" | head -5
for t in memcheck racecheck synccheck; do
  [ "$(left)" -gt 25 ] || { echo "$t skipped: deadline"; continue; }
  s=$(date +%s); timeout $(( $(left) > 110 ? 100 : $(left) - 10 )) compute-sanitizer --tool $t --report-api-errors no $C/gpu-reduce__shaped_gpu short_segments --skip every_type_operator --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
(cd "$OUT" && tar czf short-segments-b.tgz short-segments-b && rm -rf short-segments-b)
