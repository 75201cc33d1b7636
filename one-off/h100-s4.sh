#!/usr/bin/env bash
# Issue 24 on an H100 (nvidia-h100-x1): does anything move back? Alone on the GPU: PyTorch/CuPy
# and CUB peers, then the report (--device-only: reduce, scan, conv1d at 2^20, 2^24, 2^28, i32 /
# f32, w 3/7/31/127) of fd370b1 and of this build, alternating twice; then the changed crates'
# GPU tests (GPU_PRIMS_REQUIRE_GPU=1). Carry: one-off/carry-h100-s4.sh -> gpu-carry2/h.tar.xz.
# Still valid after session 5: the H100 never takes the L2-prefetching scans (scan.prefetch_from
# is 2^40 there), but the prefetch test forces them through the keys.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/h.tar.xz; C=gpu-carry2/h
R="$OUT/h100-s4"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-570} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
timeout 120 python3 scripts/peers.py --sizes 20,24,28 --types i32,f32 --ops sum,max,cumsum,conv1d --widths 3,7,31,127 --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$?"
(nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout 60 /tmp/peers_cub 20 24 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$?"; cat "$R/logs/cub.log"
A="--device-only --only core,reduce,scan,conv1d --sizes 20,24,28 --types i32,f32 --widths 3,7,31,127 --cpu-reps 1"
i=0
for v in old new old new; do
  i=$((i + 1)); B=$C/benches__report; [ $v = old ] && B=$C/report-fd370b1
  [ "$(left)" -gt 150 ] || { echo "report $i skipped: deadline"; continue; }
  s=$(date +%s); timeout 120 $B $A --out "$R/report-$i-$v" --peers "$R/peers.json" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "\| (copy|auto) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f2-10
done
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-scan__status_reuse_gpu gpu-scan__prefetch_gpu gpu-scan__tuning_gpu gpu-conv1d__tuning_gpu gpu-scan__shaped_gpu gpu-scan__gpu gpu-conv1d__gpu; do
  [ "$(left)" -gt 40 ] || { echo "$b skipped: deadline"; continue; }
  s=$(date +%s); timeout $(( $(left) - 10 )) $C/$b > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
done
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf h100-s4.tgz h100-s4 && rm -rf h100-s4)
