#!/usr/bin/env bash
# Branch wip/half-wide-tiles on one H200: the 16-bit wide conv1d tiles (32 outputs per thread,
# conv1d.half_wide_tile_from). Alone on the GPU first: the report (--device-only, conv1d f16 /
# bf16 `same`, w 3, 7, 10, 15, 31 at 2^24, 2^26, 2^28) with the built-in rule (wide from 2^24)
# and with a table turning them off, alternating; then gpu-conv1d's GPU tests and the
# sanitizers over tests/tuning_gpu.rs. Carry: one-off/carry-half-wide.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/hw.tar.xz; C=gpu-carry2/hw
R="$OUT/half-wide"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-540} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
printf 'conv1d.half_wide_tile_from = 1099511627776\n' > "$R/narrow.txt"
A="--device-only --only core,conv1d --sizes 24,26,28 --types f16,bf16 --widths 3,7,10,15,31 --cpu-reps 1"
i=0
for v in wide narrow wide; do
  i=$((i + 1)); [ "$(left)" -gt 200 ] || { echo "report $i skipped: deadline"; continue; }
  if [ $v = narrow ]; then export GPU_PRIMS_TUNING="$R/narrow.txt"; else unset GPU_PRIMS_TUNING; fi
  s=$(date +%s); timeout 90 $C/benches__report $A --out "$R/report-$i-$v" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "\| (copy|auto) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|rayon" | cut -d'|' -f2-10
done
unset GPU_PRIMS_TUNING
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-conv1d__tuning_gpu gpu-conv1d__gpu; do
  [ "$(left)" -gt 40 ] || { echo "$b skipped: deadline"; continue; }
  s=$(date +%s); timeout $(( $(left) > 150 ? 150 : $(left) - 10 )) $C/$b --nocapture > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  grep -hE "^wide .* tiles" "$R/logs/test-$b.txt"
done
for t in memcheck racecheck synccheck; do
  [ "$(left)" -gt 30 ] || { echo "$t skipped: deadline"; continue; }
  s=$(date +%s); timeout $(( $(left) - 5 )) compute-sanitizer --tool $t --report-api-errors no $C/gpu-conv1d__tuning_gpu --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf half-wide.tgz half-wide && rm -rf half-wide)
