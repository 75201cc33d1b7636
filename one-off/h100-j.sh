#!/usr/bin/env bash
# Issue 14, call J (one H100): gpu-conv1d's test binaries (carry j), GPU_PRIMS_REQUIRE_GPU=1, one
# after another alone on the GPU; compute-sanitizer (memcheck, racecheck, synccheck) over the FFT
# path's span launches (fft_path_for_the_sanitizers); then the report's core and conv1d groups
# at 2^28 f32, widths 31 and 1023 (the host-to-host rows on the direct and the FFT path).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/j ] || tar -C gpu-carry2 -xJf gpu-carry2/j.tar.xz; C=gpu-carry2/j
R="$OUT/h100-j"; mkdir -p "$R/logs"
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
  timeout 60 compute-sanitizer --tool $tool $( [ $tool = memcheck ] && echo --report-api-errors no ) --error-exitcode 9 $C/gpu-conv1d__host_pipeline fft_path_for_the_sanitizers --test-threads=1 > "$R/logs/sanitizer-$tool.log" 2>&1
  echo "fft_path_for_the_sanitizers $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/logs/sanitizer-$tool.log" | tr '\n' ' ')" | tee -a "$R/summary.txt"
done
(cd "$OUT" && tar czf h100-j.tgz h100-j && rm -rf h100-j)
