#!/usr/bin/env bash
# Issue 14, call H (one H100): compute-sanitizer memcheck, racecheck and synccheck over the
# scan's outer-axis pipelines (carry f1, the final build: vector columns, rows, the generic
# lanes' splits and lanes of one split).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/f1 ] || tar -C gpu-carry2 -xJf gpu-carry2/f1.tar.xz; C=gpu-carry2/f1
R="$OUT/h100-h"; mkdir -p "$R/logs"
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $( [ $tool = memcheck ] && echo --report-api-errors no ) --error-exitcode 9 $C/gpu-scan__host_pipeline outer_axis_parts --test-threads=1 > "$R/logs/$tool.log" 2>&1
  echo "gpu-scan__host_pipeline outer_axis_parts $tool rc=$? $(grep -E 'ERROR SUMMARY|test result' "$R/logs/$tool.log" | tr '\n' ' ')" | tee -a "$R/summary.txt"
done
(cd "$OUT" && tar czf h100-h.tgz h100-h && rm -rf h100-h)
