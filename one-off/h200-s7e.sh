#!/usr/bin/env bash
# Session 7, call E (one H200): the final build's tests (Auto's new warpgroup thresholds, the
# long-ones rule at 4000).
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/e7.tar.xz; C=gpu-carry2/e7
R="$OUT/s7e"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-conv1d__gpu gpu-conv1d__properties gpu-reduce__shaped_gpu; do
  s=$(date +%s); timeout 120 $C/$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked" -A3 "$R/logs/test-$b.txt" | head -12
done
(cd "$OUT" && tar czf s7e.tgz s7e && rm -rf s7e)
