#!/usr/bin/env bash
# Session 14, call A (one H200). Carry: gpu-carry3/x14a.tar.xz (this build's gpu-scan and
# gpu-reduce GPU tests and shapes; 428a9fb's shapes as old__shapes).
# 1. Segment tiles over the epoch-tagged status (8-byte values in tagged words, no flag or
#    fence): f64 segmented sums and cumsums, old and new alternating twice, alone on the GPU.
# 2. one-off/columns-span-harness.cu (built with nvcc while 1 runs: CPU only): the long-span
#    columns scan of few tiles against variants of its status protocol and block shape.
# 3. The GPU suites of both crates (GPU_PRIMS_REQUIRE_GPU=1).
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 575 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x14a.tar.xz; C=/tmp/c/x14a
R="$OUT/x14a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
(nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/columns-span-harness.cu -o /tmp/csh > "$R/harness-build.txt" 2>&1; echo "build rc=$?" >> "$R/harness-build.txt") &
NV=$!
for i in 1 2; do
  for v in old new; do
    b=$C/benches__shapes; [ $v = old ] && b=$C/old__shapes
    s=$(date +%s); timeout 90 $b --quick --no-conv --segments-only --types f64 --out "$R/seg-$v-$i" > "$R/seg-$v-$i.log" 2>&1; echo "seg $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|segment)" "$R/seg-$v-$i.log" | sed 's/^shapes: //' | cut -c1-150
  done
done
wait $NV; tail -1 "$R/harness-build.txt"
s=$(date +%s); timeout 150 /tmp/csh 2 > "$R/harness.txt" 2>&1; echo "harness rc=$? $(( $(date +%s) - s ))s"
cat "$R/harness.txt"
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/$1 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked" "$R/test-$1.txt" | head -3
}
for t in gpu-scan__shaped_gpu gpu-reduce__shaped_gpu gpu-scan__gpu gpu-scan__status_reuse_gpu gpu-scan__prefetch_gpu gpu-reduce__gpu gpu-scan__host_pipeline gpu-reduce__host_pipeline; do
  l=$(left); [ "$l" -lt 30 ] && { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 10 < 120 ? l - 10 : 120 ))
done
(cd "$OUT" && tar czf x14a.tgz x14a && rm -rf x14a)
