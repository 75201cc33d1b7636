#!/usr/bin/env bash
# Issue 24, call T (one H200): the tuning tests, CUB at 2^24 and 2^28, then `bin tune` alone
# on the GPU.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/t.tar.xz; C=gpu-carry2/t
R="$OUT/tune-t"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version,clocks.max.mem,memory.total --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-core__tuning_gpu gpu-scan__tuning_gpu gpu-reduce__tuning_gpu gpu-conv1d__tuning_gpu; do
  timeout 120 $C/$b --nocapture > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked|fast memory" -A4 "$R/logs/test-$b.log" | head -8
done
unset GPU_PRIMS_REQUIRE_GPU
(nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout 120 /tmp/peers_cub 20 22 24 26 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$?"; cat "$R/logs/cub.log"; tail -3 "$R/logs/nvcc.log"
timeout 400 $C/benches__tune --out "$R/tune" > "$R/logs/tune.log" 2>&1; echo "tune rc=$?"
grep -vE "^tune: (reduce|scan|conv1d) " "$R/logs/tune.log" | tail -30
(cd "$OUT" && tar czf tune-t.tgz tune-t && rm -rf tune-t)
