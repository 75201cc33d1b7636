#!/usr/bin/env bash
# Session 23 (2026-12-03), call C (one H200). Carry: one-off/carry-x23b.sh (call B's).
# Nsight Compute, one launch each, of the f32 FFT kernels at issue 19's widths (2^26 `same`):
# the 16384-point pairs (w = 4095) and the 32768-point spans (w = 16383): the executed-instruction
# mix (one-off/ncu-sass-mix.py) and the stall samples
# (one-off/ncu-sass-stalls.py), to direct the transforms' arithmetic work.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x23b x23c
for spec in "fft_eo16384_pairs_f32 4095 16384" "fft_eo32768_f32 16383 32768"; do
  set -- $spec
  s=$(date +%s)
  timeout 120 ncu --set full --import-source no -k regex:conv1d_$1 -c 1 -o "$R/ncu-$1" \
    $C/benches__conv1d-fft --types f32 --widths $2 --no-direct-above 0 --sizes $3 > "$R/ncu-$1.log" 2>&1
  echo "ncu $1 rc=$? $(( $(date +%s) - s ))s"
  ncu -i "$R/ncu-$1.ncu-rep" --page details > "$R/ncu-$1.txt" 2>&1
  ncu -i "$R/ncu-$1.ncu-rep" --page source --csv --print-source sass > "$R/ncu-$1-sass.csv" 2>&1
  python3 one-off/ncu-sass-mix.py "$R/ncu-$1-sass.csv" 30 > "$R/mix-$1.txt" 2>&1; cat "$R/mix-$1.txt" | head -45
  python3 one-off/ncu-sass-stalls.py "$R/ncu-$1-sass.csv" 12 > "$R/stalls-$1.txt" 2>&1; head -30 "$R/stalls-$1.txt"
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc A|Local Memory Spill|Shared Memory Configuration Size|Block Limit" "$R/ncu-$1.txt" | head -14
  rm -f "$R/ncu-$1.ncu-rep"
done
echo "all done at $(( $(date +%s) - T0 ))s"
