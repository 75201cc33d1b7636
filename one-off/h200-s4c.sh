#!/usr/bin/env bash
# Issue 24 session 4, call C (one H200): the flat look-back scans over epoch-tagged status (no
# zeroing launch per call). First, alone on the GPU: PyTorch/CuPy and CUB cumsum peers and the
# report's scan rows at 2^20, 2^22, 2^24, 2^28 (--device-only), the harness's persistent-block
# variant (one-off/scan-epoch-harness.cu); then gpu-scan's GPU tests, gpu-dist's one-GPU tests,
# and memcheck/racecheck/synccheck over the status-reuse test.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/c.tar.xz; C=gpu-carry2/c
R="$OUT/s4c"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-570} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s); timeout 100 python3 scripts/peers.py --sizes 20,22,24,28 --types i32,f32 --ops cumsum --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); (nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout 60 /tmp/peers_cub 20 22 24 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$? $(( $(date +%s) - s ))s"; grep cumsum "$R/logs/cub.log"
s=$(date +%s); timeout 120 $C/benches__report --device-only --only core,scan --sizes 20,22,24,28 --types i32,f32 --cpu-reps 1 --out "$R/report" --peers "$R/peers.json" > "$R/logs/report.log" 2>&1; echo "report rc=$? $(( $(date +%s) - s ))s"
grep -E "\| (copy|auto|lookback|lookback_staged|lookback_registers) \|" "$R/report/report.md" | grep -vE "with copies|block=" | cut -d'|' -f2-11 | head -60
grep -E "results:" "$R/report/report.md"
s=$(date +%s); nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/seh one-off/scan-epoch-harness.cu > "$R/logs/nvcc-seh.log" 2>&1 && timeout 90 /tmp/seh 30 20,24,28 > "$R/harness.txt" 2>&1; echo "harness rc=$? $(( $(date +%s) - s ))s"; grep -E "persist|copy" "$R/harness.txt"
export GPU_PRIMS_REQUIRE_GPU=1
declare -A TL=([gpu-scan__gpu]=200 [gpu-scan__shaped_gpu]=150)
for b in gpu-scan__status_reuse_gpu gpu-scan__tuning_gpu gpu-scan__kernels gpu-scan__properties gpu-scan__inputs gpu-scan__scan_builder gpu-scan__host_pipeline gpu-scan__half_gpu gpu-dist__gpu gpu-scan__gpu gpu-scan__shaped_gpu; do
  [ "$(left)" -gt 40 ] || { echo "$b skipped: deadline"; continue; }
  t=${TL[$b]:-90}; [ "$t" -lt "$(left)" ] || t=$(( $(left) - 10 ))
  s=$(date +%s); timeout $t $C/$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked|failed" "$R/logs/test-$b.txt" | head -5
done
for t in memcheck synccheck racecheck; do
  [ "$(left)" -gt 30 ] || { echo "$t skipped: deadline"; continue; }
  s=$(date +%s); timeout $(( $(left) > 120 ? 120 : $(left) - 5 )) compute-sanitizer --tool $t --report-api-errors no $C/gpu-scan__status_reuse_gpu > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
(cd "$OUT" && tar czf s4c.tgz s4c && rm -rf s4c)
