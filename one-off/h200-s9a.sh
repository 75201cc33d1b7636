#!/usr/bin/env bash
# Session 9, call A (one H200). Carry: gpu-carry3/s9a.tar.xz (shapes, first-sum-old/new).
# 1. gpu-reduce first call, 256 KiB (old) against 512 KiB (new) archive frames, fresh
#    processes alternating, CUDA_CACHE_DISABLE=1 (cubins), and PTX forced with a warm JIT cache.
# 2. The sums' order effect: f32 shapes cases in a full run (sum, max, cumsum), warm-up of
#    3 runs (as shipped) against 200 ms, alternating twice; then one run with clocks logged.
# 3. Columns scans with narrower blocks (GPU_PRIMS_COLUMN_SCAN_TX) and half blocks.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s9a.tar.xz; C=/tmp/c
R="$OUT/s9a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
echo "== 1 first call" | tee "$R/first.txt"
for round in 1 2 3; do for case in reduce reduce-max reduce-other reduce-axis reduce-segments; do for v in old new; do
  echo "cubin $v $(CUDA_CACHE_DISABLE=1 $C/first-sum-$v $case 2>&1 | tail -1)" >> "$R/first.txt"
done; done; done
for v in old new; do GPU_PRIMS_KERNEL_IMAGES=ptx $C/first-sum-$v reduce > /dev/null 2>&1; done
for round in 1 2; do for case in reduce reduce-axis; do for v in old new; do
  echo "ptx-warm $v $(GPU_PRIMS_KERNEL_IMAGES=ptx $C/first-sum-$v $case 2>&1 | tail -1)" >> "$R/first.txt"
done; done; done
sort "$R/first.txt" | awk 'NF>=5 {k=$1" "$2" "$3; print k, $5}' | sort | awk '{a[$1" "$2" "$3]=a[$1" "$2" "$3]" "$4} END {for (k in a) print k, a[k]}' | sort
echo "== 2 warm-up"
CASES="4194304x64 C axis 0,16384x16384 F axis 0,67108864x4 C axis 0,134217728x2 C axis 1"
for i in 1 2; do for w in 0 200; do
  s=$(date +%s); GPU_PRIMS_BENCH_WARMUP_MS=$w timeout 150 $C/shapes --quick --no-conv --types f32 --cases "$CASES" --out "$R/warm-$w-$i" > "$R/warm-$w-$i.log" 2>&1; echo "warm $w run $i rc=$? $(( $(date +%s) - s ))s"
  grep -E "^shapes: (copy|sum|max|cumsum)" "$R/warm-$w-$i.log" | sed 's/^shapes: //' | awk '{print $1, $2, $3, $4, $5, $6, $7, $8}'
done; done
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,pstate --format=csv -lms 50 > "$R/clocks.csv" 2>&1 &
NS=$!
GPU_PRIMS_BENCH_WARMUP_MS=0 timeout 150 $C/shapes --quick --no-conv --types f32 --cases "$CASES" > "$R/clocked.log" 2>&1
kill $NS; wait $NS 2>/dev/null
echo "== 3 columns scans"
SC="4194304x64 C axis 0,16384x16384 C axis 0,262144x1024 C axis 0"
for th in 256 128; do for tx in 0 8 4 2; do
  if [ $tx = 0 ]; then X=""; else X="GPU_PRIMS_COLUMN_SCAN_TX=$tx"; fi
  s=$(date +%s); env $X GPU_PRIMS_COLUMN_SCAN_THREADS=$th GPU_PRIMS_BENCH_WARMUP_MS=200 timeout 120 $C/shapes --quick --no-conv --scans-only --types f32 --cases "$SC" --out "$R/cols-$th-$tx" > "$R/cols-$th-$tx.log" 2>&1; echo "threads $th tx $tx rc=$? $(( $(date +%s) - s ))s"
  grep -E "^shapes: cumsum" "$R/cols-$th-$tx.log" | sed 's/^shapes: //'
done; done
(cd "$OUT" && tar czf s9a.tgz s9a && rm -rf s9a)
