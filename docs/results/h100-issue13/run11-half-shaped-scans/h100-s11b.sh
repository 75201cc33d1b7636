#!/usr/bin/env bash
# Issue 13 session 11, call B (one H100, nothing else running): the shapes benchmark's scans at
# 2^28. PyTorch and CuPy cumsum of f16/bf16 first (scripts/peers_shapes.py), then ours for
# f16 and bf16 with them beside; then the f32 and i32 scans of the previous commit's binary
# and of this one, alternating, for the before/after check of the changed lane templates.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s11b ] || tar -C gpu-carry2 -xJf gpu-carry2/s11b.tar.xz; C=gpu-carry2/s11b
R="$OUT/s11b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
S=$(date +%s)
timeout 200 python3 scripts/peers_shapes.py --log2 28 --types f16,bf16 --ops cumsum --no-conv --quick --out "$R/peers-half.json" 2> "$R/peers-half.log"
echo "peers rc=$? $(( $(date +%s) - S ))s"; tail -3 "$R/peers-half.log"
timeout 150 $C/benches__shapes --log2 28 --types f16,bf16 --scans-only --peers "$R/peers-half.json" --out "$R/half" 2> "$R/half.log"
echo "half rc=$? $(( $(date +%s) - S ))s"; grep -c "ok$\|OK" "$R/half.log"; grep -i "wrong\|mismatch" "$R/half.log" | head
for round in 1 2; do
  for which in old new; do
    b=$C/benches__shapes; [ $which = old ] && b=$C/old__shapes
    timeout 120 $b --log2 28 --types i32,f32 --scans-only --no-conv --quick --out "$R/$which-$round" 2> "$R/$which-$round.log"
    echo "$which round $round rc=$? $(( $(date +%s) - S ))s"
  done
done
(cd "$OUT" && tar czf s11b.tgz s11b && rm -rf s11b)
