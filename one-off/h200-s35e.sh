#!/usr/bin/env bash
# Session 35 (2026-12-05), call E (one H200), carry gpu-carry3/s35e.tar.xz (one-off/carry-s35e.sh).
# 1. Alone on the GPU, 2^28 values, `shapes --quick --reductions-only`, f16 and bf16, before
#    (65bbe61) and after (two 16-bit lanes side by side read four rows a 16-byte vector),
#    alternating ROUNDS times (default 2); every row checked against the CPU.
# 2. Untimed, side by side: gpu-reduce's suites and gpu-core's lanes test of the new build, and
#    compute-sanitizer (memcheck, synccheck, racecheck) over lanes_sanitize_every_mapping.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s35e
sh() { # LABEL BIN ARGS...: one shapes run alone
  local label=$1 b=$2 s; shift 2; s=$(date +%s)
  timeout 100 "$C/$b" --log2 28 --quick --reductions-only --no-conv --segment-kinds 1-8 --out "$R/$label" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(($(date +%s) - s))s"
}
CASES="134217728x2 C axis 0,134217728x2 F axis 1,67108864x4 C axis 0,16384x16384 C axis 0,4194304x64 C axis 0,262144x1024 C axis 0"
for round in $(seq 1 "${ROUNDS:-2}"); do
  sh before-$round shapes-before --types f16,bf16 --cases "$CASES"
  sh after-$round shapes-after --types f16,bf16 --cases "$CASES"
done
for f in "$R"/*.log; do grep -E "^shapes: (sum|max|copy)" "$f" | sed "s|^shapes: |$(basename "$f" .log) |"; done > "$R/summary.txt"
echo "timings done at $(($(date +%s) - T0))s; rows ok: $(grep -c ' ok$' "$R/summary.txt"), not ok: $(grep -v -c -E ' ok$|copy' "$R/summary.txt")"
grep -E "(sum|max) f16 134217728x2 C axis 0" "$R/summary.txt"
export GPU_PRIMS_REQUIRE_GPU=1
( t shaped gpu-reduce__shaped_gpu 200 ) &
( t kernels gpu-reduce__kernels "${KERNELS_SECS:-250}" ) &
( t gpu gpu-reduce__gpu 100; t props gpu-reduce__properties 100; t half gpu-reduce__half_gpu 100; t core-lanes gpu-core__lanes 100 ) &
( t host gpu-reduce__host_pipeline 200 ) &
C2=$C/gpu-reduce__shaped_gpu
( timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-mem.log" 2>&1
  echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|test result' "$R/san-mem.log" | tr '\n' ' ')" ) &
( timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-sync.log" 2>&1
  echo "synccheck rc=$? $(grep -E 'ERROR SUMMARY|test result' "$R/san-sync.log" | tr '\n' ' ')" ) &
( timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-race.log" 2>&1
  echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result' "$R/san-race.log" | tr '\n' ' ')" ) &
wait
echo "all done at $(($(date +%s) - T0))s"
