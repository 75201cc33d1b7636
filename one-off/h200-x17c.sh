#!/usr/bin/env bash
# Session 17, call C (one H200). Carry: gpu-carry3/x17c.tar.xz (gpu-conv1d's GPU tests and
# conv1d-fft of this build: twiddle rows, the lean checks and stores up to 4096 points;
# 9c77344's conv1d-fft as old__conv1d-fft).
# 1. The harness: the library's pair with and without the lean checks and stores.
# 2. conv1d-fft 2^26 `same`, this build and 9c77344 alternating, at the widths of the small
#    sizes' crossings (f32, f64; f16 and bf16 at three widths); each alone on the GPU.
# 3. Then, in parallel (no timing): fft_gpu in three processes, host_pipeline, tuning_gpu,
#    axis_gpu, properties, kernels; compute-sanitizer memcheck, racecheck and synccheck over
#    gpu_fft_sanitize_lean_blocks, memcheck over the wide and even-and-odd blocks.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 580 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x17c.tar.xz; C=/tmp/c/x17c
R="$OUT/x17c"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-conv-harness.cu -o /tmp/fh > "$R/harness-build.txt" 2>&1; echo "harness build rc=$? $(( $(date +%s) - s ))s"
timeout 40 /tmp/fh 20 > "$R/harness.txt" 2>&1; echo "harness rc=$?"; cat "$R/harness.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
W32=127,255,383,511,639,767,1023,1279,1433,1535,1791,2047
W64=255,511,767,1023,1279,1535,1791,2047
bench f32-new 40 $C/benches__conv1d-fft --types f32 --widths $W32 --no-direct-above 0
bench f32-old 40 $C/old__conv1d-fft --types f32 --widths $W32 --no-direct-above 0
bench f64-new 35 $C/benches__conv1d-fft --types f64 --widths $W64 --no-direct-above 0
bench f64-old 35 $C/old__conv1d-fft --types f64 --widths $W64 --no-direct-above 0
bench half-new 25 $C/benches__conv1d-fft --types f16,bf16 --widths 1023,2047,4095 --no-direct-above 0
bench half-old 25 $C/old__conv1d-fft --types f16,bf16 --widths 1023,2047,4095 --no-direct-above 0
for f in "$R"/*.tsv; do grep -E "auto:|copy" "$f" | sed "s|^|$(basename $f .tsv) |"; done
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {  # tag binary timeout [args...]
  local tag=$1 b=$2 to=$3; shift 3
  local s=$(date +%s); timeout "$to" $C/$b "$@" > "$R/test-$tag.txt" 2>&1; echo "$tag rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$tag.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$tag.txt" | head -5
}
F=gpu-conv1d__fft_gpu
(run_test fft-half $F $(( $(left) - 5 )) gpu_fft_every_size_mode_boundary_half) > "$R/bg1.txt" 2>&1 &
(run_test fft-f32 $F $(( $(left) - 5 )) gpu_fft_every_size_mode_boundary_f32
 run_test fft-f64 $F $(( $(left) - 5 )) gpu_fft_every_size_mode_boundary_f64) > "$R/bg2.txt" 2>&1 &
(run_test fft-rest $F $(( $(left) - 5 )) --skip gpu_fft_every_size --skip sanitize
 run_test tuning gpu-conv1d__tuning_gpu 200; run_test axis gpu-conv1d__axis_gpu 200
 run_test properties gpu-conv1d__properties 100) > "$R/bg3.txt" 2>&1 &
(run_test host gpu-conv1d__host_pipeline $(( $(left) - 5 ))) > "$R/bg4.txt" 2>&1 &
(run_test kernels gpu-conv1d__kernels 200) > "$R/bg5.txt" 2>&1 &
san() {  # tool test timeout
  local s=$(date +%s); timeout $3 compute-sanitizer --tool $1 $C/$F $2 --exact --test-threads=1 > "$R/san-$1-$2.txt" 2>&1
  echo "$1 $2 rc=$? $(( $(date +%s) - s ))s: $(grep -E 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY|test result' "$R/san-$1-$2.txt" | tr '\n' ' ')"
}
san memcheck gpu_fft_sanitize_lean_blocks 120
san synccheck gpu_fft_sanitize_lean_blocks 100
(san memcheck gpu_fft_sanitize_wide_blocks 150; san memcheck gpu_fft_sanitize_even_odd $(( $(left) - 5 ))) > "$R/bg6.txt" 2>&1 &
l=$(left); san racecheck gpu_fft_sanitize_lean_blocks $(( l - 5 ))
wait
cat "$R"/bg*.txt
(cd "$OUT" && tar czf x17c.tgz x17c && rm -rf x17c)
