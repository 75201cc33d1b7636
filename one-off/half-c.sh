#!/usr/bin/env bash
# Half precision, call C: every test binary, then sanitizers on the new scan kernels.
set -u
cd "$(dirname "$0")/.."
rm -rf gpu-bundle; tar xJf gpu-carry/bundle.tar.xz
R="$OUT"
TEST_TIMEOUT=280 OUT="$R" bash scripts/gpu-run.sh tests 2>&1 | tail -56
mkdir -p "$R/san"
export GPU_PRIMS_REQUIRE_GPU=1
for tool in memcheck racecheck synccheck; do
  log="$R/san/sanitize-scan-half-$tool.log"
  if timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 gpu-bundle/tests/gpu-scan__half_gpu \
       --skip more_than --skip every_size --skip float_sums --test-threads=1 >"$log" 2>&1; then
    echo "compute-sanitizer $tool scan half_gpu: clean ($(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log")) $(grep -m1 'test result' "$log")"
  else
    echo "compute-sanitizer $tool scan half_gpu: FAILED or timed out"; grep -m8 -E "=====|test result" "$log"
  fi
done
