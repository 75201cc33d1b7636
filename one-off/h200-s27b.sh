#!/usr/bin/env bash
# Session 27 (2026-12-03), call B (one H200). Carry: one-off/carry-s27a.sh (new's bench).
# Nsight Compute over the FFT blocks of the decimation-in-time build, one launch each, alone on
# the GPU: where the executed instructions go (per opcode, and per SASS line with the source
# counters), the warp stalls and the pipes. f32 w = 16383 (32768-point even-and-odd spans) and
# w = 4095 (16384-point pairs).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s27a s27b
B=$C/new__conv1d-fft
NCU="ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section SourceCounters -c 1"
for c in "eo32768 16383" "eo16384_pairs 4095"; do
  set -- $c
  s=$(date +%s)
  timeout 200 $NCU -k regex:$1 -o "$R/$1" $B --types f32 --widths $2 --no-direct-above 0 --sizes 1 > "$R/$1-run.txt" 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s ))s"
  ncu -i "$R/$1.ncu-rep" --page details > "$R/$1-details.txt" 2>&1
  ncu -i "$R/$1.ncu-rep" --page raw --csv > "$R/$1-raw.csv" 2>&1
  ncu -i "$R/$1.ncu-rep" --page source --csv --print-source sass > "$R/$1-sass.csv" 2>&1
  wc -c "$R/$1"-*
done
echo "all done at $(( $(date +%s) - T0 ))s"
