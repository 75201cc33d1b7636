#!/usr/bin/env bash
# Issue 24 session 2, call C (one H200): the staged scan with its look-back in a warp of its own
# (one-off/pipeline-harness.cu scan_split) against the shipped kernel, 2^24-2^28; sanitizers.
set -u
cd "$(dirname "$0")/.."
R="$OUT/pc"; mkdir -p "$R"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -o /tmp/ph one-off/pipeline-harness.cu > "$R/nvcc.log" 2>&1 || { head -80 "$R/nvcc.log"; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
V=shipped1024,shipped768,split1024,split768,split512,splitdet1024
timeout 100 /tmp/ph 24 40 scan $V,split256 2>&1 | tee "$R/scan24.txt"
timeout 100 /tmp/ph 25 30 scan $V 2>&1 | tee "$R/scan25.txt"
timeout 100 /tmp/ph 26 20 scan $V 2>&1 | tee "$R/scan26.txt"
timeout 150 /tmp/ph 28 15 scan $V 2>&1 | tee "$R/scan28.txt"
timeout 150 /tmp/ph 28 15 scan shipped1024,split1024 2>&1 | tee "$R/scan28b.txt"
for t in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $t /tmp/ph 20 1 scan split1024,splitdet1024,split256 > "$R/san-$t.txt" 2>&1
  echo "$t rc=$? $(grep -c WRONG "$R/san-$t.txt") wrong; $(tail -1 "$R/san-$t.txt")"
done
