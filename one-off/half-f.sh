#!/usr/bin/env bash
# Half precision, call F: scan tests with the converting tile, then timing alone: the report's
# scan rows for f16 (first type: its block-size sweep at 2^28), bf16 and f32, with PyTorch/CuPy.
set -u
cd "$(dirname "$0")/.."
rm -rf gpu-bundle; tar xJf gpu-carry/bundle.tar.xz
R="$OUT/run3"; mkdir -p "$R/tests"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-scan__half_gpu gpu-scan__gpu gpu-scan__cpu gpu-scan__properties; do
  timeout 200 gpu-bundle/tests/$b > "$R/tests/$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/tests/$b.log" | tail -1)"
  grep -A3 panicked "$R/tests/$b.log" | head -12
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
timeout 120 python3 scripts/peers.py --sizes 24,28 --types f16,bf16,f32 --ops cumsum \
  --out "$R/peers.json" 2>"$R/peers.log" || echo "peers failed"
timeout 300 gpu-bundle/bin/report --only core,scan --sizes 24,28 --types f16,bf16,f32 \
  --blocks 128,256,512,1024 --sweep-n 28 --out "$R" --peers "$R/peers.json" 2>"$R/progress.log" >"$R/table.txt"
echo "report rc=$?"
grep -E "^scan +(auto|lookback)[a-z_]* |^core +copy" "$R/table.txt" | grep -E "2\^28" | grep -v "with copies" | head -40
tar -C "$OUT" -czf "$OUT/run3.tar.gz" run3 && rm -rf "$R"
