#!/usr/bin/env bash
# Session 7, call C (one H200), each step alone on the GPU:
#  1. the final build's GPU tests: gpu-conv1d gpu / properties / kernels (the warpgroup kernel's
#     descriptors moved by constants), sanitizers over the warpgroup cross test; gpu-reduce
#     shaped_gpu (the long-ones rule of call B);
#  2. the report, 16-bit conv1d w 63 / 127 / 255 at 2^24 and 2^28, call B's build and this one
#     alternating; then Nsight Compute on this build's warpgroup kernel (f16, w 127, 2^28);
#  3. segment sums with long ones under the shipped rule (no overrides).
# Carry: one-off/carry-s7c.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/c7.tar.xz; C=gpu-carry2/c7
R="$OUT/s7c"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-conv1d__gpu gpu-conv1d__properties gpu-conv1d__kernels gpu-reduce__shaped_gpu; do
  s=$(date +%s); timeout $(cap 120) $C/$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked" -A3 "$R/logs/test-$b.txt" | head -12
done
for t in memcheck racecheck synccheck; do
  s=$(date +%s); timeout $(cap 90) compute-sanitizer --tool $t $C/gpu-conv1d__gpu gpu_cross_warpgroup --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
unset GPU_PRIMS_REQUIRE_GPU
A="--device-only --only core,conv1d --sizes 24,28 --types f16,bf16 --widths 63,127,255 --cpu-reps 1"
i=0
for v in old new old new; do
  i=$((i + 1)); B=$C/benches__report; [ $v = old ] && B=$C/report-old
  [ "$(left)" -gt 120 ] || { echo "report $i skipped: deadline"; continue; }
  s=$(date +%s); timeout $(cap 90) $B $A --out "$R/report-$i-$v" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "\| (copy|warpgroup) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f3-10
done
K="--log2 28 --types f32 --segments-only --reductions-only --quick --segment-kinds 1-8+4096/1000,1-8+16384/1000,1-8+2100/500"
s=$(date +%s); timeout $(cap 40) $C/benches__shapes $K --out "$R/shapes-rule" > "$R/logs/shapes-rule.log" 2>&1
echo "shapes rule rc=$? $(( $(date +%s) - s ))s"; grep -h "segment_sum" "$R/logs/shapes-rule.log" | sed 's/^shapes: //'
grep -h "plan\|thread per segment" "$R/shapes-rule/shapes.md" | head -5
if [ "$(left)" -gt 60 ]; then
  s=$(date +%s); timeout $(cap 60) ncu --set full --import-source no -k regex:"^conv1d_wgmma_f16\$" --launch-skip 2 -c 1 -f -o "$R/ncu-wgmma" \
    $C/benches__report --device-only --only conv1d --sizes 28 --types f16 --widths 127 --cpu-reps 1 --quick --out "$R/report-ncu" > "$R/logs/ncu.log" 2>&1
  echo "ncu rc=$? $(( $(date +%s) - s ))s"
  ncu -i "$R/ncu-wgmma.ncu-rep" --page details > "$R/ncu-wgmma-details.txt" 2>&1
  ncu -i "$R/ncu-wgmma.ncu-rep" --page source --csv --print-source sass | gzip -9 > "$R/ncu-wgmma-sass.csv.gz"
  rm -rf "$R/ncu-wgmma.ncu-rep" "$R/report-ncu"
  grep -E "Duration|DRAM Throughput|Compute \(SM\)|Issue Slots Busy|Warp Cycles Per Issued|Achieved Occupancy" "$R/ncu-wgmma-details.txt" | head -10
fi
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf s7c.tgz s7c && rm -rf s7c)
