#!/usr/bin/env bash
# Issue 24 session 4, call A (one H200): the final build of session 3 (conv1d cubins from the
# pinned ptxas 12.0.76). First, alone on the GPU: PyTorch/CuPy and CUB peers, then the report
# --device-only (reduce, scan, conv1d at 2^24 and 2^28); then the tests and sanitizers of call A
# of session 3. Steps past the deadline are skipped (and say so).
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/a.tar.xz; C=gpu-carry2/a
R="$OUT/s4a"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s); timeout 130 python3 scripts/peers.py --sizes 24,28 --types i32,f32 --ops sum,max,cumsum,conv1d --widths 3,7,31,127 --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); (nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout 60 /tmp/peers_cub 24 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$? $(( $(date +%s) - s ))s"; cat "$R/logs/cub.log"
s=$(date +%s); timeout 200 $C/benches__report --device-only --only core,reduce,scan,conv1d --sizes 24,28 --types i32,f32 --widths 3,7,31,127 --cpu-reps 1 --out "$R/report" --peers "$R/peers.json" > "$R/logs/report.log" 2>&1; echo "report rc=$? $(( $(date +%s) - s ))s"
grep -E "\| (auto|Auto|copy|look-back|lookback)" "$R/report/report.md" | head -60
export GPU_PRIMS_REQUIRE_GPU=1
declare -A TL=([gpu-conv1d__gpu]=170)
for b in gpu-core__tuning_gpu gpu-conv1d__tuning_gpu gpu-conv1d__gpu gpu-conv1d__kernels gpu-conv1d__properties; do
  [ "$(left)" -gt 40 ] || { echo "$b skipped: deadline"; continue; }
  s=$(date +%s); timeout ${TL[$b]:-80} $C/$b --nocapture > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked|failed" "$R/logs/test-$b.txt" | head -5
done
grep -h "wide tiles" "$R"/logs/test-gpu-conv1d__tuning_gpu.txt
for t in memcheck racecheck synccheck; do
  [ "$(left)" -gt 30 ] || { echo "$t skipped: deadline"; continue; }
  s=$(date +%s); timeout $(( $(left) > 100 ? 100 : $(left) )) compute-sanitizer --tool $t --report-api-errors no $C/gpu-conv1d__tuning_gpu > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
(cd "$OUT" && tar czf s4a.tgz s4a && rm -rf s4a)
