#!/usr/bin/env bash
# Builds gpu-carry2/f8.tar.xz for one-off/h200-s8f.sh: the shapes benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin f8
(cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect f8
carry_pack f8
