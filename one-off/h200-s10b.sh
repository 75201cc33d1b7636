#!/usr/bin/env bash
# Session 10, call B (one H200). Carry: gpu-carry3/s10b.tar.xz (gpu-scan prefetch_gpu and the
# shapes bench; the rows' and segment tiles' prefetch now issued after the tile's own loads).
# 1. prefetch_gpu (every prefetching kernel, flat and shaped, against the CPU).
# 2. The shaped scans, prefetch off (a tuning table) and on (the built-in H200 rule),
#    alternating twice, f32, alone on the GPU.
# 3. memcheck over prefetch_gpu (inputs of at most 300000 values) in the time left.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 530 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s10b.tar.xz; C=/tmp/c
R="$OUT/s10b"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); timeout 120 $C/scan-prefetch_gpu --nocapture > "$R/test-prefetch_gpu.txt" 2>&1; echo "prefetch_gpu rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-prefetch_gpu.txt")"
grep -E "panicked|prefetching scans|^Inclusive|^Exclusive" "$R/test-prefetch_gpu.txt" | head -5
printf 'scan.prefetch_from = 1099511627776\n' > /tmp/pf-off.tune
CASES="64x4194304 C axis 1,4194304x64 F axis 0,262144x1024 F axis 0,67108864x4 C axis 0,4194304x64 C axis 0,64x4194304 F axis 1,16384x16384 C axis 0,262144x1024 C axis 0,segments"
for i in 1 2; do
  for v in off on; do
    [ "$(left)" -gt 150 ] || break 2
    if [ $v = off ]; then export GPU_PRIMS_TUNING=/tmp/pf-off.tune; else unset GPU_PRIMS_TUNING; fi
    s=$(date +%s); timeout 100 $C/shapes --quick --no-conv --scans-only --types f32 --cases "$CASES" --out "$R/shapes-$v-$i" > "$R/shapes-$v-$i.log" 2>&1; echo "shapes $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|cumsum|segment_cumsum)" "$R/shapes-$v-$i.log" | sed 's/^shapes: //' | cut -c1-100
  done
done
unset GPU_PRIMS_TUNING
t=$(( $(left) - 10 ))
if [ $t -gt 30 ]; then
  s=$(date +%s); PREFETCH_TEST_MAX_LEN=300000 timeout $t compute-sanitizer --tool memcheck --report-api-errors no $C/scan-prefetch_gpu --nocapture > "$R/san-memcheck.txt" 2>&1; echo "memcheck rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|test result|prefetching scans' "$R/san-memcheck.txt" | tr '\n' ' ')"
fi
(cd "$OUT" && tar czf s10b.tgz s10b && rm -rf s10b)
