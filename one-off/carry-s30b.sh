#!/usr/bin/env bash
# Builds gpu-carry3/s30b.tar.xz (thirtieth session, call B): gpu-scan's unit tests and shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s30b
cargo test --release --no-run --features gpu-scan/cuda -p gpu-scan --lib \
  --message-format=json 2>/dev/null | carry_collect s30b
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s30b
carry_pack s30b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s30b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
