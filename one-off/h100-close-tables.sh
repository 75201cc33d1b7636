#!/usr/bin/env bash
# H100 closing plan (one-off/h100-close.md), call 4: the flat tables on the H100, each step alone
# on the GPU, carry gpu-carry3/close.tar.xz (one-off/carry-h100-close.sh). STEPS picks and orders
# them (default "half fft full before"):
#   half    issue 13: PyTorch/CuPy (scripts/peers.py) then the report (--device-only) at 2^28,
#           f16 and bf16: sum, max, cumsum, conv1d w 3/7/31/127; and f32 w 127 (the TF32 path)
#   fft     issue 19: scripts/peers_fft.py then bin conv1d-fft, 2^26, f32 and f64, w 3 … 65535
#   full    issue 19: full correlation of two 2^24 f32 signals, CuPy's fftconvolve then ours
#   before  issue 24: peers (PyTorch, CuPy, CUB) then the report of fd370b1 and of this build
#           alternating twice (reduce, scan, conv1d at 2^20/2^24/2^28, i32 and f32, w 3/7/31/127)
#   items   a lead, not a debt: 16-bit rows of 1024 and 16384 reduced with 32 (the default), 64
#           and 128 values a thread a step (GPU_PRIMS_REDUCE_LANE_ITEMS), alternating twice
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin close close-tables
step() { # LABEL SECS CMD...: one step, alone, its output in $R/LABEL.out / .log
  local label=$1 to=$2 s; shift 2
  [ "$(left)" -gt 20 ] || { echo "$label skipped: deadline"; return; }
  s=$(date +%s); timeout "$(cap "$to")" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(( $(date +%s) - s ))s"
}
rows() { grep -E "\| (copy|auto|fft|cufft|warpgroup|tensor_core) \|" "$1" | grep -vE "with copies|block=|rayon" | cut -d'|' -f3-10; }
for st in ${STEPS:-half fft full before}; do
  case $st in
    half)
      step peers-half 120 python3 scripts/peers.py --sizes 28 --types f16,bf16 --ops sum,max,cumsum,conv1d \
        --widths 3,7,31,127 --out "$R/peers-half.json"
      step report-half 150 "$C/benches__report" --device-only --only core,reduce,scan,conv1d \
        --sizes 28 --types f16,bf16 --widths 3,7,31,127 --cpu-reps 1 --peers "$R/peers-half.json" --out "$R/report-half"
      rows "$R/report-half/report.md"
      step report-f32-w127 60 "$C/benches__report" --device-only --only core,conv1d \
        --sizes 28 --types f32 --widths 127 --cpu-reps 1 --out "$R/report-f32-w127"
      rows "$R/report-f32-w127/report.md" ;;
    fft)
      step peers-fft 120 python3 scripts/peers_fft.py --log2 26 --types f32
      step conv1d-fft 150 "$C/benches__conv1d-fft" --log2 26 --types f32,f64
      grep -iE "auto|copy" "$R/conv1d-fft.out" | head -60 ;;
    full)
      step peers-full 60 python3 scripts/peers_fft.py --full 24
      step conv1d-full 60 "$C/benches__conv1d-fft" --full 24
      cat "$R/peers-full.out" "$R/conv1d-full.out" ;;
    before)
      step peers 150 python3 scripts/peers.py --sizes 20,24,28 --types i32,f32 --ops sum,max,cumsum,conv1d \
        --widths 3,7,31,127 --out "$R/peers.json"
      nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/nvcc.log" 2>&1 &&
        step peers-cub 60 /tmp/peers_cub 20 24 28
      A="--device-only --only core,reduce,scan,conv1d --sizes 20,24,28 --types i32,f32 --widths 3,7,31,127 --cpu-reps 1 --peers $R/peers.json"
      i=0
      # The new build times more strategies a row: 2^20-2^28 took past 110 s on the H100
      # (thirty-seventh session; fd370b1's took 70-74 s), so it gets 200.
      for v in ${ROUNDS:-new old new old}; do
        i=$((i + 1)); B=$C/benches__report; to=200; [ $v = old ] && { B=$C/report-fd370b1; to=110; }
        [ "$(left)" -gt $((to + 10)) ] || { echo "report $i $v skipped: deadline"; continue; }
        # shellcheck disable=SC2086
        step "report-$i-$v" $to "$B" $A --out "$R/report-$i-$v"
        rows "$R/report-$i-$v/report.md"
      done ;;
    items)
      IC="16384x16384 C axis 1,262144x1024 C axis 1,16384x16384 F axis 0"
      for r in 1 2; do
        for it in 32 64 128; do
          export GPU_PRIMS_REDUCE_LANE_ITEMS=$it
          step "items-$it-$r" 60 "$C/benches__shapes" --log2 28 --quick \
            --reductions-only --no-conv --segment-kinds 1-8 --types f16,bf16 --cases "$IC" --out "$R/items-$it-$r"
          grep -E "^shapes: (sum|max|copy)" "$R/items-$it-$r.log" | sed "s|^shapes: |items $it |"
        done
      done
      unset GPU_PRIMS_REDUCE_LANE_ITEMS ;;
    *) echo "unknown step $st" ;;
  esac
done
find "$R" -name "*.svg" -delete
echo "all done at $(( $(date +%s) - T0 ))s"
