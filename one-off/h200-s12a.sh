#!/usr/bin/env bash
# Session 12, call A (one H200). Carry: gpu-carry3/s12a.tar.xz (shapes bench of this build and
# of main at 0ad9f7f as old__shapes; gpu-reduce shaped_gpu of this build).
# 1. Harness 2: the library's segment lanes as shipped (-I kernels/include) and a lean copy
#    (-I one-off/inc-lean: lanes.cuh of 0ad9f7f with `if (t.Wh > 1)` -> `if (false)` and
#    `if (S == 1)` -> `if (SEGMENTS || S == 1)`: no splits, one warp per segment at most; the
#    copy is not kept, the same form is now lanes_reduce<..., IN_WARP>) at five and six blocks per
#    SM, beside the bare fold, segments of 1-2000 (a warp each) and 1-400 (8 threads each).
# 2. The short columns reduction (three blocks, one step for short lanes) against main's,
#    alternating, on the cases whose plans take it; f32 and i32.
# 3. gpu-reduce shaped_gpu of this build; then every shape of the quick set, f32 and i32, with
#    what time is left (the standing on this GPU).
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 560 - ($(date +%s) - T0) )); }
R="$OUT/s12a"; mkdir -p "$R"
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s12a.tar.xz; C=/tmp/c/s12a
for v in cur lean; do
  inc=kernels/include; [ $v = lean ] && inc="one-off/inc-lean -I kernels/include"
  s=$(date +%s); nvcc -O3 -arch=sm_90 -std=c++17 -I $inc -o /tmp/h2-$v one-off/segment-lanes-harness2.cu > "$R/nvcc-$v.txt" 2>&1; echo "nvcc $v rc=$? $(( $(date +%s) - s ))s"; tail -3 "$R/nvcc-$v.txt"
done
for args in "28 2000 32" "28 400 8"; do
  for v in cur lean; do
    s=$(date +%s); timeout 60 /tmp/h2-$v $args $v > "$R/h2-$v-${args// /_}.txt" 2>&1; echo "h2 $v $args rc=$? $(( $(date +%s) - s ))s"; cat "$R/h2-$v-${args// /_}.txt"
  done
done
CASES="134217728x2 F axis 1,67108864x4 F axis 1,64x4194304 C axis 0,4194304x64 F axis 1,262144x1024 F axis 1"
for i in 1 2; do
  for v in old new; do
    b=$C/benches__shapes; [ $v = old ] && b=$C/old__shapes
    s=$(date +%s); timeout 60 $b --quick --no-conv --reductions-only --types f32,i32 --cases "$CASES" --out "$R/cols-$v-$i" > "$R/cols-$v-$i.log" 2>&1; echo "cols $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|sum|max)" "$R/cols-$v-$i.log" | sed 's/^shapes: //' | cut -c1-100
  done
done
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); timeout 90 $C/gpu-reduce__shaped_gpu > "$R/test-shaped_gpu.txt" 2>&1; echo "shaped_gpu rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-shaped_gpu.txt")"
grep panicked "$R/test-shaped_gpu.txt" | head -3
l=$(left); echo "left $l s for the full shapes run"
if [ "$l" -gt 60 ]; then
  s=$(date +%s); timeout $(( l - 15 )) $C/benches__shapes --quick --no-conv --types f32,i32 --out "$R/all" > "$R/all.log" 2>&1; echo "all rc=$? $(( $(date +%s) - s ))s"
  grep -c "^shapes: " "$R/all.log"
fi
(cd "$OUT" && tar czf s12a.tgz s12a && rm -rf s12a)
