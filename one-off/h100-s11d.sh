#!/usr/bin/env bash
# Issue 13 session 11, call D (one H100, nothing else running): the shapes benchmark's bf16
# scans at 2^28 beside call B's PyTorch figures (docs/results/h100-issue13/run11-half-shaped-scans/call-b-peers-half.json, same GPU kind),
# then the f32 segmented scans in register tiles (the changed SegmentRegisterTile) from the
# previous commit's binary and this one, alternating.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s11b ] || tar -C gpu-carry2 -xJf gpu-carry2/s11b.tar.xz; C=gpu-carry2/s11b
R="$OUT/s11d"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
S=$(date +%s)
timeout 230 $C/benches__shapes --log2 28 --types bf16 --scans-only --peers docs/results/h100-issue13/run11-half-shaped-scans/call-b-peers-half.json --out "$R/half-bf16" 2> "$R/half-bf16.log"
echo "bf16 rc=$? $(( $(date +%s) - S ))s"
for round in 1 2; do
  for which in old new; do
    b=$C/benches__shapes; [ $which = old ] && b=$C/old__shapes
    timeout 100 $b --log2 28 --types f32 --segments-only --segment-staging registers --quick --out "$R/seg-$which-$round" 2> "$R/seg-$which-$round.log"
    echo "$which round $round rc=$? $(( $(date +%s) - S ))s $(grep segment_cumsum "$R/seg-$which-$round.log" | awk '{print $5, $9}' | tr '\n' ' ')"
  done
done
