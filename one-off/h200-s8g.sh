#!/usr/bin/env bash
# Session 8, call G (one H200): call F found f32 sums 10-15 % slower than f32 max in the same
# lane kernels on the H200 (the H100's run 18 had them level). The same reductions again, f32
# and i32, twice, alone on the GPU: is the gap real, and do i32 sums show it? Carry: f8.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/f8.tar.xz; C=gpu-carry2/f8
R="$OUT/s8g"; mkdir -p "$R"
for i in 1 2; do
  s=$(date +%s); timeout 90 $C/benches__shapes --quick --no-conv --reductions-only --types f32,i32 --cases "4194304x64 C,134217728x2 F,262144x1024 F" --out "$R/shapes-$i" > "$R/shapes-$i.log" 2>&1; echo "shapes $i rc=$? $(( $(date +%s) - s ))s"
  grep -E "^shapes: (sum|max)" "$R/shapes-$i.log" | sed 's/^shapes: //' | awk '{print $1, $2, $3, $4, $5, $6, $8}'
done
(cd "$OUT" && tar czf s8g.tgz s8g && rm -rf s8g)
