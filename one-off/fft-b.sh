#!/usr/bin/env bash
# FFT path, call B (kernel with per-row pairs, origin, 80-register bound): timing alone first
# (our width sweep f32/f64/f16, then the peers), then the tests, then the sanitizers.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/fft.tar.xz; C=gpu-carry2/fft
R="$OUT/fft-b"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
timeout 200 $C/conv1d-fft --log2 26 --types f32,f64 > "$R/sweep.tsv" 2> "$R/sweep.err"; echo "sweep rc=$?"
timeout 100 $C/conv1d-fft --log2 26 --types f16 --widths 31,63,127,255,511,767,1023,2047,4095,8191 > "$R/sweep16.tsv" 2>> "$R/sweep.err"; echo "sweep16 rc=$?"
timeout 200 python3 scripts/peers_fft.py --log2 26 --types f32,f64 --torch-max 1023 > "$R/peers.tsv" 2> "$R/peers.err"; echo "peers rc=$?"
for b in fft_gpu gpu lib properties host_pipeline dist_gpu; do
  timeout 300 $C/$b --test-threads=4 > "$R/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/test-$b.log" | tail -1)"
  grep -E "panicked" -A4 "$R/test-$b.log" | head -24
done
timeout 200 $C/fft_gpu gpu_fft_accuracy --nocapture 2>&1 | grep "fft accuracy" > "$R/accuracy.txt"; echo "accuracy lines $(wc -l < "$R/accuracy.txt")"
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $C/fft_gpu gpu_fft_rows gpu_fft_bad > "$R/san-$tool.log" 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/san-$tool.log" | tail -1)"
done
tar -C "$OUT" -czf "$OUT/fft-b-logs.tar.gz" fft-b
