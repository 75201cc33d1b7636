#!/usr/bin/env bash
# Session 35 (2026-12-05), call A (one H200), carry gpu-carry3/s35.tar.xz (one-off/carry-s35.sh).
# 1. Alone on the GPU: the store-forms harness (one-off/short-stores-harness.cu, device nvcc).
# 2. Alone, 2^28 values, `shapes --quick --reductions-only` before (main f8f1e01) and after (the
#    branch's 16-byte result stores), alternating: f16 and bf16 twice, i32 and f32 once, over
#    the thread-per-group cases (every row checked against the CPU).
# A step is not started after DEADLINE seconds; what is left is listed in not-run.txt.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s35 s35a
DEADLINE=${DEADLINE:-530}
late() { [ $(($(date +%s) - T0)) -gt "$DEADLINE" ]; }
nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include one-off/short-stores-harness.cu -o /tmp/ssh 2>&1 | tail -5
timeout 90 /tmp/ssh > "$R/harness.txt" 2>&1; echo "harness rc=$? at $(($(date +%s) - T0))s"
sh() { # LABEL BIN ARGS...: one shapes run alone, its log and table in $R
  local label=$1 b=$2 s; shift 2
  if late; then echo "$label" >> "$R/not-run.txt"; return; fi
  s=$(date +%s)
  timeout 120 "$C/$b" --log2 28 --quick --reductions-only --no-conv --segment-kinds 1-8 --out "$R/$label" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(($(date +%s) - s))s"
}
SHORT="67108864x4 F axis 1,134217728x2 F axis 1,4194304x64 F axis 1,64x4194304 C axis 0,16384x16384 C axis 0,4194304x64 C axis 0"
sh half-before-1 shapes-before --types f16,bf16 --cases "$SHORT"
sh half-after-1 shapes-after --types f16,bf16 --cases "$SHORT"
sh four-before-1 shapes-before --types i32,f32 --cases "$SHORT"
sh four-after-1 shapes-after --types i32,f32 --cases "$SHORT"
sh half-after-2 shapes-after --types f16,bf16 --cases "$SHORT"
sh half-before-2 shapes-before --types f16,bf16 --cases "$SHORT"
echo "timings done at $(($(date +%s) - T0))s"
for f in "$R"/*.log; do grep -E "^shapes: (sum|max|copy)" "$f" | sed "s|^shapes: |$(basename "$f" .log) |"; done > "$R/summary.txt"
echo "rows ok: $(grep -c ' ok$' "$R/summary.txt"); not ok: $(grep -v -c -E ' ok$|copy' "$R/summary.txt")"
echo "not run: $(cat "$R/not-run.txt" 2>/dev/null | tr '\n' ' ')"
echo "all done at $(($(date +%s) - T0))s"
