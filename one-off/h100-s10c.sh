#!/usr/bin/env bash
# Issue 13 session 10, call C (one H100), timing alone on the GPU: the tensor-core harness built
# from the module before this session and from the committed one (same call, each with its own
# copy), then PyTorch's conv1d and the report's conv1d rows for f16, bf16 and f32 at 2^28, and
# a width sweep 3-25 at 2^20, 2^24, 2^28 (the fixed-width FMA kernels against tensor cores).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s10b ] || tar -C gpu-carry2 -xJf gpu-carry2/s10b.tar.xz; C=gpu-carry2/s10b
R="$OUT/s10c"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/tch-new one-off/tc-harness.cu > "$R/nvcc.log" 2>&1 &
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -DKERNEL_FILE='"conv1d_sm80_before.cu"' -o /tmp/tch-old one-off/tc-harness.cu >> "$R/nvcc.log" 2>&1
wait
for t in old new old new; do /tmp/tch-$t 28 20 3,31,63,127 none | grep -E "copy|committed" | sed "s/^/$t /"; done | tee "$R/harness.txt"
timeout 200 python3 scripts/peers.py --sizes 28 --types f16,bf16,f32 --ops conv1d --widths 3,7,31,63,127,255 \
  --out "$R/peers.json" 2>"$R/peers.log" || echo "peers failed"
timeout 280 $C/benches__report --only core,conv1d --sizes 28 --types f16,bf16,f32 --widths 3,7,31,63,127,255 \
  --reps 11 --out "$R/report" --peers "$R/peers.json" 2>"$R/progress.log" >"$R/table.txt"
echo "report rc=$?"
timeout 240 $C/benches__report --only core,conv1d --sizes 20,24,28 --types f16,bf16 --widths 3,5,7,9,11,13,15,19,23,25 \
  --reps 11 --cpu-reps 1 --out "$R/sweep" 2>"$R/sweep-progress.log" >"$R/sweep.txt"
echo "sweep rc=$?"
grep -E "^conv1d +(auto|tensor_core) " "$R/sweep.txt" | head -130
grep -E "^core +copy|^conv1d +(auto|tensor_core|register_tiled|fft) " "$R/table.txt" | head -80
(cd "$OUT" && tar czf s10c.tgz s10c && rm -rf s10c)
