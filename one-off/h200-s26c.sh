#!/usr/bin/env bash
# Session 26 (2026-12-03), call C (one H200): the test binaries call B did not reach (its ten
# minutes ended inside gpu-conv1d's), same bundle (carry gpu-carry), and racecheck over
# gpu_fft_sanitize_radix32 (the even-and-odd spans of 32768 points, f32 and bf16; racecheck does
# not finish gpu_fft_sanitize_even_odd). Untimed.
# 1. Alone, one after the other: the binaries that exhaust the memory or fault on purpose.
# 2. Side by side: racecheck and the other binaries in three groups.
set -u
cd "$(dirname "$0")/.."
tar xJf gpu-carry/bundle.tar.xz
R="$OUT/s26c"
mkdir -p "$R"
trap '(cd "$OUT" && tar czf s26c.tgz s26c && rm -rf s26c)' EXIT
T0=$(date +%s)
DONE="gpu-conv1d__axis_cpu gpu-conv1d__axis_gpu gpu-conv1d__cpu gpu-conv1d__fault_injection gpu-conv1d__fft_gpu gpu-conv1d__gpu gpu-conv1d__gpu_conv1d"
ALONE="gpu-conv1d__oom_gpu gpu-sync__context_lost gpu-reduce__fault_injection gpu-scan__fault_injection gpu-sync__fault_injection gpu-core__driver_faults"
REST=$(ls gpu-bundle/tests | grep -v -x -F -f <(echo "$DONE $ALONE" | tr ' ' '\n'))
OUT="$R/alone" TEST_TIMEOUT=200 TEST_BINS="$ALONE" gpu-bundle/run-tests.sh > "$R/alone.txt" 2>&1
echo "alone done at $(( $(date +%s) - T0 ))s: $(tail -1 "$R/alone.txt")"
( timeout 330 env GPU_PRIMS_REQUIRE_GPU=1 compute-sanitizer --tool racecheck --error-exitcode 9 \
    gpu-bundle/tests/gpu-conv1d__fft_gpu gpu_fft_sanitize_radix32 > "$R/san-race-r32.log" 2>&1
  echo "racecheck rc=$? at $(( $(date +%s) - T0 ))s $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result' "$R/san-race-r32.log" | tr '\n' ' ')" ) &
for g in 0 1 2; do
  group=$(echo "$REST" | awk -v g=$g 'NR % 3 == g' | tr '\n' ' ')
  ( OUT="$R/g$g" TEST_TIMEOUT=300 TEST_BINS="$group" gpu-bundle/run-tests.sh > "$R/g$g.txt" 2>&1 ) &
done
wait
cat "$R"/alone.txt "$R"/g*.txt | grep -E '^\[' | sort -k2 > "$R/tests-summary.txt"
cat "$R/tests-summary.txt"
cat "$R"/alone.txt "$R"/g*.txt | awk '/ passed, .* failed$/ {p += $1; f += $3} END {printf "%d passed, %d failed\n", p, f}'
echo "all done at $(( $(date +%s) - T0 ))s"
