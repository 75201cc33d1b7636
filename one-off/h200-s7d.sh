#!/usr/bin/env bash
# Session 7, call D (one H200), each step alone on the GPU: segment sums with long ones under
# the final rule (a mean of 4000); the 16-bit `tensor_core` and `warpgroup` paths in rows of
# 2^24 and 2^25 outputs at w = 127 … 255 (where Auto's short-row threshold of 256 lies).
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/d7.tar.xz; C=gpu-carry2/d7
R="$OUT/s7d"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
K="--log2 28 --types f32 --segments-only --reductions-only --quick --segment-kinds 1-8+4096/1000,1-8+2100/500"
timeout 40 $C/benches__shapes $K --out "$R/shapes-rule" > "$R/logs/shapes-rule.log" 2>&1
echo "shapes rule rc=$?"; grep -h "segment_sum" "$R/shapes-rule/shapes.md" | head -2 | cut -d'|' -f4-9
A="--device-only --only core,conv1d --sizes 24,25 --types f16,bf16 --widths 127,160,192,224,255 --cpu-reps 1"
for i in 1 2; do
  timeout 120 $C/benches__report $A --out "$R/report-$i" > "$R/logs/report-$i.log" 2>&1; echo "report $i rc=$?"
  grep -E "\| (copy|warpgroup|tensor_core) \|" "$R/report-$i/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f3-10
done
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf s7d.tgz s7d && rm -rf s7d)
