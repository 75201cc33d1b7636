#!/usr/bin/env bash
# Session 19 (2026-12-02), call D (one H200). Carry: one-off/carry-x19d.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same` bf16 at w = 1023, 2047 (4096- and 8192-point pairs)
#    and 4095, 8191 (`Auto`: the even-and-odd spans, back in conv1d.cu), this build and
#    6134445's, alternating twice.
# 2. fft_gpu's every-size test of f16 and bf16; memcheck over gpu_fft_sanitize_radix32.
# Everything under $OUT is packed into one file (the device tool returns at most 8).
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x19d.tar.xz; C=/tmp/c/x19d
R="$OUT/x19d"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf x19d.tgz x19d && rm -rf x19d)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
A="--types bf16 --widths 1023,2047 --no-direct-above 0 --sizes 4096,8192"
B="--types bf16 --widths 4095,8191 --no-direct-above 0 --sizes 16384,32768"
for k in 1 2; do
  bench new$k 30 $C/benches__conv1d-fft $A
  bench old$k 30 $C/old__conv1d-fft $A
  bench newe$k 30 $C/benches__conv1d-fft $B
  bench olde$k 30 $C/old__conv1d-fft $B
done
for f in "$R"/*.tsv; do grep -E "auto|copy|fft:" "$f" | sed "s|^|$(basename $f .tsv) |"; done | grep -v "fft:auto"
export GPU_PRIMS_REQUIRE_GPU=1
s=$(date +%s); timeout 330 $C/gpu-conv1d__fft_gpu gpu_fft_every_size_mode_boundary_half > "$R/half.log" 2>&1
echo "half rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/half.log" | tail -1)"
grep -E "panicked|FAILED" -A4 "$R/half.log" | head -10
s=$(date +%s); timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $C/gpu-conv1d__fft_gpu gpu_fft_sanitize_radix32 > "$R/memcheck-radix32.log" 2>&1
echo "memcheck radix32 rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|test result' "$R/memcheck-radix32.log" | tr '\n' ' ')"
