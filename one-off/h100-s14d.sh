#!/usr/bin/env bash
# Issue 13 session 14, call D (one H100): every gpu-conv1d test binary with
# GPU_PRIMS_REQUIRE_GPU=1 (the warpgroup kernel in the cross product, long masks, non-finite
# inputs, properties), compute-sanitizer over the warpgroup tests, then the report's 16-bit
# conv1d rows alone on the GPU (every strategy incl. tensor_core, warpgroup, fft, auto).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s14 ] || tar -C gpu-carry2 -xJf gpu-carry2/s14.tar.xz; C=gpu-carry2/s14
R="$OUT/s14d"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
P=0; F=0
for b in ${BINS:-$(ls $C | grep -v "report$")}; do
  s=$(date +%s)
  timeout -k 10 ${TT:-200} $C/$b ${FILTER:-} > "$R/logs/$b.log" 2>&1; rc=$?
  line=$(grep -E '^test result' "$R/logs/$b.log" | tail -1)
  p=$(grep -Eo '[0-9]+ passed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ failed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  [ $rc -ne 0 ] && [ "$f" = 0 ] && f=1
  P=$((P+p)); F=$((F+f))
  printf '%-40s rc=%-3s passed=%s failed=%s %ss %s\n' $b $rc $p $f $(( $(date +%s) - s )) "$line" | tee -a "$R/summary.txt"
  [ $rc -ne 0 ] && grep -E "panicked|FAILED" -A5 "$R/logs/$b.log" | head -14
done
echo "$P passed, $F failed" | tee -a "$R/summary.txt"
grep -h "skipped" "$R"/logs/*.log | sort | uniq -c | head
if [ -z "${NO_SAN:-}" ]; then
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  for t in gpu_cross_warpgroup_bf16 gpu_warpgroup_longest_mask_rows_and_auto_choice; do
    timeout 120 compute-sanitizer --tool $tool $extra --error-exitcode 9 $C/gpu-conv1d__gpu $t --exact --test-threads=1 > "$R/logs/sanitize-$t-$tool.log" 2>&1
    echo "sanitizer $tool $t rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/logs/sanitize-$t-$tool.log" | tail -2 | tr '\n' ' ')" | tee -a "$R/summary.txt"
  done
done
fi
if [ -z "${NO_REPORT:-}" ]; then
timeout 200 $C/benches__report --only core,conv1d --sizes 28 --types f16,bf16 --widths 31,63,95,127,255 \
  --reps 5 --cpu-reps 1 --out "$R/n28" 2>"$R/n28-progress.log" >"$R/n28.txt"
echo "report n28 rc=$?"
timeout 150 $C/benches__report --only core,conv1d --sizes 24,26 --types f16 --widths 127,191,255,511,1023,2047 \
  --reps 5 --cpu-reps 1 --out "$R/n2426" 2>"$R/n2426-progress.log" >"$R/n2426.txt"
echo "report n24/26 rc=$?"
grep -E "^core +copy|^conv1d +(auto|tensor_core|warpgroup|fft|register_tiled) " "$R/n28.txt" "$R/n2426.txt" | cut -c1-150
fi
