#!/usr/bin/env bash
# Builds gpu-carry2/d7.tar.xz for one-off/h200-s7d.sh: the report and shapes benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin d7
cargo build --release -p gpu-prims-benches --features cuda --bin report --bin shapes --message-format=json 2>/dev/null |
  carry_collect d7
carry_pack d7
