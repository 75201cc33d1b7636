#!/usr/bin/env bash
# Issue 13 session 11, call E (one H100, nothing else running): the f16 look-back-rows cases
# of the shapes benchmark at 2^28 with the rows' largest block at 1024 (the default), 512,
# 256 and 128 threads (GPU_PRIMS_SCAN_ROWS_MAX_BLOCK), alternating, two rounds.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s11b ] || tar -C gpu-carry2 -xJf gpu-carry2/s11b.tar.xz; C=gpu-carry2/s11b
R="$OUT/s11e"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
S=$(date +%s)
CASES="16384x16384 C axis 1,4194304x64 F axis 0,64x4194304 C axis 1,262144x1024 F axis 0"
for round in 1 2; do
  for b in 1024 512 256 128; do
    GPU_PRIMS_SCAN_ROWS_MAX_BLOCK=$b timeout 100 $C/benches__shapes --log2 28 --types f16 --scans-only --cases "$CASES" --quick --out "$R/b$b-$round" 2> "$R/b$b-$round.log"
    echo "block $b round $round rc=$? $(( $(date +%s) - S ))s $(grep 'cumsum' "$R/b$b-$round.log" | sed 's/shapes: cumsum f16 //' | awk '{print $1, $2, $5, $7}' | tr '\n' ';')"
  done
done
