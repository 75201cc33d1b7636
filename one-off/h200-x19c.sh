#!/usr/bin/env bash
# Session 19 (2026-12-02), call C (one H200). Carry: one-off/carry-x19c.sh.
# 1. Alone on the GPU: conv1d-fft 2^26 `same` f16/bf16, this build (bf16 FFT kernels from
#    conv1d_sm80.cu) and 6134445's, alternating twice; then the first-call latencies
#    (CUDA_CACHE_DISABLE=1).
# 2. Alone: the real out-of-memory test, then the fault-injection test (both compare memory).
# 3. In parallel, untimed: fft_gpu (every size f16/bf16, the rest), the `gpu` suite (16
#    threads included), memcheck over gpu_fft_sanitize_radix32 (bf16 at its smallest radix-32).
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x19c.tar.xz; C=/tmp/c/x19c
R="$OUT/x19c"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$R/gpu.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
A="--widths 1023,1791,2047,4095,8191,16383 --no-direct-above 0 --sizes 4096,8192,16384,32768"
bench new1 50 $C/benches__conv1d-fft --types bf16 $A
bench old1 50 $C/old__conv1d-fft --types bf16 $A
bench new2 50 $C/benches__conv1d-fft --types bf16 $A
bench old2 50 $C/old__conv1d-fft --types bf16 $A
bench f16 50 $C/benches__conv1d-fft --types f16 $A
for f in "$R"/*.tsv; do grep -E "auto:|copy|fft|warp" "$f" | sed "s|^|$(basename $f .tsv) |"; done > "$R/bench-summary.txt"
head -c 6000 "$R/bench-summary.txt"
s=$(date +%s)
CUDA_CACHE_DISABLE=1 timeout 150 $C/benches__first-call --out "$R/first-call" > "$R/first-call.txt" 2>&1; echo "first-call rc=$? $(( $(date +%s) - s ))s"
export GPU_PRIMS_REQUIRE_GPU=1
t() {  # name, timeout, binary, args...
  local name=$1 to=$2 bin=$3; shift 3
  local s=$(date +%s)
  timeout $to $C/$bin "$@" > "$R/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/$name.log" | tail -1)"
  [ $rc = 0 ] || grep -E "panicked|FAILED|failed|error" -A4 "$R/$name.log" | head -20
}
t oom 200 gpu-conv1d__oom_gpu --nocapture
grep -E "w=|SKIPPED" "$R/oom.log" | head -20
t fault 300 gpu-conv1d__fault_injection --nocapture
grep -E "gpu-conv1d:|SKIPPED" "$R/fault.log" | tail -2
(t half 330 gpu-conv1d__fft_gpu gpu_fft_every_size_mode_boundary_half) > "$R/bg1.txt" 2>&1 &
(t fft-rest 300 gpu-conv1d__fft_gpu --skip gpu_fft_every_size
 t gpu 300 gpu-conv1d__gpu) > "$R/bg2.txt" 2>&1 &
(s=$(date +%s); timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $C/gpu-conv1d__fft_gpu gpu_fft_sanitize_radix32 > "$R/memcheck-radix32.log" 2>&1
 echo "memcheck radix32 rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY' "$R/memcheck-radix32.log" | tail -1)") > "$R/bg3.txt" 2>&1 &
wait
cat "$R"/bg*.txt
cat "$R/first-call/first-call.md" 2>/dev/null | head -40
