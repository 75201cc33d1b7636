#!/usr/bin/env bash
# Builds gpu-carry2/f.tar.xz (issue 24 session 2, call F on nvidia-h200): gpu-scan's GPU test
# binaries, gpu-core's tuning test, the report and the tuning tool.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin f
(for t in gpu tuning_gpu kernels properties host_pipeline; do
   cargo test -p gpu-scan --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo test -p gpu-core --release --features cuda --test tuning_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin tune --bin report --message-format=json 2>/dev/null) |
  carry_collect f
carry_pack f
