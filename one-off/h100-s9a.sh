#!/usr/bin/env bash
# Issue 12 session 9, call A (one H100): gpu-conv1d's GPU tests (GPU_PRIMS_REQUIRE_GPU=1), then
# Nsight Compute with source counters on the long-span columns scan (one tile: 4194304x64 C axis
# 0; 128 tiles: 16384x16384 C axis 0), alone on the GPU.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s9a ] || tar -C gpu-carry2 -xJf gpu-carry2/s9a.tar.xz; C=gpu-carry2/s9a
R="$OUT/s9a"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
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
A="--scans-only --types f32 --quick --no-conv"
for c in "4194304x64 C axis 0:cols64" "16384x16384 C axis 0:cols16k"; do
  name=${c#*:}; case=${c%:*}
  timeout 200 ncu --set full --import-source no -k regex:scan_columns_long -c 1 -f -o "$R/$name" \
    $C/benches__shapes $A --cases "$case" --out /tmp/sh-$name > "$R/logs/ncu-$name.log" 2>&1
  echo "ncu $name rc=$?"
  ncu -i "$R/$name.ncu-rep" --page details > "$R/$name-details.txt" 2>&1
  ncu -i "$R/$name.ncu-rep" --page source --csv --print-source sass > "$R/$name-sass.csv" 2>&1
  echo "sass rows $(wc -l < "$R/$name-sass.csv")"
done
(cd "$OUT" && tar czf s9a.tgz s9a && rm -rf s9a)
