#!/usr/bin/env bash
# FFT path, call F: twiddles as products of w, w^2, w^4, w^8 (4 table loads per butterfly
# instead of R - 1): the width sweep alone first (f32, f64), then the FFT tests with the
# accuracy table, the GPU, property and unit tests.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/fft.tar.xz; C=gpu-carry2/fft
R="$OUT/fft-f"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
timeout 200 $C/conv1d-fft --log2 26 --types f32,f64 > "$R/sweep.tsv" 2> "$R/sweep.err"; echo "sweep rc=$?"
timeout 60 $C/conv1d-fft --log2 26 --types f16 --widths 511,1023,2047,4095 > "$R/sweep16.tsv" 2>> "$R/sweep.err"; echo "sweep16 rc=$?"
grep -E "auto:" "$R/sweep.tsv" | awk -F'\t' '{print $1, $2, $3, $5}' | head -40
for b in fft_gpu gpu properties lib; do
  timeout 230 $C/$b --test-threads=4 --nocapture > "$R/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/test-$b.log" | tail -1)"
  grep -E "panicked" -A4 "$R/test-$b.log" | head -16
done
grep "fft accuracy" "$R/test-fft_gpu.log" | sed 's/: max .*(‖x window‖·‖m‖)//'
