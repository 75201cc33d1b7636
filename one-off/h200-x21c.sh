#!/usr/bin/env bash
# Session 21 (2026-12-03), call C (one H200). Carry: one-off/carry-x21c.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same` f16 and bf16, an experimental build (the 16-bit
#    even-and-odd spans of 16384 and 32768 points always run pairs kernels: 4-byte loads and
#    stores of a point's two values where aligned) against 5c11af7 (scalar 2-byte I/O),
#    alternating twice: 16384-point spans at w = 3071, 4095 (odd), 5000, 6000 (even);
#    32768-point spans at 4095, 8191, 16383 (odd), 8192, 12000 (even).
# 2. Untimed, side by side: fft_gpu's every-size f16 and bf16 tests, memcheck over
#    gpu_fft_sanitize_even_odd (bf16 spans among its cases).
# Everything under $OUT is packed into one file.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x21c.tar.xz; C=/tmp/c/x21c
R="$OUT/x21c"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf x21c.tgz x21c && rm -rf x21c)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
B1="--types f16,bf16 --widths 3071,4095,5000,6000 --no-direct-above 0 --sizes 16384"
B2="--types f16,bf16 --widths 4095,8191,8192,12000,16383 --no-direct-above 0 --sizes 32768"
for k in 1 2; do
  bench new$k 60 $C/benches__conv1d-fft $B1
  bench base$k 60 $C/base__conv1d-fft $B1
  bench xnew$k 60 $C/benches__conv1d-fft $B2
  bench xbase$k 60 $C/base__conv1d-fft $B2
done
for f in "$R"/*.tsv; do grep -E "copy|fft:[0-9]|auto:" "$f" | sed "s|^|$(basename $f .tsv) |"; done | sort -k3,3n -k4,4 -k1,1 > "$R/bench-summary.txt"
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
(t f16-every gpu-conv1d__fft_gpu 280 gpu_fft_every_size_mode_boundary_f16) > "$R/bg1.txt" 2>&1 &
(t bf16-every gpu-conv1d__fft_gpu 280 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg2.txt" 2>&1 &
(san memeo memcheck 200 gpu_fft_sanitize_even_odd) > "$R/bg3.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
