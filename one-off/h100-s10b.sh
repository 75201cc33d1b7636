#!/usr/bin/env bash
# Issue 13 session 10, call B (one H100): every gpu-conv1d GPU test binary with
# GPU_PRIMS_REQUIRE_GPU=1, then compute-sanitizer memcheck, racecheck and synccheck over the
# tensor-core tests (gpu_tensor_cores; tensor_path_non_finite_streams).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s10b ] || tar -C gpu-carry2 -xJf gpu-carry2/s10b.tar.xz; C=gpu-carry2/s10b
R="$OUT/s10b"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
P=0; F=0
for b in $(ls $C | grep -v "^benches__"); do
  s=$(date +%s)
  timeout -k 10 240 $C/$b > "$R/logs/$b.log" 2>&1; rc=$?
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
  timeout 100 compute-sanitizer --tool $tool $extra --error-exitcode 9 $C/gpu-conv1d__gpu gpu_tensor_cores --test-threads=1 > "$R/logs/sanitize-tensor-$tool.log" 2>&1
  echo "sanitizer $tool gpu_tensor_cores rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/logs/sanitize-tensor-$tool.log" | tail -1)"
done
tool=memcheck; timeout 100 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 $C/gpu-conv1d__host_pipeline tensor_path_non_finite_streams --test-threads=1 > "$R/logs/sanitize-nonfinite-memcheck.log" 2>&1
echo "sanitizer memcheck tensor_path_non_finite_streams rc=$? $(grep -E 'ERROR SUMMARY' "$R/logs/sanitize-nonfinite-memcheck.log" | tail -1)"
(cd "$OUT" && tar czf s10b.tgz s10b && rm -rf s10b)
