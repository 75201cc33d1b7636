#!/usr/bin/env bash
# Session 11, call E (one H200), the final build. Carry: gpu-carry3/s11e.tar.xz (gpu-reduce's
# GPU test binaries of this build; the shapes bench of main at c236185 as shapes-old and of
# this build as shapes-new).
# The segment lane kernels now: thread mapping by shifts, no split division in one split, the
# elements before a segment's first 16-byte boundary one per thread and the rest in whole
# vectors (the last three loaded together), a butterfly over the segment's threads instead of
# the position-ordered warp scan, and a 48-register bound (five blocks per SM).
# 1. gpu-reduce shaped_gpu; memcheck over the segment tests, racecheck and synccheck over the
#    new alignment test.
# 2. Segment sums whose plans take the lane kernels (groups of 8 at 1-400, a warp at 1-2000,
#    warps at 1-8000, splits at 16 x 2^24, the pairs beside short ones), old and new builds
#    alternating, alone on the GPU; f32 twice, i32 once.
# 3. gpu-reduce's other GPU suites.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 225 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s11e.tar.xz; C=/tmp/c/s11e
R="$OUT/s11e"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/$1 $3 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked" "$R/test-$1.txt" | head -3
}
run_test reduce-shaped_gpu 70 ""
KINDS="1-400,1-2000,1-8000,16x2^24,1-8+30000/1000"
for i in 1 2; do
  for v in old new; do
    s=$(date +%s); timeout 30 $C/shapes-$v --quick --no-conv --segments-only --types f32 --segment-kinds "$KINDS" --out "$R/shapes-$v-$i" > "$R/shapes-$v-$i.log" 2>&1; echo "shapes $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|segment_sum)" "$R/shapes-$v-$i.log" | sed 's/^shapes: //' | cut -c1-110
  done
done
for v in old new; do
  s=$(date +%s); timeout 25 $C/shapes-$v --quick --no-conv --segments-only --types i32 --segment-kinds "1-400,1-2000,1-8000" --out "$R/shapes-i32-$v" > "$R/shapes-i32-$v.log" 2>&1; echo "shapes i32 $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "^shapes: (copy|segment_sum)" "$R/shapes-i32-$v.log" | sed 's/^shapes: //' | cut -c1-110
done
for tool in memcheck racecheck synccheck; do
  filt=segment_lanes_start_at_every_alignment
  s=$(date +%s); timeout 25 compute-sanitizer --tool $tool --report-api-errors no $C/reduce-shaped_gpu $filt > "$R/san-$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
s=$(date +%s); timeout 40 compute-sanitizer --tool memcheck --report-api-errors no $C/reduce-shaped_gpu segmented_reductions_every_type > "$R/san-memcheck-segments.txt" 2>&1
echo "memcheck segments rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|test result' "$R/san-memcheck-segments.txt" | tr '\n' ' ')"
for t in reduce-gpu reduce-properties reduce-half_gpu reduce-tuning_gpu; do
  l=$(left); [ "$l" -gt 20 ] || { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 10 < 60 ? l - 10 : 60 )) ""
done
(cd "$OUT" && tar czf s11e.tgz s11e && rm -rf s11e)
