#!/usr/bin/env bash
# Issue 13 session 11, call F (one H100): first-call latency of the scan cases in fresh
# processes (the first-call bench: cubins and forced PTX, CUDA_CACHE_DISABLE=1) with the
# previous commit's archives (256 KiB frames) and this one's (gpu-scan in 1 MiB frames),
# alternating, two rounds.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s11f ] || tar -C gpu-carry2 -xJf gpu-carry2/s11f.tar.xz; C=gpu-carry2/s11f
R="$OUT/s11f"; mkdir -p "$R"
for round in 1 2; do
  for which in old new; do
    timeout 120 $C/${which}__first-call --out "$R/$which-$round" scan scan-other scan-axis > "$R/$which-$round.log" 2>&1
    echo "$which round $round rc=$?"; grep -E "^\| scan" "$R/$which-$round/"*.md | head -12
  done
done
