#!/usr/bin/env bash
# Session 17, call B (one H200). Carry: gpu-carry3/x17b.tar.xz (gpu-conv1d's GPU tests and
# conv1d-fft of this build: the FFT blocks' twiddles in rows; 9c77344's conv1d-fft as
# old__conv1d-fft).
# 1. The harness (one-off/fft-conv-harness.cu, rows): the shipped pair beside the lean pair.
# 2. conv1d-fft 2^26 `same`, this build and 9c77344 alternating, f32 over every size's range,
#    f64, f16 and bf16 at a few widths; each alone on the GPU.
# 3. Then, in parallel (no timing): gpu-conv1d's tuning_gpu, kernels, properties, gpu, axis_gpu.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 560 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x17b.tar.xz; C=/tmp/c/x17b
R="$OUT/x17b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-conv-harness.cu -o /tmp/fh > "$R/harness-build.txt" 2>&1; echo "harness build rc=$? $(( $(date +%s) - s ))s"
timeout 40 /tmp/fh 20 > "$R/harness.txt" 2>&1; echo "harness rc=$?"; cat "$R/harness.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
W32=511,1023,1433,2047,2868,3071,4095,6143,6956,8191,12287,16383,20479,24575,26000,28671
W64=1023,2047,3100,4095,7169,8191,12287,12700,15361
bench f32-new 90 $C/benches__conv1d-fft --types f32 --widths $W32 --no-direct-above 0
bench f32-old 90 $C/old__conv1d-fft --types f32 --widths $W32 --no-direct-above 0
bench f64-new 60 $C/benches__conv1d-fft --types f64 --widths $W64 --no-direct-above 0
bench f64-old 60 $C/old__conv1d-fft --types f64 --widths $W64 --no-direct-above 0
bench half-new 40 $C/benches__conv1d-fft --types f16,bf16 --widths 1023,4095,8191,16383 --no-direct-above 0
bench half-old 40 $C/old__conv1d-fft --types f16,bf16 --widths 1023,4095,8191,16383 --no-direct-above 0
for f in "$R"/*.tsv; do grep -E "auto:|copy" "$f" | sed "s|^|$(basename $f .tsv) |"; done
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {  # binary timeout [filter...]
  local b=$1 to=$2; shift 2; local tag=$b${1:+-$1}
  local s=$(date +%s); timeout "$to" $C/$b "$@" > "$R/test-$tag.txt" 2>&1; echo "$tag rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$tag.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$tag.txt" | head -5
}
(run_test gpu-conv1d__tuning_gpu $(( $(left) - 10 ))) > "$R/bg1.txt" 2>&1 &
(run_test gpu-conv1d__kernels 120; run_test gpu-conv1d__properties $(( $(left) - 10 ))) > "$R/bg2.txt" 2>&1 &
(run_test gpu-conv1d__gpu $(( $(left) - 10 ))) > "$R/bg3.txt" 2>&1 &
(run_test gpu-conv1d__axis_gpu $(( $(left) - 10 ))) > "$R/bg4.txt" 2>&1 &
wait
cat "$R"/bg*.txt
(cd "$OUT" && tar czf x17b.tgz x17b && rm -rf x17b)
