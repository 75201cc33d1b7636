#!/usr/bin/env bash
# Session 9, call C (one H200). Carry: gpu-carry3/s9c.tar.xz (shaped_gpu test binary, shapes).
# 1. gpu-reduce shaped_gpu with the rewritten packed-rows test; the three sanitizers over it.
# 2. Alone on the GPU: every axis reduction and segment reduction (f32, i32) of the shapes
#    benchmark with the 200 ms warm-up and the packed rows' vector stores.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s9c.tar.xz; C=/tmp/c
R="$OUT/s9c"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); timeout 120 $C/shaped_gpu > "$R/test-shaped_gpu.txt" 2>&1; echo "shaped_gpu rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-shaped_gpu.txt")"
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 100 compute-sanitizer --tool $tool $C/shaped_gpu packed_rows_into_device_outputs > "$R/san-$tool.txt" 2>&1; rc=$?
  echo "$tool rc=$rc $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
s=$(date +%s); timeout 300 $C/shapes --quick --no-conv --reductions-only --types f32,i32 --out "$R/shapes" > "$R/shapes.log" 2>&1; echo "shapes rc=$? $(( $(date +%s) - s ))s"
grep -E "^shapes: (copy|sum|max|segment)" "$R/shapes.log" | sed 's/^shapes: //'
(cd "$OUT" && tar czf s9c.tgz s9c && rm -rf s9c)
