#!/usr/bin/env bash
# Session 27 (2026-12-03), call F (one H200). Carry: one-off/carry-s27e.sh.
# Call E found f32's and f16's 16384-point spans ahead of the 8192-point pairs from w = 1500
# down: where they cross the 4096 and 8192-point pairs (f32, f16; `Auto` rows show f16's
# warp-group kernel), and f16's 16384/32768 crossing between 5200 and 5800. Alone, twice.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s27e s27f
B=$C/final__conv1d-fft
for k in 1 2; do
  bench a-f32-$k 60 $B --types f32 --widths 700,800,900,1000,1100,1200,1300,1400 --sizes 2048,4096,8192,16384 --no-direct-above 0
  bench b-f16-$k 60 $B --types f16 --widths 800,900,1000,1100,1200,1300,1400 --sizes 4096,8192,16384 --no-direct-above 0
  bench c-f16-$k 60 $B --types f16 --widths 5300,5450,5600 --sizes 16384,32768 --no-direct-above 0
  bench d-f32-$k 60 $B --types f32 --widths 5900,6000,6100 --sizes 16384,32768 --no-direct-above 0
done
for f in "$R"/*.tsv; do sed "s|^|$(basename "$f" .tsv) |" "$f"; done | grep -v "^#" | grep -v tensor_core | sort -k2,2 -k3,3n -k4,4 > "$R/sweep.txt"
echo "all done at $(( $(date +%s) - T0 ))s"
