#!/usr/bin/env bash
# Session 31 (2026-12-04), call E (one H200). Carry: one-off/carry-s31e.sh (candidate rule: 8-byte
# min and max staged at every tile count). Alone on the GPU: cummax f64 along axis 0 of the three
# long-span cases (1, 8, 128 tiles), staged / off (a tuning table) / staged; then the staged suite.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s31e
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
A="--quick --no-conv --scans-only --cases"
printf 'scan.column_staged_from = 1099511627776\n' > "$R/off.txt"
bench staged-max-f64-1 80 $C/benches__shapes $A "$CASES" --types f64 --scan-op max --out "$R/staged-max-f64-1"
GPU_PRIMS_TUNING="$R/off.txt" bench off-max-f64 80 $C/benches__shapes $A "$CASES" --types f64 --scan-op max --out "$R/off-max-f64"
bench staged-max-f64-2 80 $C/benches__shapes $A "$CASES" --types f64 --scan-op max --out "$R/staged-max-f64-2"
for f in "$R"/*.err; do echo "$(basename "$f" .err): $(grep -E '^shapes: cum' "$f" | sed -E 's/.*(axis 0): ([0-9.]+) ms ([0-9.]+)x copy (\w+).*/\3 \4/' | tr '\n' ' ')"; done | tee "$R/ratios.txt"
grep -hE "^shapes: (copy|cum)" "$R"/*.err | sed 's/^shapes: //' | cut -c1-90 > "$R/summary.txt"
for f in "$R"/*/shapes.json; do python3 -c "import json,sys; [print(sys.argv[2], r['case'], r['plan']) for r in json.load(open(sys.argv[1]))['rows'] if 'copy' not in r['case']]" "$f" "$(basename "$(dirname "$f")")" 2>/dev/null | cut -c1-170; done > "$R/plans.txt"
export GPU_PRIMS_REQUIRE_GPU=1
t staged gpu-scan__columns_staged_gpu 60 --nocapture
t scan-unit gpu-scan__gpu_scan 30
grep -h "staged column spans:" "$R/staged.log"
echo "all done at $(( $(date +%s) - T0 ))s"
