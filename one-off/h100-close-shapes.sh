#!/usr/bin/env bash
# H100 closing plan (one-off/h100-close.md), call 3: issue 12's shapes table on the H100, carry
# gpu-carry3/close.tar.xz (one-off/carry-h100-close.sh). 2^28 values, `--quick`, i32 and f32:
# PyTorch and CuPy first (scripts/peers_shapes.py), then ours alone with their figures merged
# (every row checked against the CPU). CONV=1 adds conv1d along axes (both sides). Then, if
# time is left, the 16-bit reductions (issue 13's shapes rows) the same way. First, where the
# carry holds shapes-before (main's, the carry built on a branch), the branch's f16/bf16 rows
# (two lanes side by side, and a control) before and after, alternating twice.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin close close-shapes
NC=--no-conv; [ "${CONV:-0}" = 1 ] && NC=
if [ -x "$C/shapes-before" ]; then # the carry holds main's shapes: the branch's rows before/after
  # s35-four-rows: two 16-bit lanes side by side; s36-half-chains: 16-bit rows; and a control.
  FR=${FR_CASES:-"134217728x2 C axis 0,134217728x2 F axis 1,16384x16384 C axis 1,262144x1024 C axis 1,16384x16384 F axis 0,16384x16384 C axis 0"}
  for v in before after before after; do
    b=$C/benches__shapes; [ $v = before ] && b=$C/shapes-before
    s=$(date +%s); timeout $(cap 100) "$b" --log2 28 --quick --reductions-only --no-conv --segment-kinds 1-8 \
      --types f16,bf16 --cases "$FR" --out "$R/fr-$v-$s" > "$R/fr-$v-$s.out" 2> "$R/fr-$v-$s.log"
    echo "rows $v rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (sum|max|copy)" "$R/fr-$v-$s.log" | sed "s|^shapes: |$v |"
  done
fi
s=$(date +%s)
timeout $(cap 300) python3 scripts/peers_shapes.py --types "${TYPES:-i32,f32}" --quick $NC \
  --out "$R/peers-shapes.json" > "$R/peers.log" 2>&1; echo "peers rc=$? $(( $(date +%s) - s ))s"
tail -3 "$R/peers.log"
s=$(date +%s)
timeout $(cap 240) "$C/benches__shapes" --log2 28 --quick $NC --types "${TYPES:-i32,f32}" \
  --peers "$R/peers-shapes.json" --out "$R/ours" > "$R/ours.out" 2> "$R/ours.log"
echo "ours rc=$? $(( $(date +%s) - s ))s; rows ok: $(grep -c ' ok$' "$R/ours.log"), not ok: $(grep -E '^shapes: ' "$R/ours.log" | grep -v 'copy of' | grep -v -c ' ok$')"
if [ "$(left)" -gt 150 ]; then
  s=$(date +%s)
  timeout $(cap 100) python3 scripts/peers_shapes.py --types f16,bf16 --ops sum,max --quick --no-conv \
    --out "$R/peers-16bit.json" > "$R/peers-16bit.log" 2>&1; echo "peers 16-bit rc=$? $(( $(date +%s) - s ))s"
  timeout $(cap 100) "$C/benches__shapes" --log2 28 --quick --reductions-only --no-conv \
    --segment-kinds 1-8 --types f16,bf16 --peers "$R/peers-16bit.json" --out "$R/ours-16bit" \
    > "$R/ours-16bit.out" 2> "$R/ours-16bit.log"; echo "ours 16-bit rc=$?"
fi
find "$R" -name "*.svg" -delete
echo "all done at $(( $(date +%s) - T0 ))s"
