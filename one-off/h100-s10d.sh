#!/usr/bin/env bash
# Issue 13 session 10, call D (one H100), timing alone on the GPU (call C ran out of time in
# the report): PyTorch's f16/bf16 conv1d, the report's conv1d rows for f16 and bf16 at 2^28
# (w 3, 7, 23, 31, 127), and at 2^20 and 2^24 for w 3-23 (where Auto leaves the FMA kernels).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s10b ] || tar -C gpu-carry2 -xJf gpu-carry2/s10b.tar.xz; C=gpu-carry2/s10b
R="$OUT/s10d"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
timeout 60 python3 scripts/peers.py --sizes 28 --types f16,bf16 --ops conv1d --widths 3,7,23,31,127 --libs torch \
  --out "$R/peers.json" 2>"$R/peers.log" || echo "peers failed"
timeout 300 $C/benches__report --only core,conv1d --sizes 28 --types f16,bf16 --widths 3,7,23,31,127 \
  --reps 9 --cpu-reps 1 --out "$R/n28" --peers "$R/peers.json" 2>"$R/n28-progress.log" >"$R/n28.txt"
echo "report n28 rc=$?"
timeout 130 $C/benches__report --only core,conv1d --sizes 20,24 --types f16,bf16 --widths 3,7,11,15,19,23 \
  --reps 9 --cpu-reps 1 --out "$R/sweep" 2>"$R/sweep-progress.log" >"$R/sweep.txt"
echo "report sweep rc=$?"
grep -E "^core +copy +device|^conv1d +(auto|tensor_core|register_tiled) " "$R/n28.txt" "$R/sweep.txt" | cut -c1-140
(cd "$OUT" && tar czf s10d.tgz s10d && rm -rf s10d)
