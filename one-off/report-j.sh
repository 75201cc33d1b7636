#!/usr/bin/env bash
# Issue 14, call J2 (one H100, after call J, alone on the GPU): the report's core and conv1d
# groups at 2^28 f32, widths 31 and 1023: conv1d host to host on the direct and the FFT path
# beside the same report's pinned transfers.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/j ] || tar -C gpu-carry2 -xJf gpu-carry2/j.tar.xz; C=gpu-carry2/j
R="$OUT/report-j"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
timeout 500 $C/benches__report --only core,conv1d --sizes 28 --types f32 --widths 31,1023 --out "$R/report" > "$R/logs/report.log" 2>&1; echo "report rc=$?"
grep -E "host|upload" "$R/report/report.md" | head -40
rm -f "$R"/report/*.svg
(cd "$OUT" && tar czf report-j.tgz report-j && rm -rf report-j)
