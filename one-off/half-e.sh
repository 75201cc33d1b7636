#!/usr/bin/env bash
# Half precision, call E: the scan tests and sanitizers with the 16-bit tile, then timing alone.
set -u
cd "$(dirname "$0")/.."
rm -rf gpu-bundle; tar xJf gpu-carry/bundle.tar.xz
R="$OUT/scan-half"; mkdir -p "$R/tests"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-scan__half_gpu gpu-scan__gpu gpu-scan__cpu gpu-scan__properties gpu-scan__scan_builder gpu-scan__gpu_scan; do
  timeout 200 gpu-bundle/tests/$b > "$R/tests/$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/tests/$b.log" | tail -1)"
  grep -A3 panicked "$R/tests/$b.log" | head -12
done
for tool in memcheck racecheck synccheck; do
  log="$R/sanitize-scan-half-$tool.log"
  if timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 gpu-bundle/tests/gpu-scan__half_gpu \
       --skip more_than --skip every_size --skip float_sums --test-threads=1 >"$log" 2>&1; then
    echo "compute-sanitizer $tool scan half_gpu: clean ($(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log")) $(grep -m1 'test result' "$log")"
  else
    echo "compute-sanitizer $tool scan half_gpu: FAILED or timed out"; grep -m8 -E "=====|test result" "$log"
  fi
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
timeout 120 python3 scripts/peers.py --sizes 20,24,28 --types f32,f16,bf16 --ops cumsum \
  --out "$R/peers.json" 2>"$R/peers.log" || echo "peers failed"
timeout 200 gpu-bundle/bin/report --only core,scan --sizes 20,24,28 --types f32,f16,bf16 \
  --blocks 1024 --sweep-n 1048576 --out "$R" --peers "$R/peers.json" 2>"$R/progress.log" >"$R/table.txt"
echo "report rc=$?"
grep -E "^scan +(auto|lookback) |^core +copy" "$R/table.txt" | grep -E "2\^28|2\^24" | grep -v "with copies" | head -40
tar -C "$OUT" -czf "$OUT/scan-half.tar.gz" scan-half && rm -rf "$R"
