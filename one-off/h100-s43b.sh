#!/usr/bin/env bash
# Forty-third session, second call (issue 13's 16-bit w = 127): the fifth lead, the span staged
# contiguously in wgmma's 128-byte swizzle (one-off/wg-swizzle-harness.cu, variants sw0 and swb:
# the descriptor's base offset 0 or set), against the shipped kernel (wg1), checked bit for bit,
# timed alone at 2^28 and 2^26 (two rounds), its checks under the three sanitizers, then Nsight
# Compute's full set on sw0 at 2^26, w = 127, beside s43a's profile of wg1. No carry, ~2 minutes.
# Results: $OUT/s43b.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
R="$OUT/s43b"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s43b.tgz s43b && rm -rf s43b)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
step nvcc 120 nvcc -O3 -std=c++17 -lineinfo -gencode arch=compute_90a,code=sm_90a -I kernels/include \
  -Xptxas -v -o /tmp/wgs one-off/wg-swizzle-harness.cu
grep -E "error|Performance|C751[45]" "$R/nvcc.log" | head -10
[ -x /tmp/wgs ] || exit 1
step checks 120 env QUICK=1 /tmp/wgs 22 1
grep -v " 0 outputs differ from wg1" "$R/checks.out" | head -8; grep -c " 0 outputs differ from wg1" "$R/checks.out"
WIN=$(for v in sw0 swb; do [ "$(grep -c "$v: 0 outputs differ" "$R/checks.out")" = 17 ] && echo "$v"; done | head -1)
echo "bit-exact variant: ${WIN:-none}"
[ -n "$WIN" ] || exit 0
export VARIANTS=$WIN
step time28 120 env SKIP_CHECKS=1 /tmp/wgs 28 20 31,63,127,255
grep -E "^round|copy" "$R/time28.out"
step time26 60 env SKIP_CHECKS=1 /tmp/wgs 26 20 127
grep -E "^round|copy" "$R/time26.out"
for t in memcheck racecheck synccheck; do
  step "san-$t" 120 env QUICK=1 compute-sanitizer --tool $t /tmp/wgs 18 1
  tail -1 "$R/san-$t.out"
done
K=$([ "$WIN" = sw0 ] && echo wgs0_f16 || echo wgsb_f16)
step ncu 150 env SKIP_CHECKS=1 ncu --set full --import-source yes -k regex:"^$K\$" \
  --launch-skip 3 -c 1 -f -o "$R/ncu-w127" /tmp/wgs 26 3 127
ncu -i "$R/ncu-w127.ncu-rep" --page details > "$R/ncu-w127-details.txt" 2>&1
ncu -i "$R/ncu-w127.ncu-rep" --page source --csv > "$R/ncu-w127-source.csv" 2>&1
grep -E "Duration|DRAM Throughput|Issue Slots Busy|Achieved Occupancy|excessive" "$R/ncu-w127-details.txt" | head -20
echo "all done at $(( $(date +%s) - T0 ))s"
