#!/usr/bin/env bash
# Issue 24 session 5, call D (one H200), each step alone on the GPU: the L2 prefetch through the
# library. PyTorch/CuPy (peers.py) and CUB (peers_cub) cumsum and conv1d at 2^24 and 2^28; the
# report (--device-only; scan and conv1d w 7 and 31, i32/f32, 2^24, 2^27, 2^28) with the built-in
# H200 rule (prefetching) and with a table turning the prefetch off (GPU_PRIMS_TUNING), four
# runs alternating; then bin tune's scan part (its prefetch sweep) as time allows.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/c5.tar.xz; C=gpu-carry2/c5
R="$OUT/s5d"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-360} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
printf 'scan.prefetch_from = 1099511627776\nconv1d.prefetch_from = 1099511627776\n' > "$R/no-prefetch.txt"
s=$(date +%s); timeout $(cap 90) python3 scripts/peers.py --sizes 24,28 --types i32,f32 --ops cumsum,conv1d --widths 31 --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); (nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout $(cap 60) /tmp/peers_cub 24 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$? $(( $(date +%s) - s ))s"; grep cumsum "$R/logs/cub.log"
A="--device-only --only core,scan,conv1d --sizes 24,28 --types i32,f32 --widths 7,31 --cpu-reps 1 --peers $R/peers.json"
i=0
for v in pf off pf; do
  i=$((i + 1)); [ "$(left)" -gt 60 ] || { echo "report $i skipped: deadline"; continue; }
  if [ $v = off ]; then export GPU_PRIMS_TUNING="$R/no-prefetch.txt"; else unset GPU_PRIMS_TUNING; fi
  s=$(date +%s); timeout $(cap 100) $C/benches__report $A --out "$R/report-$i-$v" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "\| (copy|auto) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f2-12
done
unset GPU_PRIMS_TUNING
if [ "$(left)" -gt 150 ]; then
  s=$(date +%s); timeout $(cap 200) $C/benches__tune --only scan --reps 7 --out "$R/tune-scan" > "$R/logs/tune-scan.log" 2>&1; echo "tune scan rc=$? $(( $(date +%s) - s ))s"
  grep -E "prefetch" "$R/tune-scan/tune.md" | head -40; cat "$R/tune-scan/tuning.txt"
fi
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf s5d.tgz s5d && rm -rf s5d)
