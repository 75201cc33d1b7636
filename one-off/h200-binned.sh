#!/usr/bin/env bash
# Session of 2026-11-28, call L (one H200): short segments with long ones among them (the long
# ones left to the lane kernels). gpu-reduce's shaped_gpu first, memcheck over the new test, then
# alone on the GPU the shapes benchmark's segment sums (f32) of 1-8 with every 1000th segment
# 30000 long and every 500th 2100 long, the kernel off (segment tiles) and on, twice.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/bin.tar.xz; C=gpu-carry2/bin
R="$OUT/binned"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
GPU_PRIMS_REQUIRE_GPU=1 timeout 60 $C/gpu-reduce__shaped_gpu > "$R/test-shaped.txt" 2>&1; echo "shaped_gpu rc=$? $(grep -E '^test result' "$R/test-shaped.txt")"
grep -E "FAILED|panicked" -A3 "$R/test-shaped.txt" | head -12
timeout 40 compute-sanitizer --tool memcheck --report-api-errors no $C/gpu-reduce__shaped_gpu with_long_ones --test-threads=1 > "$R/san-memcheck.txt" 2>&1; echo "memcheck rc=$? $(grep -E 'SUMMARY|^test result' "$R/san-memcheck.txt" | tr '\n' ' ')"
K="--log2 28 --types f32 --segments-only --reductions-only --quick --segment-kinds 1-8+30000/1000,1-8+2100/500"
for round in 1 2; do
  for v in tiles short; do
    if [ $v = tiles ]; then export GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN=0; else unset GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN; fi
    timeout 40 $C/benches__shapes $K --out "$R/shapes-$v-$round" > "$R/shapes-$v-$round.log" 2>&1
    echo "shapes $v $round rc=$?"; grep -h "segment_sum" "$R/shapes-$v-$round.log" | sed 's/^shapes: //'
  done
done
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf binned.tgz binned && rm -rf binned)
