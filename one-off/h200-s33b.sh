#!/usr/bin/env bash
# Session 33 (2026-12-04; no GPU was lent, so written for the next session), call B (one H200),
# carry gpu-carry3/s33.tar.xz (one-off/carry-s33.sh on branch s33-short-stores).
# 1. Alone on the GPU, 2^28 values, `shapes --quick --reductions-only`, before (main 636d96d)
#    and after (16-byte result stores in reduce_columns_short_*), alternating twice: f16 and
#    bf16 over the thread-per-group cases, i32 and f32 over the same (nothing may move back).
# 2. Untimed, side by side: gpu-reduce's suites and gpu-core's lanes test of the new build.
# 3. compute-sanitizer over lanes_sanitize_every_mapping (memcheck, synccheck, racecheck),
#    side by side (untimed).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s33
sh() { # LABEL BIN ARGS...: one shapes run alone, its log and table in $R
  local label=$1 b=$2 s; shift 2; s=$(date +%s)
  timeout 150 "$C/$b" --log2 28 --quick --reductions-only --no-conv --segment-kinds 1-8 --out "$R/$label" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(($(date +%s) - s))s"
}
SHORT="67108864x4 F axis 1,134217728x2 F axis 1,4194304x64 F axis 1,64x4194304 C axis 0,16384x16384 C axis 0,4194304x64 C axis 0"
for round in 1 2; do
  sh half-before-$round shapes-before --types f16,bf16 --cases "$SHORT"
  sh half-after-$round shapes-after --types f16,bf16 --cases "$SHORT"
  sh four-before-$round shapes-before --types i32,f32 --cases "$SHORT"
  sh four-after-$round shapes-after --types i32,f32 --cases "$SHORT"
done
echo "timings done at $(($(date +%s) - T0))s"
for f in "$R"/*.log; do grep -E "^shapes: (sum|max)" "$f" | sed "s|^shapes: |$(basename "$f" .log) |"; done > "$R/summary.txt"
grep -c "ok$" "$R/summary.txt"; grep -v "ok$" "$R/summary.txt" | head
( t unit gpu-reduce__gpu_reduce 100 ) &
( t shaped gpu-reduce__shaped_gpu 250 ) &
( t kernels gpu-reduce__kernels 250 ) &
( t gpu gpu-reduce__gpu 200; t props gpu-reduce__properties 100; t half gpu-reduce__half_gpu 100; t core-lanes gpu-core__lanes 100 ) &
( t host gpu-reduce__host_pipeline 250 ) &
wait
echo "tests done at $(($(date +%s) - T0))s"
# memcheck without API errors: the host pipeline's probe of pageable memory is one by design.
C2=$C/gpu-reduce__shaped_gpu
( timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-mem.log" 2>&1
  echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|test result' "$R/san-mem.log" | tr '\n' ' ')" ) &
( timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-sync.log" 2>&1
  echo "synccheck rc=$? $(grep -E 'ERROR SUMMARY|test result' "$R/san-sync.log" | tr '\n' ' ')" ) &
( timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-race.log" 2>&1
  echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result' "$R/san-race.log" | tr '\n' ' ')" ) &
wait
echo "all done at $(($(date +%s) - T0))s"
