#!/usr/bin/env bash
# Session 29 (2026-12-04), call F (one H200). Carry: one-off/carry-s29f.sh.
# Alone on the GPU: `tune --only columns` (staged long column spans off and on, f32 and i32,
# 64 and 1024 columns, 2^22 ... 2^28), its table and notes.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s29f
s=$(date +%s)
timeout 400 "$C/benches__tune" --only columns --out "$R/tune" > "$R/tune.log" 2>&1
echo "tune rc=$? $(( $(date +%s) - s ))s"
grep -E "^tune: " "$R/tune.log" | cut -c1-140
cat "$R/tune/tuning.txt"
echo "all done at $(( $(date +%s) - T0 ))s"
