#!/usr/bin/env bash
# Issue 24, call V: PyTorch/CuPy and CUB peers, then the report (this build; and the previous
# build's where gpu-carry2/u/report-old exists, REPORT_OLD=1), each alone on the GPU.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/u ] || tar -C gpu-carry2 -xJf gpu-carry2/u.tar.xz; C=gpu-carry2/u
R="$OUT/report-v"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 python3 scripts/peers.py --sizes 24,28 --types i32,f32 --ops sum,max,cumsum,conv1d --widths 3,7,31,127 --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$?"
(nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout 60 /tmp/peers_cub 24 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$?"; cat "$R/logs/cub.log"
A="--only core,reduce,scan,conv1d --sizes 24,28 --types i32,f32 --widths 3,7,31,127"
timeout 440 $C/benches__report $A --out "$R/new" --peers "$R/peers.json" > "$R/logs/report.log" 2>&1; echo "report rc=$?"
grep -E "\| (auto|look-back|copy|lookback|Auto)" "$R/new/report.md" | head -40
if [ "${REPORT_OLD:-0}" = 1 ] && [ -x $C/report-old ]; then
  timeout 250 $C/report-old --only core,reduce,scan,conv1d --sizes 28 --types i32,f32 --widths 3,7,31,127 --out "$R/old" > "$R/logs/report-old.log" 2>&1; echo "report-old rc=$?"
fi
(cd "$OUT" && tar czf report-v.tgz report-v && rm -rf report-v)
