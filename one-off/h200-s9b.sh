#!/usr/bin/env bash
# Session 9, call B (one H200). Carry: gpu-carry3/s9b.tar.xz (tar | xz with a 256 MiB
# dictionary: the binaries' identical kernel archives compress to nothing after the first).
# 1. gpu-reduce GPU tests of the packed rows' vector stores build (GPU_PRIMS_REQUIRE_GPU=1).
# 2. compute-sanitizer memcheck, racecheck, synccheck over the new alignment test.
# 3. While time is left: shapes, packed rows of 2 and 4 (f32, i32), old and new builds alternating.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 575 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s9b.tar.xz; C=/tmp/c
R="$OUT/s9b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for t in shaped_gpu half_gpu gpu kernels properties host_pipeline; do
  s=$(date +%s); timeout 200 $C/$t > "$R/test-$t.txt" 2>&1; rc=$?
  echo "$t rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$t.txt" | tail -1)"
done
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 120 compute-sanitizer --tool $tool $C/shaped_gpu packed_rows_into_outputs_at_every_alignment > "$R/san-$tool.txt" 2>&1; rc=$?
  echo "$tool rc=$rc $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
CASES="134217728x2 C axis 1,67108864x4 C axis 1"
i=0
while [ "$(left)" -gt 100 ]; do
  i=$((i+1))
  for v in old new; do
    [ "$(left)" -gt 50 ] || break
    s=$(date +%s); timeout $(( $(left) - 10 )) $C/shapes-$v --quick --no-conv --reductions-only --types f32,i32 --cases "$CASES" > "$R/shapes-$v-$i.log" 2>&1; echo "shapes $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|sum|max)" "$R/shapes-$v-$i.log" | sed 's/^shapes: //'
  done
done
(cd "$OUT" && tar czf s9b.tgz s9b && rm -rf s9b)
