#!/usr/bin/env bash
# Session 16, call B (one H200). Carry: gpu-carry3/x16b.tar.xz (gpu-conv1d's GPU tests and
# conv1d-fft of this build: even-and-odd packing at 16384 and 32768, sizes refit; de6ceec's
# conv1d-fft as old__conv1d-fft).
# 1. conv1d-fft f32 2^26 `same` over the size and cuFFT crossings, this build then de6ceec; f64
#    this build; each alone on the GPU. 2. CuPy's FFT convolutions (scripts/peers_fft.py).
# 3. gpu-conv1d's fft_gpu (GPU_PRIMS_REQUIRE_GPU=1).
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 500 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x16b.tar.xz; C=/tmp/c/x16b
R="$OUT/x16b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
bench f32-new 90 $C/benches__conv1d-fft --types f32 --widths 511,1023,1433,2047,2868,3071,4095,6143,6956,8191,12287,16383,20479,24575,26000,28671 --no-direct-above 0
bench f32-old 45 $C/old__conv1d-fft --types f32 --widths 1023,2047,3071,4095,8191,12287 --no-direct-above 0
bench f64-new 75 $C/benches__conv1d-fft --types f64 --widths 1023,2047,3100,4095,7169,8191,12287,12700,15361 --no-direct-above 0
s=$(date +%s); timeout 50 python3 scripts/peers_fft.py --types f32 --widths 4095,8191,16383,24575 --torch-max 0 > "$R/peers.tsv" 2> "$R/peers.err"; echo "peers rc=$? $(( $(date +%s) - s ))s"
export GPU_PRIMS_REQUIRE_GPU=1
t=gpu-conv1d__fft_gpu; l=$(left)
s=$(date +%s); timeout $(( l - 5 )) $C/$t > "$R/test-$t.txt" 2>&1; echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$t.txt" | tr '\n' ' ')"
grep -E "panicked|FAILED|failed|running for" "$R/test-$t.txt" | head -12
(cd "$OUT" && tar czf x16b.tgz x16b && rm -rf x16b)
