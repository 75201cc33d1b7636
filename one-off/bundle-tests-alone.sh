#!/usr/bin/env bash
# The whole test bundle on one GPU, second of two calls, on the same machine right after
# one-off/bundle-tests-shared.sh (H100 closing plan: one-off/h100-close.md; generalized from
# one-off/h200-s35c.sh), carry gpu-carry, untimed, GPU_PRIMS_REQUIRE_GPU=1. NAME (default
# tests-b) names $OUT/NAME.tgz.
# 1. Alone, one after another: the binaries that must have the GPU to themselves (memory filled
#    on purpose, or the driver's free memory compared for leaks).
# 2. Then, side by side in two groups, what the first call's deadline left out
#    (/tmp/bundle-not-run.txt; on a fresh machine, LEFT names them instead).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
NAME=${NAME:-tests-b}
R="$OUT/$NAME"
mkdir -p "$R"
trap '(cd "$OUT" && tar czf "$NAME.tgz" "$NAME" && rm -rf "$NAME")' EXIT
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
source one-off/bundle-tests-lib.sh
for b in $ALONE; do
  # 150 s, or half again the binary's side-by-side estimate (gpu-conv1d's host pipeline suite).
  to=$(( $(est "$b") * 3 / 2 )); [ "$to" -lt 150 ] && to=150
  OUT="$R/alone" TEST_TIMEOUT=$to TEST_BINS="$b" gpu-bundle/run-tests.sh >> "$R/alone.txt" 2>&1
done
echo "alone done at $(($(date +%s) - T0))s"
{ cat /tmp/bundle-not-run.txt 2>/dev/null; echo "${LEFT:-}" | tr ' ' '\n'; } | grep -v '^$' | sort -u > "$R/left.lst"
if [ -s "$R/left.lst" ]; then
  awk 'NR % 2 == 1' "$R/left.lst" > "$R/left0.lst"; awk 'NR % 2 == 0' "$R/left.lst" > "$R/left1.lst"
  for g in 0 1; do
    ( while read -r b; do
        [ -n "$b" ] || continue
        OUT="$R/l$g" TEST_TIMEOUT=250 TEST_BINS="$b" gpu-bundle/run-tests.sh >> "$R/l$g.txt" 2>&1
      done < "$R/left$g.lst" ) &
  done
  wait
fi
bundle_summary "$R" "$R"/alone.txt "$R"/l*.txt
echo "all done at $(($(date +%s) - T0))s"
