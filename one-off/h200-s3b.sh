#!/usr/bin/env bash
# Issue 24 session 3, call B (one H200), alone on the GPU after the tests: PyTorch/CuPy conv1d
# peers, the report (conv1d f32 at 2^24 and 2^28, w 3/7/15/31/127) and the tuning tool's conv1d
# sweeps (the FFT crossovers and conv1d.wide_tile_from); the tuned-crossover test's own output.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/a.tar.xz; C=gpu-carry2/a
R="$OUT/b"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
GPU_PRIMS_REQUIRE_GPU=1 timeout 30 $C/gpu-conv1d__tuning_gpu --nocapture 2>&1 | grep -E "wide tiles|test result"
s=$(date +%s); timeout 150 python3 scripts/peers.py --sizes 24,28 --types f32 --ops conv1d --widths 3,7,15,31,127 --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); timeout 220 $C/benches__report --only core,conv1d --sizes 24,28 --types f32 --widths 3,7,15,31,127 --cpu-reps 1 --out "$R/report" --peers "$R/peers.json" > "$R/logs/report.log" 2>&1; echo "report rc=$? $(( $(date +%s) - s ))s"
grep -E "conv1d|copy" "$R/report/report.md" | grep -E "same|copy device" | head -40
s=$(date +%s); timeout 150 $C/benches__tune --only conv1d --out "$R/tune" > "$R/logs/tune.log" 2>&1; echo "tune rc=$? $(( $(date +%s) - s ))s"; cat "$R/tune/tuning.txt" 2>/dev/null
grep -E "wide_tile" "$R/tune/tune.md" | head -40
