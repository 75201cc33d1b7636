#!/usr/bin/env bash
# Session 8, call C (one H200), each step alone on the GPU:
#  1. gpu-scan's GPU tests with the 16-bit thread-run tiles prefetching into L2 (prefetch_gpu,
#     half_gpu, gpu, kernels, status_reuse_gpu); memcheck, racecheck and synccheck over
#     prefetch_gpu up to one tile and a bit (PREFETCH_TEST_MAX_LEN);
#  2. PyTorch / CuPy cumsum of f16 and bf16 (peers.py), 2^24 and 2^28;
#  3. the report's 16-bit scans (2^24, 2^27, 2^28) with the built-in H200 rule (prefetching from
#     2^27) and with a table turning the prefetch off, alternating twice.
# Carry: one-off/carry-s8c.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/c8.tar.xz; C=gpu-carry2/c8
R="$OUT/s8c"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-540} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in prefetch_gpu kernels half_gpu status_reuse_gpu gpu; do
  s=$(date +%s); timeout $(cap 120) $C/gpu-scan__$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  grep -E "prefetching scans" "$R/logs/test-$b.txt"
  [ $rc = 0 ] || grep -E "FAILED|panicked" -A3 "$R/logs/test-$b.txt" | head -12
done
for t in memcheck racecheck synccheck; do
  s=$(date +%s); PREFETCH_TEST_MAX_LEN=60000 timeout $(cap 100) compute-sanitizer --tool $t --report-api-errors no $C/gpu-scan__prefetch_gpu --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
unset GPU_PRIMS_REQUIRE_GPU
printf 'scan.prefetch_from = 1099511627776\n' > "$R/no-prefetch.txt"
s=$(date +%s); timeout $(cap 90) python3 scripts/peers.py --sizes 24,28 --types f16,bf16 --ops cumsum --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$? $(( $(date +%s) - s ))s"
grep -iE "cumsum" "$R/logs/peers.log" | head -8
A="--device-only --only core,scan --sizes 24,27,28 --types f16,bf16 --cpu-reps 1 --peers $R/peers.json"
i=0
for v in pf off pf off; do
  i=$((i + 1)); [ "$(left)" -gt 50 ] || { echo "report $i skipped: deadline"; continue; }
  if [ $v = off ]; then export GPU_PRIMS_TUNING="$R/no-prefetch.txt"; else unset GPU_PRIMS_TUNING; fi
  s=$(date +%s); timeout $(cap 90) $C/benches__report $A --out "$R/report-$i-$v" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "\| (copy|auto) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f2-12
done
unset GPU_PRIMS_TUNING
find "$R" -name "*.svg" -delete
