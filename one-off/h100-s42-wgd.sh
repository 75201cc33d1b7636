#!/usr/bin/env bash
# Forty-second session, third lead for issue 13's 16-bit w = 127: the warpgroup kernel's outputs
# straight from the accumulators (one-off/wg-direct-harness.cu: d1 2-byte stores, d2 4-byte
# pairs by shuffle), checked bit for bit against the shipped kernel, timed alone at 2^28 (two
# rounds), the checks under memcheck, racecheck and synccheck at 2^18. No carry.
# Results: $OUT/wgd.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
R="$OUT/wgd"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf wgd.tgz wgd && rm -rf wgd)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
step nvcc 120 nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include \
  -Xptxas -v -o /tmp/wgd one-off/wg-direct-harness.cu
grep -E "error|Used|spill|Performance" "$R/nvcc.log" | head -20
[ -x /tmp/wgd ] || exit 1
step time 240 /tmp/wgd 28 20 31,127,255
step time26 60 /tmp/wgd 26 20 127
grep -E "^round|copy" "$R/time26.out"
cat "$R/time.out" | grep -v "^check" ; grep -c "0 outputs differ from wg1" "$R/time.out"
grep "^check" "$R/time.out" | grep -v " 0 outputs differ from wg1" | head -5
for t in memcheck racecheck synccheck; do
  step "san-$t" 120 env QUICK=1 compute-sanitizer --tool $t /tmp/wgd 18 1
  tail -2 "$R/san-$t.out"; grep -cv " 0 outputs differ from wg1" "$R/san-$t.out"
done
echo "all done at $(( $(date +%s) - T0 ))s"
