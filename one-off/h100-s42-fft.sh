#!/usr/bin/env bash
# Forty-second session, issue 19's closing rows on the H100 (carry gpu-carry2 from
# one-off/carry-s41b.sh, main's kernels and keys): gpu-conv1d's fft_parts_gpu whole
# (GPU_PRIMS_REQUIRE_GPU=1), then, each alone on the GPU: PyTorch and CuPy by mask width
# (scripts/peers_fft.py, f32), our width sweep at 2^26 (f32; f64 to 15361 at every span size,
# 16383 and 65535 through Auto, the parts and cuFFT), the full correlation of two 2^24 signals
# (CuPy then ours). Results: $OUT/fft.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
[ -d gpu-carry2/s41b ] || tar -C gpu-carry2 -xJf gpu-carry2/s41b.tar.xz; C=gpu-carry2/s41b
R="$OUT/fft"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf fft.tgz fft && rm -rf fft)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
step fft-parts 80 $C/gpu-conv1d__fft_parts_gpu
unset GPU_PRIMS_REQUIRE_GPU
grep -hE "test result|FAILED|panicked" "$R/fft-parts.out" "$R/fft-parts.log" | head -8
step peers-fft 130 python3 scripts/peers_fft.py --log2 26 --types f32
step sweep-f32 130 $C/benches__conv1d-fft --log2 26 --types f32
grep -E "copy|auto" "$R/sweep-f32.out"
step sweep-f64 110 $C/benches__conv1d-fft --log2 26 --types f64 \
  --widths 3,7,15,31,63,95,127,191,255,383,511,767,1023,2047,4095,8191,15361
grep -E "copy|auto" "$R/sweep-f64.out"
step sweep-f64-long 50 $C/benches__conv1d-fft --log2 26 --types f64 --widths 16383,65535 --sizes 1048576
grep -E "copy|auto" "$R/sweep-f64-long.out"
step peers-full 40 python3 scripts/peers_fft.py --full 24
step full 30 $C/benches__conv1d-fft --full 24
cat "$R/peers-full.out" "$R/full.out"
echo "all done at $(( $(date +%s) - T0 ))s"
