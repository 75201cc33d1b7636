#!/usr/bin/env bash
# Session of 2026-11-28, call I (one H200): where the short-segments kernel should stop — segment
# sums of f32 with lengths uniform in 1-8, 1-16, 1-24, 1-30 (means 4.5 … 15.5, all below the
# rule's 16) and 1-40 (mean 20.5: the kernel forced with GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN=64),
# the kernel off (segment tiles) and on, alternating, alone on the GPU.
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu-carry2/x && tar -C gpu-carry2/x -xJf gpu-carry2/shapes.tar.xz; B=$(ls gpu-carry2/x/*/benches__shapes)
R="$OUT/short-mean"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
K="--log2 28 --types f32 --segments-only --reductions-only --quick --segment-kinds 1-8,1-16,1-24,1-30,1-40"
for round in 1 2; do
  for v in tiles short; do
    if [ $v = tiles ]; then export GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN=0; else export GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN=64; fi
    s=$(date +%s); timeout 120 $B $K --out "$R/shapes-$v-$round" > "$R/shapes-$v-$round.log" 2>&1
    echo "shapes $v $round rc=$? $(( $(date +%s) - s ))s"; grep -h "segment_sum" "$R/shapes-$v-$round.log" | sed 's/^shapes: //'
  done
done
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf short-mean.tgz short-mean && rm -rf short-mean)
