#!/usr/bin/env bash
# Issue 14, call I2 (one H100, after call I's tests, alone on the GPU): the report's core and
# reduce groups at 2^28 i32 and f32, for the reduce-from-host rows (argmin among them) beside
# the pinned upload of the same report.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/i ] || tar -C gpu-carry2 -xJf gpu-carry2/i.tar.xz; C=gpu-carry2/i
R="$OUT/report-i"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
timeout 500 $C/benches__report --only core,reduce --sizes 28 --types i32,f32 --out "$R/report" > "$R/logs/report.log" 2>&1; echo "report rc=$?"
grep -E "from host|upload|argmin" "$R/report/report.md" | head -60
(cd "$OUT" && tar czf report-i.tgz report-i && rm -rf report-i)
