#!/usr/bin/env bash
# Session 30 (2026-12-04), call C (one H200). Carry: one-off/carry-s30c.sh.
# 1. Alone on the GPU, built-in tuning: cummax and cumsum f32 along axis 0 (cummax back on
#    unstaged spans, cumsum staged).
# 2. Tests, one binary at a time.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s30c
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
for op in max sum; do
  bench builtin-$op 100 $C/benches__shapes --quick --no-conv --scans-only --types f32 --scan-op $op --cases "$CASES" --out "$R/builtin-$op"
  grep -hE "^shapes: (copy|cum)" "$R/builtin-$op.tsv" "$R/builtin-$op.err" | sed 's/^shapes: //' | cut -c1-90
  python3 -c "import json,sys; [print(r['op'], r['case'], r['plan']) for r in json.load(open(sys.argv[1]))['rows']]" "$R/builtin-$op/shapes.json" 2>/dev/null | cut -c1-200
done
echo "benches done at $(($(date +%s) - T0))s"
export GPU_PRIMS_REQUIRE_GPU=1
t scan-unit gpu-scan__gpu_scan 60
t limits gpu-scan__columns_staged_limits_gpu 200 --nocapture
grep -E "^staged spans" "$R/limits.log"
t staged gpu-scan__columns_staged_gpu 120 --nocapture
grep -E "^staged column spans" "$R/staged.log"
t prefetch gpu-scan__prefetch_gpu 120
t shaped gpu-scan__shaped_gpu 200
t pipeline gpu-scan__host_pipeline 200
echo "all done at $(( $(date +%s) - T0 ))s"
