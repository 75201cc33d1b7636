#!/usr/bin/env bash
# Builds gpu-carry3/s31e.tar.xz (thirty-first session, call E): the candidate rule (8-byte min and
# max staged at every tile count too, 8-byte prod at one tile): shapes and the staged suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s31e
cargo test --release --no-run --features gpu-scan/cuda -p gpu-scan --lib --test columns_staged_gpu \
  --message-format=json 2>/dev/null | carry_collect s31e
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s31e
carry_pack s31e
mkdir -p gpu-carry3 && mv gpu-carry2/s31e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
