#!/usr/bin/env bash
# Issue 14, call M (one H100): the test binaries of carry m (gpu-conv1d gpu, fault injection,
# properties, inputs), GPU_PRIMS_REQUIRE_GPU=1, one after another alone on the GPU: the binaries
# call L did not rerun after the span rules.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/m ] || tar -C gpu-carry2 -xJf gpu-carry2/m.tar.xz; C=gpu-carry2/m
R="$OUT/h100-m"; mkdir -p "$R/logs"
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
(cd "$OUT" && tar czf h100-m.tgz h100-m && rm -rf h100-m)
