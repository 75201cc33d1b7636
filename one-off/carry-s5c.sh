#!/usr/bin/env bash
# Builds gpu-carry2/c5.tar.xz (issue 24 session 5, calls C and D on nvidia-h200): the GPU tests of
# gpu-scan (the L2-prefetching staged scans; the look-back rows over epoch-tagged status) and
# gpu-conv1d (the prefetching wide tiles), gpu-dist's one-GPU tests, the report and bin tune.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin c5
(for t in prefetch_gpu status_reuse_gpu gpu shaped_gpu host_pipeline half_shaped_gpu tuning_gpu kernels; do
   cargo test -p gpu-scan --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 for t in tuning_gpu gpu; do
   cargo test -p gpu-conv1d --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo test -p gpu-dist --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin report --bin tune --message-format=json 2>/dev/null) |
  carry_collect c5
carry_pack c5
