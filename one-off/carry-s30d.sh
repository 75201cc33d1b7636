#!/usr/bin/env bash
# Builds gpu-carry3/s30d.tar.xz (thirtieth session, call D): staged column spans for sums, and for one tile of the other operators.
# gpu-scan's unit tests and the suites that reach the columns scans, and shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s30d
cargo test --release --no-run --features gpu-scan/cuda -p gpu-scan --lib \
  --test columns_staged_limits_gpu --test columns_staged_gpu \
  --message-format=json 2>/dev/null | carry_collect s30d
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s30d
carry_pack s30d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s30d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
