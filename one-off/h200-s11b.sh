#!/usr/bin/env bash
# Session 11, call B (one H200). Carry: gpu-carry3/s11b.tar.xz (gpu-reduce's GPU test binaries
# of this build; the shapes bench of main at c236185 as shapes-old and of this build as
# shapes-new).
# The segment lane kernels now peel each segment's elements before its first 16-byte boundary
# and load the last three vectors together.
# 1. gpu-reduce shaped_gpu; memcheck, racecheck and synccheck over the new alignment test.
# 2. Segment sums (lane kernels: 1-2000, 16 x 2^24; long ones beside short ones: the pairs),
#    old and new builds alternating, alone on the GPU.
# 3. gpu-reduce's other GPU suites while time is left.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 560 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s11b.tar.xz; C=/tmp/c/s11b
R="$OUT/s11b"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/$1 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked" "$R/test-$1.txt" | head -3
}
run_test reduce-shaped_gpu 120
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 60 compute-sanitizer --tool $tool --report-api-errors no $C/reduce-shaped_gpu segment_lanes_start_at_every_alignment > "$R/san-$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
KINDS="1-2000,16x2^24,1-8+30000/1000"
for i in 1 2 3; do
  for v in old new; do
    s=$(date +%s); timeout 60 $C/shapes-$v --quick --no-conv --segments-only --types f32 --segment-kinds "$KINDS" --out "$R/shapes-$v-$i" > "$R/shapes-$v-$i.log" 2>&1; echo "shapes $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|segment_sum)" "$R/shapes-$v-$i.log" | sed 's/^shapes: //' | cut -c1-110
  done
done
for v in old new; do
  s=$(date +%s); timeout 60 $C/shapes-$v --quick --no-conv --segments-only --types i32 --segment-kinds "1-2000,16x2^24" --out "$R/shapes-i32-$v" > "$R/shapes-i32-$v.log" 2>&1; echo "shapes i32 $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "^shapes: (copy|segment_sum)" "$R/shapes-i32-$v.log" | sed 's/^shapes: //' | cut -c1-110
done
for t in reduce-gpu reduce-properties reduce-half_gpu reduce-host_pipeline reduce-tuning_gpu reduce-kernels; do
  l=$(left); [ "$l" -gt 25 ] || { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 15 < 120 ? l - 15 : 120 ))
done
(cd "$OUT" && tar czf s11b.tgz s11b && rm -rf s11b)
