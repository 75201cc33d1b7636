#!/usr/bin/env bash
# Builds gpu-carry2/i.tar.xz (issue 14, call I): gpu-reduce's test binaries after the
# argmin/argmax device folds (flat and outer axis), release, features cuda and fault-injection;
# and the report binary (features cuda) for the argmin-from-host rows.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin i
cargo test --release --features cuda,fault-injection -p gpu-reduce \
  --tests --lib --no-run --message-format=json 2>/dev/null | carry_collect i
cargo build --release --features cuda -p gpu-prims-benches --bin report --message-format=json 2>/dev/null | carry_collect i
ls gpu-carry2/i
carry_pack i
