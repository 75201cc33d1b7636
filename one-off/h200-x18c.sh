#!/usr/bin/env bash
# Session 18, call C (one H200): the cluster harness (one-off/fft-cluster-harness.cu: spans of
# 65536 points on two blocks of a cluster) beside the library's 32768-point spans, then under
# compute-sanitizer memcheck (stopped at its 20 s limit, no error reported by then). Both runs
# stopped at w = 32767, where the 32768-point spans leave two outputs a tile (fixed since).
set -u
cd "$(dirname "$0")/.."
R="$OUT/x18c"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-cluster-harness.cu -o /tmp/fc > "$R/harness-build.txt" 2>&1; echo "harness build rc=$? $(( $(date +%s) - s ))s"
grep -E "error|registers|spill" "$R/harness-build.txt" | head -20
timeout 40 /tmp/fc 10 > "$R/harness1.txt" 2>&1; echo "harness1 rc=$?"; cat "$R/harness1.txt"
CUDA_LAUNCH_BLOCKING=1 timeout 20 compute-sanitizer --tool memcheck /tmp/fc 1 > "$R/memcheck.txt" 2>&1; echo "memcheck rc=$?"; head -40 "$R/memcheck.txt"
(cd "$OUT" && tar czf x18c.tgz x18c && rm -rf x18c)
