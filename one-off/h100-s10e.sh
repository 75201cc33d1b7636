#!/usr/bin/env bash
# Issue 13 session 10, call E (one H100): gpu-conv1d's gpu, properties, host_pipeline, axis_gpu
# and unit tests with GPU_PRIMS_REQUIRE_GPU=1 after Auto's tensor-core threshold moved (no
# kernel changed since call B).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s10e ] || tar -C gpu-carry2 -xJf gpu-carry2/s10e.tar.xz; C=gpu-carry2/s10e
R="$OUT/s10e"; mkdir -p "$R/logs"
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
(cd "$OUT" && tar czf s10e.tgz s10e && rm -rf s10e)
