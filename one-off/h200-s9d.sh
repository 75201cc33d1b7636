#!/usr/bin/env bash
# Session 9, call D (one H200). Carry: gpu-carry3/s9d.tar.xz (shaped_gpu test binary; shapes
# of call B's build as "old", of this build as "new").
# 1. gpu-reduce shaped_gpu (the thread-per-group columns plan and its test); memcheck over the
#    new test (racecheck and synccheck too: the kernel has no shared memory or barrier).
# 2. While time is left: the two layouts that take the new plan (f32, i32), old and new builds
#    alternating, alone on the GPU.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 320 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s9d.tar.xz; C=/tmp/c
R="$OUT/s9d"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); timeout 120 $C/shaped_gpu > "$R/test-shaped_gpu.txt" 2>&1; echo "shaped_gpu rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-shaped_gpu.txt")"
grep -E "panicked|FAILED|failed" "$R/test-shaped_gpu.txt" | head -5
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 90 compute-sanitizer --tool $tool $C/shaped_gpu columns_of_many_lanes_a_thread_each > "$R/san-$tool.txt" 2>&1; rc=$?
  echo "$tool rc=$rc $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
CASES="64x4194304 C axis 0,4194304x64 F axis 1"
i=0
while [ "$(left)" -gt 30 ]; do
  i=$((i+1))
  for v in old new; do
    s=$(date +%s); timeout 25 $C/shapes-$v --quick --no-conv --reductions-only --types f32,i32 --cases "$CASES" > "$R/shapes-$v-$i.log" 2>&1; echo "shapes $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|sum|max)" "$R/shapes-$v-$i.log" | sed 's/^shapes: //'
  done
done
(cd "$OUT" && tar czf s9d.tgz s9d && rm -rf s9d)
