#!/usr/bin/env bash
# Issue 24 session 2, call F (one H200): the build with 768-thread staged tiles below 2^25 (the
# H200's scan.staged_block_medium): gpu-scan's GPU tests and gpu-core's tuning test, memcheck and
# racecheck over the tuned-scan test, then alone on the GPU: CUB and PyTorch/CuPy peers, the
# report (scan at 2^24 and 2^28) and the tuning tool.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/f.tar.xz; C=gpu-carry2/f
R="$OUT/f"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-core__tuning_gpu gpu-scan__tuning_gpu gpu-scan__gpu gpu-scan__kernels gpu-scan__properties gpu-scan__host_pipeline; do
  timeout 150 $C/$b > "$R/logs/test-$b.txt" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
done
for t in memcheck racecheck; do
  timeout 80 compute-sanitizer --tool $t $C/gpu-scan__tuning_gpu > "$R/logs/san-$t.txt" 2>&1
  echo "$t rc=$? $(grep -E 'SUMMARY|test result' "$R/logs/san-$t.txt" | tr '\n' ' ')"
done
(nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout 60 /tmp/peers_cub 24 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$?"; grep -i scan "$R/logs/cub.log" | head
timeout 100 python3 scripts/peers.py --sizes 24,28 --types i32,f32 --ops cumsum --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$?"
timeout 150 $C/benches__report --only core,scan --sizes 24,28 --types i32,f32 --out "$R/report" --peers "$R/peers.json" > "$R/logs/report.log" 2>&1; echo "report rc=$?"
grep -E "inclusive|copy" "$R/report/report.md" | head -30
timeout 150 $C/benches__tune --only scan --out "$R/tune" > "$R/logs/tune.log" 2>&1; echo "tune rc=$?"; cat "$R/tune/tuning.txt" 2>/dev/null
(cd "$OUT" && tar czf f.tgz f && rm -rf f)
