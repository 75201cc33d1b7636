#!/usr/bin/env bash
# Session 32 (2026-12-04), call B (one H200), carry gpu-carry3/s32b.tar.xz (one-off/carry-s32b.sh).
# 1. Alone on the GPU, 2^28 values, `shapes --quick --reductions-only`, before (c365976's kernels
#    and rule) and after (one loop for both lane widths; 16-bit vector columns):
#    f16 every case (before, after), bf16 every case (after), then i32 and f32 over the columns
#    cases of the 4-byte kernels, two rounds alternating.
# 2. Untimed, side by side: gpu-reduce's suites of the new build.
set -u
cd "$(dirname "$0")/.."
source one-off/device-lib.sh
dev_begin s32b
sh() { # LABEL BIN ARGS...: one shapes run alone, its log and table in $R
  local label=$1 b=$2 s; shift 2; s=$(date +%s)
  timeout 150 "$C/$b" --log2 28 --quick --reductions-only --no-conv --segment-kinds 1-8 --out "$R/$label" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(($(date +%s) - s))s"
}
COLS="4194304x64 C axis 0,67108864x4 C axis 0,134217728x2 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0,64x4194304 C axis 0,16384x16384 F axis 1,64x4194304 F axis 1"
sh f16-before shapes-before --types f16
sh f16-after shapes-after --types f16
sh bf16-after shapes-after --types bf16
sh cols-before-1 shapes-before --types i32,f32 --cases "$COLS"
sh cols-after-1 shapes-after --types i32,f32 --cases "$COLS"
sh cols-before-2 shapes-before --types i32,f32 --cases "$COLS"
sh cols-after-2 shapes-after --types i32,f32 --cases "$COLS"
echo "timings done at $(($(date +%s) - T0))s"
for f in "$R"/*.log; do grep -E "^shapes: (sum|max)" "$f" | sed "s|^shapes: |$(basename "$f" .log) |"; done > "$R/summary.txt"
grep -c "ok$" "$R/summary.txt"; grep -v "ok$" "$R/summary.txt" | head
( t unit gpu-reduce__gpu_reduce 100 ) &
( t shaped gpu-reduce__shaped_gpu 250 ) &
( t kernels gpu-reduce__kernels 250 ) &
( t gpu gpu-reduce__gpu 200; t props gpu-reduce__properties 100; t half gpu-reduce__half_gpu 100; t tuning gpu-reduce__tuning_gpu 100; t core-unit gpu-core__gpu_core 100; t core-lanes gpu-core__lanes 100 ) &
( t host gpu-reduce__host_pipeline 250 ) &
wait
echo "all done at $(($(date +%s) - T0))s"
