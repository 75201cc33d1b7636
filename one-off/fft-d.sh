#!/usr/bin/env bash
# FFT path, call D: the final gpu-conv1d binaries (f64 size table, test data fixes): the FFT,
# GPU, property and unit tests.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/fft.tar.xz; C=gpu-carry2/fft
R="$OUT/fft-d"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
for b in fft_gpu gpu properties lib; do
  timeout 260 $C/$b --test-threads=4 --nocapture > "$R/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/test-$b.log" | tail -1)"
  grep -E "panicked" -A4 "$R/test-$b.log" | head -16
done
grep "fft accuracy f16" "$R/test-fft_gpu.log"
