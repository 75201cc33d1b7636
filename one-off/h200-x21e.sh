#!/usr/bin/env bash
# Session 21 (2026-12-03), call E (one H200). Carry: one-off/carry-x21e.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same` f64 through the 16384-point even-and-odd spans at
#    w = 4095, 8191 (odd masks), 5000, 12000 (even), an experimental build (16-byte pair I/O)
#    against 5c11af7 (scalar), alternating twice.
# 2. Untimed, side by side: fft_gpu's every-size f64 test, gpu-conv1d's gpu tests (this build:
#    53d9627's kernels but the f64 spans), synccheck and memcheck over gpu_fft_sanitize_even_odd.
# Everything under $OUT is packed into one file.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x21e.tar.xz; C=/tmp/c/x21e
R="$OUT/x21e"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf x21e.tgz x21e && rm -rf x21e)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
B1="--types f64 --widths 4095,5000,8191,12000 --no-direct-above 0 --sizes 16384"
for k in 1 2; do
  bench new$k 60 $C/benches__conv1d-fft $B1
  bench base$k 60 $C/base__conv1d-fft $B1
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
(t f64-every gpu-conv1d__fft_gpu 250 gpu_fft_every_size_mode_boundary_f64) > "$R/bg1.txt" 2>&1 &
(t gpu gpu-conv1d__gpu 250) > "$R/bg2.txt" 2>&1 &
(san synceo synccheck 150 gpu_fft_sanitize_even_odd; san memeo memcheck 150 gpu_fft_sanitize_even_odd) > "$R/bg3.txt" 2>&1 &
wait
cat "$R"/bg*.txt
echo "all done at $(( $(date +%s) - T0 ))s"
