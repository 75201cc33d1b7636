#!/usr/bin/env bash
# Builds gpu-carry2/c8.tar.xz for one-off/h200-s8c.sh: gpu-scan's GPU tests (the 16-bit thread-run
# tiles with the L2 prefetch) and the report.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin c8
(for t in prefetch_gpu half_gpu gpu kernels status_reuse_gpu; do
   cargo test -p gpu-scan --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) |
  carry_collect c8
carry_pack c8
