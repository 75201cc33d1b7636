#!/usr/bin/env bash
# Half precision, call B: timing first (nothing else on the GPU), then sanitizers.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
R="$OUT"; mkdir -p "$R/report"
export GPU_PRIMS_REQUIRE_GPU=1
timeout 150 python3 scripts/peers.py --sizes 24,28 --types f32,f16,bf16 --ops sum,max --out "$R/report/peers.json" 2>"$R/report/peers.log" || echo "peers failed"
tail -n 3 "$R/report/peers.log"
timeout 240 gpu-bundle/bin/report --only core,reduce --sizes 24,28 --types f32,f16,bf16 \
  --out "$R/report" --peers "$R/report/peers.json" 2>"$R/report/progress.log" >"$R/report/table.txt"
echo "report rc=$?"
grep -E "auto|copy|torch|cupy" "$R/report/table.txt" | head -60
for tool in memcheck racecheck synccheck; do
  log="$R/sanitize-half-$tool.log"
  if timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 gpu-bundle/tests/gpu-reduce__half_gpu --skip more_than --test-threads=1 >"$log" 2>&1; then
    echo "compute-sanitizer $tool half_gpu: clean ($(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log")) $(grep -m1 'test result' "$log")"
  else
    echo "compute-sanitizer $tool half_gpu: FAILED or timed out"; grep -m8 -E "=====|test result" "$log"
  fi
done
