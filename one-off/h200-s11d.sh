#!/usr/bin/env bash
# Session 11, call D (one H200), main's kernels (c236185: this session's kernel change was backed
# out after call B). Carry: gpu-carry3/s11d.tar.xz (the shapes bench of that build).
# 1. The segment-lanes harness again, now with the library's own lanes_reduce launched as
#    gpu-reduce launches it, and the harness kernel with the library's pieces (split, epilogue)
#    switched in one at a time: where the library's 0.75x copy goes against the harness's 0.88.
# 2. The short-column reductions owed since the ninth session (67108864x4, 134217728x2 F axis 1),
#    f32 and i32, alone on the GPU.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 420 - ($(date +%s) - T0) )); }
R="$OUT/s11d"; mkdir -p "$R"
s=$(date +%s); nvcc -O3 -arch=sm_90 -std=c++17 -I kernels/include -o /tmp/seglanes one-off/segment-lanes-harness.cu > "$R/nvcc.txt" 2>&1; echo "nvcc rc=$? $(( $(date +%s) - s ))s"; tail -3 "$R/nvcc.txt"
s=$(date +%s); timeout 120 /tmp/seglanes 28 2000 > "$R/harness-2000.txt" 2>&1; echo "harness 2000 rc=$? $(( $(date +%s) - s ))s"; cat "$R/harness-2000.txt"
s=$(date +%s); timeout 80 /tmp/seglanes 28 500 > "$R/harness-500.txt" 2>&1; echo "harness 500 rc=$? $(( $(date +%s) - s ))s"; cat "$R/harness-500.txt"
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s11d.tar.xz; C=/tmp/c/s11d
CASES="67108864x4 F axis 1,134217728x2 F axis 1"
for i in 1 2; do
  l=$(left); [ "$l" -gt 40 ] || break
  s=$(date +%s); timeout $(( l - 10 < 90 ? l - 10 : 90 )) $C/shapes --quick --no-conv --reductions-only --types f32,i32 --cases "$CASES" --out "$R/shapes-$i" > "$R/shapes-$i.log" 2>&1; echo "shapes $i rc=$? $(( $(date +%s) - s ))s"
  grep -E "^shapes: (copy|sum|max)" "$R/shapes-$i.log" | sed 's/^shapes: //' | cut -c1-110
done
(cd "$OUT" && tar czf s11d.tgz s11d && rm -rf s11d)
