#!/usr/bin/env bash
# FFT path, call C: the f16 diagnosis, then the test binaries call B did not reach, sanitizers.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/fft.tar.xz; C=gpu-carry2/fft
R="$OUT/fft-c"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
timeout 60 gpu-carry2/zz_diag --nocapture 2>&1 | grep -v "^$" | head -40
for b in lib properties host_pipeline dist_gpu; do
  timeout 150 $C/$b --test-threads=4 > "$R/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/test-$b.log" | tail -1)"
  grep -E "panicked" -A4 "$R/test-$b.log" | head -16
done
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $C/fft_gpu gpu_fft_rows > "$R/san-$tool.log" 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/san-$tool.log" | tail -1)"
done
