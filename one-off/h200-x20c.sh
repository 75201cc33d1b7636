#!/usr/bin/env bash
# Session 20 (2026-12-03), call C (one H200). Carry: one-off/carry-x20c.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same` bf16 at w = 4095, 8191, 16383 through the
#    16384- and 32768-point even-and-odd spans, this build
#    (every bf16 FFT kernel from the sm_80 module) against call A's (compute_70 spans),
#    alternating twice.
# 2. Untimed, side by side: fft_gpu's every-size bf16 test and its other tests but f16's
#    every-size; gpu and tuning_gpu (Auto's bf16 crossing at 1840 among them); compute-sanitizer
#    (racecheck and synccheck over gpu_fft_sanitize_radix32, synccheck and memcheck over
#    gpu_fft_sanitize_even_odd).
# Everything under $OUT is packed into one file.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x20c.tar.xz; C=/tmp/c/x20c
R="$OUT/x20c"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf x20c.tgz x20c && rm -rf x20c)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
B="--types bf16 --widths 4095,8191,16383 --no-direct-above 0 --sizes 16384,32768"
for k in 1 2; do
  bench new$k 25 $C/benches__conv1d-fft $B
  bench base$k 25 $C/base__conv1d-fft $B
done
for f in "$R"/*.tsv; do grep -E "copy|fft:[0-9]" "$f" | sed "s|^|$(basename $f .tsv) |"; done | sort -k3,3n -k4,4 | grep -v "fft:16384.*16383" > "$R/bench-summary.txt"
cat "$R/bench-summary.txt"
echo "benches done at $(( $(date +%s) - T0 ))s"
export GPU_PRIMS_REQUIRE_GPU=1
t() {  # name binary timeout args...
  local name=$1 b=$2 to=$3; shift 3; local s=$(date +%s)
  timeout $to $C/$b "$@" > "$R/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/$name.log" | tail -1)"
  [ $rc = 0 ] || grep -E "panicked|FAILED" -A4 "$R/$name.log" | head -12
}
S=$C/gpu-conv1d__fft_gpu
san() {  # name tool timeout test
  local s=$(date +%s)
  timeout "$3" compute-sanitizer --tool "$2" --error-exitcode 9 $S "$4" > "$R/san-$1.log" 2>&1; local rc=$?
  echo "$1 ($2 $4) rc=$rc $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$1.log" | tr '\n' ' ')"
}
(t bf16-every gpu-conv1d__fft_gpu 300 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg1.txt" 2>&1 &
(t fft-rest gpu-conv1d__fft_gpu 300 --skip gpu_fft_every_size_mode_boundary_bf16 --skip gpu_fft_every_size_mode_boundary_f16) > "$R/bg2.txt" 2>&1 &
(t gpu gpu-conv1d__gpu 300; t tuning gpu-conv1d__tuning_gpu 100) > "$R/bg3.txt" 2>&1 &
(san race32 racecheck 200 gpu_fft_sanitize_radix32; san sync32 synccheck 60 gpu_fft_sanitize_radix32) > "$R/bg4.txt" 2>&1 &
(san synceo synccheck 200 gpu_fft_sanitize_even_odd; san memeo memcheck 150 gpu_fft_sanitize_even_odd) > "$R/bg5.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
