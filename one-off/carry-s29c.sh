#!/usr/bin/env bash
# Builds gpu-carry3/s29c.tar.xz (twenty-ninth session, call C): the staged column spans' suite
# (its 2-lane cases, which take the interleaved rows, replaced) and the shapes bench.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s29c
cargo test --release --no-run --features gpu-scan/cuda -p gpu-scan --test columns_staged_gpu \
  --message-format=json 2>/dev/null | carry_collect s29c
cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json \
  2>/dev/null | carry_collect s29c
ls gpu-carry2/s29c
carry_pack s29c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s29c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
