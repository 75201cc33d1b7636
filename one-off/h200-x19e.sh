#!/usr/bin/env bash
# Session 19 (2026-12-02), call E (one H200): first-call latencies of gpu-conv1d's cases in fresh
# processes (CUDA_CACHE_DISABLE=1; cubins, PTX without and with a JIT cache), alone on the GPU.
# Carry: one-off/carry-x19e.sh. Results packed into one file.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/x19e.tar.xz; C=/tmp/c/x19e
R="$OUT/x19e"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf x19e.tgz x19e && rm -rf x19e)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s)
CUDA_CACHE_DISABLE=1 timeout 200 $C/benches__first-call --out "$R/first-call" conv1d conv1d-other conv1d-half conv1d-fft > "$R/first-call.txt" 2>&1
echo "first-call rc=$? $(( $(date +%s) - s ))s"
cat "$R/first-call/first-call.md"
