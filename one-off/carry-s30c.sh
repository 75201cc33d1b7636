#!/usr/bin/env bash
# Builds gpu-carry3/s30c.tar.xz (thirtieth session, call C): staged column spans for sums only.
# gpu-scan's unit tests and the suites that reach the columns scans, and shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s30c
cargo test --release --no-run --features gpu-scan/cuda -p gpu-scan --lib \
  --test columns_staged_limits_gpu --test columns_staged_gpu --test prefetch_gpu \
  --test shaped_gpu --test host_pipeline --message-format=json 2>/dev/null | carry_collect s30c
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s30c
carry_pack s30c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s30c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
