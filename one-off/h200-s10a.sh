#!/usr/bin/env bash
# Session 10, call A (one H200). Carry: gpu-carry3/s10a.tar.xz (gpu-scan and gpu-reduce test
# binaries and the shapes bench of the prefetching shaped scans).
# 1. gpu-scan prefetch_gpu (the shaped scans' prefetching kernels against the CPU), shaped_gpu,
#    host_pipeline; the owed memcheck of gpu-reduce's columns_of_many_lanes_a_thread_each.
# 2. While time is left: the shaped scans with the L2 prefetch off (a tuning table) and on
#    (the built-in H200 rule), alternating, alone on the GPU.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 540 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s10a.tar.xz; C=/tmp/c
R="$OUT/s10a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/gpu.txt" 2>&1
export GPU_PRIMS_REQUIRE_GPU=1
for t in scan-prefetch_gpu scan-shaped_gpu scan-host_pipeline; do
  s=$(date +%s); timeout 150 $C/$t > "$R/test-$t.txt" 2>&1; echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$t.txt")"
  grep -E "panicked|FAILED|prefetching scans" "$R/test-$t.txt" | head -5
done
s=$(date +%s); timeout 90 compute-sanitizer --tool memcheck --report-api-errors no $C/reduce-shaped_gpu columns_of_many_lanes_a_thread_each > "$R/san-reduce-memcheck.txt" 2>&1; echo "reduce memcheck rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|test result' "$R/san-reduce-memcheck.txt" | tr '\n' ' ')"
printf 'scan.prefetch_from = 1099511627776\n' > /tmp/pf-off.tune
CASES="64x4194304 C axis 1,4194304x64 F axis 0,67108864x4 F axis 0,262144x1024 F axis 0,67108864x4 C axis 0,134217728x2 C axis 0,4194304x64 C axis 0,64x4194304 F axis 1,262144x1024 C axis 0,16384x16384 C axis 0,262144x1024 F axis 1,segments"
i=0
while [ "$(left)" -gt 100 ]; do
  i=$((i+1))
  for v in off on; do
    if [ $v = off ]; then export GPU_PRIMS_TUNING=/tmp/pf-off.tune; else unset GPU_PRIMS_TUNING; fi
    s=$(date +%s); timeout 120 $C/shapes --quick --no-conv --scans-only --types f32,i32 --cases "$CASES" --out "$R/shapes-$v-$i" > "$R/shapes-$v-$i.log" 2>&1; echo "shapes $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|cumsum|segment_cumsum)" "$R/shapes-$v-$i.log" | sed 's/^shapes: //' | cut -c1-160
  done
done
unset GPU_PRIMS_TUNING
(cd "$OUT" && tar czf s10a.tgz s10a && rm -rf s10a)
