#!/usr/bin/env bash
# Issue 24, call W (one H100): the GPU tests (tuning, flat scan, reduce, conv1d), `bin tune`,
# then PyTorch/CuPy and CUB peers and the report, each alone on the GPU.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/u ] || tar -C gpu-carry2 -xJf gpu-carry2/u.tar.xz; C=gpu-carry2/u
R="$OUT/h100-w"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version,clocks.max.mem --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-core__tuning_gpu gpu-scan__tuning_gpu gpu-reduce__tuning_gpu gpu-conv1d__tuning_gpu \
         gpu-scan__gpu gpu-reduce__gpu gpu-conv1d__gpu; do
  timeout 120 $C/$b > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked|fast memory" -A4 "$R/logs/test-$b.log" | head -8
done
unset GPU_PRIMS_REQUIRE_GPU
timeout 150 $C/benches__tune --out "$R/tune" > "$R/logs/tune.log" 2>&1; echo "tune rc=$?"
sed -n '/## Chosen/,/## Every/p' "$R/tune/tune.md"
timeout 120 python3 scripts/peers.py --sizes 24,28 --types i32,f32 --ops sum,max,cumsum,conv1d --widths 3,7,31,127 --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$?"
(nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/logs/nvcc.log" 2>&1 && timeout 60 /tmp/peers_cub 24 28 > "$R/peers-cub.json" 2> "$R/logs/cub.log"); echo "cub rc=$?"
timeout 330 $C/benches__report --only core,reduce,scan,conv1d --sizes 24,28 --types i32,f32 --widths 3,7,31,127 --out "$R/report" --peers "$R/peers.json" > "$R/logs/report.log" 2>&1; echo "report rc=$?"
sed -n 1,9p "$R/report/report.md" | grep results
(cd "$OUT" && tar czf h100-w.tgz h100-w && rm -rf h100-w)
