#!/usr/bin/env bash
# Session 30 (2026-12-04), call A (one H200). Carry: one-off/carry-s30a.sh.
# 1. Alone on the GPU: cummax f32 along axis 0 (staged min/max kernels spill 88 B) with the
#    staged spans off (tuning table) and on, once each; cummin staged once.
# 2. First-call latency of the staged columns scan (and the unstaged one) in fresh processes.
# 3. Tests, one binary at a time: the limits suite (OOM first, 16 threads, past 2^31), the
#    suites whose helpers moved, gpu-scan's unit tests, conv1d oom_gpu.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s30a
echo "scan.column_staged_from = 2^40" > /tmp/unstaged.tune
CASES="4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0"
for round in 1; do
  for v in unstaged staged; do
    if [ $v = unstaged ]; then export GPU_PRIMS_TUNING=/tmp/unstaged.tune; else unset GPU_PRIMS_TUNING; fi
    bench $v-max-$round 80 $C/benches__shapes --quick --no-conv --scans-only --types f32 --scan-op max --cases "$CASES" --out "$R/$v-max-$round"
    grep -hE "^shapes: (copy|cummax)" "$R/$v-max-$round.tsv" "$R/$v-max-$round.err" | sed 's/^shapes: //' | cut -c1-100
  done
done
unset GPU_PRIMS_TUNING
bench staged-min 80 $C/benches__shapes --quick --no-conv --scans-only --types f32 --scan-op min --cases "$CASES" --out "$R/staged-min"
grep -hE "^shapes: (copy|cummin)" "$R/staged-min.tsv" "$R/staged-min.err" | sed 's/^shapes: //' | cut -c1-100
echo "benches done at $(($(date +%s) - T0))s"
timeout 200 $C/benches__first-call --out "$R/first-call" scan-axis scan-axis-staged > "$R/first-call.txt" 2>&1
echo "first-call rc=$?"; grep -E "^\| scan" "$R/first-call/first-call.md"
export GPU_PRIMS_REQUIRE_GPU=1
t limits gpu-scan__columns_staged_limits_gpu 300 --nocapture
grep -E "^staged spans" "$R/limits.log"
t staged gpu-scan__columns_staged_gpu 200 --nocapture
t prefetch gpu-scan__prefetch_gpu 200
t scan-unit gpu-scan__gpu_scan 120
t conv-oom gpu-conv1d__oom_gpu 200
echo "all done at $(( $(date +%s) - T0 ))s"
