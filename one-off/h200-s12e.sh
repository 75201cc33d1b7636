#!/usr/bin/env bash
# Session 12, call E (one H200): gpu-reduce shaped_gpu after the review commit (one helper picks
# the in-warp or general lane kernel for a plan; no kernel changed). Carry: gpu-carry3/s12e.tar.xz.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s12e.tar.xz
R="$OUT/s12e"; mkdir -p "$R"
GPU_PRIMS_REQUIRE_GPU=1 timeout 100 /tmp/c/s12e/shaped_gpu > "$R/test-shaped_gpu.txt" 2>&1; echo "shaped_gpu rc=$? $(grep -E '^test result' "$R/test-shaped_gpu.txt")"
grep panicked "$R/test-shaped_gpu.txt" | head -3
(cd "$OUT" && tar czf s12e.tgz s12e && rm -rf s12e)
