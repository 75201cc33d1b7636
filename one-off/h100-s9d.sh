#!/usr/bin/env bash
# Issue 12 session 9, call D (one H100): gpu-reduce's and gpu-conv1d's host_pipeline tests with
# argmin/argmax and the FFT path past 2^31 values, GPU_PRIMS_REQUIRE_GPU=1.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s9d ] || tar -C gpu-carry2 -xJf gpu-carry2/s9d.tar.xz; C=gpu-carry2/s9d
R="$OUT/s9d"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-reduce__host_pipeline gpu-conv1d__host_pipeline; do
  s=$(date +%s)
  timeout 250 $C/$b --test-threads=1 > "$R/$b.log" 2>&1
  echo "$b rc=$? $(grep -E '^test result' "$R/$b.log") $(( $(date +%s) - s ))s"
  grep -E "panicked" -A6 "$R/$b.log" | head -10
  grep -E "^test .*more_than" "$R/$b.log"
done
