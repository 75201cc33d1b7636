#!/usr/bin/env bash
# Forty-second session (issue 13, 16-bit conv1d w = 127 at 0.78 against 0.8 on the H100): the
# warpgroup kernel with G = 1 (committed), 2 and 4 warpgroups per block sharing the mask's rows
# (one-off/wg-groups-harness.cu, built here by nvcc), checked bit for bit against G = 1, timed
# alone on the GPU at 2^28 (two rounds), then its checks under memcheck, racecheck and
# synccheck at 2^18. No carry. Results: $OUT/wgg.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
R="$OUT/wgg"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf wgg.tgz wgg && rm -rf wgg)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
step nvcc 120 nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include \
  -Xptxas -v -o /tmp/wgg one-off/wg-groups-harness.cu
grep -E "error|Used|spill|Performance" "$R/nvcc.log" | head -20
[ -x /tmp/wgg ] || exit 1
step time 240 /tmp/wgg 28 20 31,63,127,255
cat "$R/time.out" | grep -v "^check" ; grep -c "0 outputs differ from wg1" "$R/time.out"
grep "^check" "$R/time.out" | grep -v " 0 outputs differ from wg1" | head -5
for t in memcheck racecheck synccheck; do
  step "san-$t" 120 env QUICK=1 compute-sanitizer --tool $t /tmp/wgg 18 1
  tail -2 "$R/san-$t.out"; grep -cv " 0 outputs differ from wg1" "$R/san-$t.out"
done
echo "all done at $(( $(date +%s) - T0 ))s"
