#!/usr/bin/env bash
# Session 19 (2026-12-02), call F (one H200). Carry: one-off/carry-x19f.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same` bf16 at each size's `Auto` width (1023: 4096-point
#    pairs, 2047: 8192, 4095: even-and-odd 16384, 8191 and 16383: 32768), this build (bf16 span
#    values widened by a 32-bit pack) and 7d4492b's, alternating twice.
# 2. In parallel, untimed: fft_gpu's every-size bf16 test and its non-every-size tests; then
#    memcheck over gpu_fft_sanitize_radix32.
# Everything under $OUT is packed into one file.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x19f.tar.xz; C=/tmp/c/x19f
R="$OUT/x19f"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf x19f.tgz x19f && rm -rf x19f)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
A="--types bf16 --widths 1023,2047 --no-direct-above 0 --sizes 4096,8192"
B="--types bf16 --widths 4095,8191,16383 --no-direct-above 0 --sizes 16384,32768"
for k in 1 2; do
  bench new$k 20 $C/benches__conv1d-fft $A
  bench old$k 20 $C/old__conv1d-fft $A
  bench newe$k 20 $C/benches__conv1d-fft $B
  bench olde$k 20 $C/old__conv1d-fft $B
done
for f in "$R"/*.tsv; do grep -E "copy|fft:[0-9]" "$f" | sed "s|^|$(basename $f .tsv) |"; done | sort -k3,3n -k4,4 | grep -v "fft:16384.*16383"
export GPU_PRIMS_REQUIRE_GPU=1
t() {  # name, timeout, args...
  local name=$1 to=$2; shift 2
  local s=$(date +%s)
  timeout $to $C/gpu-conv1d__fft_gpu "$@" > "$R/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/$name.log" | tail -1)"
  [ $rc = 0 ] || grep -E "panicked|FAILED" -A4 "$R/$name.log" | head -12
}
(t bf16-every 170 gpu_fft_every_size_mode_boundary_bf16) > "$R/bg1.txt" 2>&1 &
(t fft-rest 170 --skip gpu_fft_every_size) > "$R/bg2.txt" 2>&1 &
wait
cat "$R"/bg*.txt
s=$(date +%s); timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 $C/gpu-conv1d__fft_gpu gpu_fft_sanitize_radix32 > "$R/memcheck-radix32.log" 2>&1
echo "memcheck radix32 rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|test result' "$R/memcheck-radix32.log" | tr '\n' ' ')"
