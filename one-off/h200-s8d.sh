#!/usr/bin/env bash
# Session 8, call D (one H200), each step alone on the GPU:
#  1. gpu-scan's prefetch_gpu (16-bit input with f32 results prefetching too), half_gpu, kernels;
#     memcheck, racecheck, synccheck over prefetch_gpu up to 90000 values;
#  2. the report's 16-bit scans (2^27, 2^28) with the built-in H200 rule and with the prefetch
#     off, alternating twice (the auto_to_f32 rows are the new ones);
#  3. the conv1d harness's TMA-fed wide tiles (-DBULK_ONLY: persistent blocks, NBUF spans in
#     flight by cp.async.bulk) beside the shipped wide tile, f32 same, 2^28 w 7 / 31, 2^24 w 31.
# Carry: one-off/carry-s8d.sh. Results in $OUT/s8d.tgz.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/d8.tar.xz; C=gpu-carry2/d8
R="$OUT/s8d"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-540} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -DBULK_ONLY -o /tmp/wph one-off/warp-pipe-harness.cu > "$R/logs/nvcc-wph.log" 2>&1 & p1=$!
export GPU_PRIMS_REQUIRE_GPU=1
for b in prefetch_gpu kernels half_gpu; do
  s=$(date +%s); timeout $(cap 150) $C/gpu-scan__$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  grep -E "prefetching scans" "$R/logs/test-$b.txt"
  [ $rc = 0 ] || grep -E "FAILED|panicked" -A3 "$R/logs/test-$b.txt" | head -12
done
for t in memcheck racecheck synccheck; do
  s=$(date +%s); PREFETCH_TEST_MAX_LEN=90000 timeout $(cap 100) compute-sanitizer --tool $t --report-api-errors no $C/gpu-scan__prefetch_gpu --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
unset GPU_PRIMS_REQUIRE_GPU
printf 'scan.prefetch_from = 1099511627776\n' > "$R/no-prefetch.txt"
A="--device-only --only core,scan --sizes 27,28 --types f16,bf16 --cpu-reps 1"
i=0
for v in pf off pf off; do
  i=$((i + 1)); [ "$(left)" -gt 200 ] || { echo "report $i skipped: deadline"; continue; }
  if [ $v = off ]; then export GPU_PRIMS_TUNING="$R/no-prefetch.txt"; else unset GPU_PRIMS_TUNING; fi
  s=$(date +%s); timeout $(cap 80) $C/benches__report $A --out "$R/report-$i-$v" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "^scan +(auto|auto_to_f32|lookback_staged|lookback_det_staged) +inclusive sum  " "$R/logs/report-$i-$v.log" | grep -v block= | awk '{print $2, $5, $6, $7, $8, $10}' | paste -sd';'
done
unset GPU_PRIMS_TUNING
wait $p1; echo "nvcc wph rc=$?"; tail -3 "$R/logs/nvcc-wph.log"
s=$(date +%s); timeout $(cap 120) /tmp/wph 28 20 x 7,31 > "$R/conv28.txt" 2>&1; echo "conv28 rc=$? $(( $(date +%s) - s ))s"; cat "$R/conv28.txt"
s=$(date +%s); timeout $(cap 60) /tmp/wph 24 20 x 31 > "$R/conv24.txt" 2>&1; echo "conv24 rc=$? $(( $(date +%s) - s ))s"; grep -E "w= 31|copy" "$R/conv24.txt"
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf s8d.tgz s8d && rm -rf s8d)
