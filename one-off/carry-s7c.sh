#!/usr/bin/env bash
# Builds gpu-carry2/c7.tar.xz for one-off/h200-s7c.sh: gpu-conv1d's and gpu-reduce's GPU tests,
# the report and shapes benchmarks of this build, and call B's report (the warpgroup chain
# unserialized, descriptors recomputed per chunk) as report-old, taken from /tmp/b7x.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin c7
(for t in gpu properties kernels; do
   cargo test -p gpu-conv1d --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin report --bin shapes --message-format=json 2>/dev/null) |
  carry_collect c7
cp /tmp/b7x/b7/benches__report gpu-carry2/c7/report-old
carry_pack c7
