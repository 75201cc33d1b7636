#!/usr/bin/env bash
# Issue 14, call B (one H100): the host-pipeline tests after call A's fixes, and the
# fault-injection tests, gpu-scan's three times (its pipelined host-to-host case changed its
# calls between runs in call A; the harness now prints where).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/b ] || tar -C gpu-carry2 -xJf gpu-carry2/b.tar.xz; C=gpu-carry2/b
R="$OUT/h100-b"; mkdir -p "$R/logs"
export GPU_PRIMS_REQUIRE_GPU=1
run() { local b=$1 tag=$2; shift 2
  timeout 240 $C/$b "$@" > "$R/logs/test-$b$tag.log" 2>&1; echo "$b$tag rc=$? $(grep -E '^test result' "$R/logs/test-$b$tag.log")"
  grep -E "panicked|calls changed" "$R/logs/test-$b$tag.log" | head -6 | cut -c1-600; }
run gpu-scan__host_pipeline ""
run gpu-reduce__host_pipeline ""
for i in 1 2 3; do run gpu-scan__fault_injection "-$i"; done
run gpu-conv1d__fault_injection ""
grep -h "^fault injection" "$R"/logs/test-gpu-scan__fault_injection-*.log | sort | uniq -c | sort -rn | head -30
(cd "$OUT" && tar czf h100-b.tgz h100-b && rm -rf h100-b)
