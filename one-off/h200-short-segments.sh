#!/usr/bin/env bash
# Issue 12 on one H200 (session of 2026-11-28, calls A and E): the short-segments kernel
# (reduce_segments_short_*, a thread per segment over staged values). First alone on the GPU:
# PyTorch's segment_reduce (peers_shapes.py), then the shapes benchmark's segment sums with the
# kernel off (GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN=0: segment tiles, as before) and on, alternating.
# Then gpu-reduce's GPU tests and the sanitizers over the new tests. Carry:
# one-off/carry-short-segments.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/ss.tar.xz; C=gpu-carry2/ss
R="$OUT/short-segments"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s); timeout 120 python3 scripts/peers_shapes.py --ops segment_sum --libs torch --types f32 --quick --out "$R/peers.json" > "$R/logs/peers.log" 2>&1
echo "peers rc=$? $(( $(date +%s) - s ))s"; grep -h "segment_sum" "$R/logs/peers.log" | tail -4
for round in 1 2; do
  for v in tiles short; do
    [ "$(left)" -gt 300 ] || { echo "shapes $v $round skipped: deadline"; continue; }
    if [ $v = tiles ]; then export GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN=0; else unset GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN; fi
    s=$(date +%s); timeout 100 $C/benches__shapes --log2 28 --types f32,i32 --segments-only --reductions-only --quick --peers "$R/peers.json" --out "$R/shapes-$v-$round" > "$R/logs/shapes-$v-$round.log" 2>&1
    echo "shapes $v $round rc=$? $(( $(date +%s) - s ))s"; grep -h "segment_sum" "$R/logs/shapes-$v-$round.log" | sed 's/^shapes: //'
  done
done
unset GPU_PRIMS_SHORT_SEGMENTS_MAX_MEAN
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-reduce__shaped_gpu gpu-reduce__gpu gpu-reduce__host_pipeline gpu-reduce__properties gpu-reduce__kernels gpu-reduce__half_gpu; do
  [ "$(left)" -gt 100 ] || { echo "$b skipped: deadline"; continue; }
  s=$(date +%s); timeout 150 $C/$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  grep -E "FAILED|panicked" "$R/logs/test-$b.txt" | head -5
done
for t in memcheck racecheck synccheck; do
  [ "$(left)" -gt 25 ] || { echo "$t skipped: deadline"; continue; }
  s=$(date +%s); timeout $(( $(left) > 110 ? 100 : $(left) - 10 )) compute-sanitizer --tool $t --report-api-errors no $C/gpu-reduce__shaped_gpu short_segments --skip every_type_operator --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
if [ "$(left)" -gt 60 ]; then
  s=$(date +%s); timeout $(( $(left) - 10 )) compute-sanitizer --tool memcheck --report-api-errors no $C/gpu-reduce__shaped_gpu short_segments_every_type --test-threads=1 > "$R/logs/san-memcheck-every.txt" 2>&1
  echo "memcheck (every type) rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-memcheck-every.txt" | tr '\n' ' ')"
fi
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf short-segments.tgz short-segments && rm -rf short-segments)
