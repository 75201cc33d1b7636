#!/usr/bin/env bash
# Session 16, call C (one H200; correctness only, no timing). Carry: gpu-carry3/x16c.tar.xz
# (gpu-conv1d's GPU tests of the final build). In parallel: fft_gpu's f16/bf16 every-size test
# (one CPU thread, slow references); fft_gpu's accuracy test (printing its errors), tuning_gpu, gpu, axis_gpu and host_pipeline; and
# compute-sanitizer memcheck, synccheck and racecheck over gpu_fft_sanitize_even_odd (the new
# kernels) then memcheck over gpu_fft_sanitize_wide_blocks.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 440 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x16c.tar.xz; C=/tmp/c/x16c
R="$OUT/x16c"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {  # binary timeout [filter...]
  local b=$1 to=$2; shift 2; local tag=$b${1:+-$1}
  local s=$(date +%s); timeout "$to" $C/$b "$@" > "$R/test-$tag.txt" 2>&1; echo "$tag rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$tag.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$tag.txt" | head -5
}
(run_test gpu-conv1d__fft_gpu 425 gpu_fft_every_size_mode_boundary_half) > "$R/bg1.txt" 2>&1 &
(run_test gpu-conv1d__fft_gpu 120 gpu_fft_accuracy --nocapture
 for t in gpu-conv1d__tuning_gpu gpu-conv1d__gpu gpu-conv1d__axis_gpu gpu-conv1d__host_pipeline; do
   l=$(left); [ "$l" -lt 30 ] && { echo "$t: not run (time)"; continue; }
   run_test $t $(( l - 10 ))
 done) > "$R/bg2.txt" 2>&1 &
san() {  # tool test timeout
  local s=$(date +%s); timeout $3 compute-sanitizer --tool $1 $C/gpu-conv1d__fft_gpu $2 --exact --test-threads=1 > "$R/san-$1-$2.txt" 2>&1
  echo "$1 $2 rc=$? $(( $(date +%s) - s ))s: $(grep -E 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY|test result' "$R/san-$1-$2.txt" | tr '\n' ' ')"
}
san memcheck gpu_fft_sanitize_even_odd 150
san synccheck gpu_fft_sanitize_even_odd 100
l=$(left); san racecheck gpu_fft_sanitize_even_odd $(( l - 60 > 30 ? l - 60 : 30 ))
l=$(left); [ "$l" -gt 30 ] && san memcheck gpu_fft_sanitize_wide_blocks $(( l - 15 ))
wait
cat "$R/bg1.txt" "$R/bg2.txt"
(cd "$OUT" && tar czf x16c.tgz x16c && rm -rf x16c)
