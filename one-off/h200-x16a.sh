#!/usr/bin/env bash
# Session 16, call A (one H200). Carry: gpu-carry3/x16a.tar.xz (gpu-conv1d's GPU tests and
# conv1d-fft of this build; de6ceec's conv1d-fft as old__conv1d-fft).
# 1. conv1d-fft f32 2^26 `same`: this build with the built-in packing (even-and-odd at 32768
#    only), then with conv1d.fft_even_odd_from = 8192 (one-off/eo-from-8192.tuning), then
#    de6ceec (the pair kernels before their restructuring); each alone on the GPU.
# 2. f64 the same way; f16 and bf16 at a few widths.
# 3. gpu-conv1d's fft_gpu and tuning_gpu (GPU_PRIMS_REQUIRE_GPU=1).
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 585 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x16a.tar.xz; C=/tmp/c/x16a
R="$OUT/x16a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
EO=$PWD/one-off/eo-from-8192.tuning
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
W32=1023,2047,3071,4095,6143,8191,12287,16383,20479,24575,28671,31745
bench f32-new 120 $C/benches__conv1d-fft --types f32 --widths $W32 --no-direct-above 16383
GPU_PRIMS_TUNING=$EO bench f32-eo8192 90 $C/benches__conv1d-fft --types f32 --widths 1023,2047,3071,4095,6143,8191,12287 --no-direct-above 0
bench f32-old 60 $C/old__conv1d-fft --types f32 --widths 1023,2047,4095,8191 --no-direct-above 0
W64=1023,2047,4095,7169,8191,12287,15361
bench f64-new 90 $C/benches__conv1d-fft --types f64 --widths $W64 --no-direct-above 15361
GPU_PRIMS_TUNING=$EO bench f64-eo8192 60 $C/benches__conv1d-fft --types f64 --widths 2047,4095,7169 --no-direct-above 0
bench half-new 60 $C/benches__conv1d-fft --types f16,bf16 --widths 4095,8191,16383,24575 --no-direct-above 0
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  local s=$(date +%s); timeout "$2" $C/$1 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$1.txt" | head -5
}
for t in gpu-conv1d__tuning_gpu gpu-conv1d__fft_gpu; do
  l=$(left); [ "$l" -lt 40 ] && { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 10 < 240 ? l - 10 : 240 ))
done
(cd "$OUT" && tar czf x16a.tgz x16a && rm -rf x16a)
