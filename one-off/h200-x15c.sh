#!/usr/bin/env bash
# Session 15, call C (one H200). Carry: gpu-carry3/x15c.tar.xz (gpu-conv1d's GPU tests,
# conv1d-fft and tune of this build: FFT blocks of 32 points a thread, refitted sizes).
# 1. compute-sanitizer (memcheck, synccheck, racecheck) over the new gpu_fft_sanitize_wide_blocks
#    (4096-16384 points, f32, f16, bf16) and memcheck over gpu_fft_non_finite_inputs_and_overflow
#    (w 1023: the 4096-point block and its direct fallback).
# 2. conv1d-fft's `Auto` at the refitted crossings (f32).
# 3. gpu-conv1d's GPU suites (GPU_PRIMS_REQUIRE_GPU=1), fft_gpu with room for its 16-bit sizes.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 585 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x15c.tar.xz; C=/tmp/c/x15c
R="$OUT/x15c"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$R/gpu.txt" 2>&1
export GPU_PRIMS_REQUIRE_GPU=1
san() {
  s=$(date +%s); timeout $3 compute-sanitizer --tool $1 $C/gpu-conv1d__fft_gpu $2 --exact --test-threads=1 > "$R/san-$1-$2.txt" 2>&1
  echo "$1 $2 rc=$? $(( $(date +%s) - s ))s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$1-$2.txt" | tr '\n' ' ')"
}
san memcheck gpu_fft_sanitize_wide_blocks 60
san synccheck gpu_fft_sanitize_wide_blocks 60
san racecheck gpu_fft_sanitize_wide_blocks 120
san memcheck gpu_fft_non_finite_inputs_and_overflow 60
run_test() {
  s=$(date +%s); timeout "$2" $C/$1 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed|running for" "$R/test-$1.txt" | head -5
}
s=$(date +%s); timeout 60 $C/benches__conv1d-fft --types f32 --widths 1023,1535,2047,3071,4095,13311 --no-direct-above 0 > "$R/f32-auto.tsv" 2>&1; echo "conv1d-fft rc=$? $(( $(date +%s) - s ))s"
grep auto "$R/f32-auto.tsv"
for t in gpu-conv1d__fft_gpu gpu-conv1d__host_pipeline gpu-conv1d__tuning_gpu gpu-conv1d__axis_gpu gpu-conv1d__properties; do
  l=$(left); [ "$l" -lt 30 ] && { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 20 < 300 ? l - 20 : 300 ))
done
(cd "$OUT" && tar czf x15c.tgz x15c && rm -rf x15c)
