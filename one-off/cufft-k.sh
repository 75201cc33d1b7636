#!/usr/bin/env bash
# Issue 19, call K (one H100): after Auto's cuFFT crossover (13000 for f32, f16, bf16) and the
# tensor-core test's widths below the 16-bit FFT crossover: gpu-conv1d's gpu and fft_gpu tests.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/i.tar.xz; C=gpu-carry2/i
R="$OUT/cufft-k"; mkdir -p "$R"
cf="$(ls /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcufft.so.* 2>/dev/null | head -1)"
mkdir -p /tmp/cufft-lib && ln -sf "$cf" /tmp/cufft-lib/libcufft.so
export LD_LIBRARY_PATH="/tmp/cufft-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPU_PRIMS_REQUIRE_GPU=1
echo "libcufft: $cf"
for b in gpu fft_gpu; do
  timeout 280 $C/gpu-conv1d__$b --test-threads=4 > "$R/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/test-$b.log" | tail -1)"
  grep -E "panicked" -A6 "$R/test-$b.log" | head -16
done
