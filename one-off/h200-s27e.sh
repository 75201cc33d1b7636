#!/usr/bin/env bash
# Session 27 (2026-12-03), call E (one H200). Carry: one-off/carry-s27e.sh.
# The automatic sizes' crossings after this session's FFT changes, alone on the GPU, twice:
# conv1d-fft 2^26 `same` with the sizes on either side of each crossing the even-and-odd spans
# took part in (f32 8192/16384 at 2450, 16384/32768 at 5800, the 32768-point spans against
# cuFFT's segments at 27950; f16 and bf16 8192/16384 and 16384/32768 at 4800).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s27e
B=$C/final__conv1d-fft
for k in 1 2; do
  bench a-f32-$k 60 $B --types f32 --widths 1500,1700,1900,2100,2300,2450 --sizes 8192,16384 --no-direct-above 0
  bench b-f32-$k 60 $B --types f32 --widths 5000,5400,5800,6200 --sizes 16384,32768 --no-direct-above 0
  bench c-f32-$k 90 $B --types f32 --widths 27950,28300,28700,29100,29500 --sizes 32768,1048576 --no-direct-above 0
  bench d-half-$k 60 $B --types f16,bf16 --widths 1500,1700,1900,2100,2300,2450 --sizes 8192,16384 --no-direct-above 0
  bench e-half-$k 60 $B --types f16,bf16 --widths 4000,4400,4800,5200,5800 --sizes 16384,32768 --no-direct-above 0
done
for f in "$R"/*.tsv; do sed "s|^|$(basename "$f" .tsv) |" "$f"; done | grep -v "^#" | sort -k2,2 -k3,3n -k4,4 > "$R/sweep.txt"
cat "$R/sweep.txt"
echo "all done at $(( $(date +%s) - T0 ))s"
