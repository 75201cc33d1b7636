#!/usr/bin/env bash
# Issue 24, call U: the GPU tests (tuning, flat scan, reduce, conv1d and FFT) with
# GPU_PRIMS_REQUIRE_GPU=1, then `bin tune` alone on the GPU. Run on nvidia-h200 and on the H100.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/u ] || tar -C gpu-carry2 -xJf gpu-carry2/u.tar.xz; C=gpu-carry2/u
R="$OUT/tune-u"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version,clocks.max.mem,memory.total --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-core__tuning_gpu gpu-scan__tuning_gpu gpu-reduce__tuning_gpu gpu-conv1d__tuning_gpu \
         gpu-scan__gpu gpu-reduce__gpu gpu-conv1d__gpu gpu-conv1d__fft_gpu; do
  timeout 240 $C/$b > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked" -A4 "$R/logs/test-$b.log" | head -8
done
unset GPU_PRIMS_REQUIRE_GPU
timeout 300 $C/benches__tune --out "$R/tune" > "$R/logs/tune.log" 2>&1; echo "tune rc=$?"
sed -n '/## Chosen/,/## Every/p' "$R/tune/tune.md"
(cd "$OUT" && tar czf tune-u.tgz tune-u && rm -rf tune-u)
