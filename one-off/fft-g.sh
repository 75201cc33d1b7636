#!/usr/bin/env bash
# FFT path, call G: the final kernel's width sweep (f32, f64) and the peers in one call, timing
# alone, for the guide's table.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/fft.tar.xz; C=gpu-carry2/fft
R="$OUT/fft-g"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
timeout 200 $C/conv1d-fft --log2 26 --types f32,f64 > "$R/sweep.tsv" 2> "$R/sweep.err"; echo "sweep rc=$?"
timeout 250 python3 scripts/peers_fft.py --log2 26 --types f32,f64 --torch-max 1023 > "$R/peers.tsv" 2> "$R/peers.err"; echo "peers rc=$?"
