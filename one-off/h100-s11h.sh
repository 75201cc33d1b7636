#!/usr/bin/env bash
# Issue 13 session 11, call H (one H100): after the review's refactor (the split-totals kernel
# looked up through lane_kernel), gpu-scan's half_shaped_gpu, shaped_gpu and gpu tests with
# GPU_PRIMS_REQUIRE_GPU=1.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s11h ] || tar -C gpu-carry2 -xJf gpu-carry2/s11h.tar.xz; C=gpu-carry2/s11h
export GPU_PRIMS_REQUIRE_GPU=1
for b in $(ls $C); do
  $C/$b > "$OUT/$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$OUT/$b.log" | tail -1)"
done
