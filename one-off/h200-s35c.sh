#!/usr/bin/env bash
# Session 35 (2026-12-05), call C (one H200, right after call B on the same machine), carry
# gpu-carry, untimed, GPU_PRIMS_REQUIRE_GPU=1.
# 1. Alone, one after another: the bundle's binaries that must have the GPU to themselves (memory
#    filled on purpose, or the driver's free memory compared for leaks).
# 2. Then, side by side in two groups, what call B's deadline left out (/tmp/s35-not-run.txt).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
R="$OUT/s35c"
mkdir -p "$R"
trap '(cd "$OUT" && tar czf s35c.tgz s35c && rm -rf s35c)' EXIT
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
ALONE="gpu-conv1d__oom_gpu gpu-scan__columns_staged_limits_gpu gpu-sync__fault_injection gpu-scan__fault_injection gpu-reduce__fault_injection gpu-conv1d__fault_injection gpu-core__driver_faults gpu-sync__context_lost"
for b in $ALONE; do
  OUT="$R/alone" TEST_TIMEOUT=150 TEST_BINS="$b" gpu-bundle/run-tests.sh >> "$R/alone.txt" 2>&1
done
echo "alone done at $(($(date +%s) - T0))s"
if [ -s /tmp/s35-not-run.txt ]; then
  cp /tmp/s35-not-run.txt "$R/left.lst"
  awk 'NR % 2 == 1' "$R/left.lst" > "$R/left0.lst"; awk 'NR % 2 == 0' "$R/left.lst" > "$R/left1.lst"
  for g in 0 1; do
    ( while read -r b; do
        [ -n "$b" ] || continue
        OUT="$R/l$g" TEST_TIMEOUT=250 TEST_BINS="$b" gpu-bundle/run-tests.sh >> "$R/l$g.txt" 2>&1
      done < "$R/left$g.lst" ) &
  done
  wait
fi
cat "$R"/alone.txt "$R"/l*.txt 2>/dev/null | grep -E '^\[' | sort -k2 > "$R/tests-summary.txt"
cat "$R/tests-summary.txt"
cat "$R"/alone.txt "$R"/l*.txt 2>/dev/null | awk '/ passed, .* failed$/ {p += $1; f += $3} END {printf "%d passed, %d failed\n", p, f}'
echo "all done at $(($(date +%s) - T0))s"
