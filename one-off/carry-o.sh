#!/usr/bin/env bash
# Builds gpu-carry2/o.tar.xz: gpu-reduce's GPU tests and the shapes bench (call O).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin o
(cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --test gpu --test properties --test host_pipeline --test half_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect o
cp /tmp/exp/shapes-base gpu-carry2/o/shapes-base
carry_pack o
