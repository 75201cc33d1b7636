#!/usr/bin/env bash
# Session 19 (2026-12-02), call B (one H200): gpu-conv1d's new checks over the FFT paths and
# cuFFT (a real out-of-memory, 16 threads on one Gpu, fault injection), its `gpu` suite, then the
# first-call latencies in fresh processes (CUDA_CACHE_DISABLE=1), each step alone on the GPU.
# Carry: one-off/carry-x19b.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry3 -xJf gpu-carry3/x19b.tar.xz; C=gpu-carry3/x19b
R="$OUT/x19b"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
t() {  # name, timeout, binary, args...
  local name=$1 to=$2 bin=$3; shift 3
  local s=$(date +%s)
  timeout $to $C/$bin "$@" > "$R/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/$name.log" | tail -1)"
  [ $rc = 0 ] || grep -E "panicked|FAILED|failed|error" -A4 "$R/$name.log" | head -30
}
t oom 240 gpu-conv1d__oom_gpu --nocapture
grep -E "w=|SKIPPED" "$R/oom.log" | head -20
t threads16 240 gpu-conv1d__gpu gpu_shared_by_16_threads --nocapture
grep -E "SKIPPED" "$R/threads16.log" | head
t fault 400 gpu-conv1d__fault_injection --nocapture
grep -E "fault injection|SKIPPED" "$R/fault.log" | tail -3
t gpu 300 gpu-conv1d__gpu
unset GPU_PRIMS_REQUIRE_GPU
s=$(date +%s)
CUDA_CACHE_DISABLE=1 timeout 200 $C/benches__first-call --out "$R/first-call" > "$R/first-call.txt" 2>&1; echo "first-call rc=$? $(( $(date +%s) - s ))s"
cat "$R/first-call/first-call.md" 2>/dev/null | head -60
