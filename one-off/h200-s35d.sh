#!/usr/bin/env bash
# Session 35 (2026-12-05), call D (one H200), carry gpu-carry3/s35.tar.xz (one-off/carry-s35.sh).
# The 16-bit reductions along every axis case with the final build (`shapes-after`, main 65bbe61's
# kernels) beside PyTorch's and CuPy's in the same run: peers first, then ours alone, f16 and bf16
# sums and maxima, 2^28 values, `--quick`.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s35 s35d
timeout 330 python3 scripts/peers_shapes.py --types f16,bf16 --ops sum,max --quick --no-conv \
  --out "$R/peers-shapes-16bit.json" > "$R/peers.log" 2>&1; echo "peers rc=$? at $(($(date +%s) - T0))s"
tail -3 "$R/peers.log"
timeout 200 "$C/shapes-after" --log2 28 --quick --reductions-only --no-conv --segment-kinds 1-8 \
  --types f16,bf16 --peers "$R/peers-shapes-16bit.json" --out "$R/ours" > "$R/ours.out" 2> "$R/ours.log"
echo "ours rc=$? at $(($(date +%s) - T0))s; rows ok: $(grep -c ' ok$' "$R/ours.log"), not ok: $(grep -E '^shapes: (sum|max)' "$R/ours.log" | grep -v -c ' ok$')"
