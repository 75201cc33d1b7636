#!/usr/bin/env bash
# Fifty-first session's last-budget H200 call (carry gpu-carry2: s50 = main before the interior
# store, s50b = main after it): conv1d f32 w = 31 at 2^28 after / before (the report's Auto with
# its copy), then the new build's gpu-conv1d `gpu` tests, within DEADLINE (default 140 s).
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
R="$OUT/s51m"; mkdir -p "$R" /tmp/c
for t in s50b s50; do [ -d /tmp/c/$t ] || tar -C /tmp/c -xJf gpu-carry2/$t.tar.xz; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for v in s50b s50; do
  step "conv-$v" 35 /tmp/c/$v/benches__report --device-only --only core,conv1d --sizes 28 --types f32 \
    --widths 31 --cpu-reps 1 --out "$R/conv-$v"
  grep -hE "\| (copy|auto) \|" "$R/conv-$v/report.md" 2>/dev/null | grep -vE "with copies|block=|rayon" |
    grep -iE "device to device|conv" | cut -d'|' -f2-8
done
step conv-gpu 90 /tmp/c/s50b/gpu-conv1d__gpu
grep -h "^test result\|panicked\|FAILED" "$R/conv-gpu.out" "$R/conv-gpu.log" | head -5
(cd "$OUT" && tar czf s51m.tgz s51m && rm -rf s51m)
echo "all done at $(( $(date +%s) - T0 ))s"
