#!/usr/bin/env bash
# Session 13, call C (one H200), call B's build (= 1e5688e's kernels). Carry: gpu-carry3/s13b.tar.xz.
# 1. racecheck over the flat staged scans with prefetch (4- and 8-byte values: the split status)
#    and over the status reuse tests.
# 2. The f32 scans' standing: every cumsum and segmented cumsum of the quick set, alone on the GPU.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 400 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s13b.tar.xz; C=/tmp/c/s13b
R="$OUT/s13c"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); PREFETCH_TEST_MAX_LEN=300000 timeout 150 compute-sanitizer --tool racecheck --report-api-errors no $C/gpu-scan__prefetch_gpu > "$R/san-racecheck-prefetch.txt" 2>&1
echo "racecheck prefetch rc=$? $(( $(date +%s) - s ))s $(grep -E 'RACECHECK SUMMARY|test result|Internal' "$R/san-racecheck-prefetch.txt" | tr '\n' ' ')"
s=$(date +%s); timeout 60 compute-sanitizer --tool racecheck --report-api-errors no $C/gpu-scan__status_reuse_gpu > "$R/san-racecheck-reuse.txt" 2>&1
echo "racecheck reuse rc=$? $(( $(date +%s) - s ))s $(grep -E 'RACECHECK SUMMARY|test result|Internal' "$R/san-racecheck-reuse.txt" | tr '\n' ' ')"
unset GPU_PRIMS_REQUIRE_GPU
l=$(left); echo "left $l s for the standing"
s=$(date +%s); timeout $(( l - 10 )) $C/benches__shapes --quick --no-conv --scans-only --types f32 --out "$R/scans-f32" > "$R/scans-f32.log" 2>&1; echo "scans rc=$? $(( $(date +%s) - s ))s $(grep -c '^shapes: ' "$R/scans-f32.log")"
grep -E "^shapes: (copy|cumsum|segment)" "$R/scans-f32.log" | sed 's/^shapes: //' | cut -c1-110
(cd "$OUT" && tar czf s13c.tgz s13c && rm -rf s13c)
