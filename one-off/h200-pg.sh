#!/usr/bin/env bash
# Issue 24 session 2, call G (one H200): gpu-conv1d's GPU tests on the current build (the
# tensor-core launch refactor 7af53c9 and the warpgroup host-pipeline test, never run before).
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/g.tar.xz; C=gpu-carry2/g
R="$OUT/g"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
declare -A T=([gpu-conv1d__gpu]=110 [gpu-conv1d__host_pipeline]=80 [gpu-conv1d__kernels]=70)
for b in gpu-conv1d__gpu gpu-conv1d__host_pipeline gpu-conv1d__properties gpu-conv1d__tuning_gpu gpu-conv1d__kernels; do
  s=$(date +%s); timeout ${T[$b]:-60} $C/$b > "$R/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked|failed" "$R/test-$b.txt" | head -5
done
