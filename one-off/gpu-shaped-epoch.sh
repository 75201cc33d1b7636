#!/usr/bin/env bash
# Branch wip/shaped-epoch on one GPU (H100 or H200): the look-back rows over epoch-tagged status.
# gpu-scan's GPU tests touching the rows (status reuse, shaped, host pipeline, 16-bit shaped,
# flat, kernels from PTX), the sanitizers over the status-reuse test (one test thread), then the
# shapes benchmark's look-back-rows cases alone on the GPU. Carry: one-off/carry-shaped-epoch.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/se.tar.xz; C=gpu-carry2/se
R="$OUT/shaped-epoch"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-scan__status_reuse_gpu gpu-scan__shaped_gpu gpu-scan__host_pipeline gpu-scan__half_shaped_gpu gpu-scan__gpu; do
  s=$(date +%s); timeout 150 $C/$b --nocapture > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
done
grep -h "look-back rows in" "$R"/logs/test-gpu-scan__status_reuse_gpu.txt
for t in memcheck racecheck synccheck; do
  s=$(date +%s); timeout 120 compute-sanitizer --tool $t --report-api-errors no $C/gpu-scan__status_reuse_gpu --test-threads=1 > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY' "$R/logs/san-$t.txt")"
done
timeout 100 $C/benches__shapes --quick --no-conv --scans-only --types f32,i32 --cases "16384x16384 C axis 1,64x4194304 C axis 1" --out "$R/shapes" > "$R/logs/shapes.log" 2>&1; echo "shapes rc=$?"
grep -E "^\| " "$R/shapes/shapes.md" | head -20
s=$(date +%s); timeout 170 $C/gpu-scan__kernels > "$R/logs/test-kernels.txt" 2>&1; echo "kernels rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-kernels.txt")"
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf shaped-epoch.tgz shaped-epoch && rm -rf shaped-epoch)
