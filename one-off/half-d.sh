#!/usr/bin/env bash
# Half precision, call D: timing only (nothing else on the GPU): peers, then the report.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
R="$OUT/half-report"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader > "$R/gpu.txt"
timeout 200 python3 scripts/peers.py --sizes 20,24,28 --types f32,f16,bf16 --ops sum,max,cumsum \
  --out "$R/peers.json" 2>"$R/peers.log" || echo "peers failed"
tail -n 2 "$R/peers.log"
timeout 330 gpu-bundle/bin/report --only core,reduce,scan --sizes 20,24,28 --types f32,f16,bf16 \
  --blocks 1024 --sweep-n 1048576 --out "$R" --peers "$R/peers.json" 2>"$R/progress.log" >"$R/table.txt"
echo "report rc=$?"
grep -E "^(reduce|scan) +(auto|lookback)|^core +copy" "$R/table.txt" | grep -E "2\^28" | head -40
tar -C "$OUT" -czf "$OUT/half-report.tar.gz" half-report && rm -rf "$R"
