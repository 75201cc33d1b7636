#!/usr/bin/env bash
# Builds gpu-carry2/a.tar.xz (issue 24 session 3, call A on nvidia-h200): gpu-conv1d's GPU test
# binaries (the wide-tile kernels), gpu-core's tuning test, the report and the tuning tool.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin a
(for t in gpu tuning_gpu kernels properties; do
   cargo test -p gpu-conv1d --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo test -p gpu-core --release --features cuda --test tuning_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin tune --bin report --message-format=json 2>/dev/null) |
  carry_collect a
carry_pack a
