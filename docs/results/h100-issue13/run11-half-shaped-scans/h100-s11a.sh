#!/usr/bin/env bash
# Issue 13 session 11, call A (one H100): every gpu-scan test binary and gpu-reduce's shaped and
# 16-bit tests with GPU_PRIMS_REQUIRE_GPU=1, then compute-sanitizer memcheck, racecheck and
# synccheck over the new 16-bit shaped scans (half_shaped_gpu small_cases_of_every_kernel,
# nan_and_infinities, device_arrays_and_into).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s11 ] || tar -C gpu-carry2 -xJf gpu-carry2/s11.tar.xz; C=gpu-carry2/s11
R="$OUT/s11a"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
P=0; F=0
for b in $(ls $C | grep -v "shapes$"); do
  s=$(date +%s)
  timeout -k 10 300 $C/$b > "$R/logs/$b.log" 2>&1; rc=$?
  line=$(grep -E '^test result' "$R/logs/$b.log" | tail -1)
  p=$(grep -Eo '[0-9]+ passed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ failed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  [ $rc -ne 0 ] && [ "$f" = 0 ] && f=1
  P=$((P+p)); F=$((F+f))
  printf '%-40s rc=%-3s passed=%s failed=%s %ss %s\n' $b $rc $p $f $(( $(date +%s) - s )) "$line" | tee -a "$R/summary.txt"
  [ $rc -ne 0 ] && grep -E "panicked|FAILED" -A5 "$R/logs/$b.log" | head -14
done
echo "$P passed, $F failed" | tee -a "$R/summary.txt"
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  for t in small_cases_of_every_kernel nan_and_infinities device_arrays_and_into; do
    timeout 150 compute-sanitizer --tool $tool $extra --error-exitcode 9 $C/gpu-scan__half_shaped_gpu $t --exact --test-threads=1 > "$R/logs/sanitize-$t-$tool.log" 2>&1
    echo "sanitizer $tool $t rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/logs/sanitize-$t-$tool.log" | tail -2 | tr '\n' ' ')" | tee -a "$R/summary.txt"
  done
done
(cd "$OUT" && tar czf s11a.tgz s11a && rm -rf s11a)
