#!/usr/bin/env bash
# Session 8, call B (one H200): the wave scan harness with every block's own running carry (no
# last arrival, no atomics) and its streaming bound (B without waits: wrong results, time only),
# beside CUB and the same-run copy; then odd lengths. No carry.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s8b"; mkdir -p "$R"
nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/wave one-off/wave-scan-harness.cu > "$R/nvcc-wave.log" 2>&1; echo "nvcc rc=$?"; tail -3 "$R/nvcc-wave.log"
s=$(date +%s); timeout 200 /tmp/wave 30 24,26,28 "A B cub" > "$R/wave.txt" 2>&1; echo "wave rc=$? $(( $(date +%s) - s ))s"
cut -c1-150 "$R/wave.txt"
s=$(date +%s); timeout 60 /tmp/wave 5 20 A 16777219 1000003 777 > "$R/wave-odd.txt" 2>&1; echo "wave odd rc=$? $(( $(date +%s) - s ))s"
grep -c " ok" "$R/wave-odd.txt"; grep -E "WRONG|rror" "$R/wave-odd.txt" | head
