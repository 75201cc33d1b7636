#!/usr/bin/env bash
# Builds gpu-carry3/s13a.tar.xz (session 13, call A): gpu-scan's GPU test binaries and the
# shapes bench of this build (the thread-walked columns scan; GPU_PRIMS_COLUMN_SCAN_WALK=off
# gives the plans before it in the same binary).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s13a
(cargo test --release --features cuda -p gpu-scan --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --bin report --message-format=json 2>/dev/null) | carry_collect s13a
rm -f gpu-carry2/s13a/gpu-scan__shaped_cpu gpu-carry2/s13a/gpu-scan__cpu gpu-carry2/s13a/gpu-scan__fault_injection gpu-carry2/s13a/gpu-scan__inputs gpu-carry2/s13a/gpu-scan__scan_builder
ls -la gpu-carry2/s13a
carry_pack s13a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s13a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
