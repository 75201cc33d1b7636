#!/usr/bin/env bash
# Session 26 (2026-12-03), call B (one H200), over main with the unchecked spans landed, as
# scripts/gpu-bundle.sh packs it (carry gpu-carry).
# 1. Alone on the GPU: first-call latency, every case but `preload` (fresh processes, cubins and
#    PTX, CUDA_CACHE_DISABLE=1 where the bench says).
# 2. Untimed, side by side: every test binary (scripts/gpu-run.sh tests) and compute-sanitizer
#    racecheck over gpu_fft_sanitize_even_odd (call A's was cut at 200 s).
set -u
cd "$(dirname "$0")/.."
tar xJf gpu-carry/bundle.tar.xz
R="$OUT/s26b"
mkdir -p "$R/first-call"
trap '(cd "$OUT" && tar czf s26b.tgz s26b && rm -rf s26b)' EXIT
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 gpu-bundle/bin/first-call --out "$R/first-call" reduce scan conv1d reduce-other \
  scan-other conv1d-other conv1d-half conv1d-fft reduce-axis scan-axis reduce-segments \
  reduce-segments-device scan-segments > "$R/first-call.txt" 2>&1
echo "first-call rc=$? at $(( $(date +%s) - T0 ))s"
( timeout 400 env GPU_PRIMS_REQUIRE_GPU=1 compute-sanitizer --tool racecheck --error-exitcode 9 \
    gpu-bundle/tests/gpu-conv1d__fft_gpu gpu_fft_sanitize_even_odd > "$R/san-race-eo.log" 2>&1
  echo "racecheck rc=$? at $(( $(date +%s) - T0 ))s $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result' "$R/san-race-eo.log" | tr '\n' ' ')" ) &
OUT="$R" TEST_TIMEOUT=300 gpu-bundle/run-tests.sh > "$R/tests-summary.txt" 2>&1
echo "tests rc=$? at $(( $(date +%s) - T0 ))s"
tail -n 45 "$R/tests-summary.txt"
wait
echo "all done at $(( $(date +%s) - T0 ))s"
