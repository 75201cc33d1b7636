#!/usr/bin/env bash
# Session 11, call A (one H200), main at c236185's kernels. Carry: gpu-carry3/s11a.tar.xz
# (gpu-scan prefetch_gpu, gpu-reduce shaped_gpu with the new segment-alignment test).
# 1. The tenth session's owed racecheck over prefetch_gpu (inputs of at most 300000 values).
# 2. gpu-reduce shaped_gpu segment_lanes_start_at_every_alignment on the shipped kernels
#    (the new test must pass on them too: it checks results, not the path's internals).
# 3. PyTorch and CuPy on every shape (peers_shapes.py --quick --no-conv, f32 and i32) with
#    the 200 ms warm-up, alone on the GPU.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 560 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s11a.tar.xz; C=/tmp/c/s11a
R="$OUT/s11a"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s); timeout 40 $C/reduce-shaped_gpu segment_lanes_start_at_every_alignment > "$R/test-align.txt" 2>&1
echo "align rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-align.txt")"
s=$(date +%s); PREFETCH_TEST_MAX_LEN=300000 timeout 290 compute-sanitizer --tool racecheck --report-api-errors no $C/scan-prefetch_gpu --nocapture > "$R/san-racecheck.txt" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s ))s $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result|prefetching scans' "$R/san-racecheck.txt" | tr '\n' ' ')"
l=$(left)
s=$(date +%s); timeout $(( l - 10 )) python3 scripts/peers_shapes.py --quick --no-conv --types f32,i32 --out "$R/peers-shapes.json" > "$R/peers.log" 2>&1
echo "peers rc=$? $(( $(date +%s) - s ))s"; tail -3 "$R/peers.log"
(cd "$OUT" && tar czf s11a.tgz s11a && rm -rf s11a)
