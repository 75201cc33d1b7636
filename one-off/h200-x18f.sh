#!/usr/bin/env bash
# Session 18, call F (one H200). Carry: gpu-carry3/x18f.tar.xz (8-byte pair loads and stores in
# the f32 even-and-odd spans; call D's radix-32 bench as old__conv1d-fft).
# 1. conv1d-fft 2^26 `same`, f32, the even-and-odd sizes, this build and call D's alternating,
#    each alone on the GPU.
# 2. Then, in parallel (no timing): fft_gpu's f32 every-size test and its non-every-size tests;
#    compute-sanitizer memcheck over gpu_fft_sanitize_even_odd and gpu_fft_sanitize_radix32.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 200 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x18f.tar.xz; C=/tmp/c/x18f
R="$OUT/x18f"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
W=3071,4095,6000,8191,16383,24575
for i in 1 2; do
  bench new$i 25 $C/benches__conv1d-fft --types f32 --widths $W --no-direct-above 0 --sizes 16384,32768
  bench old$i 25 $C/old__conv1d-fft --types f32 --widths $W --no-direct-above 0 --sizes 16384,32768
done
for f in "$R"/*.tsv; do grep -E "auto:|copy" "$f" | sed "s|^|$(basename $f .tsv) |"; done
export GPU_PRIMS_REQUIRE_GPU=1
F=gpu-conv1d__fft_gpu
run_test() {  # tag timeout [args...]
  local tag=$1 to=$2; shift 2
  local s=$(date +%s); timeout "$to" $C/$F "$@" > "$R/test-$tag.txt" 2>&1; echo "$tag rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$tag.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$tag.txt" | head -5
}
(run_test fft-f32 $(( $(left) - 5 )) gpu_fft_every_size_mode_boundary_f32) > "$R/bg1.txt" 2>&1 &
(run_test fft-rest $(( $(left) - 5 )) --skip gpu_fft_every_size --skip sanitize) > "$R/bg2.txt" 2>&1 &
san() {  # tool test timeout
  local s=$(date +%s); timeout $3 compute-sanitizer --tool $1 $C/$F $2 --exact --test-threads=1 > "$R/san-$1-$2.txt" 2>&1
  echo "$1 $2 rc=$? $(( $(date +%s) - s ))s: $(grep -E 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY|test result' "$R/san-$1-$2.txt" | tr '\n' ' ')"
}
san memcheck gpu_fft_sanitize_even_odd 60
san memcheck gpu_fft_sanitize_radix32 30
wait
cat "$R"/bg*.txt
(cd "$OUT" && tar czf x18f.tgz x18f && rm -rf x18f)
