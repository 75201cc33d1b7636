#!/usr/bin/env bash
# Session 29 (2026-12-04), calls D and E (one H200). Carry: one-off/carry-s29c.sh (rebuilt: the staged
# suite with narrow tiles, 8, 12 and 4 columns; for E the host case checked against exact sums).
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s29c s29d
export GPU_PRIMS_REQUIRE_GPU=1
t staged gpu-scan__columns_staged_gpu 200 --nocapture
grep -E "panicked|assertion|left|right|relative" -A3 "$R/staged.log" | head -30
grep -h "staged column spans:" "$R"/staged.log
echo "all done at $(( $(date +%s) - T0 ))s"
