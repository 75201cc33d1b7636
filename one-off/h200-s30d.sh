#!/usr/bin/env bash
# Session 30 (2026-12-04), call D (one H200). Carry: one-off/carry-s30d.sh.
# 1. Alone on the GPU, built-in tuning: cummax f32 along axis 0 (one tile staged, 8 and 128
#    tiles not).
# 2. Tests, one binary at a time.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s30d
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
bench builtin-max 90 $C/benches__shapes --quick --no-conv --scans-only --types f32 --scan-op max --cases "$CASES" --out "$R/builtin-max"
grep -hE "^shapes: (copy|cum)" "$R/builtin-max.tsv" "$R/builtin-max.err" | sed 's/^shapes: //' | cut -c1-90
python3 -c "import json,sys; [print(r['op'], r['case'], r['plan']) for r in json.load(open(sys.argv[1]))['rows']]" "$R/builtin-max/shapes.json" 2>/dev/null | cut -c1-200
export GPU_PRIMS_REQUIRE_GPU=1
t scan-unit gpu-scan__gpu_scan 60
t staged gpu-scan__columns_staged_gpu 120 --nocapture
grep -E "^staged column spans" "$R/staged.log"
t limits gpu-scan__columns_staged_limits_gpu 200 --nocapture
grep -E "^staged spans" "$R/limits.log"
echo "all done at $(( $(date +%s) - T0 ))s"
