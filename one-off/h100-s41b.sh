#!/usr/bin/env bash
# Forty-first session, second H100 call (carry gpu-carry2 from one-off/carry-s41b.sh): the fixed
# missing-libcufft test with the rest of fft_gpu, then fft_parts_gpu (GPU_PRIMS_REQUIRE_GPU=1),
# then, alone on the GPU, conv1d-fft rows at 2^26 around the parts' new crossings: is `Auto`
# the fastest path on either side of each? Results: $OUT/s41b.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
tar -C gpu-carry2 -xJf gpu-carry2/s41b.tar.xz; C=gpu-carry2/s41b
R="$OUT/s41b"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s41b.tgz s41b && rm -rf s41b)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
step fft-missing 60 $C/gpu-conv1d__fft_gpu gpu_cufft_missing_library
grep -hE "test result|FAILED|panicked" "$R/fft-missing.out" "$R/fft-missing.log" | head -8
step fft-parts-auto 60 $C/gpu-conv1d__fft_parts_gpu gpu_fft_parts_auto
grep -hE "test result|FAILED|panicked" "$R/fft-parts-auto.out" "$R/fft-parts-auto.log" | head -8
step fft-gpu 200 $C/gpu-conv1d__fft_gpu --skip gpu_cufft_missing_library
grep -hE "test result|FAILED|panicked" "$R/fft-gpu.out" "$R/fft-gpu.log" | head -8
unset GPU_PRIMS_REQUIRE_GPU
step rows-f64 120 $C/benches__conv1d-fft --log2 26 --types f64 --no-direct-above 64 \
  --widths 10143,10144,12287,16383,39074,39075 --sizes 16384,1048576 --parts 0
step rows-f32 120 $C/benches__conv1d-fft --log2 26 --types f32 --no-direct-above 64 \
  --widths 20479,21384,21385,24575,98303,126336,126337,131071 --sizes 32768,1048576 --parts 0
cat "$R"/rows-*.out
echo "all done at $(( $(date +%s) - T0 ))s"
