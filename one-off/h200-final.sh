#!/usr/bin/env bash
# Session of 2026-11-28, last call (one H200): the 16-bit wide tiles at 2^25, where the key
# conv1d.half_wide_tile_from now starts (report, f16 / bf16 `same` w 3, 7, 10: the built-in rule,
# a table turning them off, the rule again), then the merged build's GPU tests (gpu-conv1d
# tuning_gpu and gpu, gpu-reduce shaped_gpu). Carry: one-off/carry-final.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/fin.tar.xz; C=gpu-carry2/fin
R="$OUT/final"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-300} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
printf 'conv1d.half_wide_tile_from = 1099511627776\n' > "$R/narrow.txt"
A="--device-only --only core,conv1d --sizes 25 --types f16,bf16 --widths 3,7,10 --cpu-reps 1"
i=0
for v in wide narrow wide; do
  i=$((i + 1))
  if [ $v = narrow ]; then export GPU_PRIMS_TUNING="$R/narrow.txt"; else unset GPU_PRIMS_TUNING; fi
  s=$(date +%s); timeout 60 $C/benches__report $A --out "$R/report-$i-$v" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "\| (copy|auto) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|rayon" | cut -d'|' -f2-10
done
unset GPU_PRIMS_TUNING
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-conv1d__tuning_gpu gpu-reduce__shaped_gpu gpu-conv1d__gpu; do
  [ "$(left)" -gt 30 ] || { echo "$b skipped: deadline"; continue; }
  s=$(date +%s); timeout $(( $(left) > 100 ? 90 : $(left) - 10 )) $C/$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  grep -E "FAILED|panicked" "$R/logs/test-$b.txt" | head -5
done
find "$R" -name "*.svg" -delete; rm -f "$R"/report-*/report.json
(cd "$OUT" && tar czf final.tgz final && rm -rf final)
