#!/usr/bin/env bash
# Forty-second session, second lead for issue 13's 16-bit w = 127 (0.78 against 0.8 on the H100):
# the warpgroup kernel prefetching the span of the tile D on into L2 (pfD, D = 132 … 4224), beside
# the committed kernel, checked bit for bit against it, timed alone at 2^28 (two rounds) and at
# 2^26, then the checks under the three sanitizers at 2^18. No carry. Results: $OUT/pf.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
R="$OUT/pf"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf pf.tgz pf && rm -rf pf)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
step nvcc 120 nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include \
  -Xptxas -v -o /tmp/wgg one-off/wg-groups-harness.cu
grep -E "error|Performance" "$R/nvcc.log" | head -20
[ -x /tmp/wgg ] || exit 1
export VARIANTS=pf132,pf264,pf528,pf1056,pf2112,pf4224
step time28 120 /tmp/wgg 28 20 31,127,255
grep -v "^check" "$R/time28.out"; grep -c " 0 outputs differ from wg1" "$R/time28.out"
grep "^check" "$R/time28.out" | grep -v " 0 outputs differ from wg1" | head -5
step time26 60 /tmp/wgg 26 20 127
grep -E "^round|copy" "$R/time26.out"
export VARIANTS=pf528,pf1056
for t in memcheck racecheck synccheck; do
  step "san-$t" 120 env QUICK=1 compute-sanitizer --tool $t /tmp/wgg 18 1
  tail -1 "$R/san-$t.out"
done
echo "all done at $(( $(date +%s) - T0 ))s"
