#!/usr/bin/env bash
# Builds gpu-carry2/j.tar.xz (issue 14, call J): gpu-conv1d's test binaries after the FFT path
# joined the host pipeline, release, features cuda and fault-injection; and the report binary
# (features cuda) for the conv1d-from-host rows at a long mask.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin j
cargo test --release --features cuda,fault-injection -p gpu-conv1d \
  --tests --lib --no-run --message-format=json 2>/dev/null | carry_collect j
cargo build --release --features cuda -p gpu-prims-benches --bin report --message-format=json 2>/dev/null | carry_collect j
ls gpu-carry2/j
carry_pack j
