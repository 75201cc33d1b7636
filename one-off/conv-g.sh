#!/usr/bin/env bash
# Call G (one H100): the FFT path under fault injection (every driver call failing in turn, the
# OOM recovery of every strategy, Auto's FFT at width 200 included), 16 threads on one Conv1d
# over the FFT path, the first call of the FFT path in fresh processes (CUDA_CACHE_DISABLE=1),
# and memcheck over gpu-dist's kept windows.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/g.tar.xz; C=gpu-carry2/g
R="$OUT/conv-g"; mkdir -p "$R"
export GPU_PRIMS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
timeout 300 $C/gpu-conv1d__fault_injection --nocapture > "$R/fault.log" 2>&1; echo "fault rc=$? $(grep -E '^test result' "$R/fault.log")"
grep -E "panicked|fault injection:" -A6 "$R/fault.log" | head -20
timeout 120 $C/gpu-conv1d__gpu gpu_shared_by_16_threads > "$R/threads.log" 2>&1; echo "threads rc=$? $(grep -E '^test result' "$R/threads.log")"
grep -E "panicked" -A6 "$R/threads.log" | head
timeout 120 $C/benches__first-call --out "$R/first" conv1d conv1d-fft > "$R/first.log" 2>&1; echo "first rc=$?"; cat "$R/first"/*.md 2>/dev/null | head -20; tail -5 "$R/first.log"
timeout 150 compute-sanitizer --tool memcheck $C/gpu-dist__gpu kept_windows > "$R/memcheck-dist.log" 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|test result" "$R/memcheck-dist.log"
