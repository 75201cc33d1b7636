#!/usr/bin/env bash
# FFT path, call A: timing alone first (our width sweep, then the peers), then the tests
# (FFT, conv1d gpu, unit), then compute-sanitizer on the FFT kernels.
set -u
cd "$(dirname "$0")/.."
C=gpu-carry2/fft
R="$OUT/fft-a"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
timeout 240 $C/conv1d-fft --log2 26 --types f32,f64 > "$R/sweep.tsv" 2> "$R/sweep.err"; echo "sweep rc=$?"
cat "$R/sweep.tsv" | head -150
timeout 200 python3 scripts/peers_fft.py --log2 26 --types f32,f64 > "$R/peers.tsv" 2> "$R/peers.err"; echo "peers rc=$?"
cat "$R/peers.tsv" | head -120; tail -3 "$R/peers.err"
for b in fft_gpu gpu lib; do
  timeout 400 $C/$b --test-threads=4 --nocapture > "$R/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/test-$b.log" | tail -1)"
  grep -E "panicked|FAILED|failed" -A4 "$R/test-$b.log" | head -30
  grep "fft accuracy" "$R/test-$b.log" | head -60
done
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $C/fft_gpu gpu_fft_rows > "$R/san-$tool.log" 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/san-$tool.log" | tail -1)"
done
