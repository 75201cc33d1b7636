#!/usr/bin/env bash
# Session 24 (2026-12-03), call C (one H200). Carry: one-off/carry-x24b.sh (call B's).
# Alone on the GPU, twice: conv1d-fft 2^26 `same`, zero boundary, the crossings call B left
# open: f32's 512/1024/2048 (M1), 2048/4096 (M2) and 8192/16384 (M3) sizes, f16's and bf16's
# 16384/32768 span points (M4).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin x24b x24c
M1="--types f32 --widths 63,80,95,110,127,150,175 --no-direct-above 0 --sizes 512,1024,2048"
M2="--types f32 --widths 550,650,750,850,950 --no-direct-above 0 --sizes 2048,4096"
M3="--types f32 --widths 1800,1900,2000,2100 --no-direct-above 0 --sizes 8192,16384"
M4="--types f16,bf16 --widths 4300,4500,4700,4900 --no-direct-above 0 --sizes 16384,32768"
for k in 1 2; do
  for b in 1 2 3 4; do
    eval "args=\$M$b"
    bench m$b-$k 90 $C/benches__conv1d-fft $args
  done
done
echo "all done at $(( $(date +%s) - T0 ))s"
