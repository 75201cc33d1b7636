#!/usr/bin/env bash
# Forty-third session, first call (issue 13's 16-bit w = 127, 0.78-0.79 against 0.8 on the H100;
# three leads lost in the forty-second): the fourth lead, h2 (one-off/wg-direct-harness.cu: two
# m64n32 chains, the first half's outputs staged while the second half's products run), against
# the shipped kernel (wg1), checked bit for bit, timed alone at 2^28 and 2^26 (two rounds), its
# checks under the three sanitizers; then Nsight Compute's full set on the shipped kernel at
# 2^26, w = 127 (the 4th launch of the timed loop), so that the next lead follows a profile.
# No carry, ~3 minutes. Results: $OUT/s43a.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
R="$OUT/s43a"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s43a.tgz s43a && rm -rf s43a)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
step nvcc 120 nvcc -O3 -std=c++17 -lineinfo -gencode arch=compute_90a,code=sm_90a -I kernels/include \
  -Xptxas -v -o /tmp/wgd one-off/wg-direct-harness.cu
grep -E "error|Performance|C751[45]" "$R/nvcc.log" | head -10
[ -x /tmp/wgd ] || exit 1
export VARIANTS=h2
step time28 120 /tmp/wgd 28 20 31,63,127,255
grep -v "^check" "$R/time28.out"; grep -c " 0 outputs differ from wg1" "$R/time28.out"
grep "^check" "$R/time28.out" | grep -v " 0 outputs differ from wg1" | head -5
step time26 60 env SKIP_CHECKS=1 /tmp/wgd 26 20 127
grep -E "^round|copy" "$R/time26.out"
for t in memcheck racecheck synccheck; do
  step "san-$t" 120 env QUICK=1 compute-sanitizer --tool $t /tmp/wgd 18 1
  tail -1 "$R/san-$t.out"
done
export VARIANTS=none
step ncu 200 env SKIP_CHECKS=1 ncu --set full --import-source yes -k regex:'^conv1d_wgmma_f16$' \
  --launch-skip 3 -c 1 -f -o "$R/ncu-w127" /tmp/wgd 26 3 127
tail -3 "$R/ncu.out"
ncu -i "$R/ncu-w127.ncu-rep" --page details > "$R/ncu-w127-details.txt" 2>&1
ncu -i "$R/ncu-w127.ncu-rep" --page source --csv > "$R/ncu-w127-source.csv" 2>&1
grep -E "Duration|Throughput|Issue Slots Busy|Achieved Occupancy|Warp Cycles Per Issued" "$R/ncu-w127-details.txt" | head -20
echo "all done at $(( $(date +%s) - T0 ))s"
