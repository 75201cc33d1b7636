#!/usr/bin/env bash
# Issue 14, call L (one H100): the test binaries of carry l (gpu-conv1d host pipeline and axes),
# GPU_PRIMS_REQUIRE_GPU=1, one after another alone on the GPU; then compute-sanitizer (memcheck,
# racecheck, synccheck) over the FFT and tensor-core paths along the outer axis
# (outer_axis_tiles_for_the_sanitizers).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/l ] || tar -C gpu-carry2 -xJf gpu-carry2/l.tar.xz; C=gpu-carry2/l
R="$OUT/h100-l"; mkdir -p "$R/logs"
export GPU_PRIMS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
P=0; F=0
for b in $(ls $C | grep -v "^benches__"); do
  s=$(date +%s)
  timeout -k 10 200 $C/$b > "$R/logs/$b.log" 2>&1; rc=$?
  line=$(grep -E '^test result' "$R/logs/$b.log" | tail -1)
  p=$(grep -Eo '[0-9]+ passed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ failed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  [ $rc -ne 0 ] && [ "$f" = 0 ] && f=1
  P=$((P+p)); F=$((F+f))
  printf '%-40s rc=%-3s passed=%s failed=%s %ss\n' $b $rc $p $f $(( $(date +%s) - s )) | tee -a "$R/summary.txt"
  [ $rc -ne 0 ] && grep -E "panicked|FAILED" -A5 "$R/logs/$b.log" | head -14
done
echo "$P passed, $F failed" | tee -a "$R/summary.txt"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool $( [ $tool = memcheck ] && echo --report-api-errors no ) --error-exitcode 9 $C/gpu-conv1d__host_pipeline outer_axis_tiles_for_the_sanitizers --test-threads=1 > "$R/logs/sanitizer-$tool.log" 2>&1
  echo "outer_axis_tiles_for_the_sanitizers $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/logs/sanitizer-$tool.log" | tr '\n' ' ')" | tee -a "$R/summary.txt"
done
(cd "$OUT" && tar czf h100-l.tgz h100-l && rm -rf h100-l)
