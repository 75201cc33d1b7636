#!/usr/bin/env bash
# Issue 24 session 4, call D (one H200). Alone on the GPU: the report's scan rows at 2^20, 2^22,
# 2^24, 2^28 from the build before (fd370b1, a zeroing launch per scan) and after (bc611d2,
# epoch-tagged status), same run, with CUB; the harness's larger staged tiles (10, 12, 13 rows
# instead of 8). Then gpu-scan's kernel-loading test (every kernel from its PTX) and racecheck
# over the status-reuse test, one test thread.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/d.tar.xz; C=gpu-carry2/d
cp gpu-carry2/d/report-old /tmp/report-old
R="$OUT/s4d"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s); (nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout 60 /tmp/peers_cub 20 22 24 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$? $(( $(date +%s) - s ))s"; grep cumsum "$R/logs/cub.log"
A="--device-only --only core,scan --sizes 20,22,24,28 --types i32,f32 --cpu-reps 1"
i=0
for v in old new old new; do
  i=$((i + 1)); if [ $v = old ]; then B=/tmp/report-old; else B=$C/benches__report; fi
  s=$(date +%s); timeout 80 $B $A --out "$R/report-$i-$v" > "$R/logs/report-$i-$v.log" 2>&1; echo "report $i $v rc=$? $(( $(date +%s) - s ))s"
  grep -E "\| (copy|auto) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f3-10
done
s=$(date +%s); nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/seh one-off/scan-epoch-harness.cu > "$R/logs/nvcc-seh.log" 2>&1 || head -30 "$R/logs/nvcc-seh.log"
timeout 120 /tmp/seh 30 24,26,28 > "$R/harness.txt" 2>&1; echo "harness rc=$? $(( $(date +%s) - s ))s"; cat "$R/harness.txt"
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); timeout 100 compute-sanitizer --tool racecheck --report-api-errors no $C/gpu-scan__status_reuse_gpu --test-threads=1 > "$R/logs/san-racecheck.txt" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|test result|Internal' "$R/logs/san-racecheck.txt" | tr '\n' ' ')"
s=$(date +%s); timeout 170 $C/gpu-scan__kernels > "$R/logs/test-gpu-scan__kernels.txt" 2>&1; echo "kernels rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-gpu-scan__kernels.txt")"
(cd "$OUT" && tar czf s4d.tgz s4d && rm -rf s4d)
