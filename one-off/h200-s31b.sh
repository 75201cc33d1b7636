#!/usr/bin/env bash
# Session 31 (2026-12-04), call B (one H200). Carries: one-off/carry-s31o.sh (the old columns
# kernels, every operator staged: a build of the thirtieth session's call B state),
# one-off/carry-s31b.sh (lane widths apart for all but the sums, every operator staged).
# Alone on the GPU, 2^28 values along axis 0 of three C-order shapes (128, 1, 8 tiles):
# cummax i32 and cumprod u32, old / new / new with staging off (a tuning table); cummax f32 new
# and new with staging off once more.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
mkdir -p /tmp/o && tar -C /tmp/o -xJf gpu-carry3/s31o.tar.xz; O=/tmp/o/s31o
dev_begin s31b
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
A="--quick --no-conv --scans-only --cases"
printf 'scan.column_staged_from = 1099511627776\n' > "$R/off.txt"
for spec in "max i32" "product u32"; do
  set -- $spec
  bench old-$1-$2 90 $O/benches__shapes $A "$CASES" --types $2 --scan-op $1 --out "$R/old-$1-$2"
  bench new-$1-$2 90 $C/benches__shapes $A "$CASES" --types $2 --scan-op $1 --out "$R/new-$1-$2"
  GPU_PRIMS_TUNING="$R/off.txt" bench newoff-$1-$2 90 $C/benches__shapes $A "$CASES" --types $2 --scan-op $1 --out "$R/newoff-$1-$2"
done
bench new-max-f32 90 $C/benches__shapes $A "$CASES" --types f32 --scan-op max --out "$R/new-max-f32"
GPU_PRIMS_TUNING="$R/off.txt" bench newoff-max-f32 90 $C/benches__shapes $A "$CASES" --types f32 --scan-op max --out "$R/newoff-max-f32"
for f in "$R"/*.err; do echo "$(basename "$f" .err): $(grep -E '^shapes: cum' "$f" | sed -E 's/.*(axis 0): ([0-9.]+) ms ([0-9.]+)x copy (\w+).*/\3 \4/' | tr '\n' ' ')"; done | tee "$R/ratios.txt"
grep -hE "^shapes: (copy|cum)" "$R"/*.err | sed 's/^shapes: //' | cut -c1-90 > "$R/summary.txt"
echo "all done at $(( $(date +%s) - T0 ))s"
