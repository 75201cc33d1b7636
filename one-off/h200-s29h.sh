#!/usr/bin/env bash
# Session 29 (2026-12-04), call H (one H200). Carry: one-off/carry-s29h.sh.
# Alone on the GPU: the staged long column spans (built in) at 64, 128 and 256 threads a block
# (GPU_PRIMS_COLUMN_SCAN_THREADS; the plan's own choice is 256 for fewer than 64 tiles, 128
# from 64), f32, one tile, 8 tiles and 128 tiles.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s29h
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
for th in 128 64 256; do
  export GPU_PRIMS_COLUMN_SCAN_THREADS=$th
  bench t$th 70 $C/benches__shapes --quick --no-conv --scans-only --types f32 --cases "$CASES" --out "$R/t$th"
  cat "$R/t$th.tsv" "$R/t$th.err" | grep -E "^shapes: (copy|cumsum)" | sed 's/^shapes: //' | cut -c1-110
  grep "cumsum" "$R/t$th/shapes.md" | grep -v "^-" | cut -d'|' -f4,6,9 | head -3
done
echo "all done at $(( $(date +%s) - T0 ))s"
