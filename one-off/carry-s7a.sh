#!/usr/bin/env bash
# Builds gpu-carry2/a7.tar.xz for one-off/h200-s7a.sh: gpu-reduce's GPU tests, the shapes,
# first-call and report benchmarks (branch wip/short-segments-binned rebased on main).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin a7
(for t in shaped_gpu gpu kernels properties half_gpu host_pipeline; do
   cargo test -p gpu-reduce --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --bin first-call --bin report --message-format=json 2>/dev/null) |
  carry_collect a7
carry_pack a7
