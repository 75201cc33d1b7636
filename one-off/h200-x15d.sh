#!/usr/bin/env bash
# Session 15, call D (one H200). Carry: gpu-carry3/x15d.tar.xz (gpu-conv1d's fft_gpu test of this
# build). compute-sanitizer memcheck, synccheck and racecheck over gpu_fft_sanitize_wide_blocks
# (the 4096-16384-point blocks of 32 points a thread, f32, f16, bf16), then the test alone.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x15d.tar.xz; C=/tmp/c/x15d
R="$OUT/x15d"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
for x in "memcheck 50" "synccheck 40" "racecheck 110"; do
  set -- $x
  s=$(date +%s); timeout $2 compute-sanitizer --tool $1 $C/gpu-conv1d__fft_gpu gpu_fft_sanitize_wide_blocks --exact --test-threads=1 > "$R/san-$1.txt" 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s ))s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$1.txt" | tr '\n' ' ')"
done
s=$(date +%s); timeout 20 $C/gpu-conv1d__fft_gpu gpu_fft_sanitize_wide_blocks --exact > "$R/test.txt" 2>&1; echo "plain rc=$? $(( $(date +%s) - s ))s $(grep 'test result' "$R/test.txt")"
(cd "$OUT" && tar czf x15d.tgz x15d && rm -rf x15d)
