#!/usr/bin/env bash
# Session 17, call D (one H200). Carry: gpu-carry3/x17d.tar.xz (the final build: twiddle rows,
# the lean checks for 4-byte accumulators up to 4096 points, the refitted sizes and cuFFT
# crossings; 9c77344's conv1d-fft as old__conv1d-fft).
# 1. conv1d-fft 2^26 `same`, this build and 9c77344 alternating, f32 and f64 at widths the refit
#    moved, then CuPy's FFT convolutions (scripts/peers_fft.py); each alone on the GPU.
# 2. Then, in parallel (no timing): fft_gpu (f64 every size, the rest), tuning_gpu;
#    compute-sanitizer memcheck, racecheck and synccheck over gpu_fft_sanitize_small_blocks.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 420 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x17d.tar.xz; C=/tmp/c/x17d
R="$OUT/x17d"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
W32=127,511,1023,1535,3071,4095,6700,8191,16383,26000
W64=1023,1279,1535,4095,8191,12800
bench f32-new 40 $C/benches__conv1d-fft --types f32 --widths $W32 --no-direct-above 0
bench f32-old 40 $C/old__conv1d-fft --types f32 --widths $W32 --no-direct-above 0
bench f64-new 30 $C/benches__conv1d-fft --types f64 --widths $W64 --no-direct-above 0
bench f64-old 30 $C/old__conv1d-fft --types f64 --widths $W64 --no-direct-above 0
s=$(date +%s); timeout 80 python3 scripts/peers_fft.py --types f32 --widths 127,1023,4095,8191,16383 --torch-max 1023 > "$R/peers.tsv" 2> "$R/peers.err"; echo "peers rc=$? $(( $(date +%s) - s ))s"
for f in "$R"/*.tsv; do grep -E "auto:|copy|best|oaconvolve|fftconvolve" "$f" | sed "s|^|$(basename $f .tsv) |"; done
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {  # tag binary timeout [args...]
  local tag=$1 b=$2 to=$3; shift 3
  local s=$(date +%s); timeout "$to" $C/$b "$@" > "$R/test-$tag.txt" 2>&1; echo "$tag rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$tag.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$tag.txt" | head -5
}
F=gpu-conv1d__fft_gpu
(run_test fft-f64 $F $(( $(left) - 5 )) gpu_fft_every_size_mode_boundary_f64) > "$R/bg1.txt" 2>&1 &
(run_test fft-rest $F $(( $(left) - 5 )) --skip gpu_fft_every_size --skip sanitize
 run_test tuning gpu-conv1d__tuning_gpu 100) > "$R/bg2.txt" 2>&1 &
san() {  # tool test timeout
  local s=$(date +%s); timeout $3 compute-sanitizer --tool $1 $C/$F $2 --exact --test-threads=1 > "$R/san-$1-$2.txt" 2>&1
  echo "$1 $2 rc=$? $(( $(date +%s) - s ))s: $(grep -E 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY|test result' "$R/san-$1-$2.txt" | tr '\n' ' ')"
}
san memcheck gpu_fft_sanitize_small_blocks 90
san synccheck gpu_fft_sanitize_small_blocks 60
l=$(left); san racecheck gpu_fft_sanitize_small_blocks $(( l - 5 ))
wait
cat "$R"/bg*.txt
(cd "$OUT" && tar czf x17d.tgz x17d && rm -rf x17d)
