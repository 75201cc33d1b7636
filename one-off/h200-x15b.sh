#!/usr/bin/env bash
# Session 15, call B (one H200). Carry: gpu-carry3/x15b.tar.xz (gpu-conv1d's GPU tests and
# conv1d-fft of this build; 5f70cb6's conv1d-fft as old__conv1d-fft).
# 1. conv1d-fft, f32 2^26 `same`, widths around the size crossovers, new / old / new, alone on
#    the GPU (the harness builds meanwhile: CPU only); f16 and bf16 at a few widths, new / old.
# 2. CuPy's FFT convolutions at the same widths (scripts/peers_fft.py).
# 3. one-off/fft-conv-harness.cu (policy variants, sizes 2048-16384).
# 4. gpu-conv1d's GPU suites (GPU_PRIMS_REQUIRE_GPU=1), then compute-sanitizer over gpu_fft_rows.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 580 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x15b.tar.xz; C=/tmp/c/x15b
R="$OUT/x15b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
(nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-conv-harness.cu -o /tmp/fh > "$R/harness-build.txt" 2>&1; echo "build rc=$?" >> "$R/harness-build.txt") &
NV=$!
W=511,1023,1535,2047,2559,3071,4095,6143,8191,12287,13311,14335,15361
for v in new old new; do
  b=$C/benches__conv1d-fft; [ $v = old ] && b=$C/old__conv1d-fft
  s=$(date +%s); timeout 100 $b --types f32 --widths $W --no-direct-above 4095 > "$R/f32-$v-$s.tsv" 2> "$R/f32-$v-$s.err"; echo "f32 $v rc=$? $(( $(date +%s) - s ))s"
done
for v in new old; do
  b=$C/benches__conv1d-fft; [ $v = old ] && b=$C/old__conv1d-fft
  s=$(date +%s); timeout 60 $b --types f16,bf16 --widths 2047,4095,8191,15361 --no-direct-above 0 > "$R/half-$v.tsv" 2> "$R/half-$v.err"; echo "half $v rc=$? $(( $(date +%s) - s ))s"
done
s=$(date +%s); timeout 60 python3 scripts/peers_fft.py --types f32 --widths 1023,2047,4095,8191,16383 --torch-max 1023 > "$R/peers.tsv" 2> "$R/peers.err"; echo "peers rc=$? $(( $(date +%s) - s ))s"
wait $NV; tail -1 "$R/harness-build.txt"
s=$(date +%s); timeout 60 /tmp/fh 20 > "$R/harness.txt" 2>&1; echo "harness rc=$? $(( $(date +%s) - s ))s"
cat "$R/harness.txt"
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/$1 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked|FAILED|failed" "$R/test-$1.txt" | head -5
}
for t in gpu-conv1d__fft_gpu gpu-conv1d__gpu gpu-conv1d__properties gpu-conv1d__kernels gpu-conv1d__host_pipeline gpu-conv1d__axis_gpu gpu-conv1d__tuning_gpu; do
  l=$(left); [ "$l" -lt 40 ] && { echo "$t: not run (time)"; continue; }
  run_test $t $(( l - 30 < 150 ? l - 30 : 150 ))
done
for tool in memcheck synccheck racecheck; do
  l=$(left); [ "$l" -lt 25 ] && { echo "$tool: not run (time)"; continue; }
  s=$(date +%s); timeout $(( l - 10 < 90 ? l - 10 : 90 )) compute-sanitizer --tool $tool $C/gpu-conv1d__fft_gpu gpu_fft_rows --test-threads=1 > "$R/san-$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s ))s: $(grep -E 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
(cd "$OUT" && tar czf x15b.tgz x15b && rm -rf x15b)
