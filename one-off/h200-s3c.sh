#!/usr/bin/env bash
# Issue 24 session 3, call C (one H200), alone on the GPU: PyTorch/CuPy conv1d peers and the
# report at 2^28 f32, w 7 and 31 (the widths the wide tiles move), Auto now on wide tiles.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/a.tar.xz; C=gpu-carry2/a
R="$OUT/c"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s); timeout 60 python3 scripts/peers.py --sizes 28 --types f32 --ops conv1d --widths 7,31 --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); timeout 250 $C/benches__report --only core,conv1d --sizes 28 --types f32 --widths 7,31 --cpu-reps 1 --out "$R/report" --peers "$R/peers.json" > "$R/logs/report.log" 2>&1; echo "report rc=$? $(( $(date +%s) - s ))s"
grep -E "same|copy device" "$R/report/report.md" | head -40
