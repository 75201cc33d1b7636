#!/usr/bin/env bash
# Builds gpu-carry2/hw.tar.xz for one-off/h200-half-wide.sh (branch wip/half-wide-tiles):
# gpu-conv1d's GPU test binaries and the report.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin hw
(for t in tuning_gpu kernels gpu; do
   cargo test -p gpu-conv1d --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) |
  carry_collect hw
carry_pack hw
