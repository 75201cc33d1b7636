#!/usr/bin/env bash
# Forty-seventh session, second call: the warp-specialised scan's win-1 shape alone (-DQUICK) at
# 2^20..2^28 beside the library's scan rows (this build's report, same call), then the win-1
# shape under racecheck. Carry gpu-carry2 (s45.tar.xz: main's report). Results in $OUT/s47ws2.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
mkdir -p /tmp/c && { [ -d /tmp/c/s45 ] || tar -C /tmp/c -xJf gpu-carry2/s45.tar.xz; }; C=/tmp/c/s45
R="$OUT/s47ws2"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s47ws2.tgz s47ws2 && rm -rf s47ws2)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
nvcc -O3 -std=c++17 -arch=sm_90a -DQUICK -lineinfo -I kernels/include -o /tmp/ws-quick one-off/ws-scan-harness.cu > "$R/nvcc.log" 2>&1 || tail "$R/nvcc.log"
step ws-quick 60 /tmp/ws-quick 30 20,22,24,26,28
cat "$R/ws-quick.out"
step report-scan 120 "$C/benches__report" --device-only --only core,scan --sizes 20,22,24,26,28 --types i32,f32 --cpu-reps 1 --out "$R/report-scan"
grep -E "\| (copy|auto) \|" "$R/report-scan/report.md" | grep -vE "with copies|block=|rayon" | grep -E "copy|inclusive" | cut -d'|' -f2-10
step ws-quick-again 60 /tmp/ws-quick 30 24,28
cat "$R/ws-quick-again.out"
step san-racecheck 60 compute-sanitizer --tool racecheck /tmp/ws-quick 1 20
grep -hE "RACECHECK SUMMARY|ERROR SUMMARY| ok|WRONG" "$R/san-racecheck.out" | head
grep -o "ws-scan-harness.cu:[0-9]*" "$R/san-racecheck.out" | sort | uniq -c
echo "all done at $(( $(date +%s) - T0 ))s"
