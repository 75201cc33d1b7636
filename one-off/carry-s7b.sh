#!/usr/bin/env bash
# Builds gpu-carry2/b7.tar.xz for one-off/h200-s7b.sh: gpu-conv1d's GPU tests and the report of
# this build (the warpgroup chain unserialized), the report of the build before it (built by
# the caller into /tmp/target-binned from ea050f7), and the shapes benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin b7
(for t in gpu properties kernels tuning_gpu; do
   cargo test -p gpu-conv1d --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin report --bin shapes --message-format=json 2>/dev/null) |
  carry_collect b7
cp /tmp/target-binned/release/report gpu-carry2/b7/report-old
carry_pack b7
