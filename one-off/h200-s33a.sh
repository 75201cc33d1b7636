#!/usr/bin/env bash
# Thirty-third session, call A (H200): the short columns reduction's store forms
# (one-off/short-stores-harness.cu), then PyTorch's and CuPy's 16-bit sums and maxima along axes.
set -u
R="$OUT/s33a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$R/gpu.txt"
nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include one-off/short-stores-harness.cu -o /tmp/ssh 2>&1 | tail -20
/tmp/ssh 2>&1 | tee "$R/harness.txt"
timeout 360 python3 scripts/peers_shapes.py --types f16,bf16 --ops sum,max --quick --no-conv \
  --out "$R/peers-shapes-16bit.json" > "$R/peers.log" 2>&1; echo "peers rc=$?"
tail -3 "$R/peers.log"
