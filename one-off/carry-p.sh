#!/usr/bin/env bash
# Builds gpu-carry2/p.tar.xz: gpu-reduce's shaped GPU test and the shapes bench with the
# experiment's grid caps behind GPU_PRIMS_EXP_CAP_COLUMNS / _SEGMENTS, and the base shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin p
(cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect p
cp /tmp/exp/shapes-base gpu-carry2/p/shapes-base
carry_pack p
