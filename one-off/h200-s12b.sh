#!/usr/bin/env bash
# Session 12, call B (one H200), the build with the in-warp segment lanes and the short columns
# bound. Carry: gpu-carry3/s12b.tar.xz (gpu-reduce's GPU tests, shapes of this build, shapes of
# main at 0ad9f7f as old__shapes).
# 1. Segment sums whose plans take the lane kernels, old and new alternating, alone on the GPU
#    (f32 twice, i32 once).
# 2. Harness 3: lanes_reduce general and in-warp over axis rows of 1024 and 512 and segments.
# 3. gpu-reduce's GPU suites (GPU_PRIMS_REQUIRE_GPU=1); the sanitizers over the segment lanes'
#    alignment test and the thread-per-group columns test; the kernels test with the time left.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 570 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s12b.tar.xz; C=/tmp/c/s12b
R="$OUT/s12b"; mkdir -p "$R"
KINDS="1-400,1-2000,1-8000,16x2^24,1-8+30000/1000"
for i in 1 2; do
  for v in old new; do
    b=$C/benches__shapes; [ $v = old ] && b=$C/old__shapes
    s=$(date +%s); timeout 40 $b --quick --no-conv --segments-only --types f32 --segment-kinds "$KINDS" --out "$R/seg-$v-$i" > "$R/seg-$v-$i.log" 2>&1; echo "seg $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|segment_sum)" "$R/seg-$v-$i.log" | sed 's/^shapes: //' | cut -c1-100
  done
done
for v in old new; do
  b=$C/benches__shapes; [ $v = old ] && b=$C/old__shapes
  s=$(date +%s); timeout 30 $b --quick --no-conv --segments-only --types i32 --segment-kinds "1-400,1-2000,1-8000" --out "$R/seg-i32-$v" > "$R/seg-i32-$v.log" 2>&1; echo "seg i32 $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "^shapes: (copy|segment_sum)" "$R/seg-i32-$v.log" | sed 's/^shapes: //' | cut -c1-100
done
s=$(date +%s); nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include -o /tmp/h3 one-off/axis-lanes-harness.cu > "$R/nvcc-h3.txt" 2>&1; echo "nvcc h3 rc=$? $(( $(date +%s) - s ))s"; tail -3 "$R/nvcc-h3.txt"
for args in "axis 1024" "axis 512" "segments 2000" "segments 400"; do
  s=$(date +%s); timeout 60 /tmp/h3 $args > "$R/h3-${args// /_}.txt" 2>&1; echo "h3 $args rc=$? $(( $(date +%s) - s ))s"; cat "$R/h3-${args// /_}.txt"
done
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/gpu-reduce__$1 $3 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked" "$R/test-$1.txt" | head -3
}
run_test shaped_gpu 90 ""
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 40 compute-sanitizer --tool $tool --report-api-errors no $C/gpu-reduce__shaped_gpu segment_lanes_start_at_every_alignment > "$R/san-$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
s=$(date +%s); timeout 60 compute-sanitizer --tool memcheck --report-api-errors no $C/gpu-reduce__shaped_gpu columns_of_many_lanes_a_thread_each > "$R/san-memcheck-columns.txt" 2>&1
echo "memcheck columns rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|test result' "$R/san-memcheck-columns.txt" | tr '\n' ' ')"
for t in gpu properties half_gpu tuning_gpu host_pipeline jit_disabled; do
  l=$(left); [ "$l" -gt 20 ] || { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 10 < 60 ? l - 10 : 60 )) ""
done
l=$(left); if [ "$l" -gt 30 ]; then run_test kernels $(( l - 10 )) ""; else echo "kernels: not run (time)"; fi
(cd "$OUT" && tar czf s12b.tgz s12b && rm -rf s12b)
