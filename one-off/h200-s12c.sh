#!/usr/bin/env bash
# Session 12, call C (one H200), the build with the in-warp form for axis lanes as well.
# Carry: gpu-carry3/s12c.tar.xz (gpu-reduce's GPU tests and shapes of this build; call B's
# shapes, commit 2f070d7, as old__shapes).
# 1. Rows of 1024 (262144x1024 C axis 1: a warp per row, the in-warp form now), call B's build
#    and this one alternating, f32 and i32, alone on the GPU.
# 2. gpu-reduce shaped_gpu; the sanitizers over the new medium-rows test; the other suites.
# 3. Every axis and segment reduction of the quick set, f32 and i32, this build (the standing).
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 575 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s12c.tar.xz; C=/tmp/c/s12c
R="$OUT/s12c"; mkdir -p "$R"
CASES="262144x1024 C axis 1,16384x16384 C axis 1"
for i in 1 2; do
  for v in old new; do
    b=$C/benches__shapes; [ $v = old ] && b=$C/old__shapes
    s=$(date +%s); timeout 40 $b --quick --no-conv --reductions-only --types f32,i32 --cases "$CASES" --out "$R/rows-$v-$i" > "$R/rows-$v-$i.log" 2>&1; echo "rows $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|sum|max)" "$R/rows-$v-$i.log" | sed 's/^shapes: //' | cut -c1-100
  done
done
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/gpu-reduce__$1 $3 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked" "$R/test-$1.txt" | head -3
}
run_test shaped_gpu 100 ""
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 60 compute-sanitizer --tool $tool --report-api-errors no $C/gpu-reduce__shaped_gpu medium_rows_take_the_in_warp_form > "$R/san-$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
for t in gpu properties half_gpu tuning_gpu host_pipeline; do
  run_test $t 60 ""
done
l=$(left); echo "left $l s"
if [ "$l" -gt 200 ]; then run_test kernels 150 ""; else echo "kernels: not run (time)"; fi
l=$(left); echo "left $l s for the standing"
if [ "$l" -gt 40 ]; then
  s=$(date +%s); timeout $(( l - 10 )) $C/benches__shapes --quick --no-conv --reductions-only --types f32,i32 --out "$R/reductions" > "$R/reductions.log" 2>&1; echo "reductions rc=$? $(( $(date +%s) - s ))s $(grep -c '^shapes: ' "$R/reductions.log")"
fi
(cd "$OUT" && tar czf s12c.tgz s12c && rm -rf s12c)
