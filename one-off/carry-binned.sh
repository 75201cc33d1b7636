#!/usr/bin/env bash
# Builds gpu-carry2/bin.tar.xz for one-off/h200-binned.sh: gpu-reduce's shaped_gpu and the
# shapes benchmark (short segments with the long ones left to the lane kernels).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin bin
(cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect bin
carry_pack bin
