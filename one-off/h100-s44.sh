#!/usr/bin/env bash
# Forty-fourth session: Auto's warpgroup crossing at 2^28 moved to w = 5 (carry gpu-carry2 from
# one-off/carry-s44.sh). The gpu binary (GPU_PRIMS_REQUIRE_GPU=1; its Auto assertions and the
# 2^31 + 33 16-bit test with mma.sync asked for by name), then the report at 2^28, f16 and bf16,
# w 3/5/7/9: auto against warpgroup and the FMA kernels, alone on the GPU. Results: $OUT/s44.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
[ -d gpu-carry2/s44 ] || tar -C gpu-carry2 -xJf gpu-carry2/s44.tar.xz; C=gpu-carry2/s44
R="$OUT/s44"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s44.tgz s44 && rm -rf s44)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
step gpu 150 "$C/gpu-conv1d__gpu"
grep -h "^test result\|panicked\|FAILED" "$R/gpu.out" "$R/gpu.log" | head
step small-28 120 "$C/benches__report" --device-only --only core,conv1d \
  --sizes 28 --types f16,bf16 --widths 3,5,7,9 --cpu-reps 1 --out "$R/small-28"
grep -E "\| (copy|auto|warpgroup|register_tiled) \|" "$R/small-28/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f3-10
find "$R" -name "*.svg" -delete
echo "all done at $(( $(date +%s) - T0 ))s"
