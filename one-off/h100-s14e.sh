#!/usr/bin/env bash
# Issue 13 session 14, call E (one H100): gpu-conv1d's unit tests and kernels test (fixed after
# call D), then alone on the GPU: PyTorch's f16/bf16 conv1d and the report's 16-bit conv1d rows
# at 2^28 (every strategy incl. tensor_core, warpgroup, fft, auto), then 2^24 / 2^26 f16 for
# the crossovers.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s14e ] || tar -C gpu-carry2 -xJf gpu-carry2/s14e.tar.xz; C=gpu-carry2/s14e
R="$OUT/s14e"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-conv1d__gpu_conv1d gpu-conv1d__kernels; do
  timeout 120 $C/$b > "$R/logs/$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/$b.log")"
done
timeout 60 python3 scripts/peers.py --sizes 28 --types f16,bf16 --ops conv1d --widths 31,127,255 --libs torch \
  --out "$R/peers.json" 2>"$R/peers.log" || echo "peers failed"
timeout 300 $C/benches__report --only core,conv1d --sizes 28 --types f16,bf16 --widths 31,63,95,127,255 \
  --reps 5 --cpu-reps 1 --out "$R/n28" --peers "$R/peers.json" 2>"$R/n28-progress.log" >"$R/n28.txt"
echo "report n28 rc=$?"
grep -E "^core +copy|^conv1d +(auto|tensor_core|warpgroup|fft|register_tiled|torch)" "$R/n28.txt" | cut -c1-150
grep -ci "wrong" "$R/n28.txt"
