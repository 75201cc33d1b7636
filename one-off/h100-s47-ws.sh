#!/usr/bin/env bash
# Forty-seventh session: the warp-specialised scan harness (one-off/ws-scan-harness.cu) at more
# sizes, then under memcheck, racecheck and synccheck (-DFEW, 2^20). Results in $OUT/s47ws.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
R="$OUT/s47ws"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s47ws.tgz s47ws && rm -rf s47ws)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
nvcc -O3 -std=c++17 -arch=sm_90a -I kernels/include -o /tmp/ws-scan one-off/ws-scan-harness.cu > "$R/nvcc-ws.log" 2>&1 &
nvcc -O3 -std=c++17 -arch=sm_90a -DFEW -lineinfo -I kernels/include -o /tmp/ws-few one-off/ws-scan-harness.cu > "$R/nvcc-few.log" 2>&1 &
wait
echo "compiled at $(( $(date +%s) - T0 ))s"
step ws-sizes 120 /tmp/ws-scan 20 "${WS_SIZES:-20,22,26}"
grep -E "copy|win 1" "$R/ws-sizes.out"; tail -3 "$R/ws-sizes.log"
for t in memcheck racecheck synccheck; do
  step "san-$t" 100 compute-sanitizer --tool $t --error-exitcode 9 /tmp/ws-few 1 20
  echo "$(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$R/san-$t.out" "$R/san-$t.log" | head -3)"
  grep -c " ok" "$R/san-$t.out"
done
echo "all done at $(( $(date +%s) - T0 ))s"
