#!/usr/bin/env bash
# Session 8, call F (one H200): the H200's shapes rows on this build, f32: PyTorch / CuPy
# (peers_shapes.py --quick --no-conv), then bin shapes --quick --no-conv with them, each alone on
# the GPU, as far as the session's device time allows (the log keeps every finished case).
# Carry: one-off/carry-s8f.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/f8.tar.xz; C=gpu-carry2/f8
R="$OUT/s8f"; mkdir -p "$R"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-420} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s); timeout $(cap 130) python3 scripts/peers_shapes.py --quick --no-conv --types f32 --out "$R/peers-shapes.json" > "$R/peers.log" 2>&1; echo "peers rc=$? $(( $(date +%s) - s ))s"
P=""; [ -s "$R/peers-shapes.json" ] && P="--peers $R/peers-shapes.json"
s=$(date +%s); timeout $(cap 400) $C/benches__shapes --quick --no-conv --types f32 $P --out "$R/shapes" > "$R/shapes.log" 2>&1; echo "shapes rc=$? $(( $(date +%s) - s ))s"
grep -c " ok" "$R/shapes.log"; grep -cE "WRONG|wrong" "$R/shapes.log"
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf s8f.tgz s8f && rm -rf s8f)
