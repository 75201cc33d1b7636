#!/usr/bin/env bash
# Session 32 (2026-12-04), call D (one H200), carry gpu-carry3/s32d.tar.xz (one-off/carry-s32d.sh).
# 1. Alone on the GPU, 2^28 values, `shapes --quick --reductions-only`: f16 with call B's build
#    (shapes-mid: 16-bit vector columns, general kernel only) and this one (the thread-per-lane-
#    group kernel for 16-bit floats too), then bf16 with this one.
# 2. Untimed, side by side: gpu-reduce's suites of this build, and gpu-scan's host_pipeline and
#    prefetch_gpu and gpu-conv1d's inputs (call A cut the first at 300 s beside five groups and
#    did not reach the others).
# 3. Alone, one after the other: the fault-injection binaries (they compare the driver's free
#    memory before and after: call A ran them beside other processes and they failed so),
#    driver_faults and context_lost (not reached in call A). Nothing starts after 520 s.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s32d
sh() { # LABEL BIN ARGS...: one shapes run alone, its log and table in $R
  local label=$1 b=$2 s; shift 2; s=$(date +%s)
  timeout 120 "$C/$b" --log2 28 --quick --reductions-only --no-conv --segment-kinds 1-8 --out "$R/$label" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(($(date +%s) - s))s"
}
sh f16-mid shapes-mid --types f16
sh f16-after shapes-after --types f16
sh bf16-after shapes-after --types bf16
echo "timings done at $(($(date +%s) - T0))s"
for f in "$R"/*.log; do grep -E "^shapes: (sum|max)" "$f" | sed "s|^shapes: |$(basename "$f" .log) |"; done > "$R/summary.txt"
echo "ok rows: $(grep -c 'ok$' "$R/summary.txt"); not ok: $(grep -vc 'ok$' "$R/summary.txt")"
( t shaped gpu-reduce__shaped_gpu 250 ) &
( t kernels gpu-reduce__kernels 250 ) &
( t gpu gpu-reduce__gpu 200; t props gpu-reduce__properties 100; t half gpu-reduce__half_gpu 100; t unit gpu-reduce__gpu_reduce 100; t tuning gpu-reduce__tuning_gpu 100; t core-unit gpu-core__gpu_core 100; t core-lanes gpu-core__lanes 100 ) &
( t host gpu-reduce__host_pipeline 250 ) &
( t scan-host gpu-scan__host_pipeline 250; t scan-prefetch gpu-scan__prefetch_gpu 100; t conv-inputs gpu-conv1d__inputs 100 ) &
wait
echo "side by side done at $(($(date +%s) - T0))s"
for b in gpu-sync__fault_injection gpu-scan__fault_injection gpu-reduce__fault_injection \
  gpu-conv1d__fault_injection gpu-core__driver_faults gpu-sync__context_lost; do
  if [ $(($(date +%s) - T0)) -gt 520 ]; then echo "$b not started (time)"; continue; fi
  t "$b" "$b" 100
done
echo "all done at $(($(date +%s) - T0))s"
