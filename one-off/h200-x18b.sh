#!/usr/bin/env bash
# Session 18, call B (one H200). Carry: gpu-carry3/x18b.tar.xz (radix-32 transforms of 8192 and
# 16384 points for f32, f16 and bf16; 3480628's conv1d-fft as old__conv1d-fft).
# 1. conv1d-fft 2^26 `same`, this build (sizes 4096-32768 at every width, for the refit) and
#    3480628 (all sizes), f32 and f16, each alone on the GPU.
# 2. Then, in parallel (no timing): fft_gpu (every size f32, every size f16/bf16, the rest),
#    tuning_gpu; compute-sanitizer memcheck over the wide and even-and-odd blocks, synccheck and
#    racecheck over gpu_fft_sanitize_radix32.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 540 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x18b.tar.xz; C=/tmp/c/x18b
R="$OUT/x18b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
S=4096,8192,16384,32768
WN=1279,1535,1830,2047,2600,3071,3600,4095,5000,6000,7000,8191,12287,16383,24575
WO=1535,2047,3071,4095,6000,8191,16383,24575
WH=2047,4095,8191,16383
bench f32-new 60 $C/benches__conv1d-fft --types f32 --widths $WN --no-direct-above 0 --sizes $S
bench f32-old 50 $C/old__conv1d-fft --types f32 --widths $WO --no-direct-above 0
bench f16-new 30 $C/benches__conv1d-fft --types f16,bf16 --widths $WH --no-direct-above 0 --sizes $S
bench f16-old 40 $C/old__conv1d-fft --types f16,bf16 --widths $WH --no-direct-above 0
for f in "$R"/*.tsv; do grep -E "auto:|copy" "$f" | sed "s|^|$(basename $f .tsv) |"; done
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {  # tag binary timeout [args...]
  local tag=$1 b=$2 to=$3; shift 3
  local s=$(date +%s); timeout "$to" $C/$b "$@" > "$R/test-$tag.txt" 2>&1; echo "$tag rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$tag.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$tag.txt" | head -5
}
F=gpu-conv1d__fft_gpu
(run_test fft-half $F $(( $(left) - 5 )) gpu_fft_every_size_mode_boundary_half) > "$R/bg1.txt" 2>&1 &
(run_test fft-f32 $F $(( $(left) - 5 )) gpu_fft_every_size_mode_boundary_f32) > "$R/bg2.txt" 2>&1 &
(run_test fft-rest $F $(( $(left) - 5 )) --skip gpu_fft_every_size --skip sanitize
 run_test tuning gpu-conv1d__tuning_gpu 150) > "$R/bg3.txt" 2>&1 &
san() {  # tool test timeout
  local s=$(date +%s); timeout $3 compute-sanitizer --tool $1 $C/$F $2 --exact --test-threads=1 > "$R/san-$1-$2.txt" 2>&1
  echo "$1 $2 rc=$? $(( $(date +%s) - s ))s: $(grep -E 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY|test result' "$R/san-$1-$2.txt" | tr '\n' ' ')"
}
san synccheck gpu_fft_sanitize_radix32 60
san memcheck gpu_fft_sanitize_radix32 60
san memcheck gpu_fft_sanitize_wide_blocks 120
san memcheck gpu_fft_sanitize_even_odd 120
l=$(left); san racecheck gpu_fft_sanitize_radix32 $(( l - 10 ))
wait
cat "$R"/bg*.txt
(cd "$OUT" && tar czf x18b.tgz x18b && rm -rf x18b)
