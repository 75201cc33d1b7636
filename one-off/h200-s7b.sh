#!/usr/bin/env bash
# Session 7, call B (one H200), each step alone on the GPU:
#  1. the warpgroup conv1d kernel with its wgmma chain no longer serialized (ptxas 12.0's C7514):
#     gpu-conv1d's GPU tests, memcheck / racecheck / synccheck over the warpgroup cross test;
#  2. the report, 16-bit conv1d w 31 / 63 / 127 / 255 at 2^24 and 2^28, the build before and
#     this one alternating (old, new, old, new);
#  3. segment sums of 1-8 with long ones (f32, 2^28): the long-ones path forced (both limits
#     lifted) against the segment tiles, every 1000th segment 4096 / 8192 / 16384 long and every
#     250th / 500th 30000 long.
# Carry: one-off/carry-s7b.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/b7.tar.xz; C=gpu-carry2/b7
R="$OUT/s7b"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-565} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu properties kernels tuning_gpu; do
  s=$(date +%s); timeout $(cap 120) $C/gpu-conv1d__$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked" -A3 "$R/logs/test-$b.txt" | head -12
done
for t in memcheck racecheck synccheck; do
  s=$(date +%s); timeout $(cap 90) compute-sanitizer --tool $t $C/gpu-conv1d__gpu gpu_cross_warpgroup --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
unset GPU_PRIMS_REQUIRE_GPU
A="--device-only --only core,conv1d --sizes 24,28 --types f16,bf16 --widths 31,63,127,255 --cpu-reps 1"
i=0
for v in old new old new; do
  i=$((i + 1)); B=$C/benches__report; [ $v = old ] && B=$C/report-old
  [ "$(left)" -gt 150 ] || { echo "report $i skipped: deadline"; continue; }
  s=$(date +%s); timeout $(cap 100) $B $A --out "$R/report-$i-$v" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "\| (copy|auto|warpgroup|tensor_core) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f4-11
done
K="--log2 28 --types f32 --segments-only --reductions-only --quick --segment-kinds 1-8+4096/1000,1-8+8192/1000,1-8+16384/1000,1-8+30000/500,1-8+30000/250"
for round in 1 2; do
  for v in tiles forced; do
    [ "$(left)" -gt 40 ] || { echo "shapes skipped: deadline"; continue; }
    if [ $v = tiles ]; then export GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN=0; else unset GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN; export GPU_PRIMS_SHORT_SEGMENTS_PER_LONG=0 GPU_PRIMS_SHORT_SEGMENTS_LONG_MEAN=0; fi
    s=$(date +%s); timeout $(cap 60) $C/benches__shapes $K --out "$R/shapes-$v-$round" > "$R/logs/shapes-$v-$round.log" 2>&1
    echo "shapes $v $round rc=$? $(( $(date +%s) - s ))s"; grep -h "segment_sum" "$R/logs/shapes-$v-$round.log" | sed 's/^shapes: //'
    unset GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN GPU_PRIMS_SHORT_SEGMENTS_PER_LONG GPU_PRIMS_SHORT_SEGMENTS_LONG_MEAN
  done
done
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf s7b.tgz s7b && rm -rf s7b)
