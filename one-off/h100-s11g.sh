#!/usr/bin/env bash
# Issue 13 session 11, call G (one H100): the report's conv1d rows for f16 and bf16 at 2^28
# (w 23, 31, 127) with the checker that allows one unit in the last place of 16-bit FFT
# results: the bf16 `fft` rows stop reading as wrong, nothing else changes.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s11g ] || tar -C gpu-carry2 -xJf gpu-carry2/s11g.tar.xz; C=gpu-carry2/s11g
R="$OUT/s11g"; mkdir -p "$R"
timeout 300 $C/benches__report --only core,conv1d --sizes 28 --types f16,bf16 --widths 23,31,127 \
  --reps 5 --cpu-reps 1 --out "$R/n28" 2>"$R/n28-progress.log" >"$R/n28.txt"
echo "report rc=$?"
grep -E "^conv1d" "$R/n28.txt" | grep -E "fft|auto" | cut -c1-160
grep -ci "wrong" "$R/n28.txt"
