#!/usr/bin/env bash
# Builds gpu-carry2/s14.tar.xz (issue 13 session 14): gpu-conv1d's test binaries (the warpgroup
# kernel beside every other strategy) and the report bench.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s14
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --tests --lib --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) | carry_collect s14
ls -la gpu-carry2/s14
carry_pack s14
