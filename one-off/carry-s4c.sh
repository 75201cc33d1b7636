#!/usr/bin/env bash
# Builds gpu-carry2/c.tar.xz (issue 24 session 4, call C on nvidia-h200): gpu-scan's GPU test
# binaries (epoch-tagged look-back status), gpu-dist's one-GPU tests (seeded scans), the report.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin c
(for t in gpu status_reuse_gpu tuning_gpu host_pipeline shaped_gpu half_gpu kernels properties inputs scan_builder; do
   cargo test -p gpu-scan --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo test -p gpu-dist --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) |
  carry_collect c
carry_pack c
