#!/usr/bin/env bash
# Session 8, call E (one H200): gpu-scan's GPU suites not run in calls C and D, on the final
# build (GPU_PRIMS_REQUIRE_GPU=1), and prefetch_gpu once more. Carry: one-off/carry-s8e.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/e8.tar.xz; C=gpu-carry2/e8
R="$OUT/s8e"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in prefetch_gpu shaped_gpu half_shaped_gpu host_pipeline tuning_gpu properties; do
  s=$(date +%s); timeout 150 $C/gpu-scan__$b > "$R/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked" -A3 "$R/test-$b.txt" | head -12
done
(cd "$OUT" && tar czf s8e.tgz s8e && rm -rf s8e)
