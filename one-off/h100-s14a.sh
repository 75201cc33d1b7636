#!/usr/bin/env bash
# Issue 13 session 14, call A (one H100): the wgmma conv1d harness (one-off/wgmma-harness.cu,
# built here with nvcc for sm_90a) against the committed mma.sync kernel, f16, then the
# sanitizers on a small size.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s14a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$R/gpu.txt"
s=$(date +%s)
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include -DKERNEL_FILE='"../kernels/conv1d_sm80.cu"' -o /tmp/wgh one-off/wgmma-harness.cu > "$R/nvcc.log" 2>&1 || { head -60 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
V="${VARIANTS:-wg32,wg32p,wg64,wg64p,wg64m6p,wg128,wg128p}"
timeout 200 /tmp/wgh 28 20 3,31,63,127,255 "$V" 2>&1 | tee "$R/n28.txt"
timeout 100 /tmp/wgh 24 30 31,127,1023 "$V" 2>&1 | tee "$R/n24.txt"
for t in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $t /tmp/wgh 14 1 31 wg64p > "$R/san-$t.txt" 2>&1
  echo "$t rc=$? $(tail -1 "$R/san-$t.txt")"
done
