#!/usr/bin/env bash
# Builds gpu-carry2/e7.tar.xz for one-off/h200-s7e.sh: the final build's gpu-conv1d gpu and
# properties tests and gpu-reduce shaped_gpu.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin e7
(for t in gpu properties; do
   cargo test -p gpu-conv1d --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --no-run --message-format=json 2>/dev/null) |
  carry_collect e7
carry_pack e7
