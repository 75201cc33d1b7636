#!/usr/bin/env bash
# Session 18, call D (one H200). Carry: gpu-carry3/x18d.tar.xz (the final build: radix-32
# transforms, refitted sizes).
# 1. conv1d-fft 2^26 `same`, each alone on the GPU: f32 `Auto` against the sizes around the
#    refitted crossings and cuFFT past 24575; f16 and bf16 at 1535-2047 (the warpgroup kernel
#    against the FFT); then CuPy's and PyTorch's (scripts/peers_fft.py).
# 2. Then, in parallel (no timing): gpu-conv1d's other GPU suites (gpu, host_pipeline,
#    properties, axis_gpu, kernels, the unit tests), fft_gpu's non-every-size tests, tuning_gpu.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 480 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x18d.tar.xz; C=/tmp/c/x18d
R="$OUT/x18d"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
B=$C/benches__conv1d-fft
bench f32 40 $B --types f32 --widths 1535,3071,7000,8191,16383 --no-direct-above 0 --sizes 4096,8192,16384,32768
bench f32-cufft 40 $B --types f32 --widths 24575,27000,28671 --no-direct-above 0 --sizes 32768,1048576
bench half 40 $B --types f16,bf16 --widths 1535,1791,2047 --no-direct-above 0 --sizes 4096,8192
s=$(date +%s); timeout 90 python3 scripts/peers_fft.py --types f32 --widths 127,1023,4095,8191,16383 --torch-max 1023 > "$R/peers.tsv" 2> "$R/peers.err"; echo "peers rc=$? $(( $(date +%s) - s ))s"
for f in "$R"/*.tsv; do grep -E "auto:|copy|best|oaconvolve|fftconvolve|fft:|warp|tensor" "$f" | sed "s|^|$(basename $f .tsv) |"; done
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {  # tag binary timeout [args...]
  local tag=$1 b=$2 to=$3; shift 3
  local s=$(date +%s); timeout "$to" $C/$b "$@" > "$R/test-$tag.txt" 2>&1; echo "$tag rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$tag.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$tag.txt" | head -5
}
P=gpu-conv1d
(run_test gpu ${P}__gpu $(( $(left) - 5 ))) > "$R/bg1.txt" 2>&1 &
(run_test host_pipeline ${P}__host_pipeline $(( $(left) - 5 ))
 run_test kernels ${P}__kernels 100) > "$R/bg2.txt" 2>&1 &
(run_test properties ${P}__properties $(( $(left) - 5 ))
 run_test axis_gpu ${P}__axis_gpu 150) > "$R/bg3.txt" 2>&1 &
(run_test fft-rest ${P}__fft_gpu $(( $(left) - 5 )) --skip gpu_fft_every_size
 run_test tuning ${P}__tuning_gpu 100
 run_test unit ${P}__gpu_conv1d 100) > "$R/bg4.txt" 2>&1 &
wait
cat "$R"/bg*.txt
(cd "$OUT" && tar czf x18d.tgz x18d && rm -rf x18d)
