#!/usr/bin/env bash
# Session 14, call B (one H200). Carry: gpu-carry3/x14b.tar.xz (this build's gpu-scan GPU tests
# and shapes; 428a9fb's kernels with the same shapes source as old__shapes).
# 1. Alone on the GPU, old and new alternating twice: the columns scans of long spans (f32), and
#    the f64 segments (segment tiles over the epoch-tagged status).
# 2. one-off/columns-span-harness.cu (built with nvcc while 1 runs: CPU only), with PACKED2.
# 3. gpu-scan's suites that run the changed kernels; compute-sanitizer over the long spans
#    (lanes_sanitize_every_mapping) and the wide segment tiles (segment_tiles_sanitize_wide_values).
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 575 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x14b.tar.xz; C=/tmp/c/x14b
R="$OUT/x14b"; mkdir -p "$R"
(nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include one-off/columns-span-harness.cu -o /tmp/csh > "$R/harness-build.txt" 2>&1; echo "build rc=$?" >> "$R/harness-build.txt") &
NV=$!
CASES="4194304x64 C axis 0,64x4194304 F axis 1,262144x1024 C axis 0,16384x16384 C axis 0,16384x16384 F axis 1"
for i in 1 2; do
  for v in old new; do
    b=$C/benches__shapes; [ $v = old ] && b=$C/old__shapes
    s=$(date +%s); timeout 60 $b --quick --no-conv --scans-only --types f32 --cases "$CASES" --out "$R/col-$v-$i" > "$R/col-$v-$i.log" 2>&1; echo "col $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|cumsum)" "$R/col-$v-$i.log" | sed 's/^shapes: //' | cut -c1-150
    s=$(date +%s); timeout 40 $b --quick --no-conv --segments-only --types f64 --out "$R/seg-$v-$i" > "$R/seg-$v-$i.log" 2>&1; echo "seg $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|segment_cumsum)" "$R/seg-$v-$i.log" | sed 's/^shapes: //' | cut -c1-150
  done
done
wait $NV; tail -1 "$R/harness-build.txt"
s=$(date +%s); timeout 100 /tmp/csh 1 > "$R/harness.txt" 2>&1; echo "harness rc=$? $(( $(date +%s) - s ))s"
cat "$R/harness.txt"
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/$1 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked" "$R/test-$1.txt" | head -3
}
for t in gpu-scan__shaped_gpu gpu-scan__host_pipeline gpu-scan__gpu gpu-scan__status_reuse_gpu; do
  l=$(left); [ "$l" -lt 30 ] && { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 10 < 100 ? l - 10 : 100 ))
done
for test in lanes_sanitize_every_mapping segment_tiles_sanitize_wide_values; do
  for tool in memcheck racecheck synccheck; do
    l=$(left); [ "$l" -lt 20 ] && { echo "$tool $test: not run (time)"; continue; }
    s=$(date +%s); timeout $(( l - 10 < 60 ? l - 10 : 60 )) compute-sanitizer --tool $tool --report-api-errors no $C/gpu-scan__shaped_gpu $test > "$R/san-$tool-$test.txt" 2>&1
    echo "$tool $test rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool-$test.txt" | tr '\n' ' ')"
  done
done
(cd "$OUT" && tar czf x14b.tgz x14b && rm -rf x14b)
