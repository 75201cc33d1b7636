#!/usr/bin/env bash
# Session 10, call C (one H200), the final build. Carry: gpu-carry3/s10c.tar.xz (gpu-scan's GPU
# test binaries, gpu-reduce's shaped_gpu, the shapes bench).
# 1. prefetch_gpu; memcheck, racecheck and synccheck over it (inputs of at most 300000 values).
# 2. The long column spans and segment tiles, prefetch off (a tuning table) and on (the built-in
#    H200 rule), f32 and i32, alone on the GPU.
# 3. gpu-scan's other GPU suites and gpu-reduce's shaped_gpu while time is left.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 530 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s10c.tar.xz; C=/tmp/c
R="$OUT/s10c"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/$1 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked|prefetching scans" "$R/test-$1.txt" | head -3
}
run_test scan-prefetch_gpu 60
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); PREFETCH_TEST_MAX_LEN=300000 timeout 60 compute-sanitizer --tool $tool --report-api-errors no $C/scan-prefetch_gpu --nocapture > "$R/san-$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result|prefetching scans' "$R/san-$tool.txt" | tr '\n' ' ')"
done
printf 'scan.prefetch_from = 1099511627776\n' > /tmp/pf-off.tune
CASES="4194304x64 C axis 0,64x4194304 F axis 1,16384x16384 C axis 0,16384x16384 F axis 1,262144x1024 C axis 0,262144x1024 F axis 1,segments"
for v in off on; do
  if [ $v = off ]; then export GPU_PRIMS_TUNING=/tmp/pf-off.tune; else unset GPU_PRIMS_TUNING; fi
  s=$(date +%s); timeout 130 $C/shapes --quick --no-conv --scans-only --types f32,i32 --cases "$CASES" --out "$R/shapes-$v" > "$R/shapes-$v.log" 2>&1; echo "shapes $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "^shapes: (copy|cumsum|segment_cumsum)" "$R/shapes-$v.log" | sed 's/^shapes: //' | cut -c1-100
done
unset GPU_PRIMS_TUNING
for t in scan-shaped_gpu scan-host_pipeline scan-status_reuse_gpu reduce-shaped_gpu scan-kernels scan-tuning_gpu scan-half_shaped_gpu scan-gpu scan-properties scan-half_gpu; do
  l=$(left); [ "$l" -gt 25 ] || { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 15 < 100 ? l - 15 : 100 ))
done
(cd "$OUT" && tar czf s10c.tgz s10c && rm -rf s10c)
