#!/usr/bin/env bash
# Session 13, call A (one H200): the thread-walked columns scan (LanePlan::thread_columns for
# scans). Carry: gpu-carry3/s13a.tar.xz (gpu-scan's GPU tests and shapes of this build).
# 1. Timing first, alone on the GPU: the walked cases against the spans' plans of the same
#    binary (GPU_PRIMS_COLUMN_SCAN_WALK=off), and the walk for 256 tiles too (=any), f32 and
#    i32, alternating twice.
# 2. (after 3) gpu-scan's GPU suites; shaped_gpu's mapping tests again with the walk wherever 256 lane
#    groups fit (=any); the sanitizers over lanes_sanitize_every_mapping with =any.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 575 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s13a.tar.xz; C=/tmp/c/s13a
R="$OUT/s13a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/gpu.txt" 2>&1
CASES="64x4194304 C axis 0,4194304x64 F axis 1,262144x1024 F axis 1,64x4194304 F axis 0"
for i in 1 2; do
  for v in off fill any; do
    s=$(date +%s); GPU_PRIMS_COLUMN_SCAN_WALK=$v timeout 60 $C/benches__shapes --quick --no-conv --scans-only --types f32,i32 --cases "$CASES" --out "$R/walk-$v-$i" > "$R/walk-$v-$i.log" 2>&1; echo "walk $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|cumsum)" "$R/walk-$v-$i.log" | sed 's/^shapes: //' | cut -c1-150
  done
done
# 3. The flat scan of 4- and 8-byte values (packed look-back against flag and fence), 1 GiB.
s=$(date +%s); timeout 120 $C/benches__report --only scan --sizes 27,28 --types i32,u64 --quick --device-only --out "$R/report-scan" > "$R/report-scan.log" 2>&1; echo "report rc=$? $(( $(date +%s) - s ))s"
grep -iE "scan|copy" "$R/report-scan.log" | grep -E "2\^2[78]|268435456|134217728" | head -20
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/gpu-scan__$1 $3 > "$R/test-$1$4.txt" 2>&1; echo "$1$4 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1$4.txt" | tr '\n' ' ')"
  grep -E "panicked" "$R/test-$1$4.txt" | head -3
}
run_test shaped_gpu 150 "" ""
export GPU_PRIMS_COLUMN_SCAN_WALK=any
run_test shaped_gpu 120 "axis_scans_every lanes_sanitize quickcheck_random_shapes n_d_arrays monoid_scans" "-any"
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 90 compute-sanitizer --tool $tool --report-api-errors no $C/gpu-scan__shaped_gpu lanes_sanitize > "$R/san-$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
unset GPU_PRIMS_COLUMN_SCAN_WALK
for t in host_pipeline gpu properties half_shaped_gpu half_gpu status_reuse_gpu tuning_gpu prefetch_gpu; do
  l=$(left); [ "$l" -lt 30 ] && { echo "$t: not run (time)"; continue; }
  run_test $t 60 "" ""
done
l=$(left); echo "left $l s"
if [ "$l" -gt 100 ]; then run_test kernels $(( l - 20 )) "" ""; else echo "kernels: not run (time)"; fi
(cd "$OUT" && tar czf s13a.tgz s13a && rm -rf s13a)
