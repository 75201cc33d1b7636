#!/usr/bin/env bash
# Session 7 (2026-11-28), call A (one H200), each step alone on the GPU:
#  1. gpu-reduce's GPU tests on the short-segments-with-long-ones build (branch rebased on main),
#     memcheck over the long-ones and 16-thread tests, racecheck / synccheck over the long ones;
#  2. the shapes benchmark's segment sums (f32, 2^28): 1-8, 1-8 with every 1000th 30000 or 16384
#     long, every 500th 2100 long (the narrowed rule must leave that one to the segment tiles),
#     kernel off (tiles) and on, twice;
#  3. first calls in fresh processes (CUDA_CACHE_DISABLE=1): segment sums of host and device values;
#  4. the report's 16-bit conv1d at w 127 (2^28), then Nsight Compute on the warpgroup kernel there.
# Carry: one-off/carry-s7a.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/a7.tar.xz; C=gpu-carry2/a7
R="$OUT/s7a"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in shaped_gpu gpu kernels properties half_gpu host_pipeline; do
  s=$(date +%s); timeout $(cap 120) $C/gpu-reduce__$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked" -A3 "$R/logs/test-$b.txt" | head -12
done
F="short_segments_with_long_ones short_segments_from_sixteen"
s=$(date +%s); timeout $(cap 90) compute-sanitizer --tool memcheck --report-api-errors no $C/gpu-reduce__shaped_gpu $F --test-threads=1 > "$R/logs/san-memcheck.txt" 2>&1
echo "memcheck rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-memcheck.txt" | tr '\n' ' ')"
for t in racecheck synccheck; do
  s=$(date +%s); timeout $(cap 90) compute-sanitizer --tool $t $C/gpu-reduce__shaped_gpu short_segments_with_long_ones --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
unset GPU_PRIMS_REQUIRE_GPU
K="--log2 28 --types f32 --segments-only --reductions-only --quick --segment-kinds 1-8,1-8+30000/1000,1-8+16384/1000,1-8+2100/500"
for round in 1 2; do
  for v in tiles short; do
    if [ $v = tiles ]; then export GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN=0; else unset GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN; fi
    s=$(date +%s); timeout $(cap 60) $C/benches__shapes $K --out "$R/shapes-$v-$round" > "$R/logs/shapes-$v-$round.log" 2>&1
    echo "shapes $v $round rc=$? $(( $(date +%s) - s ))s"; grep -h "segment_sum" "$R/logs/shapes-$v-$round.log" | sed 's/^shapes: //'
  done
done
unset GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN
s=$(date +%s); timeout $(cap 90) $C/benches__first-call --out "$R/first-call" reduce reduce-segments reduce-segments-device > "$R/logs/first-call.log" 2>&1
echo "first-call rc=$? $(( $(date +%s) - s ))s"; grep -E "^\| reduce" "$R/first-call/first-call.md"
A="--device-only --only core,conv1d --sizes 28 --types f16,bf16 --widths 127 --cpu-reps 1"
s=$(date +%s); timeout $(cap 90) $C/benches__report $A --out "$R/report" > "$R/logs/report.log" 2>&1; echo "report rc=$? $(( $(date +%s) - s ))s"
grep -E "\| (copy|auto|warpgroup|tensor_core) \|" "$R/report/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f2-12 | head -20
if [ "$(left)" -gt 100 ]; then
  s=$(date +%s); timeout $(cap 120) ncu --set full --import-source no -k regex:"^conv1d_wgmma_f16\$" --launch-skip 2 -c 1 -f -o "$R/ncu-wgmma" \
    $C/benches__report --device-only --only conv1d --sizes 28 --types f16 --widths 127 --cpu-reps 1 --quick --out "$R/report-ncu" > "$R/logs/ncu.log" 2>&1
  echo "ncu rc=$? $(( $(date +%s) - s ))s"
  ncu -i "$R/ncu-wgmma.ncu-rep" --page details > "$R/ncu-wgmma-details.txt" 2>&1
  ncu -i "$R/ncu-wgmma.ncu-rep" --page source --csv --print-source sass > "$R/ncu-wgmma-sass.csv" 2>&1
  grep -E "Duration|DRAM Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|Stall|Warp Cycles Per Issued|L2 Hit" "$R/ncu-wgmma-details.txt" | head -30
fi
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf s7a.tgz s7a && rm -rf s7a)
