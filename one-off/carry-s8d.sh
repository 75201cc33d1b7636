#!/usr/bin/env bash
# Builds gpu-carry2/d8.tar.xz for one-off/h200-s8d.sh: gpu-scan's GPU tests (the 16-bit staged
# tiles with the L2 prefetch, 16-bit and f32 results) and the report.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin d8
(for t in prefetch_gpu half_gpu kernels; do
   cargo test -p gpu-scan --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) |
  carry_collect d8
carry_pack d8
