#!/usr/bin/env bash
# Session 36 (2026-12-05), call A (one H100, 317 s of device time left), carry
# gpu-carry3/s36a.tar.xz (one-off/carry-s36a.sh): branch s35-four-rows (two 16-bit lanes side by
# side read four rows a 16-byte vector in the columns reduction).
# 1. Untimed, side by side, at most 55 s: gpu-reduce's shaped_gpu, gpu, properties, half_gpu,
#    gpu-core's lanes, and compute-sanitizer (memcheck, synccheck, racecheck) over
#    lanes_sanitize_every_mapping.
# 2. Then alone on the GPU, 2^28 values, `shapes --quick --reductions-only`, f16 and bf16, before
#    (main c6cb274) and after, every row checked against the CPU.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s36a
export GPU_PRIMS_REQUIRE_GPU=1
( t shaped gpu-reduce__shaped_gpu 55 ) &
( t gpu gpu-reduce__gpu 25; t props gpu-reduce__properties 15; t half gpu-reduce__half_gpu 10; t core-lanes gpu-core__lanes 5 ) &
C2=$C/gpu-reduce__shaped_gpu
for tool in memcheck synccheck racecheck; do
  ( extra=; [ $tool = memcheck ] && extra="--report-api-errors no"
    timeout 55 compute-sanitizer --tool $tool $extra --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result' "$R/san-$tool.log" | tr '\n' ' ')" ) &
done
wait
echo "tests done at $(($(date +%s) - T0))s"
sh() { # LABEL BIN ARGS...: one shapes run alone
  local label=$1 b=$2 s; shift 2; s=$(date +%s)
  timeout 40 "$C/$b" --log2 28 --quick --reductions-only --no-conv --segment-kinds 1-8 --out "$R/$label" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(($(date +%s) - s))s"
}
CASES="134217728x2 C axis 0,134217728x2 F axis 1,16384x16384 C axis 0"
sh before shapes-before --types f16,bf16 --cases "$CASES"
sh after shapes-after --types f16,bf16 --cases "$CASES"
for f in "$R"/*.log; do grep -E "^shapes: (sum|max|copy)" "$f" | sed "s|^shapes: |$(basename "$f" .log) |"; done > "$R/summary.txt"
cat "$R/summary.txt"
echo "all done at $(($(date +%s) - T0))s"
