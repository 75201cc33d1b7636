#!/usr/bin/env bash
# Builds gpu-carry2/fin.tar.xz for one-off/h200-final.sh: the report and the GPU tests of the
# merged build (short segments + 16-bit wide tiles).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin fin
(cargo test -p gpu-conv1d --release --features cuda --test tuning_gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-conv1d --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) |
  carry_collect fin
carry_pack fin
