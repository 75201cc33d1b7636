#!/usr/bin/env bash
# Issue 12 session 9, call C (one H100): long-span columns scans of 16 vector rows a thread
# (two 256-thread blocks per SM) against run 18's 32 (shapes-base), the column cases only, each
# build alone on the GPU; then gpu-scan's GPU tests and memcheck over its lane tests.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s9c ] || tar -C gpu-carry2 -xJf gpu-carry2/s9c.tar.xz; C=gpu-carry2/s9c
R="$OUT/s9c"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
A="--scans-only --types f32,i32 --quick --no-conv"
K="4194304x64 C axis 0,64x4194304 F axis 1,262144x1024 C axis 0,16384x16384 C axis 0,262144x1024 F axis 1"
timeout 110 $C/shapes-base $A --cases "$K" --out "$R/base" > "$R/logs/base.log" 2>&1; echo "base rc=$?"
timeout 110 $C/benches__shapes $A --cases "$K" --out "$R/new" > "$R/logs/new.log" 2>&1; echo "new rc=$?"
GPU_PRIMS_COLUMN_SCAN_THREADS=256 timeout 80 $C/benches__shapes $A --cases "16384x16384 C axis 0,262144x1024 F axis 1" --out "$R/t256" > "$R/logs/t256.log" 2>&1; echo "t256 rc=$?"
paste -d'|' <(grep -E "cumsum" "$R/logs/base.log" | sed 's/shapes: //') <(grep -E "cumsum" "$R/logs/new.log" | sed 's/shapes: //')
grep -h "cumsum\|copy of" "$R/logs/t256.log"; grep -h "copy of" "$R/logs/base.log" "$R/logs/new.log"
export GPU_PRIMS_REQUIRE_GPU=1
for b in shaped_gpu gpu properties; do
  timeout 100 $C/gpu-scan__$b > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked" -A4 "$R/logs/test-$b.log" | head -8
done
timeout 90 compute-sanitizer --tool memcheck --report-api-errors no $C/gpu-scan__shaped_gpu lanes_sanitize_every_mapping --test-threads=1 > "$R/logs/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/logs/memcheck.log" | tail -1) $(grep -E '^test result' "$R/logs/memcheck.log")"
(cd "$OUT" && tar czf s9c.tgz s9c && rm -rf s9c)
