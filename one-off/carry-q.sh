#!/usr/bin/env bash
# Builds gpu-carry2/q.tar.xz: gpu-scan's GPU tests and the shapes bench (scan modules rebuilt
# with the shuffle-ended lane fold of the totals pass), and the previous shapes build.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin q
(cargo test -p gpu-scan --release --features cuda --test shaped_gpu --test gpu --test properties --test host_pipeline --test half_gpu --test kernels --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect q
cp /tmp/exp/shapes-base gpu-carry2/q/shapes-base
carry_pack q
