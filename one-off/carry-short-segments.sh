#!/usr/bin/env bash
# Builds gpu-carry2/ss.tar.xz for one-off/h200-short-segments.sh: gpu-reduce's GPU test
# binaries and the shapes benchmark of this build (the short-segments kernel).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin ss
(for t in shaped_gpu gpu host_pipeline properties kernels half_gpu; do
   cargo test -p gpu-reduce --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect ss
carry_pack ss
