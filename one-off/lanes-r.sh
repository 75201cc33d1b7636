#!/usr/bin/env bash
# Issue 12, call R (one H100): segment lanes within one warp taken from a queue: the segment
# cases against the previous build (twice each, alternating), gpu-reduce's and gpu-scan's GPU
# tests, the sanitizers over the queue's test.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/r.tar.xz; C=gpu-carry2/r
R="$OUT/lanes-r"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
A="--reductions-only --cases segments --types f32,i32 --quick --no-conv"
for v in base new base2 new2; do
  b=$C/benches__shapes; case $v in base*) b=$C/shapes-base;; esac
  timeout 90 $b $A --out "$R/$v" > "$R/logs/$v.log" 2>&1; echo "$v rc=$?"
  grep -E "segment_sum" "$R/logs/$v.log" | sed 's/^shapes: //'
done
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-reduce__shaped_gpu gpu-reduce__gpu; do
  timeout 200 $C/$b > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked" -A4 "$R/logs/test-$b.log" | head -8
done
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --report-api-errors no $C/gpu-reduce__shaped_gpu segments_from_the_queue lanes_sanitize_every_mapping --test-threads=1 > "$R/logs/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/logs/$tool.log" | tail -1) $(grep -E '^test result' "$R/logs/$tool.log")"
done
(cd "$OUT" && tar czf lanes-r.tgz lanes-r && rm -rf lanes-r)
