#!/usr/bin/env bash
# Session 31 (2026-12-04), call A (one H200). Carries: one-off/carry-s31o.sh (main's shapes),
# one-off/carry-s31n.sh (lane widths apart, every operator staged at every tile count).
# 1. Alone on the GPU, 2^28 f32 along axis 0 of three C-order shapes (1, 8, 128 tiles):
#    cummax old / new alternating twice, new with staging off (a tuning table), cumsum old / new.
# 2. Tests of the new build, one binary at a time.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
mkdir -p /tmp/o && tar -C /tmp/o -xJf gpu-carry3/s31o.tar.xz; O=/tmp/o/s31o
dev_begin s31n s31a
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
A="--quick --no-conv --scans-only --cases"
printf 'scan.column_staged_from = 1099511627776\n' > "$R/off.txt"
for i in 1 2; do
  bench old-max-$i 90 $O/benches__shapes $A "$CASES" --types f32 --scan-op max --out "$R/old-max-$i"
  bench new-max-$i 90 $C/benches__shapes $A "$CASES" --types f32 --scan-op max --out "$R/new-max-$i"
done
GPU_PRIMS_TUNING="$R/off.txt" bench newoff-max 90 $C/benches__shapes $A "$CASES" --types f32 --scan-op max --out "$R/newoff-max"
bench old-sum 90 $O/benches__shapes $A "$CASES" --types f32 --out "$R/old-sum"
bench new-sum 90 $C/benches__shapes $A "$CASES" --types f32 --out "$R/new-sum"
grep -hE "^shapes: (copy|cum)" "$R"/*.err | sed 's/^shapes: //' | cut -c1-90 > "$R/summary.txt"
for f in "$R"/*.err; do echo "$(basename "$f" .err): $(grep -E '^shapes: cum' "$f" | sed -E 's/.*(axis 0): ([0-9.]+) ms ([0-9.]+)x copy (\w+).*/\3 \4/' | tr '\n' ' ')"; done | tee "$R/ratios.txt"
for f in "$R"/*/shapes.json; do python3 -c "import json,sys; [print(sys.argv[2], r['case'], r['plan']) for r in json.load(open(sys.argv[1]))['rows'] if 'copy' not in r['case']]" "$f" "$(basename "$(dirname "$f")")" 2>/dev/null | cut -c1-160; done > "$R/plans.txt"
head -6 "$R/plans.txt"
export GPU_PRIMS_REQUIRE_GPU=1
t scan-unit gpu-scan__gpu_scan 60
t staged gpu-scan__columns_staged_gpu 150 --nocapture
t shaped gpu-scan__shaped_gpu 150
t prefetch gpu-scan__prefetch_gpu 60
echo "all done at $(( $(date +%s) - T0 ))s"
