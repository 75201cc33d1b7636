#!/usr/bin/env bash
# Builds gpu-carry2/se.tar.xz for one-off/gpu-shaped-epoch.sh (branch wip/shaped-epoch): gpu-scan's
# GPU test binaries and the shapes benchmark of this build.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin se
(for t in status_reuse_gpu shaped_gpu host_pipeline half_shaped_gpu gpu kernels; do
   cargo test -p gpu-scan --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect se
carry_pack se
